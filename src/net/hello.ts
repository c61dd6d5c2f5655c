/**
 * The validator hello (decision 71): how a node proves to a peer that the libp2p peer it
 * speaks from belongs to a validator, when the peer id does not follow from the
 * validator's key (a node started from a key file, `npm run node -- start --home`, has a
 * separate Ed25519 peer key). The validator signs, with its secp256k1 validator key, a
 * domain-separated digest binding the chain id and its own peer id; the receiver checks
 * the chain id, that the peer id is the one the connection authenticated (noise), that
 * the signature recovers the claimed address, and that the address is a validator of the
 * chain state (registered, active or jailed). A hello cannot be replayed by another peer
 * (it names the peer id) nor on another chain (it names the chain id).
 *
 * Wire form: u8 version | u64 chainId | string peerId | address (20) | signature (65, r‖s‖v).
 */
import { Reader, Writer } from '../codec/binary';
import { keccak256 } from '../crypto/keccak';
import { privateKeyToAddress, recoverAddress, sign } from '../crypto/secp256k1';
import { utf8, type Address } from '../util/bytes';

const HELLO_VERSION = 1;
/** The domain of the signed digest: nothing else this chain signs starts so. */
const HELLO_DOMAIN = 'exchange-chain/p2p-hello/v1';
const DOMAIN_BYTES = utf8.encode(HELLO_DOMAIN);
/** A peer id is a base58 multihash of a few dozen characters; anything far longer is not one. */
const PEER_ID_CHARS_MAX = 128;
/** The largest hello: version, chain id, peer id, address, signature. */
export const HELLO_BYTES_MAX = 1 + 8 + 4 + PEER_ID_CHARS_MAX + 20 + 65;

export interface Hello {
  chainId: number;
  peerId: string;
  address: Address;
  /** 65 bytes r‖s‖v over helloDigest(chainId, peerId). */
  signature: Uint8Array;
}

/** keccak256(HELLO_DOMAIN ‖ u64 chainId ‖ peerId as UTF-8): what the validator key signs. */
function helloDigest(chainId: number, peerId: string): Uint8Array {
  return keccak256(new Writer(128).fixed(DOMAIN_BYTES, DOMAIN_BYTES.length).u64(chainId).string(peerId).finish());
}

/** The hello of the holder of `validatorKey`, speaking from `peerId` on `chainId`. */
export function signHello(validatorKey: Uint8Array, chainId: number, peerId: string): Hello {
  return { chainId, peerId, address: privateKeyToAddress(validatorKey), signature: sign(helloDigest(chainId, peerId), validatorKey) };
}

export function encodeHello(h: Hello): Uint8Array {
  return new Writer(HELLO_BYTES_MAX).u8(HELLO_VERSION).u64(h.chainId).string(h.peerId).address(h.address).fixed(h.signature, 65).finish();
}

/** @throws on anything that is not one well-formed hello. */
export function decodeHello(bytes: Uint8Array): Hello {
  if (bytes.length > HELLO_BYTES_MAX) throw new Error(`hello of ${bytes.length} bytes, over ${HELLO_BYTES_MAX}`);
  const r = new Reader(bytes);
  const version = r.u8();
  if (version !== HELLO_VERSION) throw new Error(`hello version ${version}, this node speaks ${HELLO_VERSION}`);
  const chainId = r.u64();
  const peerId = r.string(PEER_ID_CHARS_MAX);
  const address = r.address() as Address;
  const signature = r.fixed(65);
  r.end();
  return { chainId, peerId, address, signature };
}

export type HelloVerdict =
  | { ok: true; address: Address }
  | { ok: false; code: 'MALFORMED' | 'WRONG_CHAIN' | 'PEER_MISMATCH' | 'BAD_SIGNATURE' | 'NOT_A_VALIDATOR'; reason: string };

/**
 * Judges a hello received from the peer `from` (the id the connection authenticated).
 * `isValidator` answers from the chain state whether an address may take part in
 * consensus now or soon (registered, active, jailed).
 */
export function verifyHello(bytes: Uint8Array, expect: { chainId: number; from: string; isValidator: (a: Address) => boolean }): HelloVerdict {
  let h: Hello;
  try {
    h = decodeHello(bytes);
  } catch (err) {
    return { ok: false, code: 'MALFORMED', reason: (err as Error).message };
  }
  if (h.chainId !== expect.chainId) return { ok: false, code: 'WRONG_CHAIN', reason: `hello for chain ${h.chainId}, this is chain ${expect.chainId}` };
  if (h.peerId !== expect.from) return { ok: false, code: 'PEER_MISMATCH', reason: `hello names peer ${h.peerId}, it came from ${expect.from}` };
  let signer: Address | null;
  try {
    signer = recoverAddress(helloDigest(h.chainId, h.peerId), h.signature);
  } catch (err) {
    return { ok: false, code: 'BAD_SIGNATURE', reason: (err as Error).message };
  }
  if (signer !== h.address) return { ok: false, code: 'BAD_SIGNATURE', reason: `signature is not ${h.address}'s` };
  if (!expect.isValidator(h.address)) return { ok: false, code: 'NOT_A_VALIDATOR', reason: `${h.address} is not a registered, active or jailed validator` };
  return { ok: true, address: h.address };
}
