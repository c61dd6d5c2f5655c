/**
 * The timer routes through real HTTP and the typed client against a started devnet node
 * (issue 24, decisions 90–91): the dead-man switch (set, fire at its block time with
 * reason "scheduled", clear, 5 s lead, the daily limit), TWAP orders (slices against a
 * resting book, progress, cancel, completion, a slice refused for balance), expiresAfter
 * on these kinds, and bad input per new field. The genesis sets a 1 s slice interval and
 * a limit of 3 schedules a day so that the test runs in seconds.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { genesisHash } from '../../src/genesis/load';
import { DEVNET_KEYS, devnetGenesis, startNode, useDevnetNode, waitFor } from '../helpers/devnet';

const base = devnetGenesis(1).genesis;
const genesis = { ...base, limits: { ...base.limits, twapSliceIntervalMs: 1000, scheduleCancelsPerDay: 3 } };
const env = useDevnetNode({ genesis, genesisHash: genesisHash(genesis) });
let client: ExchangeClient;
// erin, frank and grace serve only the restart's own schedule and TWAP.
const [alice, bob, carol, dave, erin, frank, grace] = DEVNET_KEYS.accounts.slice(0, 7).map((a) => privateKeyToAccount(a.privateKey));
let mark = 0;
const NO_TX_HASH = `0x${'0'.repeat(64)}`;

async function expectError(p: Promise<unknown>, status: number, code?: string, field?: string) {
  const err = await p.then(() => undefined, (e) => e);
  expect(err, 'expected the call to fail').toBeInstanceOf(ExchangeApiError);
  expect(err.status).toBe(status);
  if (code) expect(err.code).toBe(code);
  if (field) expect(err.message).toContain(field);
  expect(err.body).toMatchObject({ success: false });
}

const headMs = () => env.node.chain().state.head().timestampMs;
/** A fresh ETH mark (the oracle actor signs every second; after a restart it needs a moment). */
const freshMark = async () => Number((await waitFor(async () => (await client.perpMarkets()).find((m: any) => m.symbol === 'ETH' && m.oracleFresh), 20_000, 'a fresh ETH price')).oraclePrice);
/** An ETH ask at the mark, rounded down to the cent: the liquidity a TWAP buy slices against. */
const askAtMark = async (seller: typeof alice, amount: string) => {
  const price = (Math.floor((await freshMark()) * 100) / 100).toFixed(2);
  const { orderId } = await client.placeOrder(seller, { symbol: 'ETH', side: 'sell', type: 'limit', price, amount });
  return { price, orderId };
};
/** Cancels what is left of a resting order, so that no test finds another's liquidity in the book. */
const cancelRest = async (trader: typeof alice, orderId: string) => {
  if (env.node.chain().state.orders.get(orderId) !== undefined) await client.cancelOrder(trader, orderId);
};

beforeAll(async () => {
  client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
  mark = await freshMark();
}, 30_000);

