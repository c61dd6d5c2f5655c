/**
 * Histories by page (decision 95): fills, trades, orders and candles of the index read
 * by time range with an opaque cursor, page after page, through more records than one
 * page holds; cursors that stay exact while new blocks are indexed; client order ids
 * carried into orders and fills; bad page queries; and an index folder of schema 3
 * rebuilt by the actor on start (the upgrade of an existing data folder).
 */
import { ClassicLevel } from 'classic-level';
import { afterAll, describe, expect, it } from 'vitest';
import { indexerBehavior, type IndexerHolder } from '../../actors/indexer/indexer-actor';
import type { IndexerMsg } from '../../actors/indexer/messages';
import { SupervisedActor } from '../../actors/actor';
import { FILLS_LIMIT_MAX, INDEX_SCHEMA_VERSION, Indexer, PageQueryError, type FillItem, type Page, type PageQuery } from '../../src/indexer/indexer';
import type { Hex } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { FakeStore, H1, H2, ok, placed, T0, tempDir, trade, type FixtureBlock } from './fixture';

const dir = tempDir('exchain-indexer-paging-');
afterAll(() => dir.remove());
let n = 0;
const freshDir = (): string => `${dir.path}/${n++}`;

const N = 450; // blocks, one trade each: more than two pages of the largest limit (200)
const timeOf = (h: number): number => T0 + h * 1000;
const cloidOf = (h: number): Hex => `0x${h.toString(16).padStart(32, '0')}` as Hex;

/** Block h: H2 rests sell #(2h−1), H1 buys with market #2h (a cloid on even h) and takes it. */
function block(h: number): FixtureBlock {
  const takerCloid = h % 2 === 0 ? { cloid: cloidOf(h) } : {};
  return {
    height: h,
    timestampMs: timeOf(h),
    receipts: [
      ok(h, 0, H2, [placed({ id: 2 * h - 1, owner: H2, symbol: 'ETH', side: 'sell', type: 'limit', price: '2000', size: '1' })]),
      ok(h, 1, H1, [
        { ...placed({ id: 2 * h, owner: H1, symbol: 'ETH', side: 'buy', type: 'market', size: '1' }), ...takerCloid },
        {
          ...trade({ symbol: 'ETH', price: '2000', size: '1', buyer: H1, seller: H2, buyerIsAgent: false, sellerIsAgent: false, taker: 'buy', maker: 2 * h - 1, takerId: 2 * h }),
          ...(h % 2 === 0 ? { takerCloid: cloidOf(h) } : {}),
        },
      ]),
    ],
  };
}

async function indexed(to: number, from = 1, idx?: Indexer): Promise<Indexer> {
  const ix = idx ?? (await Indexer.open(freshDir()));
  for (let h = from; h <= to; h++) {
    const b = block(h);
    await ix.indexBlock(h, b.timestampMs, b.receipts);
  }
  return ix;
}

/** Every page of a query, following nextCursor; the pages' sizes and items in order. */
async function allPages<T>(get: (q: PageQuery) => Promise<Page<T>>, q: PageQuery): Promise<{ sizes: number[]; items: T[] }> {
  const sizes: number[] = [];
  const items: T[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await get({ ...q, ...(cursor === undefined ? {} : { cursor }) });
    sizes.push(page.items.length);
    items.push(...page.items);
    if (page.nextCursor === null) return { sizes, items };
    cursor = page.nextCursor;
  }
  throw new Error('no last page');
}

