/**
 * The indexer against hand-built receipts (fixture.ts): every query's fields, ordering
 * and limits, computed by hand; idempotence; and delete-and-rebuild identity.
 */
import { ClassicLevel } from 'classic-level';
import { cpSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDLE_INTERVAL_NAMES, type CandleInterval } from '../../src/indexer/candles';
import { HEIGHT_CHECKPOINT_BLOCKS, INDEX_SCHEMA_VERSION, Indexer, IndexerGapError, IndexerIncompatibleError, type CandleItem } from '../../src/indexer/indexer';
import type { ChainEvent } from '../../src/state/events';
import { A, B, C, FakeStore, fixtureBlocks, H1, H2, snapshot, T0, T0S, tempDir, txh } from './fixture';

const dir = tempDir();
afterAll(() => dir.remove());

let n = 0;
const freshDir = (): string => `${dir.path}/idx-${++n}`;

async function indexAll(idx: Indexer, upTo = 6): Promise<void> {
  for (const b of fixtureBlocks()) if (b.height <= upTo) await idx.indexBlock(b.height, b.timestampMs, b.receipts);
}

const candle = (time: number, open: string, high: string, low: string, close: string, volume: string): CandleItem => ({ time, open, high, low, close, volume });
const flat = (time: number, price: string, volume: string): CandleItem => candle(time, price, price, price, price, volume);

