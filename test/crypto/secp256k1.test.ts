/**
 * Native libsecp256k1 against the @noble/curves reference, and the signature rules of
 * contract [D-signatures-forms], [D-signatures-low-s]: wire forms, v values, ranges, EIP-2 low-s.
 */
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, equalBytes, type Address } from '../../src/util/bytes';
import {
  SECP256K1_HALF_N,
  SECP256K1_N,
  SignatureError,
  compressPublicKey,
  decompressPublicKey,
  isValidPublicKey,
  parseSignature,
  privateKeyToAddress,
  publicKeyFromPrivate,
  publicKeyToAddress,
  recoverAddress,
  recoverPublicKey,
  recoverPublicKeyNoble,
  recoverSigner,
  sign,
  signCompact64,
  signNoble,
  verifySigner,
  type RecoveryId,
  type SignatureErrorReason,
} from '../../src/crypto/secp256k1';
import { keccak256 } from '../../src/crypto/keccak';
import { addressArb, bigintTo32, bytes32Arb, bytesToBigint, privateKeyArb } from './helpers';

const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

function reasonOf(fn: () => unknown): SignatureErrorReason | 'NO_THROW' | 'OTHER' {
  try {
    fn();
    return 'NO_THROW';
  } catch (err) {
    return err instanceof SignatureError ? err.reason : 'OTHER';
  }
}

const rsOf = (r: bigint, s: bigint) => concatBytes(bigintTo32(r), bigintTo32(s));

/** Both implementations agree: both null, or the same 65-byte key. */
function expectAgree(digest: Uint8Array, rs: Uint8Array, recovery: RecoveryId): Uint8Array | null {
  const a = recoverPublicKey(digest, rs, recovery);
  const b = recoverPublicKeyNoble(digest, rs, recovery);
  expect(a === null ? null : bytesToHex(a)).toBe(b === null ? null : bytesToHex(b));
  if (a !== null) expect(a.length).toBe(65);
  return a;
}