describe('histories by page', () => {
  it('pages through every fill, trade and order, newest first, with nextCursor null on the last page', async () => {
    const ix = await indexed(N);
    try {
      const fills = await allPages((q) => ix.fillsPage(H1, q), {});
      expect(fills.sizes).toEqual([FILLS_LIMIT_MAX, FILLS_LIMIT_MAX, N - 2 * FILLS_LIMIT_MAX]);
      expect(fills.items.map((f) => f.time)).toEqual(Array.from({ length: N }, (_, i) => timeOf(N - i)));

      const small = await allPages((q) => ix.fillsPage(H2, q), { limit: 7 });
      expect(small.sizes.length).toBe(Math.ceil(N / 7));
      expect(new Set(small.items.map((f) => f.orderId)).size).toBe(N);

      const trades = await allPages((q) => ix.tradesPage('ETH', q), { limit: 200 });
      expect(trades.items).toHaveLength(N);
      expect(trades.items[0].time).toBe(timeOf(N));

      const orders = await allPages((q) => ix.ordersPage(H1, q), { limit: 50 });
      expect(orders.sizes).toEqual(Array(9).fill(50));
      expect(orders.items.map((o) => o.orderId)).toEqual(Array.from({ length: N }, (_, i) => String(2 * (N - i))));

      // A page that holds exactly the rest ends with null (no empty page after it).
      const exact = await ix.fillsPage(H1, { limit: 50, startTime: timeOf(N - 49) });
      expect(exact.items).toHaveLength(50);
      expect(exact.nextCursor).toBeNull();
      // Unknown subjects: an empty last page.
      expect(await ix.fillsPage('0x' + '99'.repeat(20), {})).toEqual({ items: [], nextCursor: null });
      expect(await ix.tradesPage('NOPE', {})).toEqual({ items: [], nextCursor: null });
    } finally {
      await ix.close();
    }
  });

  it('keeps to the time range, both bounds inclusive', async () => {
    const ix = await indexed(N);
    try {
      const range = { startTime: timeOf(100), endTime: timeOf(199) };
      const fills = await allPages((q) => ix.fillsPage(H1, q), { ...range, limit: 30 });
      expect(fills.sizes).toEqual([30, 30, 30, 10]);
      expect(fills.items[0].time).toBe(timeOf(199));
      expect(fills.items.at(-1)!.time).toBe(timeOf(100));
      const orders = await allPages((q) => ix.ordersPage(H2, q), { startTime: timeOf(N) });
      expect(orders.items.map((o) => o.orderId)).toEqual([String(2 * N - 1)]);
      expect((await ix.tradesPage('ETH', { endTime: timeOf(1) - 1 })).items).toEqual([]);
      // Only an end: everything up to it.
      expect((await allPages((q) => ix.tradesPage('ETH', q), { endTime: timeOf(10) })).items).toHaveLength(10);
    } finally {
      await ix.close();
    }
  });

  it('a cursor continues exactly where its page ended while new blocks are indexed', async () => {
    const ix = await indexed(300);
    try {
      const first = await ix.fillsPage(H1, { limit: 100 });
      expect(first.items[0].time).toBe(timeOf(300));
      await indexed(N, 301, ix); // 150 newer blocks arrive between the pages
      const rest = await allPages((q) => ix.fillsPage(H1, q), { limit: 100, cursor: first.nextCursor! });
      const times = [...first.items, ...rest.items].map((f) => f.time);
      expect(times).toEqual(Array.from({ length: 300 }, (_, i) => timeOf(300 - i)));
      // A new walk sees the newer blocks.
      expect((await ix.fillsPage(H1, { limit: 1 })).items[0].time).toBe(timeOf(N));
    } finally {
      await ix.close();
    }
  });

  it('candles by time range: the newest buckets of the range first, each page oldest first', async () => {
    const ix = await indexed(N); // block times T0+1 s … T0+450 s: 1m buckets 0 … 7
    try {
      const all = await ix.candles('ETH', '1m', 500);
      expect(all.map((c) => c.time)).toEqual(Array.from({ length: 8 }, (_, i) => T0 / 1000 + 60 * i));
      const pages = await allPages((q) => ix.candlesPage('ETH', '1m', q), { limit: 3 });
      expect(pages.sizes).toEqual([3, 3, 2]);
      expect(pages.items.map((c) => c.time)).toEqual([5, 6, 7, 2, 3, 4, 0, 1].map((i) => T0 / 1000 + 60 * i));
      // The range is on the bucket start (ms): [T0+60 s, T0+180 s] holds buckets 1, 2, 3.
      const ranged = await ix.candlesPage('ETH', '1m', { startTime: T0 + 60_000, endTime: T0 + 180_000 });
      expect(ranged.items.map((c) => c.time)).toEqual([1, 2, 3].map((i) => T0 / 1000 + 60 * i));
      expect(ranged.items).toEqual(all.slice(1, 4));
      expect(ranged.nextCursor).toBeNull();
      // A start inside a bucket leaves that bucket out (its start is before the range).
      expect((await ix.candlesPage('ETH', '1m', { startTime: T0 + 60_001, endTime: T0 + 180_000 })).items).toHaveLength(2);
    } finally {
      await ix.close();
    }
  });

  it('shows an order\u2019s cloid on the order and on its fills; absent when it had none', async () => {
    const ix = await indexed(4);
    try {
      const fills = (await ix.fillsPage(H1, {})).items;
      expect(fills.map((f: FillItem) => f.cloid)).toEqual([cloidOf(4), undefined, cloidOf(2), undefined]);
      expect('cloid' in fills[1]).toBe(false);
      expect((await ix.fills(H2)).every((f) => !('cloid' in f))).toBe(true); // the maker orders had none
      expect((await ix.order('8'))!.cloid).toBe(cloidOf(4));
      expect('cloid' in (await ix.order('6'))!).toBe(false);
      expect((await ix.orders(H1)).map((o) => o.cloid)).toEqual([cloidOf(4), undefined, cloidOf(2), undefined]);
    } finally {
      await ix.close();
    }
  });

  it('skips an exchange event whose cloid is malformed', async () => {
    const ix = await Indexer.open(freshDir());
    try {
      const b = block(1);
      (b.receipts[1].events[0] as { cloid?: string }).cloid = '0x1234';
      await ix.indexBlock(1, b.timestampMs, b.receipts);
      expect(ix.malformedEvents).toBe(1);
      expect(await ix.order('2')).toBeUndefined();
    } finally {
      await ix.close();
    }
  });

  it('refuses bad page queries, naming the parameter', async () => {
    const ix = await indexed(3);
    try {
      const fieldOf = async (q: PageQuery): Promise<string> => {
        const err = await ix.fillsPage(H1, q).then(() => undefined, (e: unknown) => e);
        expect(err).toBeInstanceOf(PageQueryError);
        return (err as PageQueryError).field;
      };
      expect(await fieldOf({ limit: 0 })).toBe('limit');
      expect(await fieldOf({ limit: FILLS_LIMIT_MAX + 1 })).toBe('limit');
      expect(await fieldOf({ limit: 1.5 })).toBe('limit');
      expect(await fieldOf({ startTime: 1.5 })).toBe('startTime');
      expect(await fieldOf({ endTime: -1 })).toBe('endTime');
      expect(await fieldOf({ startTime: 2, endTime: 1 })).toBe('startTime');
      expect(await fieldOf({ cursor: 'not a cursor' })).toBe('cursor');
      expect(await fieldOf({ cursor: 'AA' })).toBe('cursor');
      const tradeCursor = (await ix.tradesPage('ETH', { limit: 1 })).nextCursor!;
      expect(await fieldOf({ cursor: tradeCursor })).toBe('cursor'); // a cursor of another history
      const fillCursor = (await ix.fillsPage(H1, { limit: 1 })).nextCursor!;
      expect(await fieldOf({ cursor: `${fillCursor}=` })).toBe('cursor'); // not its canonical text
      expect((await ix.fillsPage(H1, { cursor: fillCursor })).items).toHaveLength(2);
    } finally {
      await ix.close();
    }
  });
});

