/**
 * The reference ECVRF-EDWARDS25519-SHA512-TAI (RFC 9381, suite string 0x03), on
 * @noble/curves' ed25519 group and @noble/hashes' SHA-512: the RFC's steps as written,
 * in pure JavaScript. src/crypto/vrf.ts runs the same steps on libsodium's group
 * operations and falls back to these functions whenever libsodium refuses an input
 * (decision 116); the tests compare the two on every kind of proof.
 *
 * The RFC's steps, each in the function named after it:
 *   prove §5.1, proof_to_hash §5.2, verify §5.3 (validate_key = TRUE, §5.4.5),
 *   encode_to_curve by try-and-increment §5.4.1.1, nonce generation §5.4.2.2 (RFC 8032
 *   style), challenge generation §5.4.3, decode_proof §5.4.4.
 * Integers are little-endian (§5.5: int_to_string for this suite); points use RFC 8032's
 * encoding, decoded strictly (y < p, no x = 0 with the sign bit set: RFC 8032 §5.1.3,
 * which §5.5 names; not ZIP-215). decision 67 records the choices the RFC
 * leaves to the verifier.
 *
 * Input rules: `vrfVerifyReference` never throws; anything malformed (wrong type or
 * length, a public key or Gamma that does not decode, a small-order key, s ≥ q) gives
 * null. The prover's functions and `vrfProofToHashReference` throw a RangeError for a
 * seed or proof of the wrong length or a proof that does not decode.
 *
 * Pure: no I/O. The secret scalar multiplications use noble's constant-time `multiply`;
 * verification, on public data only, the faster variable-time forms: a public key is
 * decoded and checked once and kept with a precomputed multiplication table (decision
 * 106; a validator set has a few keys), and V = s·H − c·Gamma is one interleaved
 * multiplication (one doubling chain, not two).
 */
import { mulAddUnsafe } from '@noble/curves/abstract/curve.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes } from '../util/bytes';

/** RFC 9381 §5.5: the suite string of ECVRF-EDWARDS25519-SHA512-TAI. */
export const SUITE = 0x03;
/** Domain separators of §5.4.1.1 (encode to curve), §5.4.3 (challenge), §5.2 (hash). */
export const ENCODE_FRONT = 0x01;
export const CHALLENGE_FRONT = 0x02;
export const PROOF_TO_HASH_FRONT = 0x03;
export const DS_BACK = 0x00;

/** Lengths of the suite (§5.5): ptLen, cLen, qLen, and what they add up to. */
export const VRF_SEED_BYTES = 32;
export const VRF_PUBLIC_KEY_BYTES = 32;
export const VRF_PROOF_BYTES = 80;
export const VRF_OUTPUT_BYTES = 64;
export const PT_LEN = 32;
export const C_LEN = 16;
export const Q_LEN = 32;

const Point = ed25519.Point;
export type EdPoint = InstanceType<typeof ed25519.Point>;
/** q, the order of the prime subgroup (the scalar field). */
export const Q = Point.Fn.ORDER;
/** int_to_string(ctr, 1) can count 0..255; past that §5.4.1.1 has no encoding left. */
export const TAI_MAX_COUNTER = 255;

/** string_to_int for this suite: little-endian. */
export function leToInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

/** int_to_string(n, len) for this suite: little-endian, `n` known to fit. */
export function intToLe(n: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

/** string_to_point (RFC 8032 §5.1.3, strict): null where the RFC says "INVALID". */
export function stringToPoint(bytes: Uint8Array): EdPoint | null {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return null;
  }
}

export function isBytes(value: unknown, length?: number): value is Uint8Array {
  return value instanceof Uint8Array && (length === undefined || value.length === length);
}

export function assertBytes(value: unknown, length: number, name: string): asserts value is Uint8Array {
  if (!isBytes(value, length)) throw new RangeError(`vrf: ${name} must be ${length} bytes`);
}

/**
 * §5.4.1.1 ECVRF_encode_to_curve_try_and_increment, salt = PK_string: hash suite ‖ 0x01 ‖
 * PK ‖ alpha ‖ ctr ‖ 0x00, read the first 32 bytes as a point, clear the cofactor, and
 * count up until that is a point other than the identity. Null only if all 256 counters
 * fail (probability about 2^-256).
 */