describe('native vs noble agreement', () => {
  it('3000 random keys and digests: signatures and recovered keys agree for both recovery ids', () => {
    let run = 0;
    fc.assert(
      fc.property(privateKeyArb, bytes32Arb, (pk, digest) => {
        const sig = sign(digest, pk);
        // RFC 6979 is deterministic: both libraries must produce the identical signature.
        // (noble signing is the slow part; every 4th run is plenty.)
        if (run++ % 4 === 0) expect(bytesToHex(signNoble(digest, pk))).toBe(bytesToHex(sig));
        expect(sig[64] === 27 || sig[64] === 28).toBe(true);
        const rs = sig.subarray(0, 64);
        const rec = (sig[64] - 27) as RecoveryId;
        const pub = publicKeyFromPrivate(pk, false);
        const own = expectAgree(digest, rs, rec);
        expect(own && bytesToHex(own)).toBe(bytesToHex(pub));
        const flipped = expectAgree(digest, rs, (1 - rec) as RecoveryId);
        if (flipped) expect(bytesToHex(flipped)).not.toBe(bytesToHex(pub));
        expect(verifySigner(digest, sig, privateKeyToAddress(pk))).toBe(true);
        expect(verifySigner(digest, rs, privateKeyToAddress(pk))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  }, 300_000); // ~9000 pure-JS operations: slow on a loaded machine

  it('3000 random 64-byte r‖s (mostly not signatures, often not curve points): both agree', () => {
    let recovered = 0;
    let failed = 0;
    fc.assert(
      fc.property(bytes32Arb, fc.uint8Array({ minLength: 64, maxLength: 64 }), (digest, rs) => {
        for (const rec of [0, 1] as const) {
          if (expectAgree(digest, rs, rec) === null) failed++;
          else recovered++;
        }
      }),
      { numRuns: 3000 },
    );
    // Both outcomes must have been exercised, or this test proves little.
    expect(recovered).toBeGreaterThan(1000);
    expect(failed).toBeGreaterThan(1000);
  }, 300_000);

  it('r or s zero, ≥ n, ≥ p, max; x not on the curve; edge digests: both agree', () => {
    const badScalars = [0n, SECP256K1_N, SECP256K1_N + 1n, P - 1n, P, (1n << 256n) - 1n];
    const goodScalars = [1n, 2n, SECP256K1_HALF_N, SECP256K1_HALF_N + 1n, SECP256K1_N - 1n];
    // An x coordinate with no point on the curve (x³+7 not a square mod p).
    let notOnCurve = 5n;
    for (;;) {
      try {
        noble.Point.fromBytes(concatBytes(Uint8Array.of(2), bigintTo32(notOnCurve)));
        notOnCurve++;
      } catch {
        break;
      }
    }
    const digests = [new Uint8Array(32), new Uint8Array(32).fill(0xff), bigintTo32(SECP256K1_N), bigintTo32(SECP256K1_N - 1n), keccak256(new Uint8Array(1))];
    let cases = 0;
    for (const digest of digests) {
      for (const r of [...badScalars, ...goodScalars, notOnCurve]) {
        for (const s of [...badScalars, ...goodScalars]) {
          for (const rec of [0, 1] as const) {
            const out = expectAgree(digest, rsOf(r, s), rec);
            if (r === 0n || s === 0n || r >= SECP256K1_N || s >= SECP256K1_N || r === notOnCurve) expect(out).toBeNull();
            cases++;
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(1000);
  });

  it('wrong lengths and recovery ids: both return null, never throw', () => {
    const pk = bigintTo32(12345n);
    const digest = keccak256(new Uint8Array([1, 2, 3]));
    const rs = signCompact64(digest, pk);
    expect(expectAgree(digest, rs, 0) ?? expectAgree(digest, rs, 1)).not.toBeNull();
    for (const badRs of [rs.subarray(0, 63), concatBytes(rs, Uint8Array.of(27)), new Uint8Array(0)]) {
      expect(recoverPublicKey(digest, badRs, 0)).toBeNull();
      expect(recoverPublicKeyNoble(digest, badRs, 0)).toBeNull();
    }
    for (const badDigest of [digest.subarray(0, 31), concatBytes(digest, Uint8Array.of(0))]) {
      expect(recoverPublicKey(badDigest, rs, 0)).toBeNull();
      expect(recoverPublicKeyNoble(badDigest, rs, 0)).toBeNull();
    }
    for (const badRec of [2, 3, -1, 27]) {
      expect(recoverPublicKey(digest, rs, badRec as RecoveryId)).toBeNull();
      expect(recoverPublicKeyNoble(digest, rs, badRec as RecoveryId)).toBeNull();
    }
  });
});

// Shows contract [C-auth-sig64].
describe('parseSignature and the wire forms', () => {
  const pk = bigintTo32(0xc0ffeen);
  const digest = keccak256(new TextEncoder().encode('wire forms'));
  const signer = privateKeyToAddress(pk);
  const sig65 = sign(digest, pk);
  const rec = (sig65[64] - 27) as RecoveryId;

  it('accepts v 0/1/27/28 and rejects every other v value', () => {
    for (let v = 0; v < 256; v++) {
      const sig = concatBytes(sig65.subarray(0, 64), Uint8Array.of(v));
      const accepted = v === 0 || v === 1 || v === 27 || v === 28;
      expect(reasonOf(() => parseSignature(sig))).toBe(accepted ? 'NO_THROW' : 'V');
      const matches = accepted && (v === rec || v === rec + 27);
      expect(verifySigner(digest, sig, signer)).toBe(matches);
      if (accepted) expect(parseSignature(sig).recovery).toBe(v % 27);
    }
  });

  it('returns a copy of r‖s, and hex strings of either case', () => {
    const parsed = parseSignature(sig65);
    expect(bytesToHex(parsed.rs)).toBe(bytesToHex(sig65.subarray(0, 64)));
    parsed.rs[0] ^= 1;
    expect(sig65[0]).not.toBe(parsed.rs[0]);
    const hex = bytesToHex(sig65);
    expect(parseSignature(hex).recovery).toBe(rec);
    expect(parseSignature(`0x${hex.slice(2).toUpperCase()}`).recovery).toBe(rec);
    expect(parseSignature(hex.slice(0, 130)).recovery).toBeUndefined();
    expect(verifySigner(digest, `0x${hex.slice(2).toUpperCase()}`, signer)).toBe(true);
  });

  it('rejects wrong lengths and non-hex with typed reasons, and verifySigner says false', () => {
    const hex = bytesToHex(sig65);
    const cases: Array<[unknown, SignatureErrorReason]> = [
      [new Uint8Array(0), 'LENGTH'],
      [sig65.subarray(0, 63), 'LENGTH'],
      [concatBytes(sig65, Uint8Array.of(0)), 'LENGTH'],
      [new Uint8Array(130), 'LENGTH'],
      ['0x', 'LENGTH'],
      [hex.slice(0, 128), 'LENGTH'],
      [`${hex}00`, 'LENGTH'],
      [hex.slice(2), 'FORMAT'], // no 0x
      [`0X${hex.slice(2)}`, 'FORMAT'],
      [`0x${'g'.repeat(130)}`, 'FORMAT'],
      [`0x${'zz'.repeat(10)}`, 'FORMAT'],
      [` ${hex.slice(0, 131)}`, 'FORMAT'],
      [undefined, 'FORMAT'],
      [null, 'FORMAT'],
      [12345, 'FORMAT'],
      [Array.from(sig65), 'FORMAT'],
    ];
    for (const [input, reason] of cases) {
      expect(reasonOf(() => parseSignature(input as string))).toBe(reason);
      expect(verifySigner(digest, input as string, signer)).toBe(false);
    }
  });

  it('rejects r, s out of [1, n-1] with R_RANGE / S_RANGE', () => {
    const s = bytesToBigint(sig65.subarray(32, 64));
    const r = bytesToBigint(sig65.subarray(0, 32));
    for (const bad of [0n, SECP256K1_N, SECP256K1_N + 1n, (1n << 256n) - 1n]) {
      expect(reasonOf(() => parseSignature(rsOf(bad, s)))).toBe('R_RANGE');
      expect(reasonOf(() => parseSignature(rsOf(r, bad)))).toBe('S_RANGE');
      expect(verifySigner(digest, rsOf(bad, s), signer)).toBe(false);
      expect(verifySigner(digest, rsOf(r, bad), signer)).toBe(false);
    }
    expect(reasonOf(() => parseSignature(rsOf(SECP256K1_N - 1n, 1n)))).toBe('NO_THROW');
  });

  it('low-s boundary: s = n/2 accepted, s = n/2 + 1 rejected (HIGH_S)', () => {
    expect(reasonOf(() => parseSignature(rsOf(1n, SECP256K1_HALF_N)))).toBe('NO_THROW');
    expect(reasonOf(() => parseSignature(rsOf(1n, SECP256K1_HALF_N + 1n)))).toBe('HIGH_S');
    expect(reasonOf(() => parseSignature(rsOf(1n, SECP256K1_N - 1n)))).toBe('HIGH_S');
  });

  it('high-s twins (s → n−s, v flipped) recover the same key but are rejected', () => {
    fc.assert(
      fc.property(privateKeyArb, bytes32Arb, (key, d) => {
        const good = sign(d, key);
        const owner = privateKeyToAddress(key);
        const r = bytesToBigint(good.subarray(0, 32));
        const s = bytesToBigint(good.subarray(32, 64));
        expect(s <= SECP256K1_HALF_N).toBe(true);
        const highRs = rsOf(r, SECP256K1_N - s);
        const flippedRec = (1 - (good[64] - 27)) as RecoveryId;
        // The math still works (this is exactly the malleability EIP-2 forbids)…
        const pub = expectAgree(d, highRs, flippedRec);
        expect(pub && publicKeyToAddress(pub)).toBe(owner);
        // …but the verifier refuses it in every form.
        for (const v of [flippedRec, flippedRec + 27, 1 - flippedRec, 28 - flippedRec]) {
          const high65 = concatBytes(highRs, Uint8Array.of(v));
          expect(reasonOf(() => parseSignature(high65))).toBe('HIGH_S');
          expect(verifySigner(d, high65, owner)).toBe(false);
          expect(verifySigner(d, bytesToHex(high65), owner)).toBe(false);
        }
        expect(reasonOf(() => parseSignature(highRs))).toBe('HIGH_S');
        expect(verifySigner(d, highRs, owner)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('wrong claimed signer, altered digest, altered signature → false', () => {
    fc.assert(
      fc.property(privateKeyArb, bytes32Arb, addressArb, fc.nat({ max: 63 }), (key, d, stranger, flipAt) => {
        const owner = privateKeyToAddress(key);
        fc.pre(stranger !== owner);
        const sig = sign(d, key);
        expect(verifySigner(d, sig, owner)).toBe(true);
        expect(verifySigner(d, sig, stranger)).toBe(false);
        expect(verifySigner(d, sig.subarray(0, 64), stranger)).toBe(false);
        const d2 = d.slice();
        d2[flipAt % 32] ^= 0x01;
        expect(verifySigner(d2, sig, owner)).toBe(false);
        expect(verifySigner(d2, sig.subarray(0, 64), owner)).toBe(false);
        const tampered = sig.slice();
        tampered[flipAt] ^= 0x80;
        expect(verifySigner(d, tampered, owner)).toBe(false);
        expect(verifySigner(d, tampered.subarray(0, 64), owner)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('claimed address that is not an address → false; non-32-byte digest → TypeError', () => {
    for (const bad of ['', '0x', signer.slice(0, 41), `${signer}00`, signer.slice(2), 'hello']) {
      expect(verifySigner(digest, sig65, bad as Address)).toBe(false);
    }
    expect(() => verifySigner(digest.subarray(0, 31), sig65, signer)).toThrow(TypeError);
    expect(() => recoverSigner(new Uint8Array(33), sig65)).toThrow(TypeError);
  });
});

describe('recoverAddress / recoverSigner', () => {
  const pk = bigintTo32(0xbeefn);
  const digest = keccak256(new TextEncoder().encode('recover'));
  const owner = privateKeyToAddress(pk);
  const sig65 = sign(digest, pk);
  const rec = (sig65[64] - 27) as RecoveryId;
  const rs = sig65.subarray(0, 64);

  it('recoverSigner: 65-byte form gives the signer; 64-byte form is refused (LENGTH)', () => {
    expect(recoverSigner(digest, sig65)).toBe(owner);
    expect(recoverSigner(digest, bytesToHex(sig65))).toBe(owner);
    expect(reasonOf(() => recoverSigner(digest, rs))).toBe('LENGTH');
    expect(reasonOf(() => recoverSigner(digest, concatBytes(rs, Uint8Array.of(29))))).toBe('V');
    expect(reasonOf(() => recoverSigner(digest, concatBytes(bigintTo32(1n), bigintTo32(SECP256K1_HALF_N + 5n), Uint8Array.of(27))))).toBe('HIGH_S');
  });

  it('recoverSigner throws RECOVERY when r is not an x coordinate', () => {
    // Find an r whose point does not exist.
    let r = 7n;
    for (;;) {
      try {
        noble.Point.fromBytes(concatBytes(Uint8Array.of(2), bigintTo32(r)));
        r++;
      } catch {
        break;
      }
    }
    expect(reasonOf(() => recoverSigner(digest, concatBytes(rsOf(r, 1n), Uint8Array.of(27))))).toBe('RECOVERY');
    expect(recoverAddress(digest, rsOf(r, 1n), 0)).toBeNull();
  });

  it('recoverAddress: 64-byte form needs a recovery id; 65-byte must agree with it', () => {
    expect(recoverAddress(digest, rs, rec)).toBe(owner);
    expect(recoverAddress(digest, rs, (1 - rec) as RecoveryId)).not.toBe(owner);
    expect(recoverAddress(digest, sig65)).toBe(owner);
    expect(recoverAddress(digest, sig65, rec)).toBe(owner);
    expect(reasonOf(() => recoverAddress(digest, rs))).toBe('V');
    expect(reasonOf(() => recoverAddress(digest, sig65, (1 - rec) as RecoveryId))).toBe('V');
  });
});

describe('keys and signing', () => {
  it('sign / signCompact64: low-s, v 27/28, same r‖s; noble verifies them', () => {
    fc.assert(
      fc.property(privateKeyArb, bytes32Arb, (key, d) => {
        const sig = sign(d, key);
        const compact = signCompact64(d, key);
        expect(compact.length).toBe(64);
        expect(bytesToHex(compact)).toBe(bytesToHex(sig.subarray(0, 64)));
        expect(bytesToBigint(sig.subarray(32, 64)) <= SECP256K1_HALF_N).toBe(true);
        expect(noble.verify(compact, d, publicKeyFromPrivate(key, true), { prehash: false, lowS: true })).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('public key forms agree with noble and round-trip', () => {
    fc.assert(
      fc.property(privateKeyArb, (key) => {
        const c = publicKeyFromPrivate(key, true);
        const u = publicKeyFromPrivate(key, false);
        expect(bytesToHex(c)).toBe(bytesToHex(noble.getPublicKey(key, true)));
        expect(bytesToHex(u)).toBe(bytesToHex(noble.getPublicKey(key, false)));
        expect(equalBytes(compressPublicKey(u), c)).toBe(true);
        expect(equalBytes(compressPublicKey(c), c)).toBe(true);
        expect(equalBytes(decompressPublicKey(c), u)).toBe(true);
        expect(isValidPublicKey(c) && isValidPublicKey(u)).toBe(true);
        expect(publicKeyToAddress(c)).toBe(publicKeyToAddress(u));
        expect(publicKeyToAddress(u)).toBe(`0x${bytesToHex(keccak256(u.subarray(1))).slice(-40)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects invalid private and public keys', () => {
    const d = new Uint8Array(32);
    for (const bad of [new Uint8Array(32), bigintTo32(SECP256K1_N), bigintTo32((1n << 256n) - 1n), new Uint8Array(31)]) {
      expect(() => sign(d, bad)).toThrow(TypeError);
      expect(() => publicKeyFromPrivate(bad, true)).toThrow(TypeError);
      expect(() => privateKeyToAddress(bad)).toThrow(TypeError);
    }
    expect(() => sign(new Uint8Array(31), bigintTo32(1n))).toThrow(TypeError);
    const u = publicKeyFromPrivate(bigintTo32(3n), false);
    const offCurve = u.slice();
    offCurve[64] ^= 1;
    const hybrid = u.slice();
    hybrid[0] = 0x06 | (u[64] & 1);
    for (const bad of [offCurve, hybrid, u.subarray(0, 64), new Uint8Array(33), concatBytes(Uint8Array.of(5), u.subarray(1, 33))]) {
      expect(() => publicKeyToAddress(bad)).toThrow(TypeError);
      expect(() => compressPublicKey(bad)).toThrow(TypeError);
      expect(isValidPublicKey(bad)).toBe(false);
    }
  });
});

describe('native binding', () => {
  it('fails loudly (no silent JS fallback) when the native addon cannot load', async () => {
    vi.resetModules();
    vi.doMock('node:module', async (importOriginal) => {
      const actual = await importOriginal<typeof import('node:module')>();
      return {
        ...actual,
        createRequire: (url: string | URL) => {
          const real = actual.createRequire(url);
          return Object.assign((id: string) => {
            if (id === 'secp256k1/bindings') throw new Error('No native build was found');
            return real(id);
          }, real);
        },
      };
    });
    try {
      await expect(import('../../src/crypto/secp256k1')).rejects.toThrow(/native secp256k1 binding .*failed to load/);
    } finally {
      vi.doUnmock('node:module');
      vi.resetModules();
    }
  });
});
