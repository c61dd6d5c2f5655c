import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeMedians, endBlockOracle, hasOracleQuorum, oraclePrice, quorumTimestamp, weightedMedian, type WeightedPrice } from '../../src/state/oracle';
import type { Address } from '../../src/util/bytes';
import { applyAt, freshState, observation, px, signers, T0 } from './harness';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
/** Entries from [price, power] pairs; validator addresses 0x…01, 0x…02, … in list order. */
/** Fisher–Yates with a small LCG: a deterministic permutation per seed. */
function shuffle<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let x = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
const entries = (...list: [bigint, bigint][]) => list.map(([price, power], i) => ({ validator: addr(i + 1), price, power }));

describe('weighted median (lower: first price, by price then address, where 2·running power ≥ total)', () => {
  it('one observation is its own median', () => {
    expect(weightedMedian(entries([42n, 7n]))).toBe(42n);
  });

  it('equal power, odd count: the middle price, whatever the input order', () => {
    expect(weightedMedian(entries([300n, 1n], [100n, 1n], [200n, 1n]))).toBe(200n);
  });

  it('equal power, even count: the lower of the two middle prices', () => {
    // P = 4; running 1 (2 < 4), 2 (4 ≥ 4) → 200.
    expect(weightedMedian(entries([400n, 1n], [100n, 1n], [300n, 1n], [200n, 1n]))).toBe(200n);
    expect(weightedMedian(entries([20n, 1n], [10n, 1n]))).toBe(10n);
  });

  it('unequal power: a majority holder decides; exactly half of the power at the lower price takes it', () => {
    // Powers 1, 1, 5 at 10, 20, 30: P = 7; running 1, 2, 7 → only 2·7 ≥ 7 → 30.
    expect(weightedMedian(entries([10n, 1n], [20n, 1n], [30n, 5n]))).toBe(30n);
    // Powers 5, 1, 1: running 5, 10 ≥ 7 at once → 10.
    expect(weightedMedian(entries([10n, 5n], [20n, 1n], [30n, 1n]))).toBe(10n);
    // Powers 2, 1, 1: P = 4; running 2, 2·2 = 4 ≥ 4 → 10 (exactly half suffices).
    expect(weightedMedian(entries([10n, 2n], [20n, 1n], [30n, 1n]))).toBe(10n);
    // Powers 1, 2, 1: running 1 (2 < 4), 3 (6 ≥ 4) → 20.
    expect(weightedMedian(entries([10n, 1n], [20n, 2n], [30n, 1n]))).toBe(20n);
    // Devnet-sized bonds behave as their ratios: 3e25 of 6e25 at the lowest price.
    const e25 = 10n ** 25n;
    expect(weightedMedian(entries([3_001n, 3n * e25], [3_002n, e25], [3_003n, 2n * e25]))).toBe(3_001n);
  });

  it('ties in price: equal prices count together', () => {
    // 100, 100, 200, 200 equal power: running 1, 2 (4 ≥ 4) → 100.
    expect(weightedMedian(entries([200n, 1n], [100n, 1n], [200n, 1n], [100n, 1n]))).toBe(100n);
    // Powers 1, 1, 1, 2 at 100, 100, 200, 200: P = 5; running 1, 2 (4 < 5), 3 (6 ≥ 5) → 200.
    expect(weightedMedian(entries([100n, 1n], [100n, 1n], [200n, 1n], [200n, 2n]))).toBe(200n);
    // Three at one price and one elsewhere: the shared price.
    expect(weightedMedian(entries([5n, 1n], [9n, 1n], [9n, 1n], [9n, 1n]))).toBe(9n);
  });

  it('refuses an empty list and a non-positive power', () => {
    expect(() => weightedMedian([])).toThrow(RangeError);
    expect(() => weightedMedian(entries([1n, 0n]))).toThrow(RangeError);
  });

  it('property: an observed price with at least half the power at or below it, the least such, and independent of order', () => {
    const arb = fc.array(fc.record({ price: fc.bigInt({ min: 1n, max: 50n }), power: fc.bigInt({ min: 1n, max: 1000n }) }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(arb, fc.integer(), (list, shuffleSeed) => {
        const es = list.map((e, i) => ({ ...e, validator: addr(i + 1) }));
        const m = weightedMedian(es);
        const total = es.reduce((s, e) => s + e.power, 0n);
        const atOrBelow = (q: bigint) => es.filter((e) => e.price <= q).reduce((s, e) => s + e.power, 0n);
        const atOrAbove = (q: bigint) => es.filter((e) => e.price >= q).reduce((s, e) => s + e.power, 0n);
        expect(es.some((e) => e.price === m)).toBe(true);
        expect(2n * atOrBelow(m)).toBeGreaterThanOrEqual(total);
        expect(2n * atOrAbove(m)).toBeGreaterThan(total);
        for (const e of es) if (e.price < m) expect(2n * atOrBelow(e.price)).toBeLessThan(total);
        const shuffled = shuffle(es, shuffleSeed);
        expect(weightedMedian(shuffled)).toBe(m);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('quorum and quorum timestamp', () => {
  it('more than 2/3 of the power, strictly', () => {
    expect(hasOracleQuorum(2n, 3n)).toBe(false); // exactly 2/3
    expect(hasOracleQuorum(3n, 4n)).toBe(true);
    expect(hasOracleQuorum(67n, 100n)).toBe(true);
    expect(hasOracleQuorum(66n, 99n)).toBe(false);
    expect(hasOracleQuorum(0n, 0n)).toBe(false);
  });

  const ts = (...list: [number, bigint][]): WeightedPrice[] => list.map(([timestampMs, power], i) => ({ validator: addr(i + 1), power, price: 1n, timestampMs }));

  it('the newest time by which observations holding > 2/3 of the total power had been made', () => {
    // Three equal of three: all are needed → the oldest.
    expect(quorumTimestamp(ts([100, 1n], [300, 1n], [200, 1n]), 3n)).toBe(100);
    // Four equal of four: the three newest suffice (3 > 8/3) → the third newest.
    expect(quorumTimestamp(ts([100, 1n], [400, 1n], [200, 1n], [300, 1n]), 4n)).toBe(200);
    // A 7-of-10 holder alone is a quorum: its own time.
    expect(quorumTimestamp(ts([100, 3n], [500, 7n]), 10n)).toBe(500);
    // Two of three equal: no quorum.
    expect(quorumTimestamp(ts([100, 1n], [200, 1n]), 3n)).toBeNull();
  });
});

// Shows contract [D-orders-oracle].
describe('endBlockOracle over state (powers 1, 2, 3, 4 of 10)', () => {
  const state = freshState([1n, 2n, 3n, 4n]);
  const [v0, v1, v2, v3] = signers;
  applyAt(
    state,
    [
      observation(v0, T0 + 100, px([1, 400n], [2, 10n])),
      observation(v1, T0 + 200, px([1, 100n], [3, 50n])),
      observation(v2, T0 + 300, px([1, 300n], [3, 70n])),
      observation(v3, T0 + 400, px([1, 200n], [2, 20n], [3, 60n])),
    ],
    T0 + 1000,
  );

  it('pair 1, all four: prices by price 100(2) 200(4) 300(3) 400(1); running 2, 6 with 2·6 ≥ 10 → 200; time: v3 (4) + v2 (3) = 7 > 20/3 → T0+300', () => {
    expect(oraclePrice(state, 1, T0 + 1000)).toEqual({ price: 200n, timestampMs: T0 + 300, fresh: true });
  });

  it('pair 2, v0 and v3 only: power 5 of 10 is no quorum → no median', () => {
    expect(oraclePrice(state, 2, T0 + 1000)).toBeUndefined();
  });

  it('pair 3, v1 v2 v3: power 9 > 20/3; 50(2) 60(4) 70(3): running 2, 6 with 12 ≥ 9 → 60; time T0+300', () => {
    expect(oraclePrice(state, 3, T0 + 1000)).toEqual({ price: 60n, timestampMs: T0 + 300, fresh: true });
  });

  it('a pair nobody observed has no price', () => {
    expect(oraclePrice(state, 4, T0 + 1000)).toBeUndefined();
  });

  it('computeMedians lists exactly the pairs with a quorum, ascending', () => {
    expect(computeMedians(state, T0 + 1000)).toEqual([
      { pairId: 1, price: 200n, timestampMs: T0 + 300 },
      { pairId: 3, price: 60n, timestampMs: T0 + 300 },
    ]);
  });

  it('calling it again for the same time writes nothing', () => {
    state.flush();
    endBlockOracle(state, T0 + 1000);
    expect(state.flush().changes).toEqual([]);
  });
});

describe('endBlockOracle skips blocks whose inputs did not change', () => {
  it('stores, block after block, exactly what computing the medians every block stores (a model over random observations and time)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            // Mostly short steps (nothing goes stale), some past the 5 s staleness bound.
            dt: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 2_000, max: 7_000 })),
            obs: fc.array(
              fc.record({ v: fc.integer({ min: 0, max: 3 }), back: fc.integer({ min: 0, max: 4_000 }), pairs: fc.subarray([1, 2, 3], { minLength: 1 }), base: fc.bigInt({ min: 1n, max: 1_000n }) }),
              { maxLength: 3 },
            ),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        (steps) => {
          const state = freshState([1n, 2n, 3n, 4n]);
          const model = new Map<number, { price: bigint; timestampMs: number }>();
          let t = T0 + 10_000;
          for (const step of steps) {
            t += step.dt;
            const txs = step.obs.map((o) => observation(signers[o.v], t - o.back, o.pairs.map((pairId, i) => ({ pairId, price: o.base + BigInt(i) }))));
            applyAt(state, txs, t);
            // The rule of endBlockOracle, computed every block from the block's state.
            for (const m of computeMedians(state, t)) {
              const prev = model.get(m.pairId);
              if (prev && (m.timestampMs < prev.timestampMs || (m.timestampMs === prev.timestampMs && m.price === prev.price))) continue;
              model.set(m.pairId, { price: m.price, timestampMs: m.timestampMs });
            }
            for (const pairId of [1, 2, 3]) expect(state.oracleMedians.get(String(pairId)) ?? null).toEqual(model.get(pairId) ?? null);
          }
        },
      ),
      {
        numRuns: 300,
        // Always tried: an observation goes stale while the rest still hold a quorum, and
        // the median moves though no new observation arrived.
        examples: [
          [
            [
              { dt: 2_000, obs: [{ v: 1, back: 0, pairs: [3], base: 2n }] },
              { dt: 2_324, obs: [] },
              { dt: 106, obs: [{ v: 2, back: 0, pairs: [3], base: 2n }, { v: 3, back: 0, pairs: [3], base: 1n }] },
              { dt: 2_570, obs: [] },
              { dt: 1, obs: [] },
            ],
          ],
        ],
      },
    );
  });
});
