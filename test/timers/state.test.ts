/**
 * The timers in execution (issue 24, decisions 90–91), block by block with applyBlock:
 * the dead-man switch fires at the first block whose time reaches it, in (time, trader)
 * order, cancelling with reason "scheduled"; TWAP slices run through the twap machine's
 * stepper at their block times, IOC within 3% of the mark, with deterministic
 * randomisation; and a node restarted from the store (indexes rebuilt) fires the same
 * timers at the same heights with the same state root as one that never stopped.
 */
import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/state/context';
import { sliceWorstPrice } from '../../src/state/timers/twap';
import { bytesToHex } from '../../src/util/bytes';
import { T0, TimerChain, traders } from './harness';

const [alice, bob, carol, dave] = traders;
const ETH = 1;
const PRICE = 3_000_000_000n; // 3000 USDC ×1e6

const of = <T extends ChainEvent['type']>(events: ChainEvent[], type: T) => events.filter((e): e is Extract<ChainEvent, { type: T }> => e.type === type);
const ok = (r: { receipts: { status: string; code?: string }[] }) => r.receipts.map((x) => x.code ?? x.status);

describe('scheduled cancels in execution', () => {
  it('fire at the first block at or after their time, in (time, trader) order, with reason "scheduled", releasing the locks', () => {
    const c = new TimerChain();
    let t = T0 + 1000;
    const r1 = c.applyAt([c.order(alice, 'ETH', 'buy', '1000', '0.1'), c.order(bob, 'ETH', 'buy', '1000', '0.1'), c.order(carol, 'BTC', 'buy', '1000', '0.01')], t);
    expect(ok(r1)).toEqual(['ok', 'ok', 'ok']);
    // bob and carol at the same time, alice earlier: alice, then bob before carol (address order).
    const at = t + 10_000;
    const r2 = c.applyAt([c.scheduleCancel(carol, at), c.scheduleCancel(bob, at), c.scheduleCancel(alice, at - 1)], (t += 1000));
    expect(ok(r2)).toEqual(['ok', 'ok', 'ok']);
    expect(c.applyAt([], at - 2).blockEvents).toEqual([]);
    const fired = c.applyAt([], at + 500).blockEvents;
    const order = of(fired, 'ScheduledCancelFired').map((e) => e.trader);
    expect(order).toEqual([alice.address, ...[bob.address, carol.address].sort()]);
    const cancels = of(fired, 'OrderUpdated');
    expect(cancels).toHaveLength(3);
    expect(cancels.every((e) => e.status === 'cancelled' && e.reason === 'scheduled')).toBe(true);
    for (const tr of [alice, bob, carol]) {
      expect(c.state.openOrderIds(tr.address)).toEqual([]);
      expect(c.state.account(tr.address).usdcLocked).toBe(0n);
      expect(c.state.scheduledCancels.get(tr.address)!.timeMs).toBeNull();
    }
    expect(c.state.cancelsDue.size).toBe(0);
    // It fired once: a later block fires nothing.
    expect(c.applyAt([], at + 10_000).blockEvents).toEqual([]);
  });

  it('a schedule that fires with no open orders cancels nothing and still clears; a failed refusal changes nothing', () => {
    const c = new TimerChain();
    const r = c.applyAt([c.scheduleCancel(dave, T0 + 7_000), c.scheduleCancel(alice, T0 + 5_999)], T0 + 1_000);
    expect(ok(r)).toEqual(['ok', 'SCHEDULE_TOO_SOON']);
    expect(c.state.scheduledCancels.get(alice.address)).toBeUndefined();
    const fired = of(c.applyAt([], T0 + 7_000).blockEvents, 'ScheduledCancelFired');
    expect(fired).toEqual([{ type: 'ScheduledCancelFired', trader: dave.address, timeMs: T0 + 7_000, cancelledIds: [] }]);
  });

  it('the daily limit counts per UTC day of block time and resets the next day; clears are free; expiresAfter is enforced', () => {
    const c = new TimerChain();
    const day = 86_400_000;
    const start = (Math.floor(T0 / day) + 1) * day; // the next UTC midnight
    const txs = Array.from({ length: 11 }, (_, i) => c.scheduleCancel(alice, start + day / 2 + i));
    const r = c.applyAt([...txs, c.scheduleCancel(alice, null)], start + 1);
    expect(ok(r)).toEqual([...Array(10).fill('ok'), 'SCHEDULE_LIMIT', 'ok']);
    expect(ok(c.applyAt([c.scheduleCancel(alice, start + day + 60_000)], start + day))).toEqual(['ok']);
    expect(c.state.scheduledCancels.get(alice.address)).toMatchObject({ count: 1, day: Math.floor((start + day) / day) });
    const now = start + day + 1000;
    expect(ok(c.applyAt([c.scheduleCancel(bob, null, { expiresAfter: BigInt(now) }), c.scheduleCancel(bob, null, { expiresAfter: BigInt(now - 1) })], now))).toEqual(['ok', 'ACTION_EXPIRED']);
  });
});

