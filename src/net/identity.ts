/**
 * The chain identity two peers compare when they connect: network name, chain id and
 * genesis hash. Two nodes of one chain id but another genesis (a devnet trimmed to 4
 * validators beside one of 6, a testnet restarted from a new genesis) share every
 * protocol name and validator key, so without this check they would exchange votes and
 * blocks that can only fail, and the operator would see sync refusals instead of the
 * cause. The protocol name carries no chain id, so a peer of another chain answers too.
 *
 * Wire form of the answer: u8 version | u64 chainId | genesis hash (32) | string network.
 * The request is empty.
 */
import { Reader, Writer } from '../codec/binary';
import { bytesToHex, equalBytes } from '../util/bytes';

export const IDENTITY_PROTOCOL = '/exchange/identity/1';
const IDENTITY_VERSION = 1;
/** Network names are short words (devnet, testnet, mainnet, a `genesis new` name). */
const NETWORK_CHARS_MAX = 64;
export const IDENTITY_BYTES_MAX = 1 + 8 + 32 + 4 + NETWORK_CHARS_MAX;

export interface ChainIdentity {
  network: string;
  chainId: number;
  genesisHash: Uint8Array;
}

export function encodeIdentity(id: ChainIdentity): Uint8Array {
  return new Writer(IDENTITY_BYTES_MAX).u8(IDENTITY_VERSION).u64(id.chainId).fixed(id.genesisHash, 32).string(id.network.slice(0, NETWORK_CHARS_MAX)).finish();
}

/** @throws on anything that is not one well-formed identity. */
export function decodeIdentity(bytes: Uint8Array): ChainIdentity {
  if (bytes.length > IDENTITY_BYTES_MAX) throw new Error(`identity of ${bytes.length} bytes, over ${IDENTITY_BYTES_MAX}`);
  const r = new Reader(bytes);
  const version = r.u8();
  if (version !== IDENTITY_VERSION) throw new Error(`identity version ${version}, this node speaks ${IDENTITY_VERSION}`);
  const chainId = r.u64();
  const genesisHash = r.fixed(32);
  const network = r.string(NETWORK_CHARS_MAX);
  r.end();
  return { network, chainId, genesisHash };
}

export type IdentityMismatch = { code: 'WRONG_CHAIN' | 'WRONG_GENESIS'; reason: string };

/** Null when the peer runs this node's chain; otherwise why not, in words. */
export function compareIdentity(own: ChainIdentity, peer: ChainIdentity): IdentityMismatch | null {
  if (peer.chainId !== own.chainId) {
    return { code: 'WRONG_CHAIN', reason: `the peer runs ${peer.network} (chain id ${peer.chainId}), this node ${own.network} (chain id ${own.chainId})` };
  }
  if (!equalBytes(peer.genesisHash, own.genesisHash)) {
    return {
      code: 'WRONG_GENESIS',
      reason: `the peer's genesis is ${bytesToHex(peer.genesisHash)}, this node's ${bytesToHex(own.genesisHash)} (same chain id ${own.chainId})`,
    };
  }
  return null;
}