describe('indexer queries over the fixture', () => {
  let idx: Indexer;
  beforeAll(async () => {
    idx = await Indexer.open(freshDir());
    await indexAll(idx);
  });
  afterAll(() => idx.close());

  it('indexes up to the last height', () => {
    expect(idx.indexedHeight()).toBe(6);
    expect(idx.malformedEvents).toBe(0);
    expect(idx.orphanUpdates).toBe(0);
  });

  it('trades: newest first, every field, limit, per symbol', async () => {
    const eth = await idx.trades('ETH', 200);
    expect(eth).toEqual([
      { symbol: 'ETH', price: '2010', amount: '0.1', buyer: H1, seller: A, buyerIsAgent: false, txHash: txh(6, 0), time: T0 + 86_405_000, takerSide: 'buy' },
      { symbol: 'ETH', price: '2010', amount: '0.4', buyer: H2, seller: A, buyerIsAgent: false, txHash: txh(5, 1), time: T0 + 3_710_000, takerSide: 'buy' },
      // Two trades of one transaction: the later event is newer.
      { symbol: 'ETH', price: '1990', amount: '0.25', buyer: A, seller: H1, buyerIsAgent: true, txHash: txh(4, 2), time: T0 + 3_700_000, takerSide: 'sell' },
      { symbol: 'ETH', price: '1995', amount: '0.5', buyer: H2, seller: H1, buyerIsAgent: false, txHash: txh(4, 2), time: T0 + 3_700_000, takerSide: 'sell' },
      { symbol: 'ETH', price: '2000.5', amount: '1.5', buyer: H2, seller: A, buyerIsAgent: false, txHash: txh(2, 0), time: T0 + 70_000, takerSide: 'buy' },
      { symbol: 'ETH', price: '2000.5', amount: '0.5', buyer: H1, seller: A, buyerIsAgent: false, txHash: txh(1, 1), time: T0 + 10_000, takerSide: 'buy' },
    ]);
    expect(await idx.trades('ETH', 2)).toEqual(eth.slice(0, 2));
    expect(await idx.trades('BTC', 200)).toEqual([
      { symbol: 'BTC', price: '30000', amount: '0.1', buyer: C, seller: H2, buyerIsAgent: true, txHash: txh(6, 2), time: T0 + 86_405_000, takerSide: 'buy' },
      { symbol: 'BTC', price: '30000', amount: '0.1', buyer: B, seller: H2, buyerIsAgent: true, txHash: txh(3, 0), time: T0 + 200_000, takerSide: 'sell' },
    ]);
    expect(await idx.trades('SOL', 10)).toEqual([]);
    expect(await idx.trades('ETH', 1000)).toHaveLength(6); // clamped to 200, and only 6 exist
    await expect(idx.trades('ETH', 0)).rejects.toThrow(RangeError);
  });

  it('fills: side, order id and fee from each address point of view, newest first', async () => {
    expect(await idx.fills(H1, 200)).toEqual([
      { symbol: 'ETH', side: 'buy', price: '2010', amount: '0.1', usdcSettled: '201', txHash: txh(6, 0), time: T0 + 86_405_000, orderId: '12', fee: '0.0603' },
      { symbol: 'ETH', side: 'sell', price: '1990', amount: '0.25', usdcSettled: '497.5', txHash: txh(4, 2), time: T0 + 3_700_000, orderId: '9', fee: '0.14925' },
      { symbol: 'ETH', side: 'sell', price: '1995', amount: '0.5', usdcSettled: '997.5', txHash: txh(4, 2), time: T0 + 3_700_000, orderId: '9', fee: '0.29925' },
      { symbol: 'ETH', side: 'buy', price: '2000.5', amount: '0.5', usdcSettled: '1000.25', txHash: txh(1, 1), time: T0 + 10_000, orderId: '2', fee: '0.300075' },
    ]);
    // A is the maker every time: fee 0.
    expect(await idx.fills(A, 200)).toEqual([
      { symbol: 'ETH', side: 'sell', price: '2010', amount: '0.1', usdcSettled: '201', txHash: txh(6, 0), time: T0 + 86_405_000, orderId: '10', fee: '0' },
      { symbol: 'ETH', side: 'sell', price: '2010', amount: '0.4', usdcSettled: '804', txHash: txh(5, 1), time: T0 + 3_710_000, orderId: '10', fee: '0' },
      { symbol: 'ETH', side: 'buy', price: '1990', amount: '0.25', usdcSettled: '497.5', txHash: txh(4, 2), time: T0 + 3_700_000, orderId: '7', fee: '0' },
      { symbol: 'ETH', side: 'sell', price: '2000.5', amount: '1.5', usdcSettled: '3000.75', txHash: txh(2, 0), time: T0 + 70_000, orderId: '1', fee: '0' },
      { symbol: 'ETH', side: 'sell', price: '2000.5', amount: '0.5', usdcSettled: '1000.25', txHash: txh(1, 1), time: T0 + 10_000, orderId: '1', fee: '0' },
    ]);
    const h2 = await idx.fills(H2, 200);
    expect(h2.map((f) => [f.symbol, f.side, f.orderId, f.fee])).toEqual([
      ['BTC', 'sell', '13', '0'],
      ['ETH', 'buy', '11', '0.2412'],
      ['ETH', 'buy', '8', '0'],
      ['BTC', 'sell', '6', '0.9'],
      ['ETH', 'buy', '3', '0.900225'],
    ]);
    expect(await idx.fills(H2, 2)).toEqual(h2.slice(0, 2));
    // Addresses are matched case-insensitively; unknown ones have no fills.
    expect(await idx.fills(H1.toUpperCase().replace('0X', '0x'), 1)).toHaveLength(1);
    expect(await idx.fills(`0x${'99'.repeat(20)}`, 10)).toEqual([]);
  });

  it('candles: OHLCV per interval, oldest first, only buckets with trades', async () => {
    const fine = [flat(T0S, '2000.5', '0.5'), flat(T0S + 60, '2000.5', '1.5'), candle(T0S + 3660, '1995', '2010', '1990', '2010', '1.15'), flat(T0S + 86_400, '2010', '0.1')];
    const mid = [flat(T0S, '2000.5', '2'), candle(T0S + 3600, '1995', '2010', '1990', '2010', '1.15'), flat(T0S + 86_400, '2010', '0.1')];
    const coarse = [candle(T0S, '2000.5', '2010', '1990', '2010', '3.15'), flat(T0S + 86_400, '2010', '0.1')];
    const expected: Record<CandleInterval, CandleItem[]> = {
      '1m': fine,
      '3m': mid,
      '5m': mid,
      '15m': mid,
      '30m': mid,
      '1h': mid,
      '4h': coarse,
      '1d': coarse,
    };
    for (const interval of CANDLE_INTERVAL_NAMES) {
      expect(await idx.candles('ETH', interval, 500), interval).toEqual(expected[interval]);
    }
    // limit keeps the most recent buckets, still oldest first
    expect(await idx.candles('ETH', '1m', 2)).toEqual(fine.slice(2));
    // BTC traded at T0+200 s (3m bucket 180, 5m bucket 0) and on day two
    expect(await idx.candles('BTC', '3m', 500)).toEqual([flat(T0S + 180, '30000', '0.1'), flat(T0S + 86_400, '30000', '0.1')]);
    expect(await idx.candles('BTC', '5m', 500)).toEqual([flat(T0S, '30000', '0.1'), flat(T0S + 86_400, '30000', '0.1')]);
    expect(await idx.candles('SOL', '1m', 500)).toEqual([]);
    await expect(idx.candles('ETH', '2m' as CandleInterval, 10)).rejects.toThrow(RangeError);
  });

  it('orders: lifecycle, every field, newest first, limit', async () => {
    expect(await idx.order('1')).toEqual({
      orderId: '1',
      symbol: 'ETH',
      pairId: 1,
      side: 'sell',
      type: 'limit',
      price: '2000.5',
      amount: '2',
      filled: '2',
      remaining: '0',
      status: 'filled',
      isAgent: true,
      leverage: 1,
      avgPrice: '2000.5',
      txHash: txh(1, 0),
      time: T0 + 10_000,
      updatedTime: T0 + 70_000,
    });
    expect(await idx.order('5')).toEqual({
      orderId: '5',
      symbol: 'ETH',
      pairId: 1,
      side: 'sell',
      type: 'limit',
      price: '2100',
      amount: '1',
      filled: '0',
      remaining: '1',
      status: 'cancelled',
      isAgent: false,
      leverage: 1,
      avgPrice: null,
      reason: 'user',
      txHash: txh(2, 2),
      time: T0 + 70_000,
      updatedTime: T0 + 200_000,
    });
    // Market sell across two makers: average (997.5 + 497.5) / 0.75 = 1993.333…, rounded down
    expect(await idx.order('9')).toMatchObject({ type: 'market', side: 'sell', price: '1980', amount: '0.75', filled: '0.75', status: 'filled', avgPrice: '1993.333333' });
    expect(await idx.order('7')).toMatchObject({ leverage: 5, isAgent: true, side: 'buy', status: 'filled' });
    expect(await idx.order('10')).toMatchObject({ status: 'partial', filled: '0.5', remaining: '0.5', avgPrice: '2010', updatedTime: T0 + 86_405_000 });
    expect(await idx.order('2')).toMatchObject({ type: 'market', price: '0', status: 'filled' });
    expect(await idx.order('99')).toBeUndefined(); // only in a failed receipt
    expect(await idx.order('abc')).toBeUndefined();

    expect((await idx.orders(H1, 50)).map((o) => [o.orderId, o.status])).toEqual([
      ['12', 'filled'],
      ['9', 'filled'],
      ['5', 'cancelled'],
      ['2', 'filled'],
    ]);
    expect((await idx.orders(H1, 2)).map((o) => o.orderId)).toEqual(['12', '9']);
    expect((await idx.orders(A, 50)).map((o) => o.orderId)).toEqual(['10', '7', '1']);
    expect(await idx.orders(A, 50)).toEqual([await idx.order('10'), await idx.order('7'), await idx.order('1')]);
    expect(await idx.orders(`0x${'99'.repeat(20)}`, 50)).toEqual([]);
    expect(await Promise.all([A, B, C, H1, H2].map((a) => idx.orderCount(a)))).toEqual([3, 1, 1, 4, 5]);
    expect(await idx.orderCount(`0x${'99'.repeat(20)}`)).toBe(0);
  });

  it('leaderboard: volume desc, ties by address asc, agents only', async () => {
    const all = [
      { address: H2, volume: '10802.25', trades: 5, isAgent: false },
      { address: A, volume: '5503.5', trades: 5, isAgent: true },
      { address: B, volume: '3000', trades: 1, isAgent: true },
      { address: C, volume: '3000', trades: 1, isAgent: true },
      { address: H1, volume: '2696.25', trades: 4, isAgent: false },
    ];
    expect(await idx.leaderboard('all', 100)).toEqual(all);
    expect(await idx.leaderboard('all', 2)).toEqual(all.slice(0, 2));
    expect(await idx.leaderboard('agents', 100)).toEqual(all.filter((x) => x.isAgent));
  });

  it('stats: counts, agent/human split, volume', () => {
    expect(idx.stats()).toEqual({ totalOrders: 14, totalTrades: 8, agentTrades: 7, humanTrades: 1, volumeUsdc: '12501' });
  });

  it('agents: in first-seen order, and one by one', async () => {
    const agents = [
      { address: A, trades: 5, volume: '5503.5', firstSeen: T0 + 10_000 },
      { address: B, trades: 1, volume: '3000', firstSeen: T0 + 70_000 },
      { address: C, trades: 1, volume: '3000', firstSeen: T0 + 86_405_000 },
    ];
    expect(await idx.agents()).toEqual(agents);
    expect(await idx.agents(1)).toEqual(agents.slice(0, 1));
    expect(await idx.agent(B)).toEqual(agents[1]);
    expect(await idx.agent(`0x${'AA'.repeat(20)}`)).toEqual(agents[0]);
    expect(await idx.agent(H1)).toBeUndefined();
    expect(await idx.agent('nope')).toBeUndefined();
  });
});

