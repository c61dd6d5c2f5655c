/**
 * The VRF on libsodium (src/crypto/vrf.ts) against the reference on @noble/curves
 * (src/crypto/vrf-reference.ts), decision 116: a proof is accepted by one iff by the
 * other, with the same beta, whichever path ran. Crafted proofs the RFC accepts but
 * libsodium refuses (a Gamma or a public key with a torsion component, built here as a
 * malicious prover would), random valid proofs and their mutations (a flipped bit in
 * each field, another key or input, s ≥ q, s = 0, c = 0, non-canonical and small-order
 * encodings), the prover's bytes and every intermediate value, and the point decoding
 * the two sides share (`isPlainEncoding`: where libsodium's and RFC 8032's decoders agree).
 */
import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { le, leBytes } from '../helpers/little-endian';
import { bytesToHex, concatBytes } from '../../src/util/bytes';
import { isPlainEncoding, mulByCofactor, scalarMul } from '../../src/crypto/ed25519-sodium';
import {
  vrfProofToHash,
  vrfProofToHashReference,
  vrfProve,
  vrfProveSteps,
  vrfProveStepsReference,
  vrfPublicKey,
  vrfPublicKeyReference,
  vrfVerify,
  vrfVerifyReference,
} from '../../src/crypto/vrf';

const Point = ed25519.Point;
type EdPoint = InstanceType<typeof Point>;
const Q = Point.Fn.ORDER;
const P = (1n << 255n) - 19n;

const hex = (bytes: Uint8Array | null): string | null => (bytes === null ? null : bytesToHex(bytes));

/** Deterministic bytes: SHA-512 of a label and a counter. */
function bytesOf(label: string, i: number, len = 32): Uint8Array {
  return sha512(concatBytes(new TextEncoder().encode(label), leBytes(BigInt(i), 4))).slice(0, len);
}

/** The challenge of §5.4.3, written out independently of the modules. */
function challengeOf(points: Uint8Array[]): bigint {
  return le(sha512(concatBytes(Uint8Array.of(0x03, 0x02), ...points, Uint8Array.of(0x00))).subarray(0, 16));
}
const proofOf = (gamma: Uint8Array, c: bigint, s: bigint): Uint8Array => concatBytes(gamma, leBytes(c, 16), leBytes(s, 32));

/** A point of order 8 (the torsion part of a hashed point that has a full one). */
function orderEightPoint(): EdPoint {
  for (let i = 1; ; i++) {
    let candidate: EdPoint;
    try {
      candidate = Point.fromBytes(sha512(Uint8Array.of(i)).subarray(0, 32));
    } catch {
      continue;
    }
    const torsion = candidate.multiplyUnsafe(Q - 1n).add(candidate);
    if (!torsion.double().double().is0()) return torsion;
  }
}
const T8 = orderEightPoint();
const SMALL_ORDER: EdPoint[] = Array.from({ length: 8 }, (_, j) => (j === 0 ? Point.ZERO : T8.multiplyUnsafe(BigInt(j))));

/** Both verifiers' answers for one input, and proof_to_hash's (a throw shown as 'throws'). */
function answers(pk: Uint8Array, alpha: Uint8Array, proof: Uint8Array) {
  const attempt = (f: () => Uint8Array) => {
    try {
      return hex(f());
    } catch (err) {
      expect(err).toBeInstanceOf(RangeError);
      return 'throws';
    }
  };
  return {
    verify: hex(vrfVerify(pk, alpha, proof)),
    verifyReference: hex(vrfVerifyReference(pk, alpha, proof)),
    hash: attempt(() => vrfProofToHash(proof)),
    hashReference: attempt(() => vrfProofToHashReference(proof)),
  };
}
function expectSameAnswers(pk: Uint8Array, alpha: Uint8Array, proof: Uint8Array, what: string): ReturnType<typeof answers> {
  const a = answers(pk, alpha, proof);
  expect(a.verify, `${what}: verify`).toBe(a.verifyReference);
  expect(a.hash, `${what}: proof_to_hash`).toBe(a.hashReference);
  return a;
}

