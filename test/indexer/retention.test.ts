/**
 * The index's own retention (issue 27 deliver 2, decision 134) over the hand-built
 * fixture (six blocks across a day): trades, fills and candles older than the cutoff go,
 * closed orders placed before it go (history and record), an order still open stays
 * however old; lowestKept says each kind's cutoff; a page reaching back before it is
 * refused 410 PRUNED (src/api/pruned.ts); an index started past a chain store's base
 * begins there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/envelope';
import { refusePrunedTime } from '../../src/api/pruned';
import { Indexer } from '../../src/indexer/indexer';
import { FakeStore, fixtureBlocks, H1, H2, T0, tempDir } from './fixture';

const HOUR_MS = 3_600_000;
const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

async function indexed(): Promise<Indexer & { folder: string }> {
  const dir = tempDir();
  dirs.push(dir);
  const idx = await Indexer.open(dir.path);
  for (const b of fixtureBlocks()) await idx.indexBlock(b.height, b.timestampMs, b.receipts);
  return Object.assign(idx, { folder: dir.path });
}

describe("the index's retention", () => {
  it('deletes by block time what aged out, keeps open orders, and says what it keeps', async () => {
    const idx = await indexed();
    try {
      expect(idx.lowestKept()).toEqual({ trades: null, fills: null, candles: null, orders: null });
      const nowMs = T0 + 86_405_000;
      const cutoff = nowMs - HOUR_MS;
      const tradesBefore = [...(await idx.trades('ETH', 100)), ...(await idx.trades('BTC', 100))];
      expect(tradesBefore.some((t) => t.time < cutoff)).toBe(true);
      const deleted = await idx.pruneRetained({ tradesMs: HOUR_MS, candlesMs: HOUR_MS, ordersMs: HOUR_MS }, nowMs);
      expect(deleted).toBeGreaterThan(0);
      expect(idx.lowestKept()).toEqual({ trades: cutoff, fills: cutoff, candles: Math.floor(cutoff / 1000) * 1000, orders: cutoff });
      const trades = [...(await idx.trades('ETH', 100)), ...(await idx.trades('BTC', 100))];
      expect(trades.length).toBe(tradesBefore.filter((t) => t.time >= cutoff).length);
      expect(trades.length).toBeGreaterThan(0);
      for (const a of [H1, H2]) for (const f of await idx.fills(a, 100)) expect(f.time).toBeGreaterThanOrEqual(cutoff);
      for (const c of await idx.candles('ETH', '1m', 100)) expect(c.time).toBeGreaterThanOrEqual(Math.floor(cutoff / 1000)); // candle times are Unix seconds
      expect(await idx.order('1')).toBeUndefined(); // filled, a day old
      expect(await idx.order('5')).toBeUndefined(); // cancelled
      expect((await idx.order('10'))?.status).toBe('partial'); // still open: kept
      expect(await idx.order('12')).toBeDefined(); // placed after the cutoff
      expect(() => refusePrunedTime(idx.lowestKept(), 'trades', cutoff - 1)).toThrow(ApiError);
      try {
        refusePrunedTime(idx.lowestKept(), 'trades', T0);
      } catch (err) {
        expect(err).toMatchObject({ status: 410, code: 'PRUNED', details: { lowestTime: cutoff } });
      }
      expect(() => refusePrunedTime(idx.lowestKept(), 'trades', cutoff)).not.toThrow();
      expect(() => refusePrunedTime(idx.lowestKept(), 'trades', undefined)).not.toThrow();
    } finally {
      await idx.close();
    }
  });

  it('keeps everything with 0, and an index reopened remembers its cutoffs', async () => {
    const idx = await indexed();
    const dir = idx.folder;
    const before = await idx.trades('ETH', 100);
    expect(await idx.pruneRetained({ tradesMs: 0, candlesMs: 0, ordersMs: 0 }, T0 + 86_405_000)).toBe(0);
    expect(await idx.trades('ETH', 100)).toEqual(before);
    await idx.pruneRetained({ tradesMs: HOUR_MS, candlesMs: 0, ordersMs: 0 }, T0 + 86_405_000);
    await idx.close();
    const again = await Indexer.open(dir);
    expect(again.lowestKept()).toEqual({ trades: T0 + 86_405_000 - HOUR_MS, fills: T0 + 86_405_000 - HOUR_MS, candles: null, orders: null });
    await again.close();
  });

  it('indexes a chain store whose base is past its next height from the base on', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = new FakeStore(fixtureBlocks(), 6);
    const pruned = Object.assign(store, { base: async () => 4 });
    const idx = await Indexer.open(dir.path);
    try {
      expect(await idx.catchUp(pruned)).toBe(3);
      expect(idx.indexedFrom()).toBe(4);
      expect(idx.indexedHeight()).toBe(6);
      expect(await idx.order('1')).toBeUndefined(); // placed in block 1, below the base
      expect(await idx.order('7')).toBeDefined();
    } finally {
      await idx.close();
    }
  });

  it('starts after the base of a store restored by state sync, whose base block has no receipts (decision 140)', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = new FakeStore(fixtureBlocks(), 6);
    const getReceipts = store.getReceipts.bind(store);
    const restored = Object.assign(store, { base: async () => 4, getReceipts: async (h: number) => (h === 4 ? undefined : getReceipts(h)) });
    const idx = await Indexer.open(dir.path);
    try {
      expect(await idx.catchUp(restored)).toBe(2);
      expect(idx.indexedFrom()).toBe(5);
      expect(idx.indexedHeight()).toBe(6);
    } finally {
      await idx.close();
    }
  });
});