describe('indexing step by step', () => {
  it('an order goes open → partial → filled; rankings move as volume accrues', async () => {
    const idx = await Indexer.open(freshDir());
    try {
      const blocks = fixtureBlocks();
      await idx.indexBlock(1, blocks[0].timestampMs, blocks[0].receipts);
      expect(await idx.order('1')).toMatchObject({ status: 'partial', filled: '0.5', remaining: '1.5', updatedTime: T0 + 10_000 });
      // A tie: address ascending (0x11… before 0xaa…).
      expect(await idx.leaderboard('all', 10)).toEqual([
        { address: H1, volume: '1000.25', trades: 1, isAgent: false },
        { address: A, volume: '1000.25', trades: 1, isAgent: true },
      ]);
      await idx.indexBlock(2, blocks[1].timestampMs, blocks[1].receipts);
      expect(await idx.order('1')).toMatchObject({ status: 'filled', filled: '2', remaining: '0', updatedTime: T0 + 70_000 });
      expect(await idx.order('5')).toMatchObject({ status: 'open' });
      await idx.indexBlock(3, blocks[2].timestampMs, blocks[2].receipts);
      expect(await idx.order('5')).toMatchObject({ status: 'cancelled', reason: 'user' });
      expect(await idx.leaderboard('all', 10)).toEqual([
        { address: H2, volume: '6000.75', trades: 2, isAgent: false },
        { address: A, volume: '4001', trades: 2, isAgent: true },
        { address: B, volume: '3000', trades: 1, isAgent: true },
        { address: H1, volume: '1000.25', trades: 1, isAgent: false },
      ]);
      expect(idx.stats()).toEqual({ totalOrders: 6, totalTrades: 3, agentTrades: 3, humanTrades: 0, volumeUsdc: '7001' });
    } finally {
      await idx.close();
    }
  });

  it('re-indexing a height is a no-op; a gap is refused; a reopened index resumes', async () => {
    const path = freshDir();
    let idx = await Indexer.open(path);
    await indexAll(idx, 4);
    const before = await snapshot(idx);
    const blocks = fixtureBlocks();
    for (const h of [1, 3, 4]) await idx.indexBlock(h, blocks[h - 1].timestampMs, blocks[h - 1].receipts);
    expect(await snapshot(idx)).toEqual(before);
    await expect(idx.indexBlock(6, blocks[5].timestampMs, blocks[5].receipts)).rejects.toThrow(IndexerGapError);
    expect(idx.indexedHeight()).toBe(4);
    await idx.close();

    idx = await Indexer.open(path);
    expect(idx.indexedHeight()).toBe(4);
    expect(await snapshot(idx)).toEqual(before);
    await idx.indexBlock(5, blocks[4].timestampMs, blocks[4].receipts);
    await idx.indexBlock(6, blocks[5].timestampMs, blocks[5].receipts);
    expect(idx.stats().totalTrades).toBe(8);
    await idx.close();
  });

  it('waitForHeight: true once the height is indexed (with or without a write), false on timeout or close', async () => {
    const idx = await Indexer.open(freshDir());
    const blocks = fixtureBlocks();
    expect(await idx.waitForHeight(0, 10)).toBe(true);
    const toOne = idx.waitForHeight(1, 5_000);
    const toTwo = idx.waitForHeight(2, 5_000);
    let settled = 0;
    void toOne.then(() => settled++);
    void toTwo.then(() => settled++);
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(0);
    await idx.indexBlock(1, blocks[0].timestampMs, blocks[0].receipts); // a write
    expect(await toOne).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(1);
    await idx.indexBlock(2, blocks[1].timestampMs + 1, []); // nothing to index: no write, the height still moves
    expect(await toTwo).toBe(true);
    const t0 = performance.now();
    expect(await idx.waitForHeight(3, 50)).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
    const atClose = idx.waitForHeight(3, 5_000);
    await idx.close();
    expect(await atClose).toBe(false);
  });

  it('skips malformed exchange events and updates of unknown orders, deterministically', async () => {
    const idx = await Indexer.open(freshDir());
    try {
      const bad = { type: 'TradeExecuted', pairId: 1, symbol: 'ETH', price: 5 /* not a bigint */ } as unknown as ChainEvent;
      await idx.indexBlock(1, T0, [
        { txHash: txh(1, 0), index: 0, kind: 'order', signer: H1, status: 'ok', events: [bad, { type: 'OrderUpdated', orderId: '77', owner: H1, pairId: 1, status: 'filled', filled: 1n, remaining: 0n }] },
      ]);
      expect(idx.indexedHeight()).toBe(1);
      expect(idx.malformedEvents).toBe(1);
      expect(idx.orphanUpdates).toBe(1);
      expect(idx.stats().totalTrades).toBe(0);
      expect(await idx.order('77')).toBeUndefined();
    } finally {
      await idx.close();
    }
  });

  it('refuses an index of another chain identity', async () => {
    const path = freshDir();
    const idx = await Indexer.open(path, { identity: 'chain-a' });
    await indexAll(idx, 1);
    await idx.close();
    await expect(Indexer.open(path, { identity: 'chain-b' })).rejects.toThrow(IndexerIncompatibleError);
    await (await Indexer.open(path, { identity: 'chain-a' })).close();
  });
});

