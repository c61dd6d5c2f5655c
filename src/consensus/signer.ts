/**
 * The two crypto seams of consensus. Production uses secp256k1 (DECISIONS
 * "Validators": consensus messages are signed with the validator's ECDSA key); the
 * simulator may plug a cheaper scheme behind the same interfaces (sim/fast-signer.ts).
 */
import { privateKeyToAddress, sign, verifySigner } from '../crypto/secp256k1';
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
