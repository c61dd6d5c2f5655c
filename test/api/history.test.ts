/**
 * Histories by page through the REST routes and the typed client (decision 95): fills,
 * orders, trades and candles read page after page through more records than one page,
 * by time range, while new blocks are committed; the un-paged answers keep their shape
 * (no nextCursor); each bad paging parameter is a 400 naming it. Replies are checked
 * against the routes' schemas (EXCHANGE_API_CHECK_RESPONSES, set for the suite).
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';

const devnet = useDevnetNode();
const [maker, taker] = DEVNET_KEYS.accounts.slice(4, 6).map((a) => privateKeyToAccount(a.privateKey));
const ROUNDS = 3; // of 10 crossing pairs of orders: 30 fills a side

const clientOf = () => new ExchangeClient(devnet.url, { chainId: devnet.node.config.genesis.chainId });

/** One round: the maker rests 10 asks in a batch, the taker's batch of 10 bids takes them. */
async function round(client: ExchangeClient): Promise<void> {
  const ten = (side: 'buy' | 'sell') => Array.from({ length: 10 }, () => ({ symbol: 'SOL', side, price: '150', amount: '0.1' }));
  await client.placeBatch(maker, ten('sell'));
  await client.placeBatch(taker, ten('buy'));
}

async function get(path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${devnet.url}${path}`);
  return { status: r.status, body: await r.json() };
}

describe('histories by page through REST', () => {
  // Shows contract [D-envelope-success].
  it('pages through every fill, order and trade; the un-paged answers keep their shape', async () => {
    const client = clientOf();
    const before = Date.now() - 60_000;
    for (let i = 0; i < ROUNDS; i++) await round(client);

    // Un-paged: as before paging existed, no nextCursor.
    const plain = await get(`/v1/fills/${taker.address}?limit=5`);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body).sort()).toEqual(['data', 'success', 'timestamp']);
    expect(plain.body.data).toHaveLength(5);

    // Paged through the REST route by hand: pages of 7, the last with nextCursor null.
    const seen: any[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const q = new URLSearchParams({ startTime: String(before), limit: '7', ...(cursor ? { cursor } : {}) });
      const r = await get(`/v1/fills/${taker.address}?${q}`);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...r.body.data);
      cursor = r.body.nextCursor;
      expect(cursor === null || typeof cursor === 'string').toBe(true);
      pages++;
    } while (cursor);
    expect(seen).toHaveLength(10 * ROUNDS);
    expect(pages).toBe(Math.ceil((10 * ROUNDS) / 7));
    const times = seen.map((f) => f.time);
    expect([...times].sort((a, b) => b - a)).toEqual(times); // newest first

    // Through the typed client's iterators.
    const fills: any[] = [];
    for await (const f of client.allFills(maker.address, { limit: 4 })) fills.push(f);
    expect(fills).toHaveLength(10 * ROUNDS);
    expect(fills.every((f) => f.side === 'sell')).toBe(true);
    const orders: any[] = [];
    for await (const o of client.allOrders(taker.address, { limit: 6 })) orders.push(o);
    expect(orders).toHaveLength(10 * ROUNDS);
    expect(orders.every((o) => o.status === 'filled')).toBe(true);
    // More than the un-paged answer's 50 orders are reachable now (3 rounds of 10 here: all of them).
    expect(new Set(orders.map((o) => o.orderId)).size).toBe(10 * ROUNDS);
    const trades: any[] = [];
    for await (const t of client.allTrades('SOL', { limit: 9 })) trades.push(t);
    expect(trades).toHaveLength(10 * ROUNDS);

    // A time range: the first round's fills alone.
    const firstRoundEnd = seen.at(-1).time;
    const ranged = await client.fillsPage(taker.address, { startTime: firstRoundEnd, endTime: firstRoundEnd, limit: 200 });
    expect(ranged.data.length).toBeGreaterThan(0);
    expect(ranged.data.every((f: any) => f.time === firstRoundEnd)).toBe(true);
    expect(ranged.nextCursor).toBeNull();

    // Candles by time range.
    const c = await client.candlesPage('SOL', '1m', { startTime: before, limit: 500 });
    expect(c.count).toBe(c.data.length);
    expect(c.data.length).toBeGreaterThan(0);
    expect(c.nextCursor).toBeNull();
    const unpagedCandles = await get('/v1/candles/SOL?interval=1m');
    expect('nextCursor' in unpagedCandles.body).toBe(false);
  });

  it('a cursor continues exactly where its page ended while new blocks are committed', async () => {
    const client = clientOf();
    const total = (await client.fillsPage(maker.address, { limit: 200 })).data.length;
    const first = await client.fillsPage(maker.address, { limit: 5 });
    expect(first.nextCursor).not.toBeNull();
    await round(client); // 10 newer fills arrive between the pages
    const rest: any[] = [];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.fillsPage(maker.address, { limit: 5, cursor });
      rest.push(...page.data);
      cursor = page.nextCursor;
    }
    const walked = [...first.data, ...rest];
    expect(walked).toHaveLength(total);
    expect(new Set(walked.map((f) => `${f.txHash}:${f.orderId}`)).size).toBe(total);
    expect((await client.fillsPage(maker.address, { limit: 200 })).data).toHaveLength(total + 10);
  });

  it('a bad paging parameter is a 400 naming it', async () => {
    const a = taker.address;
    const cases: [string, string][] = [
      [`/v1/fills/${a}?startTime=1.5`, 'startTime'],
      [`/v1/fills/${a}?endTime=abc`, 'endTime'],
      [`/v1/fills/${a}?startTime=-1`, 'startTime'],
      [`/v1/fills/${a}?startTime=10&endTime=9`, 'startTime'],
      [`/v1/fills/${a}?startTime=0&limit=0`, 'limit'],
      [`/v1/fills/${a}?startTime=0&limit=201`, 'limit'],
      // Shows contract [C-limits-orders].
      [`/v1/orders/${a}?startTime=0&limit=51`, 'limit'],
      [`/v1/trades/SOL?startTime=0&limit=201`, 'limit'],
      [`/v1/candles/SOL?startTime=0&limit=501`, 'limit'],
      [`/v1/fills/${a}?cursor=%24%24`, 'cursor'],
      [`/v1/fills/${a}?cursor=AAAA`, 'cursor'],
      [`/v1/trades/SOL?cursor=${'A'.repeat(41)}`, 'cursor'],
      [`/v1/candles/SOL?startTime=5&endTime=4`, 'startTime'],
    ];
    for (const [path, field] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message.startsWith(`${field}:`), `${path}: ${r.body.error.message}`).toBe(true);
    }
    // A cursor of another history.
    const client = clientOf();
    const tradeCursor = (await client.tradesPage('SOL', { limit: 1 })).nextCursor!;
    const err = await client.fillsPage(a, { cursor: tradeCursor }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeApiError);
    expect((err as ExchangeApiError).status).toBe(400);
    expect((err as ExchangeApiError).message).toContain('cursor');
  });
});