export function vrfEncodeToCurve(publicKey: Uint8Array, alpha: Uint8Array): { point: EdPoint; ctr: number } | null {
  const prefix = concatBytes(Uint8Array.of(SUITE, ENCODE_FRONT), publicKey, alpha);
  const input = new Uint8Array(prefix.length + 2);
  input.set(prefix, 0);
  input[input.length - 1] = DS_BACK;
  for (let ctr = 0; ctr <= TAI_MAX_COUNTER; ctr++) {
    input[prefix.length] = ctr;
    const candidate = stringToPoint(sha512(input).subarray(0, PT_LEN));
    if (candidate === null) continue;
    const cleared = candidate.clearCofactor();
    if (!cleared.is0()) return { point: cleared, ctr };
  }
  return null;
}

/** §5.4.2.2 nonce generation: k = SHA-512(SHA-512(SK)[32..63] ‖ h_string) mod q, from the
 *  key's prefix (the second half of SHA-512(SK), as RFC 8032 signing uses it). */
function nonceFromPrefix(prefix: Uint8Array, hString: Uint8Array): bigint {
  return leToInt(sha512(concatBytes(prefix, hString))) % Q;
}

/** §5.4.3 challenge generation over (Y, H, Gamma, U, V), already encoded: the first cLen
 *  bytes of SHA-512(suite ‖ 0x02 ‖ P1 ‖ … ‖ P5 ‖ 0x00), as an integer. */
export function challenge(points: readonly Uint8Array[]): bigint {
  const input = new Uint8Array(2 + PT_LEN * points.length + 1);
  input[0] = SUITE;
  input[1] = CHALLENGE_FRONT;
  points.forEach((p, i) => input.set(p, 2 + PT_LEN * i));
  input[input.length - 1] = DS_BACK;
  return leToInt(sha512(input).subarray(0, C_LEN));
}

/** §5.4.4 decode_proof: Gamma must decode, s must be below q. Null is "INVALID". */
function decodeProof(proof: Uint8Array): { gamma: EdPoint; c: bigint; s: bigint } | null {
  if (!isBytes(proof, VRF_PROOF_BYTES)) return null;
  const gamma = stringToPoint(proof.subarray(0, PT_LEN));
  if (gamma === null) return null;
  const c = leToInt(proof.subarray(PT_LEN, PT_LEN + C_LEN));
  const s = leToInt(proof.subarray(PT_LEN + C_LEN, PT_LEN + C_LEN + Q_LEN));
  if (s >= Q) return null;
  return { gamma, c, s };
}

/** Public keys seen by `vrfVerifyReference`: the decoded point with a multiplication table, or null
 *  for a key refused (does not decode, small order). Bounded: cleared when full. */
const KEY_CACHE_MAX = 1_024;
const keyCache = new Map<string, EdPoint | null>();
/** Window of the keys' tables: 6 bits (noble's default), about 1,400 points built once. */
const KEY_TABLE_WINDOW_BITS = 6;

function verifiedKey(publicKey: Uint8Array): EdPoint | null {
  const hex = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.length).toString('hex');
  const hit = keyCache.get(hex);
  if (hit !== undefined) return hit;
  const Y = stringToPoint(publicKey);
  const key = Y === null || Y.isSmallOrder() ? null : Y.precompute(KEY_TABLE_WINDOW_BITS);
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(hex, key);
  return key;
}

/** §5.2 steps 3–6: beta = SHA-512(suite ‖ 0x03 ‖ point_to_string(cofactor·Gamma) ‖ 0x00). */
function hashGamma(gamma: EdPoint): Uint8Array {
  return sha512(concatBytes(Uint8Array.of(SUITE, PROOF_TO_HASH_FRONT), gamma.clearCofactor().toBytes(), Uint8Array.of(DS_BACK)));
}

/**
 * The VRF public key of a 32-byte seed: Y = x·B with x the RFC 8032 secret scalar
 * (§5.1 step 1), i.e. the Ed25519 public key of the seed.
 */
export function vrfPublicKeyReference(secretSeed: Uint8Array): Uint8Array {
  assertBytes(secretSeed, VRF_SEED_BYTES, 'secret seed');
  return ed25519.utils.getExtendedPublicKey(secretSeed).pointBytes;
}

/** Every value §5.1 computes on the way to pi, in the RFC's names (for the tests of the
 *  appendix's intermediate values); `vrfProve` (src/crypto/vrf.ts) returns its `pi`. */
