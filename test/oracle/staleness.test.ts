import { describe, expect, it } from 'vitest';
import { oraclePrice } from '../../src/state/oracle';
import { applyAt, freshState, observation, px, signers, STALE_MS, T0 } from './harness';

const POWER = 10n ** 25n;

describe('oracle staleness', () => {
  it('one validator: the median holds its observation; with no newer one it stops updating and is no longer fresh after maxStalenessMs', () => {
    const state = freshState([POWER]);
    applyAt(state, [observation(signers[0], T0 + 1000, px([1, 3_000_000_000n]))], T0 + 1500);
    expect(oraclePrice(state, 1, T0 + 1500)).toEqual({ price: 3_000_000_000n, timestampMs: T0 + 1000, fresh: true });

    // Empty blocks until the observation itself is stale at block time.
    applyAt(state, [], T0 + 1000 + STALE_MS); // still fresh: recomputed, same value, nothing written
    applyAt(state, [], T0 + 1000 + STALE_MS + 1); // no fresh observation: no quorum
    const rec = state.oracleMedians.get('1');
    expect(rec).toEqual({ price: 3_000_000_000n, timestampMs: T0 + 1000 });
    expect(oraclePrice(state, 1, T0 + 1000 + STALE_MS)?.fresh).toBe(true);
    expect(oraclePrice(state, 1, T0 + 1000 + STALE_MS + 1)).toEqual({ price: 3_000_000_000n, timestampMs: T0 + 1000, fresh: false });
    expect(oraclePrice(state, 1, state.head().timestampMs)?.fresh).toBe(false);

    // A new observation makes it fresh again, at the new price.
    applyAt(state, [observation(signers[0], T0 + 9000, px([1, 3_100_000_000n]))], T0 + 9100);
    expect(oraclePrice(state, 1, T0 + 9100)).toEqual({ price: 3_100_000_000n, timestampMs: T0 + 9000, fresh: true });
  });

  it('three equal validators: one alone keeps observing, the median is not updated once the others are stale, and it goes stale; two of three (exactly 2/3) are still no quorum', () => {
    const state = freshState([POWER, POWER, POWER]);
    const [v0, v1, v2] = signers;
    applyAt(state, [observation(v0, T0 + 1000, px([1, 100n])), observation(v1, T0 + 1000, px([1, 200n])), observation(v2, T0 + 1000, px([1, 300n]))], T0 + 1100);
    expect(oraclePrice(state, 1, T0 + 1100)).toEqual({ price: 200n, timestampMs: T0 + 1000, fresh: true });

    // v0 alone, every second, at a new price. While v1 and v2 are fresh, all three form the quorum: time stays T0+1000.
    for (let t = T0 + 2000; t <= T0 + 1000 + STALE_MS; t += 1000) applyAt(state, [observation(v0, t, px([1, 250n]))], t + 50);
    expect(oraclePrice(state, 1, T0 + 1000 + STALE_MS)).toEqual({ price: 250n, timestampMs: T0 + 1000, fresh: true });
    // Past the bound, v1 and v2 are stale: v0's observations are no quorum, the median is left alone and ages.
    const later = T0 + 1000 + STALE_MS + 1000;
    applyAt(state, [observation(v0, later, px([1, 999n]))], later + 50);
    expect(state.oracleMedians.get('1')).toEqual({ price: 250n, timestampMs: T0 + 1000 });
    expect(oraclePrice(state, 1, later + 50)?.fresh).toBe(false);

    // v1 returns: two of three equal powers is exactly 2/3, not more: still no update.
    applyAt(state, [observation(v1, later + 100, px([1, 998n]))], later + 150);
    expect(state.oracleMedians.get('1')).toEqual({ price: 250n, timestampMs: T0 + 1000 });
    // v2 returns: a quorum again; prices 999, 998, 997 → median 998 at the oldest of the three.
    applyAt(state, [observation(v2, later + 200, px([1, 997n]))], later + 250);
    expect(oraclePrice(state, 1, later + 250)).toEqual({ price: 998n, timestampMs: later, fresh: true });
  });

  it('unequal power: a validator holding more than 2/3 alone keeps the median fresh', () => {
    const state = freshState([7n * POWER, 2n * POWER, POWER]);
    applyAt(state, [observation(signers[0], T0 + 1000, px([1, 500n])), observation(signers[1], T0 + 1000, px([1, 100n]))], T0 + 1100);
    expect(oraclePrice(state, 1, T0 + 1100)).toEqual({ price: 500n, timestampMs: T0 + 1000, fresh: true });
    const t = T0 + 1000 + 3 * STALE_MS;
    applyAt(state, [observation(signers[0], t, px([1, 510n]))], t + 10);
    expect(oraclePrice(state, 1, t + 10)).toEqual({ price: 510n, timestampMs: t, fresh: true });
  });
});
