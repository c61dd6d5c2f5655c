/**
 * ECVRF-EDWARDS25519-SHA512-TAI, the verifiable random function of RFC 9381 (suite
 * string 0x03), on libsodium's ed25519 group operations (sodium-native, decision 116),
 * with the @noble/curves implementation (src/crypto/vrf-reference.ts) as reference and
 * fallback.
 *
 * A validator holding a 32-byte Ed25519 seed proves, for an input alpha, an 80-byte
 * proof pi = Gamma ‖ c ‖ s; anyone holding its 32-byte public key checks pi and gets the
 * 64-byte output beta, which nobody could have predicted before pi and which the prover
 * could not choose. The proposer draw seeds itself from beta (src/consensus/proposer-vrf.ts,
 * decision 70). The RFC's steps and the choices it leaves to the verifier (decision 67)
 * are documented in vrf-reference.ts; this module does the same steps faster.
 *
 * Every validator verifies one proof per block (issue 25): on noble that cost about 3 ms
 * of CPU, twice the whole per-block goal. Here verify is H = encode_to_curve (the
 * try-and-increment candidates decoded and multiplied by the cofactor with libsodium's
 * point addition), U = s·B − c·Y and V = s·H − c·Gamma with libsodium's scalar
 * multiplications, and the challenge over the encodings libsodium returns (canonical, as
 * the RFC's point_to_string). Prove and the public key use libsodium's constant-time
 * multiplications for the secret scalars.
 *
 * The fallback rule (decision 116): libsodium refuses inputs the RFC accepts (a Gamma or
 * public key with a torsion component, which a malicious prover may craft; a zero
 * scalar; a result at infinity), and its point decoding is looser than RFC 8032's on a
 * few encodings. Whenever libsodium reports a refusal, or an encoding is one of those few,
 * the reference (noble) function computes the answer instead. A proof is therefore
 * accepted iff the reference accepts it, with the same beta; which path ran never shows.
 * test/crypto/vrf-native.test.ts compares the two on crafted and random proofs.
 *
 * Input rules: `vrfVerify` never throws; anything malformed gives null. `vrfPublicKey`,
 * `vrfProve` and `vrfProofToHash` throw a RangeError for a seed or proof of the wrong
 * length or a proof that does not decode: they run on the node's own key and proofs,
 * where such input is a bug. The output beta of the last proofs verified is kept, so
 * `vrfProofToHash` of a block just verified is a lookup (decision 106).
 *
 * Pure: no I/O (libsodium is a native library, loaded as the secp256k1 binding is).
 */
import { concatBytes } from '../util/bytes';
import { isIdentity, isPlainEncoding, mulByCofactor, POINT_BYTES, scalarMul, scalarMulBase, SHA512_BYTES, sha512Into, sub } from './ed25519-sodium';
import {
  assertBytes,
  C_LEN,
  CHALLENGE_FRONT,
  DS_BACK,
  ENCODE_FRONT,
  intToLe,
  isBytes,
  leToInt,
  PROOF_TO_HASH_FRONT,
  PT_LEN,
  Q,
  Q_LEN,
  stringToPoint,
  SUITE,
  TAI_MAX_COUNTER,
  VRF_PROOF_BYTES,
  VRF_PUBLIC_KEY_BYTES,
  VRF_SEED_BYTES,
  type VrfProofSteps,
  vrfProofToHashReference,
  vrfProveStepsReference,
  vrfPublicKeyReference,
  vrfVerifyReference,
} from './vrf-reference';

export {
  VRF_OUTPUT_BYTES,
  VRF_PROOF_BYTES,
  vrfEncodeToCurve,
  vrfProofToHashReference,
  vrfProveStepsReference,
  vrfPublicKeyReference,
  vrfVerifyReference,
} from './vrf-reference';

/** q as 32 little-endian bytes, for the range check of s without a bigint. */
const Q_BYTES = intToLe(Q, Q_LEN);