export interface VrfProofSteps {
  /** The secret scalar x (reduced mod q; x·P is the same point for P in the subgroup). */
  x: bigint;
  publicKey: Uint8Array;
  /** H = encode_to_curve(PK, alpha), encoded, and the counter try-and-increment stopped at. */
  h: Uint8Array;
  ctr: number;
  /** The nonce k (§5.4.2.2), reduced mod q. */
  k: bigint;
  /** U = k·B and V = k·H, encoded. */
  u: Uint8Array;
  v: Uint8Array;
  gamma: Uint8Array;
  c: bigint;
  s: bigint;
  pi: Uint8Array;
}

/** §5.1 ECVRF_prove, keeping every intermediate value. */
export function vrfProveStepsReference(secretSeed: Uint8Array, alpha: Uint8Array): VrfProofSteps {
  assertBytes(secretSeed, VRF_SEED_BYTES, 'secret seed');
  if (!isBytes(alpha)) throw new RangeError('vrf: alpha must be a Uint8Array');
  const { scalar: x, prefix, pointBytes: publicKey } = ed25519.utils.getExtendedPublicKey(secretSeed);
  const encoded = vrfEncodeToCurve(publicKey, alpha);
  if (encoded === null) throw new RangeError('vrf: try-and-increment found no point for this input');
  const H = encoded.point;
  const h = H.toBytes();
  const gamma = H.multiply(x).toBytes();
  const k = nonceFromPrefix(prefix, h);
  // k = 0 has probability 2^-252; noble's constant-time multiply refuses it rather than
  // return the identity, and so would a proof from it leak x (s = c·x).
  const u = Point.BASE.multiply(k).toBytes();
  const v = H.multiply(k).toBytes();
  const c = challenge([publicKey, h, gamma, u, v]);
  const s = (k + c * x) % Q;
  const pi = concatBytes(gamma, intToLe(c, C_LEN), intToLe(s, Q_LEN));
  return { x, publicKey, h, ctr: encoded.ctr, k, u, v, gamma, c, s, pi };
}

/**
 * §5.2 ECVRF_proof_to_hash: the 64-byte output beta of a proof, without checking it
 * against a key or input (only a proof `vrfVerify` accepted, or one's own, means
 * anything). Throws a RangeError for a proof that is not 80 bytes or does not decode.
 */
export function vrfProofToHashReference(proof: Uint8Array): Uint8Array {
  assertBytes(proof, VRF_PROOF_BYTES, 'proof');
  const decoded = decodeProof(proof);
  if (decoded === null) throw new RangeError('vrf: proof does not decode (Gamma not a point, or s >= q)');
  return hashGamma(decoded.gamma);
}

/**
 * §5.3 ECVRF_verify with validate_key = TRUE: the 64-byte beta if `proof` proves `alpha`
 * under `publicKey`, else null. Never throws. Refused: a key or Gamma that does not
 * decode strictly (RFC 8032 §5.1.3), a small-order key (§5.4.5), s ≥ q (§5.4.4), and any
 * proof whose recomputed challenge differs.
 */
export function vrfVerifyReference(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | null {
  if (!isBytes(publicKey, VRF_PUBLIC_KEY_BYTES) || !isBytes(alpha) || !isBytes(proof, VRF_PROOF_BYTES)) return null;
  const Y = verifiedKey(publicKey);
  if (Y === null) return null;
  const decoded = decodeProof(proof);
  if (decoded === null) return null;
  const { gamma, c, s } = decoded;
  const encoded = vrfEncodeToCurve(publicKey, alpha);
  if (encoded === null) return null;
  const H = encoded.point;
  // U = s·B − c·Y, V = s·H − c·Gamma. s < q and c < 2^128 < q, as the variable-time
  // multiplications need. B and Y have tables; H and Gamma are new each time, so V is
  // one interleaved (Strauss–Shamir) multiplication of the two.
  const U = Point.BASE.multiplyUnsafe(s).subtract(Y.multiplyUnsafe(c));
  const V = mulAddUnsafe(Point, [H, gamma.negate()], [s, c]);
  // Strict decoding makes an accepted encoding canonical, so point_to_string(Y) and
  // point_to_string(Gamma) are the received bytes themselves.
  const cPrime = challenge([publicKey, H.toBytes(), proof.subarray(0, PT_LEN), U.toBytes(), V.toBytes()]);
  if (cPrime !== c) return null;
  return hashGamma(gamma);
}