describe('a torsion component the RFC accepts and libsodium refuses: the reference decides', () => {
  const seed = bytesOf('torsion seed', 0);
  const alpha = Uint8Array.of(1, 2, 3);
  const { x, publicKey, h: hString, gamma, pi } = vrfProveStepsReference(seed, alpha);
  const H = Point.fromBytes(hString);
  const Y = Point.fromBytes(publicKey);

  it('Gamma + T (T of order 8): the prover retries k until c mod 8 matches its guess; accepted by both, with the honest beta', () => {
    // V = s·H − c·(x·H + T) = k·H − c·T: the prover guesses j = c mod 8, sends V = k·H − j·T
    // into the challenge, and keeps the proof when the challenge agrees with its guess.
    const gammaT = Point.fromBytes(gamma).add(T8).toBytes();
    const proofs: Uint8Array[] = [];
    for (let k = 1n; proofs.length < 3 && k < 200n; k++) {
      for (let j = 0n; j < 8n; j++) {
        const v = H.multiply(k).subtract(T8.multiplyUnsafe(j)).toBytes();
        const c = challengeOf([publicKey, hString, gammaT, Point.BASE.multiply(k).toBytes(), v]);
        if (c % 8n === j) proofs.push(proofOf(gammaT, c, (k + c * x) % Q));
      }
    }
    expect(proofs.length).toBe(3);
    const honest = hex(vrfVerifyReference(publicKey, alpha, pi));
    for (const proof of proofs) {
      // libsodium refuses this Gamma (torsion component), so vrf.ts falls back.
      expect(scalarMul(new Uint8Array(32), leBytes(1n, 32), proof.subarray(0, 32))).toBe(false);
      const a = expectSameAnswers(publicKey, alpha, proof, 'torsioned Gamma');
      expect(a.verify).toBe(honest);
      expect(a.hash).toBe(honest);
      // and a wrong guess (c off by one) is refused by both
      expectSameAnswers(publicKey, alpha, proofOf(gammaT, le(proof.subarray(32, 48)) ^ 1n, le(proof.subarray(48))), 'torsioned Gamma, other c');
    }
  });

  it('a public key Y + T: validate_key accepts it (not of small order); a proof made for it is accepted by both', () => {
    const pkT = Y.add(T8).toBytes();
    expect(scalarMul(new Uint8Array(32), leBytes(1n, 32), pkT)).toBe(false);
    // H depends on the key's bytes: encode_to_curve (§5.4.1.1) for the torsioned key.
    const encode = (pk: Uint8Array) => {
      for (let ctr = 0; ctr < 256; ctr++) {
        try {
          const p = Point.fromBytes(sha512(concatBytes(Uint8Array.of(0x03, 0x01), pk, alpha, Uint8Array.of(ctr, 0x00))).subarray(0, 32)).clearCofactor();
          if (!p.is0()) return p;
        } catch {
          /* not a point: next counter */
        }
      }
      throw new Error('no point');
    };
    const H2 = encode(pkT);
    const h2 = H2.toBytes();
    const gamma2 = H2.multiply(x).toBytes();
    // U = s·B − c·(Y + T) = k·B − c·T: the prover guesses c mod 8 again.
    let accepted = 0;
    for (let k = 1n; accepted < 2 && k < 200n; k++) {
      for (let j = 0n; j < 8n; j++) {
        const u = Point.BASE.multiply(k).subtract(T8.multiplyUnsafe(j)).toBytes();
        const c = challengeOf([pkT, h2, gamma2, u, H2.multiply(k).toBytes()]);
        if (c % 8n !== j) continue;
        const a = expectSameAnswers(pkT, alpha, proofOf(gamma2, c, (k + c * x) % Q), 'torsioned key');
        expect(a.verify).not.toBeNull();
        accepted++;
      }
    }
    expect(accepted).toBe(2);
  });
});