/** True when the 32-byte little-endian integer at bytes[offset…] is below q. */
function belowQ(bytes: Uint8Array, offset: number): boolean {
  for (let i = Q_LEN - 1; i >= 0; i--) {
    const d = bytes[offset + i] - Q_BYTES[i];
    if (d !== 0) return d < 0;
  }
  return false;
}

function sha512(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(SHA512_BYTES);
  sha512Into(out, input);
  return out;
}

/**
 * §5.4.1.1 encode_to_curve (try-and-increment) on libsodium: for each counter, the
 * candidate's cofactor multiple is computed by libsodium's point addition, which also
 * decodes it; a candidate it does not decode is not a point (for a plain encoding the
 * two decoders agree, see ed25519-sodium.ts), and the few encodings that are not plain
 * are decoded by noble. H's encoding and the counter; undefined if all 256 counters fail
 * (probability about 2^-256), for which the caller asks the reference.
 */
function encodeToCurveNative(publicKey: Uint8Array, alpha: Uint8Array): { h: Uint8Array; ctr: number } | undefined {
  const input = new Uint8Array(2 + publicKey.length + alpha.length + 2);
  input[0] = SUITE;
  input[1] = ENCODE_FRONT;
  input.set(publicKey, 2);
  input.set(alpha, 2 + publicKey.length);
  const ctrAt = input.length - 2;
  input[input.length - 1] = DS_BACK;
  const digest = new Uint8Array(SHA512_BYTES);
  const candidate = digest.subarray(0, PT_LEN);
  for (let ctr = 0; ctr <= TAI_MAX_COUNTER; ctr++) {
    input[ctrAt] = ctr;
    sha512Into(digest, input);
    let h: Uint8Array;
    if (isPlainEncoding(candidate)) {
      h = new Uint8Array(POINT_BYTES);
      if (!mulByCofactor(h, candidate)) continue;
    } else {
      const point = stringToPoint(candidate);
      if (point === null) continue;
      h = point.clearCofactor().toBytes();
    }
    if (!isIdentity(h)) return { h, ctr };
  }
  return undefined;
}

/** §5.4.3 challenge over (Y, H, Gamma, U, V), already encoded: the first cLen bytes of
 *  SHA-512(suite ‖ 0x02 ‖ P1 ‖ … ‖ P5 ‖ 0x00). */
function challengeBytes(points: readonly Uint8Array[]): Uint8Array {
  const input = new Uint8Array(2 + PT_LEN * points.length + 1);
  input[0] = SUITE;
  input[1] = CHALLENGE_FRONT;
  points.forEach((p, i) => input.set(p, 2 + PT_LEN * i));
  input[input.length - 1] = DS_BACK;
  return sha512(input).subarray(0, C_LEN);
}

/** §5.2 steps 3–6 from Gamma's plain encoding: SHA-512(suite ‖ 0x03 ‖ 8·Gamma ‖ 0x00);
 *  undefined if libsodium does not decode Gamma. */
function hashGammaNative(gamma: Uint8Array): Uint8Array | undefined {
  const input = new Uint8Array(2 + PT_LEN + 1);
  input[0] = SUITE;
  input[1] = PROOF_TO_HASH_FRONT;
  if (!mulByCofactor(input.subarray(2, 2 + PT_LEN), gamma)) return undefined;
  input[input.length - 1] = DS_BACK;
  return sha512(input);
}

/** beta of the proofs `vrfVerify` accepted last (by proof bytes): a block's proof is
 *  verified when it is proposed, and its beta is asked for again when it is committed. */
const BETA_CACHE_MAX = 64;
const betaCache = new Map<string, Uint8Array>();
const proofKey = (proof: Uint8Array): string => Buffer.from(proof.buffer, proof.byteOffset, proof.length).toString('hex');

