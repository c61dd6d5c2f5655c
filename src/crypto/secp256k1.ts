/**
 * ECDSA over secp256k1: signature parsing (the wire forms of contract
 * [D-signatures-forms]), public-key
 * recovery, Ethereum addresses, and signing.
 *
 * The hot path (every signed request and transaction) uses libsecp256k1 through the
 * native `secp256k1` addon. The pure-JS @noble/curves implementation is kept as
 * separately named `*Noble` exports: it is the reference the tests compare against,
 * and it is what the bench measures the native speed-up over.
 */
import type * as Secp256k1Native from 'secp256k1';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { type Address, bytesToHex, isAddress, hexToBytes } from '../util/bytes';
import { uintWord } from './abi-word';
import { keccak256 } from './keccak';
import { secp256k1Native } from '../util/native-addons';

// `secp256k1` (index.js) silently falls back to the `elliptic` JS implementation when
// the native addon does not load, which would cut verification throughput by more
// than an order of magnitude without any visible error. Requiring `secp256k1/bindings`
// directly loads ONLY the addon, so a missing or broken build fails at import time
// (src/util/native-addons.ts; in the single-file build, the addon embedded in it).
function loadNative(): typeof Secp256k1Native {
  try {
    return secp256k1Native();
  } catch (err) {
    throw new Error(
      'native secp256k1 binding (secp256k1/bindings, libsecp256k1) failed to load; ' +
        'refusing to fall back to the slow JS implementation. Reinstall `secp256k1` ' +
        `for ${process.platform}-${process.arch} node ${process.version}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
const native = loadNative();

/** Order of the secp256k1 group. r and s must lie in [1, n-1]. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** floor(n/2): EIP-2 rejects s above it (the "high-s" malleable twin of a signature). */
export const SECP256K1_HALF_N = SECP256K1_N >> 1n;

const N_BYTES = uintWord(SECP256K1_N);
const HALF_N_BYTES = uintWord(SECP256K1_HALF_N);

/** Compares the 32-byte big-endian integer at buf[off..off+32] with ref (no bigint: hot path). */
function cmp32(buf: Uint8Array, off: number, ref: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = buf[off + i] - ref[i];
    if (d !== 0) return d;
  }
  return 0;
}
function isZero32(buf: Uint8Array, off: number): boolean {
  for (let i = 0; i < 32; i++) if (buf[off + i] !== 0) return false;
  return true;
}

/**
 * Why a signature was refused.
 * - FORMAT: not a Uint8Array or a 0x-prefixed hex string.
 * - LENGTH: not 64 (r‖s) or 65 (r‖s‖v) bytes, or the wrong form for the operation.
 * - V: recovery byte not in {0, 1, 27, 28} (EIP-155 style v is not accepted), or missing.
 * - R_RANGE / S_RANGE: r or s is 0 or ≥ n.
 * - HIGH_S: s > n/2 (EIP-2).
 * - RECOVERY: well-formed, but no public key can be recovered from it.
 */
export type SignatureErrorReason = 'FORMAT' | 'LENGTH' | 'V' | 'R_RANGE' | 'S_RANGE' | 'HIGH_S' | 'RECOVERY';

export class SignatureError extends Error {
  readonly reason: SignatureErrorReason;
  constructor(reason: SignatureErrorReason, message: string) {
    super(`invalid signature (${reason}): ${message}`);
    this.name = 'SignatureError';
    this.reason = reason;
  }
}

export type RecoveryId = 0 | 1;

interface ParsedSignature {
  /** 64 bytes r‖s (a copy: the caller's buffer may be reused). */
  rs: Uint8Array;
  /** From v for the 65-byte form; undefined for the 64-byte form (verifier tries both). */
  recovery: RecoveryId | undefined;
}

const SIG_HEX_RE = /^0x[0-9a-fA-F]*$/;

function sigBytes(sig: Uint8Array | string): Uint8Array {
  if (typeof sig === 'string') {
    // Length first so a huge string costs nothing to reject.
    if (sig.length !== 2 + 128 && sig.length !== 2 + 130) {
      if (!SIG_HEX_RE.test(sig.slice(0, 200))) throw new SignatureError('FORMAT', 'expected 0x-prefixed hex');
      throw new SignatureError('LENGTH', `expected 64 or 65 bytes, got ${(sig.length - 2) / 2} bytes of hex`);
    }
    if (!SIG_HEX_RE.test(sig)) throw new SignatureError('FORMAT', 'expected 0x-prefixed hex');
    return hexToBytes(sig);
  }
  if (!(sig instanceof Uint8Array)) throw new SignatureError('FORMAT', 'expected bytes or a 0x-prefixed hex string');
  if (sig.length !== 64 && sig.length !== 65) {
    throw new SignatureError('LENGTH', `expected 64 or 65 bytes, got ${sig.length}`);
  }
  return sig;
}

/**
 * Parses exactly the accepted wire forms: 64 bytes r‖s, or 65 bytes r‖s‖v with
 * v ∈ {0, 1, 27, 28}. Enforces 1 ≤ r, s ≤ n-1 and low-s (s ≤ n/2).
 * @throws SignatureError for anything else.
 */
export function parseSignature(sig: Uint8Array | string): ParsedSignature {
  const bytes = sigBytes(sig);
  let recovery: RecoveryId | undefined;
  if (bytes.length === 65) {
    const v = bytes[64];
    if (v === 0 || v === 27) recovery = 0;
    else if (v === 1 || v === 28) recovery = 1;
    else throw new SignatureError('V', `v must be 0, 1, 27 or 28, got ${v}`);
  }
  if (isZero32(bytes, 0) || cmp32(bytes, 0, N_BYTES) >= 0) throw new SignatureError('R_RANGE', 'r must be in [1, n-1]');
  if (isZero32(bytes, 32) || cmp32(bytes, 32, N_BYTES) >= 0) throw new SignatureError('S_RANGE', 's must be in [1, n-1]');
  if (cmp32(bytes, 32, HALF_N_BYTES) > 0) throw new SignatureError('HIGH_S', 's must be ≤ n/2 (EIP-2)');
  return { rs: bytes.slice(0, 64), recovery };
}

function validRecoveryInputs(digest: unknown, rs: unknown, recovery: unknown): boolean {
  return (
    digest instanceof Uint8Array &&
    digest.length === 32 &&
    rs instanceof Uint8Array &&
    rs.length === 64 &&
    (recovery === 0 || recovery === 1)
  );
}

/**
 * Recovers the 65-byte uncompressed public key (0x04‖X‖Y) with libsecp256k1.
 * Returns null when recovery is impossible (r or s out of range, r not an x-coordinate,
 * point at infinity) or an input has the wrong length. Never throws.
 * Low-level: it does NOT reject high-s; parseSignature does.
 */
export function recoverPublicKey(digest: Uint8Array, rs: Uint8Array, recovery: RecoveryId): Uint8Array | null {
  if (!validRecoveryInputs(digest, rs, recovery)) return null;
  try {
    return native.ecdsaRecover(rs, recovery, digest, false);
  } catch {
    return null;
  }
}

/** Same contract as recoverPublicKey, in pure JS (@noble/curves). Reference implementation. */
export function recoverPublicKeyNoble(digest: Uint8Array, rs: Uint8Array, recovery: RecoveryId): Uint8Array | null {
  if (!validRecoveryInputs(digest, rs, recovery)) return null;
  try {
    // The digest is already a hash: recover from it as is (noble's top-level
    // recoverPublicKey would sha256 it again unless told prehash: false).
    const sig = noble.Signature.fromBytes(rs, 'compact').addRecoveryBit(recovery);
    return sig.recoverPublicKey(digest).toBytes(false);
  } catch {
    return null;
  }
}

/** Address bytes of a known-valid uncompressed key: last 20 bytes of keccak(X‖Y). */
function addressBytesOf(pub65: Uint8Array): Uint8Array {
  return keccak256(pub65.subarray(1, 65)).subarray(12);
}

/**
 * Ethereum address of a public key (33-byte compressed or 65-byte uncompressed),
 * lower-case 0x hex. The key is validated (must be a point on the curve).
 */
export function publicKeyToAddress(pub: Uint8Array): Address {
  if (!(pub instanceof Uint8Array) || (pub.length !== 33 && pub.length !== 65)) {
    throw new TypeError('public key must be 33 or 65 bytes');
  }
  if (pub.length === 65 && (pub[0] !== 0x04 || !native.publicKeyVerify(pub))) {
    throw new TypeError('invalid uncompressed public key');
  }
  const full = pub.length === 65 ? pub : decompressPublicKey(pub);
  return bytesToHex(addressBytesOf(full)) as Address;
}

function assertDigest(digest: Uint8Array): void {
  // A wrong digest is a bug of the caller, not a bad signature: fail loudly.
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw new TypeError('digest must be 32 bytes');
}

/**
 * Address that signed `digest`. For the 65-byte form the recovery id comes from v
 * (an explicit `recovery`, if given, must agree); the 64-byte form needs `recovery`.
 * Returns null when no key can be recovered.
 * @throws SignatureError when the signature is malformed.
 */
export function recoverAddress(digest: Uint8Array, sig: Uint8Array | string, recovery?: RecoveryId): Address | null {
  assertDigest(digest);
  const parsed = parseSignature(sig);
  let rec = parsed.recovery;
  if (recovery !== undefined) {
    if (recovery !== 0 && recovery !== 1) throw new SignatureError('V', 'recovery id must be 0 or 1');
    if (rec !== undefined && rec !== recovery) throw new SignatureError('V', 'recovery id disagrees with v');
    rec = recovery;
  }
  if (rec === undefined) throw new SignatureError('V', '64-byte signature: recovery id required');
  const pub = recoverPublicKey(digest, parsed.rs, rec);
  return pub === null ? null : (bytesToHex(addressBytesOf(pub)) as Address);
}

/**
 * Signer of a 65-byte r‖s‖v signature. The 64-byte form has two candidate signers
 * and is only usable with verifySigner against a claimed address.
 * @throws SignatureError (LENGTH for the 64-byte form, RECOVERY if no key recovers).
 */
export function recoverSigner(digest: Uint8Array, sig: Uint8Array | string): Address {
  assertDigest(digest);
  const parsed = parseSignature(sig);
  if (parsed.recovery === undefined) {
    throw new SignatureError('LENGTH', '65-byte r‖s‖v form required to recover a unique signer');
  }
  const pub = recoverPublicKey(digest, parsed.rs, parsed.recovery);
  if (pub === null) throw new SignatureError('RECOVERY', 'no public key recovers from this signature');
  return bytesToHex(addressBytesOf(pub)) as Address;
}

function recoversTo(digest: Uint8Array, rs: Uint8Array, recovery: RecoveryId, want: Uint8Array): boolean {
  const pub = recoverPublicKey(digest, rs, recovery);
  if (pub === null) return false;
  const got = addressBytesOf(pub);
  for (let i = 0; i < 20; i++) if (got[i] !== want[i]) return false;
  return true;
}

/**
 * Main entry point: did `claimed` sign `digest`? 64-byte signatures try both recovery
 * ids against the claimed signer (contract [D-signatures-forms]); 65-byte ones use v. Returns false for
 * any malformed signature or claimed address, never throws for them.
 * @throws TypeError only if digest is not 32 bytes (a programming error).
 */
export function verifySigner(digest: Uint8Array, sig: Uint8Array | string, claimed: Address): boolean {
  assertDigest(digest);
  if (!isAddress(claimed)) return false;
  let parsed: ParsedSignature;
  try {
    parsed = parseSignature(sig);
  } catch {
    return false;
  }
  const want = hexToBytes(claimed);
  if (parsed.recovery !== undefined) return recoversTo(digest, parsed.rs, parsed.recovery, want);
  return recoversTo(digest, parsed.rs, 0, want) || recoversTo(digest, parsed.rs, 1, want);
}

/**
 * Did the holder of `publicKey` (65-byte uncompressed, already validated) sign `digest`?
 * Verification against a known key: about a fifth cheaper than recovering the key and
 * hashing it to an address (verifySigner), for signers whose keys are known in advance
 * (validators). Accepts the 65-byte form only, v ∈ {0, 1, 27, 28}, 1 ≤ r, s ≤ n−1 and
 * low-s (libsecp256k1 refuses high-s and out-of-range scalars).
 *
 * Unlike verifySigner it does not check that v names the recovery id that yields this
 * key (that takes the recovery this function exists to avoid), so flipping v gives a
 * second accepted encoding of one signature. Consensus never identifies a vote by its
 * signature bytes (votes are keyed by validator and content; evidence needs two different
 * blocks), so that is harmless there; do not use this where signature bytes are an id.
 * Never throws.
 */
export function verifyWithKey(digest: Uint8Array, sig65: Uint8Array, publicKey: Uint8Array): boolean {
  if (sig65.length !== 65 || digest.length !== 32) return false;
  const v = sig65[64];
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) return false;
  try {
    return native.ecdsaVerify(sig65.subarray(0, 64), digest, publicKey);
  } catch {
    return false;
  }
}

function assertPrivateKey(privateKey: Uint8Array): void {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32 || !native.privateKeyVerify(privateKey)) {
    throw new TypeError('private key must be 32 bytes in [1, n-1]');
  }
}

function signNative(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number } {
  assertDigest(digest);
  assertPrivateKey(privateKey);
  // RFC 6979 deterministic nonce; libsecp256k1 always returns low-s.
  const { signature, recid } = native.ecdsaSign(digest, privateKey);
  // recid 2/3 (R.x ≥ n) has probability ~2^-127; the wire forms cannot express it.
  if (recid !== 0 && recid !== 1) throw new Error('unrepresentable recovery id');
  return { signature, recid };
}

/** 65 bytes r‖s‖v, v = 27/28, low-s, deterministic (RFC 6979), via libsecp256k1. */
export function sign(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = signNative(digest, privateKey);
  const out = new Uint8Array(65);
  out.set(signature, 0);
  out[64] = 27 + recid;
  return out;
}

/** 64 bytes r‖s (the form the native API expects; verifier tries both recovery ids). */
export function signCompact64(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return Uint8Array.from(signNative(digest, privateKey).signature);
}

/** Same output as `sign`, in pure JS (@noble/curves). Reference implementation. */
export function signNoble(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  assertDigest(digest);
  const rec = noble.sign(digest, privateKey, { prehash: false, lowS: true, format: 'recovered' });
  // noble's 'recovered' layout is recid‖r‖s; the wire form is r‖s‖v.
  const out = new Uint8Array(65);
  out.set(rec.subarray(1, 65), 0);
  out[64] = 27 + rec[0];
  return out;
}

/** Public key of a private key: 33-byte compressed or 65-byte uncompressed. */
export function publicKeyFromPrivate(privateKey: Uint8Array, compressed: boolean): Uint8Array {
  assertPrivateKey(privateKey);
  return native.publicKeyCreate(privateKey, compressed);
}

export function privateKeyToAddress(privateKey: Uint8Array): Address {
  return bytesToHex(addressBytesOf(publicKeyFromPrivate(privateKey, false))) as Address;
}

/** 33-byte compressed form of a 33- or 65-byte public key. @throws TypeError if not a curve point. */
export function compressPublicKey(pub: Uint8Array): Uint8Array {
  return convertPublicKey(pub, true);
}

/** 65-byte uncompressed form of a 33- or 65-byte public key. @throws TypeError if not a curve point. */
export function decompressPublicKey(pub: Uint8Array): Uint8Array {
  return convertPublicKey(pub, false);
}

function convertPublicKey(pub: Uint8Array, compressed: boolean): Uint8Array {
  if (!(pub instanceof Uint8Array) || (pub.length !== 33 && pub.length !== 65)) {
    throw new TypeError('public key must be 33 or 65 bytes');
  }
  // libsecp256k1 also parses the obsolete "hybrid" 0x06/0x07 forms; nobody sends those.
  if (pub.length === 65 && pub[0] !== 0x04) throw new TypeError('invalid public key');
  try {
    return native.publicKeyConvert(pub, compressed);
  } catch {
    throw new TypeError('invalid public key');
  }
}

/** True if `pub` is a valid 33- or 65-byte SEC1 encoding of a curve point. */
export function isValidPublicKey(pub: Uint8Array): boolean {
  if (!(pub instanceof Uint8Array)) return false;
  if (pub.length === 65) return pub[0] === 0x04 && native.publicKeyVerify(pub);
  return pub.length === 33 && native.publicKeyVerify(pub);
}