describe('random proofs and their mutations: the same answer as the reference', () => {
  const q = leBytes(Q, 32);
  const encodings = [
    ...SMALL_ORDER.map((p) => p.toBytes()),
    leBytes(P, 32),
    leBytes(P + 1n, 32),
    leBytes(P + 5n, 32),
    leBytes(1n, 32).map((b, i) => (i === 31 ? b | 0x80 : b)), // identity, sign bit set
    leBytes(P - 1n, 32).map((b, i) => (i === 31 ? b | 0x80 : b)), // (0, −1), sign bit set
    leBytes(2n, 32),
  ];

  it('over 40 keys: the proof, a flipped bit in Gamma, c and s, another key and input, s + q, s = q, s = 0, c = 0, odd Gammas', () => {
    let accepted = 0;
    for (let i = 0; i < 40; i++) {
      const seed = bytesOf('seed', i);
      const alpha = bytesOf('alpha', i, i % 9);
      const pk = vrfPublicKey(seed);
      const pi = vrfProve(seed, alpha);
      const other = vrfPublicKey(bytesOf('seed', i + 1000));
      const pick = (lo: number, hi: number) => lo + (bytesOf('pick', i * 7 + lo)[0] % (hi - lo));
      const flip = (index: number) => {
        const out = Uint8Array.from(pi);
        out[index] ^= 1 << bytesOf('bit', i * 97 + index)[0] % 8;
        return out;
      };
      const c = le(pi.subarray(32, 48));
      const s = le(pi.subarray(48, 80));
      const gamma = pi.subarray(0, 32);
      const cases: [string, Uint8Array, Uint8Array, Uint8Array][] = [
        ['valid', pk, alpha, pi],
        ['flipped bit in Gamma', pk, alpha, flip(pick(0, 32))],
        ['flipped bit in c', pk, alpha, flip(pick(32, 48))],
        ['flipped bit in s', pk, alpha, flip(pick(48, 80))],
        ['flipped top bit of s', pk, alpha, flip(79)],
        ['wrong key', other, alpha, pi],
        ['flipped bit in the key', Uint8Array.from(pk, (b, j) => (j === pick(0, 32) ? b ^ 4 : b)), alpha, pi],
        ['other input', pk, concatBytes(alpha, Uint8Array.of(i)), pi],
        ['s + q', pk, alpha, proofOf(gamma, c, s + Q)],
        ['s = q', pk, alpha, concatBytes(pi.subarray(0, 48), q)],
        ['s = 0', pk, alpha, proofOf(gamma, c, 0n)],
        ['c = 0', pk, alpha, proofOf(gamma, 0n, s)],
        ['Gamma negated', pk, alpha, concatBytes(Point.fromBytes(gamma).negate().toBytes(), pi.subarray(32))],
        ['odd Gamma', pk, alpha, concatBytes(encodings[i % encodings.length], pi.subarray(32))],
        ['odd key', encodings[(i + 3) % encodings.length], alpha, pi],
      ];
      for (const [what, key, input, proof] of cases) {
        const a = expectSameAnswers(key, input, proof, `key ${i}, ${what}`);
        if (what === 'valid') expect(a.verify).not.toBeNull();
        if (a.verify !== null) accepted++;
      }
    }
    expect(accepted).toBe(40); // only the valid proofs
  });

  it('prove and the public key: the same bytes and intermediate values as the reference, over 40 seeds', () => {
    for (let i = 0; i < 40; i++) {
      const seed = bytesOf('prove seed', i);
      const alpha = bytesOf('prove alpha', i, i % 40);
      expect(hex(vrfPublicKey(seed))).toBe(hex(vrfPublicKeyReference(seed)));
      const mine = vrfProveSteps(seed, alpha);
      const ref = vrfProveStepsReference(seed, alpha);
      expect({ ...mine, publicKey: hex(mine.publicKey), h: hex(mine.h), u: hex(mine.u), v: hex(mine.v), gamma: hex(mine.gamma), pi: hex(mine.pi) }).toEqual({
        ...ref,
        publicKey: hex(ref.publicKey),
        h: hex(ref.h),
        u: hex(ref.u),
        v: hex(ref.v),
        gamma: hex(ref.gamma),
        pi: hex(ref.pi),
      });
    }
  });
});

describe('point decoding: where isPlainEncoding says so, libsodium and RFC 8032 decode alike', () => {
  /** 8·P by noble's strict decoding, or null when the encoding is refused. */
  function nobleCleared(bytes: Uint8Array): string | null {
    try {
      return hex(Point.fromBytes(bytes, false).clearCofactor().toBytes());
    } catch {
      return null;
    }
  }
  function sodiumCleared(bytes: Uint8Array): string | null {
    const out = new Uint8Array(32);
    return mulByCofactor(out, bytes) ? hex(out) : null;
  }

  it('4,000 random encodings (about half of them points), each with both sign bits', () => {
    let points = 0;
    for (let i = 0; i < 2_000; i++) {
      for (const sign of [0, 0x80]) {
        const bytes = bytesOf('encoding', i);
        bytes[31] = (bytes[31] & 0x7f) | sign;
        expect(isPlainEncoding(bytes)).toBe(true);
        const n = nobleCleared(bytes);
        expect(sodiumCleared(bytes), `encoding ${i}`).toBe(n);
        if (n !== null) points++;
      }
    }
    expect(points).toBeGreaterThan(1_600);
    expect(points).toBeLessThan(2_400);
  });

  it('the edges: y = 0, 1, 2, p − 2, p − 1, p … 2^255 − 1 and the small-order points, each with both sign bits', () => {
    const ys = [0n, 1n, 2n, 3n, P - 2n, P - 1n, ...Array.from({ length: 19 }, (_, j) => P + BigInt(j))];
    const plain = (y: bigint) => y < P - 1n && y !== 1n;
    for (const y of ys) {
      for (const sign of [0, 0x80]) {
        const bytes = leBytes(y, 32);
        bytes[31] |= sign;
        expect(isPlainEncoding(bytes), `y = ${y}`).toBe(plain(y));
        if (plain(y)) expect(sodiumCleared(bytes), `y = ${y}`).toBe(nobleCleared(bytes));
      }
    }
    for (const p of SMALL_ORDER) {
      const bytes = p.toBytes();
      if (!isPlainEncoding(bytes)) continue; // (0, 1) and (0, −1)
      expect(sodiumCleared(bytes)).toBe(nobleCleared(bytes));
      expect(nobleCleared(bytes)).toBe(hex(Point.ZERO.toBytes()));
    }
  });
});