function rememberBeta(proof: Uint8Array, beta: Uint8Array): void {
  if (betaCache.size >= BETA_CACHE_MAX) betaCache.delete(betaCache.keys().next().value!);
  betaCache.set(proofKey(proof), beta);
}

/**
 * The secret scalar x (RFC 8032: the first half of SHA-512(seed), clamped, here reduced
 * mod q; x·P is the same point for P in the prime-order subgroup) and the nonce prefix
 * (the second half).
 */
function secretScalar(secretSeed: Uint8Array): { x: bigint; prefix: Uint8Array } {
  const digest = sha512(secretSeed);
  const head = digest.slice(0, 32);
  head[0] &= 248;
  head[31] &= 127;
  head[31] |= 64;
  const x = leToInt(head) % Q;
  head.fill(0);
  return { x, prefix: digest.subarray(32) };
}

/**
 * The VRF public key of a 32-byte seed: Y = x·B with x the RFC 8032 secret scalar
 * (§5.1 step 1), i.e. the Ed25519 public key of the seed.
 */
export function vrfPublicKey(secretSeed: Uint8Array): Uint8Array {
  assertBytes(secretSeed, VRF_SEED_BYTES, 'secret seed');
  const xBytes = intToLe(secretScalar(secretSeed).x, Q_LEN);
  const publicKey = new Uint8Array(POINT_BYTES);
  const done = scalarMulBase(publicKey, xBytes);
  xBytes.fill(0);
  return done ? publicKey : vrfPublicKeyReference(secretSeed);
}

/** §5.1 ECVRF_prove on libsodium, keeping every intermediate value; undefined where
 *  libsodium refuses (x or k ≡ 0 mod q, probability about 2^-252 each). */
function proveStepsNative(secretSeed: Uint8Array, alpha: Uint8Array): VrfProofSteps | undefined {
  const { x, prefix } = secretScalar(secretSeed);
  const xBytes = intToLe(x, Q_LEN);
  const publicKey = new Uint8Array(POINT_BYTES);
  const gamma = new Uint8Array(POINT_BYTES);
  const u = new Uint8Array(POINT_BYTES);
  const v = new Uint8Array(POINT_BYTES);
  try {
    if (!scalarMulBase(publicKey, xBytes)) return undefined;
    const encoded = encodeToCurveNative(publicKey, alpha);
    if (encoded === undefined) return undefined;
    const { h, ctr } = encoded;
    if (!scalarMul(gamma, xBytes, h)) return undefined;
    // §5.4.2.2: k = SHA-512(prefix ‖ h_string) mod q.
    const k = leToInt(sha512(concatBytes(prefix, h))) % Q;
    const kBytes = intToLe(k, Q_LEN);
    const done = scalarMulBase(u, kBytes) && scalarMul(v, kBytes, h);
    kBytes.fill(0);
    if (!done) return undefined;
    const cBytes = challengeBytes([publicKey, h, gamma, u, v]);
    const c = leToInt(cBytes);
    const s = (k + c * x) % Q;
    const pi = concatBytes(gamma, cBytes, intToLe(s, Q_LEN));
    return { x, publicKey, h, ctr, k, u, v, gamma, c, s, pi };
  } finally {
    xBytes.fill(0);
  }
}

/** §5.1 ECVRF_prove, keeping every intermediate value (the reference's where libsodium
 *  refuses: then the reference throws as well). */
export function vrfProveSteps(secretSeed: Uint8Array, alpha: Uint8Array): VrfProofSteps {
  assertBytes(secretSeed, VRF_SEED_BYTES, 'secret seed');
  if (!isBytes(alpha)) throw new RangeError('vrf: alpha must be a Uint8Array');
  return proveStepsNative(secretSeed, alpha) ?? vrfProveStepsReference(secretSeed, alpha);
}

/** §5.1 ECVRF_prove: the 80-byte proof pi = Gamma ‖ c (16) ‖ s (32) of alpha under the
 *  seed's key. Deterministic. Throws a RangeError for a seed that is not 32 bytes. */