describe('schema versions', () => {
  it('refuses an index written by another schema version', async () => {
    const path = freshDir();
    const idx = await Indexer.open(path);
    await indexAll(idx, 2);
    await idx.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    await db.put(Uint8Array.of(0, ...Buffer.from('schema')), Uint8Array.of(0, 0, 0, INDEX_SCHEMA_VERSION + 1));
    await db.close();
    await expect(Indexer.open(path)).rejects.toThrow(IndexerIncompatibleError);
  });

  it('schema 3 stores records as JSON arrays of values, without field names, and reads them back', async () => {
    const path = freshDir();
    const idx = await Indexer.open(path);
    await indexAll(idx);
    const before = await idx.order('5');
    await idx.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    let orders = 0;
    for await (const [k, v] of db.iterator({ gte: Uint8Array.of(5), lt: Uint8Array.of(6) })) {
      expect(k[0]).toBe(5);
      const text = Buffer.from(v).toString('utf8');
      expect(text.startsWith('[')).toBe(true);
      expect(text).not.toContain('"orderId"');
      expect(JSON.parse(text)).toHaveLength(19);
      orders++;
    }
    await db.close();
    expect(orders).toBeGreaterThan(0);
    // Schema 4 (time in the Trade, Fill and AccountOrder keys) keeps schema 3's record format.
    expect(INDEX_SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
    const again = await Indexer.open(path);
    expect(await again.order('5')).toEqual(before);
    await again.close();
  });
});

describe('delete and rebuild', () => {
  it('an index rebuilt from the chain store answers every query identically, byte for byte', async () => {
    const store = new FakeStore(fixtureBlocks(), 10); // heights 7..10 are empty blocks
    const path = freshDir();

    // Live: block by block, as the actor does on 'committed'.
    const live = await Indexer.open(path);
    for (let h = 1; h <= 10; h++) {
      const block = (await store.getBlock(h))!;
      await live.indexBlock(h, block.header.timestampMs, (await store.getReceipts(h))!);
    }
    const liveAnswers = await snapshot(live);
    await live.close();
    const liveBytes = await dump(path);

    for (const blocksPerBatch of [1, 3, 1000]) {
      rmSync(path, { recursive: true, force: true }); // the operator deletes the folder
      const rebuilt = await Indexer.open(path);
      expect(rebuilt.indexedHeight()).toBe(0);
      expect(await rebuilt.catchUp(store, undefined, { blocksPerBatch })).toBe(10);
      expect(rebuilt.indexedHeight()).toBe(10);
      expect(await snapshot(rebuilt), `blocksPerBatch ${blocksPerBatch}`).toEqual(liveAnswers);
      expect(await rebuilt.catchUp(store)).toBe(0); // nothing left
      await rebuilt.close();
      expect(await dump(path)).toEqual(liveBytes);
    }
  });

  it('blocks with nothing to index write nothing; a crash before the checkpoint re-reads them from the store', async () => {
    const head = 6 + HEIGHT_CHECKPOINT_BLOCKS + 50; // heights past 6 are empty blocks
    const store = new FakeStore(fixtureBlocks(), head);
    const path = freshDir();
    const idx = await Indexer.open(path);
    const indexTo = async (to: number) => {
      for (let h = idx.indexedHeight() + 1; h <= to; h++) {
        const block = (await store.getBlock(h))!;
        await idx.indexBlock(h, block.header.timestampMs, (await store.getReceipts(h))!);
      }
    };
    // What a crash would leave: the folder as it is on disk now (LevelDB's log included).
    const crashCopy = async (): Promise<Indexer> => {
      const copy = freshDir();
      cpSync(path, copy, { recursive: true });
      rmSync(`${copy}/LOCK`, { force: true });
      return Indexer.open(copy);
    };
    await indexTo(10);
    const answers = await snapshot(idx);
    expect(idx.indexedHeight()).toBe(10);
    let crashed = await crashCopy();
    expect(crashed.indexedHeight()).toBe(6); // heights 7..10 wrote nothing
    expect(await crashed.catchUp(store, 10)).toBe(4);
    expect(await snapshot(crashed)).toEqual(answers);
    await crashed.close();

    // The stored height catches up once HEIGHT_CHECKPOINT_BLOCKS heights went unwritten.
    await indexTo(6 + HEIGHT_CHECKPOINT_BLOCKS);
    crashed = await crashCopy();
    expect(crashed.indexedHeight()).toBe(6 + HEIGHT_CHECKPOINT_BLOCKS);
    await crashed.close();
    await indexTo(head);
    expect(idx.indexedHeight()).toBe(head);
    await idx.close();
    // A clean close stores the height reached.
    const reopened = await Indexer.open(path);
    expect(reopened.indexedHeight()).toBe(head);
    expect(await snapshot(reopened)).toEqual({ ...(answers as object), height: head });
    await reopened.close();
  });

  it('catchUp stops at toHeight and never passes the store head', async () => {
    const store = new FakeStore(fixtureBlocks(), 6);
    const idx = await Indexer.open(freshDir());
    try {
      expect(await idx.catchUp(store, 3)).toBe(3);
      expect(idx.indexedHeight()).toBe(3);
      expect(idx.stats().totalTrades).toBe(3);
      expect(await idx.catchUp(store, 100)).toBe(3);
      expect(idx.indexedHeight()).toBe(6);
    } finally {
      await idx.close();
    }
  });

  it('catchUp refuses a store that lacks a block below its head', async () => {
    const store = new FakeStore(fixtureBlocks(), 6);
    const broken = { headHeight: async () => 8, getBlock: (h: number) => store.getBlock(h), getReceipts: (h: number) => store.getReceipts(h) };
    const idx = await Indexer.open(freshDir());
    try {
      await expect(idx.catchUp(broken)).rejects.toThrow(/block 7 is missing/);
      expect(idx.indexedHeight()).toBe(6); // whole batches written before the failure are kept
    } finally {
      await idx.close();
    }
  });
});

/** Every key and value of a closed index folder, as hex. */
async function dump(path: string): Promise<[string, string][]> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  try {
    const rows = await db.iterator().all();
    return rows.map(([k, v]) => [Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex')]);
  } finally {
    await db.close();
  }
}
