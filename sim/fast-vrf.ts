/**
 * SIM-ONLY VRFs behind the VrfScheme interface of src/consensus/proposer-vrf.ts, for the
 * proposer's proof in every simulated block (decision 70).
 *
 * FastVrf (`--crypto fast`, the default): a "proof" is SHA-512(secret ‖ alpha) and 16
 * zero bytes (80 bytes, the ECVRF length); the output is SHA-512 of a tag and its first
 * 64 bytes; the public key is the real Ed25519 key of the secret (a RegisterValidator
 * transaction must carry a valid point), and the verifier holds
 * every validator's secret by public key. As with FastSigner, whoever verifies could
 * prove for anyone, which is fine inside one process: the output is still a function of
 * (key, alpha) that only the key's holder among the nodes can compute, and a proof under
 * another key, over another alpha or altered in any byte is refused. It costs a few µs
 * against ~6 ms to prove and ~5 ms to verify an ECVRF (`npm run bench -- crypto`), which
 * would make the simulator's runs several times slower.
 *
 * SharedVrf (`--crypto real`): the real ECVRF, with its answers kept for the whole
 * simulated world: every node validates every block, and the verification of one
 * (key, alpha, proof) is done once per world rather than once per node (it is a pure
 * function of those bytes, so the kept answer is the one each node would compute).
 */
import { hash } from 'node:crypto';
import { ECVRF, type VrfScheme } from '../src/consensus/proposer-vrf';
import { vrfPublicKey } from '../src/crypto/vrf';
import { bytesToHex, concatBytes, utf8 } from '../src/util/bytes';

const PROOF_BYTES = 80;
const OUTPUT_TAG = utf8.encode('sim-fast-vrf/output');

const sha512 = (b: Uint8Array): Uint8Array => new Uint8Array(hash('sha512', b, 'buffer'));

export class FastVrf implements VrfScheme {
  readonly #secrets = new Map<string, Uint8Array>();

  /** The public key of `secret`, remembered so that proofs under it verify. */
  publicKey(secret: Uint8Array): Uint8Array {
    // The real Ed25519 key of the secret: a RegisterValidator transaction must carry a valid point.
    const pk = vrfPublicKey(secret);
    this.#secrets.set(bytesToHex(pk), secret);
    return pk;
  }

  prove(secret: Uint8Array, alpha: Uint8Array): Uint8Array {
    const proof = new Uint8Array(PROOF_BYTES);
    proof.set(sha512(concatBytes(secret, alpha)), 0);
    return proof;
  }

  verify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | null {
    const secret = this.#secrets.get(bytesToHex(publicKey));
    if (secret === undefined || proof.length !== PROOF_BYTES) return null;
    const want = this.prove(secret, alpha);
    for (let i = 0; i < PROOF_BYTES; i++) if (want[i] !== proof[i]) return null;
    return this.proofToHash(proof);
  }

  proofToHash(proof: Uint8Array): Uint8Array {
    return sha512(concatBytes(OUTPUT_TAG, proof.subarray(0, 64)));
  }
}

/** Answers kept at most (a simulated world checks the blocks of the last few heights). */
const SHARED_KEPT_MAX = 4_096;

export class SharedVrf implements VrfScheme {
  readonly #verified = new Map<string, Uint8Array | null>();
  readonly #proved = new Map<string, Uint8Array>();
  readonly #outputs = new Map<string, Uint8Array>();
  /** ECVRF proofs and verifications done (the rest were answered from the kept ones). */
  proofs = 0;
  verifications = 0;

  publicKey(secret: Uint8Array): Uint8Array {
    return vrfPublicKey(secret);
  }

  prove(secret: Uint8Array, alpha: Uint8Array): Uint8Array {
    return kept(this.#proved, `${bytesToHex(secret)}:${bytesToHex(alpha)}`, () => {
      this.proofs++;
      return ECVRF.prove(secret, alpha);
    });
  }

  verify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | null {
    return kept(this.#verified, `${bytesToHex(publicKey)}:${bytesToHex(alpha)}:${bytesToHex(proof)}`, () => {
      this.verifications++;
      return ECVRF.verify(publicKey, alpha, proof);
    });
  }

  proofToHash(proof: Uint8Array): Uint8Array {
    return kept(this.#outputs, bytesToHex(proof), () => ECVRF.proofToHash(proof));
  }
}

function kept<T>(map: Map<string, T>, key: string, compute: () => T): T {
  if (map.has(key)) return map.get(key) as T;
  const value = compute();
  if (map.size >= SHARED_KEPT_MAX) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}
