/**
 * The devnet price source (contract [D-orders-oracle]: deterministic and seeded
 * from genesis). For every pair and every whole second since genesis it defines one
 * price ×1e6, the same on every validator, from integer arithmetic and keccak only:
 *
 *   price(pair, s) for s = unixSecond − genesisSecond (s < 0 reads as 0), with
 *   - price(pair, 0) = pair.initialPrice;
 *   - steps bounded: |price(s+1) − price(s)| ≤ price(s) · maxStepBps / 10000;
 *   - range bounded: L ≤ price ≤ U with L = initial − ⌊initial/2⌋, U = initial + ⌊initial/2⌋.
 *
 * Genesis is fixed (the devnet's is 2025-01-01), so a walk drawn second after second
 * would cost one hash per second since then (tens of millions) before a node could
 * quote today's price. The path is drawn by midpoint displacement instead, so any
 * second costs DEPTH hashes: over the dyadic intervals of [0, 2^DEPTH] (both ends at
 * the initial price), the value at the midpoint of [a, b] (half-width h) is drawn
 * uniformly from the integers in
 *   [max(pa, pb) − m·h, min(pa, pb) + m·h] ∩ [L, U] ∩ [c − W, c + W],
 *   m = ⌊L · maxStepBps / 10000⌋, c = ⌊(pa + pb)/2⌋, W = m · ⌊√h⌋,
 * as lo + r mod (hi − lo + 1), r = keccak256(string "exchange-chain/devnet-oracle/v1" ‖
 * string seed ‖ u32 pairId ‖ u64 s_mid) read as a 256-bit integer, in the canonical
 * encoding (strings length-prefixed). Each second is the midpoint of exactly one
 * interval, so each draw is keyed by (seed, pair, its own second). The interval is
 * never empty (c lies in all three), and it keeps |p(b) − p(a)| ≤ m·(b − a) on every
 * interval, so neighbouring seconds differ by at most m ≤ L·maxStepBps/10000 ≤
 * price·maxStepBps/10000. W ∝ √h gives the path a random
 * walk's roughness (spread ≈ m·√(n/3) over n seconds) instead of swinging at full slope.
 *
 * Cost: at most DEPTH hashes for any second; the last descent per pair is kept, so
 * consecutive seconds cost about two.
 */
import { Writer } from '../codec/binary';
import { keccak256 } from '../crypto/keccak';
import type { Genesis } from '../genesis/types';
import { bytesToHex } from '../util/bytes';

/** Seconds covered: 2^40 s ≈ 34,800 years after genesis; later seconds read the last one. */
export const DEVNET_DEPTH = 40;
const HORIZON = 2 ** DEVNET_DEPTH;
const TAG = 'exchange-chain/devnet-oracle/v1';

export interface DevnetSourceParams {
  /** genesis oracle.devnetSeed */
  seed: string;
  /** genesis oracle.devnetMaxStepBps */
  maxStepBps: number;
  /** genesis genesisTimeMs: second 0 of every path is the genesis second. */
  genesisTimeMs: number;
}

export interface DevnetPair {
  id: number;
  /** ×1e6, positive: the path's start and centre. */
  initialPrice: bigint;
}

/** One step of a descent: a dyadic interval [a, b] and the prices at its ends. */
interface Frame {
  a: number;
  b: number;
  pa: bigint;
  pb: bigint;
}

/** Per pair: its bounds, the hash prefix, and the last descent (consecutive seconds share all but its last frames). */
interface PairPath {
  low: bigint;
  high: bigint;
  maxStep: bigint;
  /** TAG ‖ seed ‖ u32 pairId ‖ 8 bytes for the second, rewritten per draw. */
  input: Uint8Array;
  view: DataView;
  stack: Frame[];
}

/** Paths cached at once (pairs); past it the cache starts afresh: only speed depends on it. */
const PATHS_MAX = 4096;

export class DevnetPriceSource {
  readonly originSecond: number;
  private readonly paths = new Map<string, PairPath>();

  constructor(readonly params: DevnetSourceParams) {
    if (!Number.isInteger(params.maxStepBps) || params.maxStepBps < 0 || params.maxStepBps > 10_000) throw new RangeError(`maxStepBps ${params.maxStepBps} outside 0..10000`);
    if (!Number.isSafeInteger(params.genesisTimeMs) || params.genesisTimeMs < 0) throw new RangeError(`genesisTimeMs ${params.genesisTimeMs}`);
    this.originSecond = Math.floor(params.genesisTimeMs / 1000);
  }