describe('upgrade of an existing index folder', () => {
  it('the actor rebuilds an index of schema 3 from the chain store on start', async () => {
    const log = createLogger({ destination: 'silent' });
    const blocks = Array.from({ length: 5 }, (_, i) => block(i + 1));
    const store = new FakeStore(blocks, 5);
    // A folder as the previous release left it: indexed to height 5, schema 3.
    const old = await indexed(5);
    const oldDir = old.dir;
    await old.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(oldDir, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    await db.put(Uint8Array.of(0, ...Buffer.from('schema')), Uint8Array.of(0, 0, 0, 3));
    await db.close();
    await expect(Indexer.open(oldDir)).rejects.toThrow(/schema 3/);
    expect(INDEX_SCHEMA_VERSION).toBe(5); // 5: block events and OrderModified (decisions 88 (f), 90 (e))

    const holder: IndexerHolder = {};
    const actor = new SupervisedActor<IndexerMsg>('indexer', () => indexerBehavior({ dir: oldDir, store: () => store, log, holder }), { capacity: 10, log, backoff: { initialMs: 5, maxMs: 20 } });
    await actor.start();
    try {
      const ix = holder.current!;
      expect(ix.indexedHeight()).toBe(5);
      const page = await ix.fillsPage(H1, { limit: 2 });
      expect(page.items.map((f) => f.time)).toEqual([timeOf(5), timeOf(4)]);
      expect(page.nextCursor).not.toBeNull();
    } finally {
      await actor.stop();
    }
  });
});
