import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEVNET_DEPTH, DevnetPriceSource, isqrt } from '../../src/oracle/devnet-source';
import { BASE } from './harness';

const GENESIS_S = BASE.genesisTimeMs / 1000;
const source = DevnetPriceSource.fromGenesis(BASE);
const ETH = BASE.pairs.find((p) => p.id === 1)!;
/** A second well after genesis (2026-11-22), where a node would quote today. */
const TODAY_S = 1_795_000_000;

function path(src: DevnetPriceSource, pair: { id: number; initialPrice: bigint }, from: number, n: number): bigint[] {
  return Array.from({ length: n }, (_, i) => src.price(pair, from + i));
}

describe('devnet price source', () => {
  it('starts at the initial price at genesis, and reads it for any second before', () => {
    for (const p of BASE.pairs) {
      expect(source.price(p, GENESIS_S)).toBe(p.initialPrice);
      expect(source.price(p, GENESIS_S - 1_000)).toBe(p.initialPrice);
    }
  });

  // Shows contract [D-orders-oracle].
  it('is deterministic: another instance, any query order, the same prices', () => {
    const forward = path(source, ETH, TODAY_S, 300);
    const other = DevnetPriceSource.fromGenesis(BASE);
    const backward = Array.from({ length: 300 }, (_, i) => other.price(ETH, TODAY_S + 299 - i)).reverse();
    expect(backward).toEqual(forward);
    expect(source.priceAtMs(ETH, TODAY_S * 1000 + 999)).toBe(forward[0]);
  });

  it('every step is within maxStepBps of the previous price, and every price within [initial/2, 3·initial/2] (an hour near genesis and today, every pair)', () => {
    const bps = BigInt(BASE.oracle.devnetMaxStepBps);
    for (const pair of BASE.pairs) {
      for (const from of [GENESIS_S, TODAY_S]) {
        const prices = path(source, pair, from, 3_601);
        const { low, high } = source.bounds(pair);
        for (let i = 1; i < prices.length; i++) {
          const step = prices[i] > prices[i - 1] ? prices[i] - prices[i - 1] : prices[i - 1] - prices[i];
          expect(step * 10_000n <= prices[i - 1] * bps, `pair ${pair.id} second ${from + i}: ${prices[i - 1]} → ${prices[i]}`).toBe(true);
          expect(prices[i] >= low && prices[i] <= high).toBe(true);
        }
      }
    }
  });

  it('moves like a walk: not constant, and an hour spans a visible but bounded range', () => {
    const prices = path(source, ETH, TODAY_S, 3_600);
    const distinct = new Set(prices).size;
    expect(distinct).toBeGreaterThan(1_000);
    const lo = prices.reduce((a, b) => (b < a ? b : a));
    const hi = prices.reduce((a, b) => (b > a ? b : a));
    // At most 3600 steps of m = ⌊L·20/10000⌋ = 1.5e9·0.002 = 3,000,000: a far looser bound than a walk reaches.
    expect(hi - lo).toBeGreaterThan(0n);
    expect(hi - lo).toBeLessThanOrEqual(3_600n * source.bounds(ETH).maxStep);
  });

  it('property: the step and range bounds hold at random seconds across the whole horizon, for random parameters', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 2 ** DEVNET_DEPTH - 2 }),
        (seed, maxStepBps, initialPrice, s) => {
          const src = new DevnetPriceSource({ seed, maxStepBps, genesisTimeMs: BASE.genesisTimeMs });
          const pair = { id: 3, initialPrice };
          const p0 = src.price(pair, GENESIS_S + s);
          const p1 = src.price(pair, GENESIS_S + s + 1);
          const step = p1 > p0 ? p1 - p0 : p0 - p1;
          expect(step * 10_000n).toBeLessThanOrEqual(p0 * BigInt(maxStepBps));
          const { low, high } = src.bounds(pair);
          expect(p0 >= low && p0 <= high && p1 >= low && p1 <= high).toBe(true);
        },
      ),
      { numRuns: 400, seed: 11 },
    );
  });

  it('a step bound of 0 keeps the price constant', () => {
    const flat = new DevnetPriceSource({ seed: 'x', maxStepBps: 0, genesisTimeMs: BASE.genesisTimeMs });
    expect(new Set(path(flat, ETH, TODAY_S, 50))).toEqual(new Set([ETH.initialPrice]));
  });

  it('different seeds give different paths; different pairs of the same seed too', () => {
    const a = path(source, ETH, TODAY_S, 100);
    const b = path(new DevnetPriceSource({ seed: 'another-seed', maxStepBps: BASE.oracle.devnetMaxStepBps, genesisTimeMs: BASE.genesisTimeMs }), ETH, TODAY_S, 100);
    expect(b).not.toEqual(a);
    expect(b.filter((x, i) => x === a[i]).length).toBeLessThan(10);
    const sameStart = { id: 99, initialPrice: ETH.initialPrice };
    expect(path(source, sameStart, TODAY_S, 100)).not.toEqual(a);
  });

  it('isqrt is the floor square root', () => {
    for (const n of [0n, 1n, 2n, 3n, 4n, 15n, 16n, 17n, 10n ** 24n, 10n ** 24n - 1n, 2n ** 39n]) {
      const r = isqrt(n);
      expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
    }
  });
});