export function vrfProve(secretSeed: Uint8Array, alpha: Uint8Array): Uint8Array {
  return vrfProveSteps(secretSeed, alpha).pi;
}

/**
 * §5.2 ECVRF_proof_to_hash: the 64-byte output beta of a proof, without checking it
 * against a key or input (only a proof `vrfVerify` accepted, or one's own, means
 * anything). Throws a RangeError for a proof that is not 80 bytes or does not decode.
 */
export function vrfProofToHash(proof: Uint8Array): Uint8Array {
  assertBytes(proof, VRF_PROOF_BYTES, 'proof');
  const known = betaCache.get(proofKey(proof));
  if (known !== undefined) return known.slice();
  const gamma = proof.slice(0, PT_LEN);
  if (isPlainEncoding(gamma) && belowQ(proof, PT_LEN + C_LEN)) {
    const beta = hashGammaNative(gamma);
    if (beta !== undefined) return beta;
  }
  return vrfProofToHashReference(proof);
}

/**
 * §5.3 ECVRF_verify on libsodium: beta, null for a proof whose recomputed challenge
 * differs, or undefined where libsodium refused something (the reference decides).
 */
function verifyNative(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | null | undefined {
  const gamma = proof.slice(0, PT_LEN);
  // Plain encodings of Y and Gamma (and libsodium's own checks in scalarMul) make the
  // received bytes the RFC's point_to_string of the decoded points.
  if (!isPlainEncoding(publicKey) || !isPlainEncoding(gamma)) return undefined;
  if (!belowQ(proof, PT_LEN + C_LEN)) return undefined;
  const c = new Uint8Array(Q_LEN);
  c.set(proof.subarray(PT_LEN, PT_LEN + C_LEN));
  const s = proof.slice(PT_LEN + C_LEN, PT_LEN + C_LEN + Q_LEN);
  const encoded = encodeToCurveNative(publicKey, alpha);
  if (encoded === undefined) return undefined;
  const { h } = encoded;
  // U = s·B − c·Y, V = s·H − c·Gamma. scalarMul refuses a key or Gamma of small order,
  // not canonical or with a torsion component, and c = 0; scalarMulBase s = 0.
  const sB = new Uint8Array(POINT_BYTES);
  const cY = new Uint8Array(POINT_BYTES);
  const sH = new Uint8Array(POINT_BYTES);
  const cGamma = new Uint8Array(POINT_BYTES);
  if (!scalarMulBase(sB, s) || !scalarMul(cY, c, publicKey) || !scalarMul(sH, s, h) || !scalarMul(cGamma, c, gamma)) return undefined;
  const u = sB;
  const v = sH;
  if (!sub(u, sB, cY) || !sub(v, sH, cGamma)) return undefined;
  const cPrime = challengeBytes([publicKey, h, gamma, u, v]);
  for (let i = 0; i < C_LEN; i++) if (cPrime[i] !== proof[PT_LEN + i]) return null;
  return hashGammaNative(gamma);
}

/**
 * §5.3 ECVRF_verify with validate_key = TRUE: the 64-byte beta if `proof` proves `alpha`
 * under `publicKey`, else null. Never throws. Refused: a key or Gamma that does not
 * decode strictly (RFC 8032 §5.1.3), a small-order key (§5.4.5), s ≥ q (§5.4.4), and any
 * proof whose recomputed challenge differs. The same answers as `vrfVerifyReference`.
 */
export function vrfVerify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | null {
  if (!isBytes(publicKey, VRF_PUBLIC_KEY_BYTES) || !isBytes(alpha) || !isBytes(proof, VRF_PROOF_BYTES)) return null;
  const native = verifyNative(publicKey, alpha, proof);
  const beta = native === undefined ? vrfVerifyReference(publicKey, alpha, proof) : native;
  if (beta === null) return null;
  rememberBeta(proof, beta);
  return beta.slice();
}