describe('scheduled cancel (dead-man switch)', () => {
  it('cancels every open order of the trader at the first block at or after its time, with reason "scheduled", and then reads as none', async () => {
    const a = await client.placeOrder(alice, { symbol: 'ETH', side: 'buy', type: 'limit', price: String(Math.floor(mark / 2)), amount: '0.01' });
    const b = await client.placeOrder(alice, { symbol: 'BTC', side: 'buy', type: 'limit', price: '1000', amount: '0.001' });
    const time = headMs() + 5_500;
    const set = await client.scheduleCancel(alice, time);
    expect(set).toMatchObject({ trader: alice.address.toLowerCase(), time, countToday: 1 });
    expect(await client.scheduledCancel(alice.address)).toMatchObject({ time, countToday: 1 });
    expect((await client.order(a.orderId)).status).toBe('open');
    await waitFor(async () => (await client.scheduledCancel(alice.address)).time === null || undefined, 15_000, 'the schedule to fire');
    expect(headMs()).toBeGreaterThanOrEqual(time);
    // The orders are gone from the state (GET /orders reads it), and the indexer, which
    // reads the block's own events after its receipts, shows them cancelled.
    expect((await client.openOrders(alice.address)).orders).toEqual([]);
    const ids = [a.orderId, b.orderId];
    for (const id of ids) expect(await waitFor(async () => ((await client.order(id)).status === 'cancelled' ? client.order(id) : undefined), 5_000, `order ${id} cancelled in the index`)).toMatchObject({ status: 'cancelled', reason: 'scheduled' });
    const listed = (await client.orders(alice.address)).filter((o: any) => ids.includes(o.orderId));
    expect(listed.map((o: any) => [o.status, o.reason])).toEqual([['cancelled', 'scheduled'], ['cancelled', 'scheduled']]);
    expect(ids.every((id) => env.node.chain().state.orders.get(id) === undefined)).toBe(true);
    const acct = await client.account(alice.address);
    expect(acct.lockedBalance).toBe('0');
  }, 30_000);

  it('a replacement moves the time, a clear (time null) removes it, and neither fires afterwards', async () => {
    const o = await client.placeOrder(bob, { symbol: 'ETH', side: 'buy', type: 'limit', price: String(Math.floor(mark / 2)), amount: '0.01' });
    await client.scheduleCancel(bob, headMs() + 6_000);
    const far = headMs() + 3_600_000;
    expect((await client.scheduleCancel(bob, far)).time).toBe(far);
    const cleared = await client.scheduleCancel(bob, null);
    expect(cleared).toMatchObject({ time: null, countToday: 2 });
    await new Promise((r) => setTimeout(r, 6_500));
    expect(env.node.chain().state.orders.get(o.orderId)).toBeDefined();
    await client.cancelOrder(bob, o.orderId);
  }, 20_000);

  it('refuses a time less than 5 s ahead (422 SCHEDULE_TOO_SOON) and a fourth schedule of the day (422 SCHEDULE_LIMIT); clearing stays allowed', async () => {
    await expectError(client.scheduleCancel(carol, headMs() + 1_000), 422, 'SCHEDULE_TOO_SOON', 'time');
    for (let i = 1; i <= 3; i++) expect((await client.scheduleCancel(carol, headMs() + 3_600_000 + i)).countToday).toBe(i);
    await expectError(client.scheduleCancel(carol, headMs() + 7_200_000), 422, 'SCHEDULE_LIMIT', 'limit 3');
    expect(await client.scheduleCancel(carol, null)).toMatchObject({ time: null, countToday: 3 });
  });

  it('bad input per field: time, signature, expiresAfter', async () => {
    const good = await client.scheduleCancelBody(dave, headMs() + 60_000);
    const post = (body: unknown) => client.call<any>('POST', '/v1/order/schedule-cancel', body);
    for (const time of ['soon', 1.5, -1, 0, Number.MAX_SAFE_INTEGER + 2]) {
      const r = await post({ ...good, time });
      expect([r.status, r.body.error.code], `time ${time}`).toEqual([400, 'INVALID_REQUEST']);
    }
    const { time: _t, ...noTime } = good;
    expect((await post(noTime)).status).toBe(400);
    const { signature: _s, ...unsigned } = good;
    expect((await post(unsigned)).body.error.code).toBe('MISSING_SIGNATURE');
    // Signed for another time: recovers to someone else.
    expect((await post({ ...good, time: good.time! + 1 })).status).toBe(401);
    // expiresAfter is signed: adding it to a body signed without it breaks the signature.
    expect((await post({ ...good, expiresAfter: headMs() + 60_000 })).status).toBe(401);
    for (const expiresAfter of ['later', 0, 1.5]) expect((await post({ ...good, expiresAfter })).status, `expiresAfter ${expiresAfter}`).toBe(400);
  });

  it('expiresAfter: accepted while ahead of the block time, refused 422 ACTION_EXPIRED once passed', async () => {
    const ok = await client.scheduleCancel(dave, null, { expiresAfter: headMs() + 60_000 });
    expect(ok.time).toBeNull();
    await expectError(client.scheduleCancel(dave, null, { expiresAfter: headMs() - 1 }), 422, 'ACTION_EXPIRED', 'expiresAfter');
  });
});