describe('TWAP orders in execution', () => {
  function withBook(): { c: TimerChain; t: number } {
    const c = new TimerChain();
    const t = T0 + 1000;
    c.applyAt([c.observe(t - 100, [[ETH, PRICE]]), c.order(carol, 'ETH', 'sell', '3000', '5'), c.order(carol, 'ETH', 'sell', '3100', '5')], t);
    return { c, t };
  }

  it('slices every 30 s of block time as IOC market orders bounded 3% from the mark, and completes with the size filled', () => {
    const { c, t } = withBook();
    const r = c.applyAt([c.observe(t + 900, [[ETH, PRICE]]), c.twap(alice, 'ETH', 'buy', '1', 5)], t + 1000);
    const placed = of(r.receipts[1].events, 'TwapPlaced')[0];
    expect(placed).toMatchObject({ twapId: '1', slicesTotal: 10, size: 10n ** 18n });
    // The first slice ran at the end of the placing block.
    expect(of(r.blockEvents, 'TwapSlice')).toMatchObject([{ twapId: '1', slice: 0, size: 10n ** 17n, filled: 10n ** 17n }]);
    const placedOrder = of(r.blockEvents, 'OrderPlaced')[0];
    expect(placedOrder).toMatchObject({ orderType: 0, price: sliceWorstPrice(0, PRICE, 10_000n), size: 10n ** 17n });
    expect(placedOrder.price).toBe(3_090_000_000n);
    let now = t + 1000;
    let slices = 1;
    while (c.state.twaps.get('1')!.state === 'running') {
      // Blocks between slices do nothing; the slice due at createdMs + k × 30 s runs at the first block at or after it.
      expect(of(c.applyAt([c.observe(now + 14_000, [[ETH, PRICE]])], now + 15_000).blockEvents, 'TwapSlice')).toEqual([]);
      now += 30_000;
      const s = of(c.applyAt([c.observe(now - 100, [[ETH, PRICE]])], now).blockEvents, 'TwapSlice');
      expect(s).toMatchObject([{ slice: slices }]);
      slices++;
    }
    expect(slices).toBe(10);
    const rec = c.state.twaps.get('1')!;
    expect(rec).toMatchObject({ state: 'completed', context: { filled: 10n ** 18n, slicesDone: 10, slicesMissed: 0, nextSliceMs: 0 } });
    expect(c.state.twapsDue.size).toBe(0);
    expect(c.state.position(alice.address, ETH).size).toBe(10n ** 18n);
  });

  it('a slice with a stale mark is missed (its size spread over the rest); the worst price bounds a sell 3% under the mark', () => {
    const { c, t } = withBook();
    // No observation for 6 s: the median is stale (5 s) when the first slice runs.
    const r = c.applyAt([c.twap(bob, 'ETH', 'sell', '0.5', 5)], t + 6_000);
    expect(of(r.blockEvents, 'TwapSlice')).toMatchObject([{ slice: 0, filled: 0n, code: 'ORACLE_STALE' }]);
    const rec = c.state.twaps.get('1')!;
    expect(rec).toMatchObject({ state: 'running', context: { slicesMissed: 1, filled: 0n } });
    expect(sliceWorstPrice(1, PRICE, 10_000n)).toBe(2_910_000_000n);
    // No bids at all: the next slice has a fresh mark and misses for liquidity.
    const r2 = c.applyAt([c.observe(t + 35_900, [[ETH, PRICE]])], t + 36_000);
    expect(of(r2.blockEvents, 'TwapSlice')).toMatchObject([{ slice: 1, code: 'NO_LIQUIDITY' }]);
    expect(of(r2.blockEvents, 'OrderPlaced')).toEqual([]);
  });

  it('randomized slice sizes vary within 80–120% and are the same on every run (seeded by the TWAP id and slice number)', () => {
    const run = () => {
      const { c, t } = withBook();
      c.applyAt([c.observe(t + 900, [[ETH, PRICE]]), c.twap(alice, 'ETH', 'buy', '2', 5, true)], t + 1000);
      let now = t + 1000;
      for (let k = 1; k < 5; k++) c.applyAt([c.observe((now += 30_000) - 100, [[ETH, PRICE]])], now);
      return { sizes: c.state.twaps.get('1')!.context.filled, root: bytesToHex(c.state.root()) };
    };
    const a = run();
    expect(run()).toEqual(a);
    // Five slices of about 0.2 each, each within 80–120 % of remaining / slices left.
    expect(a.sizes).toBeGreaterThanOrEqual((5n * 2n * 10n ** 17n * 80n) / 100n - 10n ** 16n);
    expect(a.sizes).toBeLessThanOrEqual((5n * 2n * 10n ** 17n * 120n) / 100n + 10n ** 16n);
    expect(a.sizes).not.toBe(10n ** 18n);
  });

  it('TwapCancel stops it (the machine refuses a second cancel: 422 TWAP_STATE); 404 unknown, 403 another\'s', () => {
    const { c, t } = withBook();
    c.applyAt([c.observe(t + 900, [[ETH, PRICE]]), c.twap(alice, 'ETH', 'buy', '1', 5)], t + 1000);
    const r = c.applyAt([c.twapCancel(bob, '1'), c.twapCancel(alice, '9'), c.twapCancel(alice, '1'), c.twapCancel(alice, '1')], t + 2000);
    expect(ok(r)).toEqual(['NOT_OWNER', 'UNKNOWN_TWAP', 'ok', 'TWAP_STATE']);
    expect(of(r.receipts[2].events, 'TwapEnded')).toMatchObject([{ state: 'cancelled', filled: 10n ** 17n, remaining: 9n * 10n ** 17n }]);
    expect(of(c.applyAt([c.observe(t + 30_900, [[ETH, PRICE]])], t + 31_000).blockEvents, 'TwapSlice')).toEqual([]);
  });
});