  static fromGenesis(g: Pick<Genesis, 'oracle' | 'genesisTimeMs'>): DevnetPriceSource {
    return new DevnetPriceSource({ seed: g.oracle.devnetSeed, maxStepBps: g.oracle.devnetMaxStepBps, genesisTimeMs: g.genesisTimeMs });
  }

  /** The price ×1e6 of `pair` during the whole Unix second `unixSecond`. */
  price(pair: DevnetPair, unixSecond: number): bigint {
    if (!Number.isSafeInteger(unixSecond)) throw new RangeError(`second ${unixSecond} is not an integer`);
    if (pair.initialPrice <= 0n) throw new RangeError(`pair ${pair.id}: initial price must be positive`);
    const s = Math.min(Math.max(0, unixSecond - this.originSecond), HORIZON);
    return this.at(this.path(pair), s);
  }

  /** The price at a time in ms: that of the whole second containing it. */
  priceAtMs(pair: DevnetPair, timeMs: number): bigint {
    return this.price(pair, Math.floor(timeMs / 1000));
  }

  /** The bounds every price of the pair lies in, and the largest step between neighbouring seconds. */
  bounds(pair: DevnetPair): { low: bigint; high: bigint; maxStep: bigint } {
    const half = pair.initialPrice / 2n;
    const low = pair.initialPrice - half;
    return { low, high: pair.initialPrice + half, maxStep: (low * BigInt(this.params.maxStepBps)) / 10_000n };
  }

  private path(pair: DevnetPair): PairPath {
    const key = `${pair.id}:${pair.initialPrice}`;
    let p = this.paths.get(key);
    if (!p) {
      if (this.paths.size >= PATHS_MAX) this.paths.clear();
      const prefix = new Writer(64).string(TAG).string(this.params.seed).u32(pair.id).finish();
      const input = new Uint8Array(prefix.length + 8);
      input.set(prefix);
      p = {
        ...this.bounds(pair),
        input,
        view: new DataView(input.buffer, prefix.length, 8),
        stack: [{ a: 0, b: HORIZON, pa: pair.initialPrice, pb: pair.initialPrice }],
      };
      this.paths.set(key, p);
    }
    return p;
  }

  /** Descends from the deepest cached interval containing s. */
  private at(p: PairPath, s: number): bigint {
    const stack = p.stack;
    let d = stack.length - 1;
    while (d > 0 && (s < stack[d].a || s > stack[d].b)) d--;
    stack.length = d + 1;
    for (;;) {
      const { a, b, pa, pb } = stack[d];
      if (s === a) return pa;
      if (s === b) return pb;
      const mid = a + (b - a) / 2; // exact: intervals are dyadic
      const pm = this.draw(p, mid, pa, pb, BigInt((b - a) / 2));
      if (s === mid) return pm;
      stack.push(s < mid ? { a, b: mid, pa, pb: pm } : { a: mid, b, pa: pm, pb });
      d++;
    }
  }

  private draw(p: PairPath, mid: number, pa: bigint, pb: bigint, h: bigint): bigint {
    const m = p.maxStep;
    const c = (pa + pb) / 2n;
    const w = m * isqrt(h);
    const lo = max3((pa > pb ? pa : pb) - m * h, p.low, c - w);
    const hi = min3((pa < pb ? pa : pb) + m * h, p.high, c + w);
    if (lo > hi) throw new Error(`devnet source: empty interval at second ${mid} (a bug)`);
    if (lo === hi) return lo;
    p.view.setUint32(0, Math.floor(mid / 2 ** 32));
    p.view.setUint32(4, mid >>> 0);
    return lo + (BigInt(bytesToHex(keccak256(p.input))) % (hi - lo + 1n));
  }
}

function max3(x: bigint, y: bigint, z: bigint): bigint {
  const xy = x > y ? x : y;
  return xy > z ? xy : z;
}

function min3(x: bigint, y: bigint, z: bigint): bigint {
  const xy = x < y ? x : y;
  return xy < z ? xy : z;
}

/** ⌊√n⌋ for n ≥ 0 (Newton's method on bigints). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('isqrt of a negative number');
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}