describe('TWAP orders', () => {
  it('slices buy against the book every interval as IOC at most 3% from the mark; progress is readable; cancel stops it', async () => {
    const { price: ask, orderId: askId } = await askAtMark(alice, '5');
    const placed = await client.placeTwap(bob, { symbol: 'ETH', side: 'buy', amount: '3', minutes: 5 });
    expect(placed).toMatchObject({ symbol: 'ETH', side: 'buy', amount: '3', state: 'running', slicesTotal: 300, minutes: 5, randomize: false });
    expect(placed.twapId).toMatch(/^[0-9]+$/);
    const progressed = await waitFor(async () => {
      const t = await client.twap(placed.twapId);
      return t.slicesDone >= 3 ? t : undefined;
    }, 15_000, 'three slices');
    expect(Number(progressed.filled)).toBeGreaterThan(0);
    expect(Number(progressed.averagePrice)).toBe(Number(ask));
    expect(Number(progressed.filled) + Number(progressed.remaining)).toBeCloseTo(3, 12);
    const cancelled = await client.cancelTwap(bob, placed.twapId);
    expect(cancelled.state).toBe('cancelled');
    // The slices' fills are block events: indexed after the block's receipts, with no
    // transaction (txHash 0x0…0), in the trader's fills, the pair's trades and candles.
    const sliceFills = await waitFor(async () => {
      const f = (await client.fills(bob.address)).filter((x: any) => x.txHash === NO_TX_HASH && x.symbol === 'ETH');
      return f.length >= 3 ? f : undefined;
    }, 10_000, 'the slice fills in /v1/fills');
    expect(sliceFills.every((f: any) => f.side === 'buy' && Number(f.price) === Number(ask))).toBe(true);
    const sliceTotal = sliceFills.reduce((t: number, f: any) => t + Number(f.amount), 0);
    expect(sliceTotal).toBeCloseTo(Number(progressed.filled), 12);
    const sliceTrades = (await client.trades('ETH', 200)).filter((t: any) => t.txHash === NO_TX_HASH && t.buyer === bob.address.toLowerCase());
    expect(sliceTrades.length).toBe(sliceFills.length);
    expect(sliceTrades.every((t: any) => t.takerSide === 'buy' && t.seller === alice.address.toLowerCase())).toBe(true);
    const sliceOrder = await client.order(sliceFills[0].orderId);
    expect(sliceOrder).toMatchObject({ side: 'buy', type: 'market', txHash: NO_TX_HASH });
    const after = await client.twap(placed.twapId);
    expect(after).toMatchObject({ state: 'cancelled', nextSliceMs: null, filled: cancelled.filled });
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await client.twap(placed.twapId)).filled).toBe(cancelled.filled);
    const list = await client.twaps(bob.address);
    expect(list.twaps[0].twapId).toBe(placed.twapId);
    await expectError(client.cancelTwap(bob, placed.twapId), 422, 'TWAP_STATE');
    await cancelRest(alice, askId);
  }, 30_000);

  it('completes once its size is filled (slices raised to the pair minimum), randomized or not', async () => {
    // 0.015 ETH over 300 slices: each slice is raised to the 0.005 minimum, so three fill it.
    const { orderId: askId } = await askAtMark(alice, '1');
    for (const randomize of [false, true]) {
      const t = await client.placeTwap(carol, { symbol: 'ETH', side: 'buy', amount: '0.015', minutes: 5, randomize });
      const done = await waitFor(async () => {
        const p = await client.twap(t.twapId);
        return p.state !== 'running' ? p : undefined;
      }, 15_000, 'completion');
      expect(done).toMatchObject({ state: 'completed', filled: '0.015', remaining: '0', slicesDone: 3, slicesMissed: 0, randomize });
    }
    await cancelRest(alice, askId);
  }, 30_000);

  it('a slice the trader cannot pay for ends the TWAP in "failed"; a slice with no liquidity is missed and the TWAP goes on', async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    // An ask to buy from: without one the slice would miss for liquidity before any balance rule.
    const { orderId: askId } = await askAtMark(alice, '1');
    const t = await client.placeTwap(poor, { symbol: 'ETH', side: 'buy', amount: '1', minutes: 5 });
    const failed = await waitFor(async () => {
      const p = await client.twap(t.twapId);
      return p.state !== 'running' ? p : undefined;
    }, 15_000, 'the refusal');
    expect(failed).toMatchObject({ state: 'failed', filled: '0', lastCode: 'INSUFFICIENT_BALANCE', nextSliceMs: null });
    await cancelRest(alice, askId);
    // No bids on BNB: a sell slice misses with NO_LIQUIDITY (once BNB has a fresh mark).
    const s = await client.placeTwap(dave, { symbol: 'BNB', side: 'sell', amount: '1', minutes: 5 });
    const missed = await waitFor(async () => {
      const p = await client.twap(s.twapId);
      return p.slicesMissed >= 2 ? p : undefined;
    }, 15_000, 'missed slices');
    expect(missed.state).toBe('running');
    expect(['NO_LIQUIDITY', 'NO_ORACLE_PRICE', 'ORACLE_STALE']).toContain(missed.lastCode);
    await client.cancelTwap(dave, s.twapId);
  }, 30_000);

  it('bad input per field, the 404 and 403 answers, and expiresAfter', async () => {
    const place = async (over: Record<string, unknown>, sign: Record<string, unknown> = {}) =>
      client.call<any>('POST', '/v1/twap', { ...(await client.twapBody(dave, { symbol: 'ETH', side: 'buy', amount: '1', minutes: 5, ...sign } as any)), ...over });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ minutes: 4 }, 400, 'INVALID_TWAP'],
      [{ minutes: 1441 }, 400, 'INVALID_TWAP'],
      [{ minutes: 7.5 }, 400, 'INVALID_REQUEST'],
      [{ side: 'hold' }, 400, 'INVALID_SIDE'],
      [{ amount: '0' }, 400, 'INVALID_AMOUNT'],
      [{ amount: 'lots' }, 400, 'INVALID_AMOUNT'],
      [{ symbol: 'eth' }, 400, 'INVALID_SYMBOL'],
      [{ symbol: 'NOPE' }, 400, 'UNKNOWN_PAIR'],
      [{ randomize: 'yes' }, 400, 'INVALID_REQUEST'],
      [{ expiresAfter: 'never' }, 400, 'INVALID_REQUEST'],
      [{ signature: undefined }, 401, 'MISSING_SIGNATURE'],
      [{ minutes: 6 }, 401, 'INVALID_SIGNATURE'],
    ];
    for (const [over, status, code] of cases) {
      const r = await place(over);
      expect([r.status, r.body.error?.code], JSON.stringify(over)).toEqual([status, code]);
    }
    // Below the pair's minimum size (0.005 ETH): refused in execution as in the shape of an order.
    await expectError(client.placeTwap(dave, { symbol: 'ETH', side: 'buy', amount: '0.001', minutes: 5 }), 400, 'INVALID_AMOUNT', 'minimum');
    await expectError(client.placeTwap(dave, { symbol: 'ETH', side: 'buy', amount: '1', minutes: 5, expiresAfter: headMs() - 1 }), 422, 'ACTION_EXPIRED');
    const t = await client.placeTwap(dave, { symbol: 'ETH', side: 'buy', amount: '0.01', minutes: 5, expiresAfter: headMs() + 60_000 });
    await expectError(client.cancelTwap(carol, t.twapId), 403, 'NOT_OWNER');
    // Its owner may (unless it already filled): it takes no liquidity another test placed.
    await client.cancelTwap(dave, t.twapId).catch((e) => expect(e.code).toBe('TWAP_STATE'));
    await expectError(client.cancelTwap(dave, '999999'), 404, 'UNKNOWN_TWAP');
    const bad = await client.call<any>('POST', '/v1/twap/cancel', { twapId: 'x1', trader: dave.address, nonce: 1, signature: '0x' + 'ab'.repeat(65) });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_TWAP']);
    expect((await client.call<any>('GET', '/v1/twap/id/999999')).status).toBe(404);
    expect((await client.call<any>('GET', '/v1/twap/id/abc')).status).toBe(400);
    expect((await client.call<any>('GET', '/v1/twap/not-an-address')).status).toBe(400);
  }, 30_000);
});

