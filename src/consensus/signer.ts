/**
 * The two crypto seams of consensus. Production uses secp256k1 (contract
 * [D-validators-keys]: consensus messages are signed with the validator's ECDSA key); the
 * simulator may plug a cheaper scheme behind the same interfaces (sim/fast-signer.ts).
 */
import { decompressPublicKey, privateKeyToAddress, publicKeyToAddress, sign, verifySigner, verifyWithKey } from '../crypto/secp256k1';
import { hexToBytes } from '../util/bytes';
import type { Address } from '../util/bytes';

export interface Signer {
  readonly address: Address;
  /** 65-byte r‖s‖v signature of a 32-byte digest. Pure: no persistence here (see PrivValidator). */
  sign(digest: Uint8Array): Uint8Array;
}

export interface SignatureVerifier {
  /** Did `signer` sign `digest`? Never throws for a malformed signature: answers false. */
  verify(digest: Uint8Array, signature: Uint8Array, signer: Address): boolean;
}

/** secp256k1, RFC 6979 deterministic nonces, low-s, v = 27/28 (src/crypto/secp256k1.ts). */
export class Secp256k1Signer implements Signer {
  readonly address: Address;
  readonly #privateKey: Uint8Array;

  constructor(privateKey: Uint8Array) {
    this.#privateKey = Uint8Array.from(privateKey);
    this.address = privateKeyToAddress(this.#privateKey);
  }

  sign(digest: Uint8Array): Uint8Array {
    return sign(digest, this.#privateKey);
  }
}

/** Only the 65-byte form: the recovery byte makes verification one recovery, not two. */
export const secp256k1Verifier: SignatureVerifier = {
  verify(digest, signature, signer) {
    return signature.length === 65 && verifySigner(digest, signature, signer);
  },
};

/** Where a validator's public key is known: a fixed list, or a look-up (a node: the validator records of its state). */
export type KnownKeys = readonly { address: Address; ecdsaPubkey: string }[] | ((address: Address) => string | undefined);

/**
 * secp256k1 against the validators' known public keys (genesis `ecdsaPubkey`, and on a
 * node the keys registered validators' records hold): one verification per signature
 * instead of a recovery plus an address hash, about a fifth less of the CPU every
 * validator spends on every vote. A signer whose key is not known (or whose known key
 * does not hash to its address) falls back to recovery. A key that hashes to the
 * address is the address's one key, so it is kept once found.
 * See verifyWithKey for the one difference: the v byte is not bound to the key.
 */
export function knownKeyVerifier(known: KnownKeys): SignatureVerifier {
  const keys = new Map<string, Uint8Array>();
  const learn = (address: string, ecdsaPubkey: string): Uint8Array | undefined => {
    let pub: Uint8Array;
    try {
      pub = decompressPublicKey(hexToBytes(ecdsaPubkey));
    } catch {
      return undefined;
    }
    if (publicKeyToAddress(pub).toLowerCase() !== address.toLowerCase()) return undefined;
    keys.set(address.toLowerCase(), pub);
    return pub;
  };
  const lookup = typeof known === 'function' ? known : undefined;
  if (typeof known !== 'function') for (const v of known) learn(v.address, v.ecdsaPubkey);
  return {
    verify(digest, signature, signer) {
      const address = signer.toLowerCase() as Address;
      let pub = keys.get(address);
      if (pub === undefined && lookup !== undefined) {
        const hex = lookup(address);
        if (hex !== undefined) pub = learn(address, hex);
      }
      if (pub === undefined) return secp256k1Verifier.verify(digest, signature, signer);
      return verifyWithKey(digest, signature, pub);
    },
  };
}