describe('restart', () => {
  it('a node restarted from its store fires the same scheduled cancels and TWAP slices at the same heights with the same roots', () => {
    const c = new TimerChain();
    let now = T0 + 1000;
    c.applyAt([c.observe(now - 100, [[ETH, PRICE]]), c.order(carol, 'ETH', 'sell', '3000', '5'), c.order(dave, 'ETH', 'buy', '2000', '1')], now);
    c.applyAt([c.observe(now + 900, [[ETH, PRICE]]), c.twap(alice, 'ETH', 'buy', '1', 5, true), c.twap(bob, 'ETH', 'buy', '0.5', 5), c.scheduleCancel(dave, now + 45_000)], (now += 1000));
    c.applyAt([c.observe(now + 29_900, [[ETH, PRICE]])], (now += 30_000));
    const restarted = c.restarted();
    expect(bytesToHex(restarted.root())).toBe(bytesToHex(c.state.root()));
    expect(restarted.twapsDue.size).toBe(2);
    expect(restarted.cancelsDue.size).toBe(1);
    const strip = (events: ChainEvent[]) => JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
    let fired = 0;
    for (let k = 0; k < 12; k++) {
      now += 30_000;
      const txs = [c.observe(now - 100, [[ETH, PRICE]])];
      const a = c.applyAt(txs, now);
      const b = c.applyAt(txs, now, restarted);
      expect(bytesToHex(b.stateRoot)).toBe(bytesToHex(a.stateRoot));
      expect(strip(b.blockEvents)).toBe(strip(a.blockEvents));
      fired += of(a.blockEvents, 'ScheduledCancelFired').length;
    }
    expect(fired).toBe(1);
    expect(c.state.twaps.get('1')!.state).toBe('completed');
    expect(c.state.twaps.get('2')!.state).toBe('completed');
  });
});
