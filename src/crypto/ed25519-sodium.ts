/**
 * The edwards25519 group operations of libsodium (through sodium-native's prebuilt
 * binding) that the VRF runs on (src/crypto/vrf.ts, decision 116), on 32-byte
 * encodings, each returning whether libsodium did it. A `false` is never an answer
 * about a proof: the caller then asks the reference (@noble/curves) path, which decides.
 *
 * What libsodium refuses, and the RFC 9381 path may accept:
 * - `scalarMul` (crypto_scalarmult_ed25519_noclamp): a point encoded non-canonically, of
 *   small order, or with a torsion component (not in the prime-order subgroup), a zero
 *   scalar, and a result at infinity. It is constant time in the scalar.
 * - `scalarMulBase` (…_base_noclamp): a zero scalar, a result at infinity. Constant time.
 * - `add`, `sub` (crypto_core_ed25519_add/sub): an encoding that is not a point. They
 *   take any point of the curve (torsion included), but decode y modulo p and do not
 *   refuse x = 0 with the sign bit set, where RFC 8032's strict decoding refuses both:
 *   `isPlainEncoding` tells the encodings where the two decodings agree.
 * Scalars are 32 bytes, little-endian, below 2^255 (libsodium clears bit 255).
 *
 * Pure: a native library, no I/O. Loaded at import; a missing or broken binding fails
 * there (as the secp256k1 binding does, src/crypto/secp256k1.ts).
 */
import { sodiumNative, type SodiumBinding } from '../util/native-addons';

function loadSodium(): SodiumBinding {
  try {
    return sodiumNative();
  } catch (err) {
    throw new Error(
      `native libsodium binding (sodium-native) failed to load for ${process.platform}-${process.arch} node ${process.version}: ` +
        `${(err as Error).message}. Reinstall \`sodium-native\` (it ships prebuilt binaries).`,
      { cause: err },
    );
  }
}
const sodium = loadSodium();

export const POINT_BYTES = 32;
export const SHA512_BYTES = 64;

/**
 * True when `bytes` (32) encodes y < p and y is neither 1 nor p − 1 (the two y with
 * x = 0). For such an encoding libsodium's decoding (inside add and sub) and RFC 8032's
 * strict one agree: both find the same point, or both find none. The rest (19 values of
 * y ≥ p, and y = ±1 with either sign bit) go to the reference decoder.
 */
export function isPlainEncoding(bytes: Uint8Array): boolean {
  const top = bytes[31] & 0x7f;
  let allOnes = top === 0x7f;
  let allZeros = top === 0;
  for (let i = 1; i < 31; i++) {
    allOnes &&= bytes[i] === 0xff;
    allZeros &&= bytes[i] === 0;
  }
  if (allOnes && bytes[0] >= 0xec) return false; // y ≥ p − 1 (p − 1 = 0x7fff…ffec)
  if (allZeros && bytes[0] === 1) return false; // y = 1
  return true;
}

/** out = n·p (p in the prime-order subgroup, not the identity; n ≠ 0). Constant time in n. */
export function scalarMul(out: Uint8Array, n: Uint8Array, p: Uint8Array): boolean {
  return sodium.crypto_scalarmult_ed25519_noclamp(out, n, p) === 0;
}

/** out = n·B, B the base point (n ≠ 0). Constant time in n. */
export function scalarMulBase(out: Uint8Array, n: Uint8Array): boolean {
  return sodium.crypto_scalarmult_ed25519_base_noclamp(out, n) === 0;
}

/** out = p − q, for any two points of the curve. */
export function sub(out: Uint8Array, p: Uint8Array, q: Uint8Array): boolean {
  return sodium.crypto_core_ed25519_sub(out, p, q) === 0;
}

/**
 * out = 8·p (three doublings by addition of p to itself), for any point of the curve,
 * torsion included: the cofactor clearing of RFC 9381 §5.4.1.1 and §5.2. False when `p`
 * does not decode (libsodium: not a point). `out` must not be `p`.
 */
export function mulByCofactor(out: Uint8Array, p: Uint8Array): boolean {
  if (sodium.crypto_core_ed25519_add(out, p, p) !== 0) return false;
  return sodium.crypto_core_ed25519_add(out, out, out) === 0 && sodium.crypto_core_ed25519_add(out, out, out) === 0;
}

/** SHA-512 of `input` into `out` (64 bytes). */
export function sha512Into(out: Uint8Array, input: Uint8Array): void {
  if (sodium.crypto_hash_sha512(out, input) !== 0) throw new Error('libsodium crypto_hash_sha512 failed');
}

/** The encoding of the identity, (0, 1). */
const IDENTITY = (() => {
  const id = new Uint8Array(POINT_BYTES);
  id[0] = 1;
  return id;
})();

/** True when `p` (an encoding libsodium produced, hence canonical) is the identity. */
export function isIdentity(p: Uint8Array): boolean {
  for (let i = 0; i < POINT_BYTES; i++) if (p[i] !== IDENTITY[i]) return false;
  return true;
}
