/**
 * SIM-ONLY signature scheme behind the consensus Signer / SignatureVerifier interfaces.
 *
 * A "signature" is SHA-256(secret of the validator ‖ digest) padded to 65 bytes (a MAC
 * with a fixed-length key); the
 * verifier holds every validator's secret. It is not a signature scheme (whoever
 * verifies can forge), which is fine inside one simulated process: the simulator only
 * needs "a Byzantine node cannot sign for an honest one", and the Byzantine node is
 * given nothing but its own FastSigner. It costs ~2 µs against ~60 µs for a secp256k1
 * recovery, which is what makes hours of simulated time affordable. `--crypto real`
 * runs the same simulation with secp256k1 (src/consensus/signer.ts).
 *
 * A validator the verifier is told signs for real (`signsForReal`: the Byzantine one of
 * the lifecycle scenario, whose double votes become a DoubleSignEvidence transaction
 * that execution checks by secp256k1 recovery) is verified by secp256k1.
 */
import { hash } from 'node:crypto';
import { secp256k1Verifier, type Signer, type SignatureVerifier } from '../src/consensus/signer';
import type { Address } from '../src/util/bytes';
import { bytesToHex } from '../src/util/bytes';
import { keccak256 } from '../src/crypto/keccak';

export class FastSigner implements Signer {
  readonly address: Address;

  /** `address`: the key's secp256k1 address when its transactions must be signed for real too (sim/cluster.ts). */
  constructor(
    readonly secret: Uint8Array,
    address?: Address,
  ) {
    this.address = address ?? (bytesToHex(keccak256(secret).subarray(12)) as Address);
  }

  sign(digest: Uint8Array): Uint8Array {
    return fastSign(this.secret, digest);
  }
}

function fastSign(secret: Uint8Array, digest: Uint8Array): Uint8Array {
  const buf = new Uint8Array(secret.length + digest.length);
  buf.set(secret, 0);
  buf.set(digest, secret.length);
  const mac = hash('sha256', buf, 'buffer');
  const out = new Uint8Array(65);
  out.set(mac, 0);
  out[64] = 27;
  return out;
}

export class FastVerifier implements SignatureVerifier {
  readonly #secrets = new Map<Address, Uint8Array>();

  constructor(signers: readonly FastSigner[]) {
    for (const s of signers) this.#secrets.set(s.address, s.secret);
  }

  readonly #real = new Set<Address>();

  /** From now on `address` signs with its secp256k1 key: its signatures are verified by recovery. */
  signsForReal(address: Address): void {
    this.#real.add(address);
    this.#secrets.delete(address);
  }

  verify(digest: Uint8Array, signature: Uint8Array, signer: Address): boolean {
    if (this.#real.has(signer)) return secp256k1Verifier.verify(digest, signature, signer);
    const secret = this.#secrets.get(signer);
    if (secret === undefined || signature.length !== 65) return false;
    const want = fastSign(secret, digest);
    for (let i = 0; i < 65; i++) if (want[i] !== signature[i]) return false;
    return true;
  }
}