describe('after a restart', () => {
  /** Made here, not by the tests above: the orders a schedule cancelled, and a TWAP whose slices filled. */
  const scheduledIds: string[] = [];
  let twapFills: any[] = [];
  beforeAll(async () => {
    // Erin's two orders and a cancel scheduled 5.5 s ahead; meanwhile frank's TWAP buys from grace's ask.
    const a = await client.placeOrder(erin, { symbol: 'ETH', side: 'buy', type: 'limit', price: String(Math.floor(mark / 2)), amount: '0.01' });
    const b = await client.placeOrder(erin, { symbol: 'BTC', side: 'buy', type: 'limit', price: '1000', amount: '0.001' });
    await client.scheduleCancel(erin, headMs() + 5_500);
    const ask = await askAtMark(grace, '1');
    const twap = await client.placeTwap(frank, { symbol: 'ETH', side: 'buy', amount: '1', minutes: 5 });
    twapFills = await waitFor(async () => {
      const f = (await client.fills(frank.address)).filter((x: any) => x.txHash === NO_TX_HASH && x.symbol === 'ETH');
      return f.length >= 3 ? f : undefined;
    }, 15_000, 'three slice fills in /v1/fills');
    await client.cancelTwap(frank, twap.twapId);
    await cancelRest(grace, ask.orderId);
    twapFills = (await client.fills(frank.address)).filter((x: any) => x.txHash === NO_TX_HASH && x.symbol === 'ETH');
    for (const id of [a.orderId, b.orderId]) {
      await waitFor(async () => ((await client.order(id).catch(() => undefined))?.reason === 'scheduled' || undefined), 15_000, `order ${id} cancelled by the schedule in the index`);
      scheduledIds.push(id);
    }
  }, 40_000);

  it('the index rebuilt from the data folder still shows the scheduled cancels and the slice fills: the block events were stored with their blocks', async () => {
    expect(scheduledIds.length).toBe(2);
    expect(twapFills.length).toBeGreaterThanOrEqual(3);
    const dataDir = env.node.config.dataDir;
    await env.node.stop();
    // Delete the index: the restarted node rebuilds it from the chain store alone.
    rmSync(join(dataDir, 'index'), { recursive: true, force: true });
    Object.assign(env, await startNode(dataDir, { genesis, genesisHash: genesisHash(genesis) }));
    client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
    for (const id of scheduledIds) {
      const o = await waitFor(async () => client.order(id).catch(() => undefined), 15_000, `order ${id} in the rebuilt index`);
      expect(o).toMatchObject({ status: 'cancelled', reason: 'scheduled' });
    }
    const fills = (await client.fills(frank.address)).filter((x: any) => x.txHash === NO_TX_HASH && x.symbol === 'ETH');
    for (const f of twapFills) expect(fills).toContainEqual(f);
    const trades = (await client.trades('ETH', 200)).filter((t: any) => t.txHash === NO_TX_HASH);
    expect(trades.length).toBeGreaterThanOrEqual(twapFills.length);
  }, 40_000);
});
