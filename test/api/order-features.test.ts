/**
 * Issue 24's order features through real HTTP and the typed client (decisions 87–89):
 * client order ids on REST, batch and native placement, reads and cancels by cloid,
 * IOC / ALO / reduce-only, modify (REST one and many, native), the not-open cancel, and
 * a 400 naming the field for each new field's bad input, before any signature.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import type { Node } from '../../src/node/node';
import { DEVNET_KEYS, startNode, tempDir, waitFor } from '../helpers/devnet';

const dir = tempDir();
let node: Node;
let client: ExchangeClient;
const [alice, bob, carol] = DEVNET_KEYS.accounts.slice(4, 7).map((a) => privateKeyToAccount(a.privateKey));
const cloid = (n: number) => `0x${n.toString(16).padStart(32, '0')}` as `0x${string}`;

beforeAll(async () => {
  const started = await startNode(dir.path);
  node = started.node;
  client = new ExchangeClient(started.url, { chainId: node.config.genesis.chainId });
});
afterAll(async () => {
  await node?.stop();
  dir.remove();
});

async function expectError(p: Promise<unknown>, status: number, code: string, field?: string) {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err, 'expected the call to fail').toBeInstanceOf(ExchangeApiError);
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  if (field) expect(err.message).toContain(field);
}

describe('client order ids through REST', () => {
  it('place with a cloid, read it, refuse a duplicate 409, cancel by it, then 404', async () => {
    const placed = await client.placeOrder(alice, { symbol: 'SOL', side: 'sell', type: 'limit', price: '150', amount: '1', cloid: cloid(1) });
    expect(placed).toMatchObject({ status: 'open', cloid: cloid(1) });
    const read = await client.orderByCloid(alice.address, cloid(1));
    expect(read).toMatchObject({ orderId: placed.orderId, symbol: 'SOL', side: 'sell', price: '150', amount: '1', remaining: '1', status: 'open', cloid: cloid(1), tif: 'Gtc', reduceOnly: false });
    await expectError(client.placeOrder(alice, { symbol: 'SOL', side: 'sell', type: 'limit', price: '151', amount: '1', cloid: cloid(1) }), 409, 'DUPLICATE_CLOID', 'cloid');
    const native = await client.call<any>('GET', `/orders/${alice.address}`);
    expect(native.body.orders.find((o: any) => o.order_id === placed.orderId)).toMatchObject({ cloid: cloid(1), tif: 'Gtc', reduceOnly: false });
    const cancelled = await client.cancelByCloid(alice, cloid(1));
    expect(cancelled).toMatchObject({ orderId: placed.orderId, cloid: cloid(1), status: 'cancelled' });
    await expectError(client.orderByCloid(alice.address, cloid(1)), 404, 'UNKNOWN_ORDER');
    await expectError(client.cancelByCloid(alice, cloid(1)), 404, 'UNKNOWN_ORDER', 'cloid');
  });

  it('batch items carry their own options; the fill shows both cloids', async () => {
    const batch = await client.placeBatch(bob, [
      { symbol: 'SOL', side: 'sell', price: '160', amount: '1', cloid: cloid(2), tif: 'Alo' },
      { symbol: 'SOL', side: 'sell', price: '161', amount: '1' },
    ]);
    expect(batch.orders[0]).toMatchObject({ index: 0, status: 'open', cloid: cloid(2), tif: 'Alo' });
    expect(batch.orders[1]).toMatchObject({ index: 1, status: 'open' });
    expect(batch.orders[1]).not.toHaveProperty('cloid');
    const taker = await client.placeOrder(carol, { symbol: 'SOL', side: 'buy', type: 'limit', price: '160', amount: '1', cloid: cloid(3) });
    expect(taker.status).toBe('filled');
    const receipt = await client.call<any>('GET', `/tx/${taker.txHash}`);
    const events = JSON.stringify(receipt.body);
    expect(events).toContain(cloid(2));
    expect(events).toContain(cloid(3));
  });
});

describe('time in force and reduce-only through REST and native', () => {
  it('IOC answers cancelled with its fill; ALO that would take answers 422 WOULD_TAKE; reduce-only with no position 422', async () => {
    await client.placeOrder(alice, { symbol: 'AVAX', side: 'sell', type: 'limit', price: '30', amount: '1' });
    const ioc = await client.placeOrder(bob, { symbol: 'AVAX', side: 'buy', type: 'limit', price: '30', amount: '3', tif: 'Ioc' });
    expect(ioc).toMatchObject({ status: 'cancelled', filled: '1', tif: 'Ioc' });
    await client.placeOrder(alice, { symbol: 'AVAX', side: 'sell', type: 'limit', price: '31', amount: '1' });
    await expectError(client.placeOrder(bob, { symbol: 'AVAX', side: 'buy', type: 'limit', price: '31', amount: '1', tif: 'Alo' }), 422, 'WOULD_TAKE');
    await expectError(client.placeOrder(carol, { symbol: 'AVAX', side: 'sell', type: 'limit', price: '40', amount: '1', reduceOnly: true }), 422, 'WOULD_INCREASE_POSITION');
    // bob is long 1 AVAX: a reduce-only sell of 5 is shrunk to 1
    const ro = await client.placeOrder(bob, { symbol: 'AVAX', side: 'sell', type: 'limit', price: '45', amount: '5', reduceOnly: true });
    expect(ro).toMatchObject({ status: 'open', reduceOnly: true });
    expect(await client.call<any>('GET', `/orders/${bob.address}`).then((r) => r.body.orders.find((o: any) => o.order_id === ro.orderId))).toMatchObject({ size: '1000000000000000000', reduceOnly: true });
    // a modify re-applies reduce-only: 5 asked, 1 allowed, at a new price
    const m = await client.modifyOrders(bob, [{ orderId: ro.orderId, price: '46', amount: '5' }]);
    expect(m.orders[0]).toMatchObject({ orderId: ro.orderId, amount: '1', requeued: true, status: 'open' });
  });

  it('native place with options, native modify and native cancel by cloid', async () => {
    const pairId = node.config.genesis.pairs.find((p) => p.symbol === 'LINK')!.id;
    const placed = await client.placeNative(alice, { owner: alice.address, pairId, side: 'Buy', orderType: 'Limit', price: 10_000_000n, size: 2n * 10n ** 18n, cloid: cloid(4), tif: 'Alo' });
    expect(placed).toMatchObject({ success: true, status: 'open', cloid: cloid(4), tif: 'Alo' });
    const modified = await client.modifyNative(alice, { owner: alice.address, orderId: BigInt(placed.order_id), price: 11_000_000n, size: 10n ** 18n });
    expect(modified).toMatchObject({ success: true, order_id: placed.order_id, price: '11000000', remaining: '1000000000000000000', requeued: true });
    const cancelled = await client.cancelByCloidNative(alice, alice.address, cloid(4));
    expect(cancelled).toMatchObject({ success: true, order_id: placed.order_id, status: 'cancelled' });
  });
});

describe('modify through REST', () => {
  it('one modify keeps the id and answers its new size; several stand alone; a crossing one is 422 WOULD_TAKE', async () => {
    const o1 = await client.placeOrder(carol, { symbol: 'DOGE', side: 'buy', type: 'limit', price: '0.1', amount: '300', cloid: cloid(5) });
    const o2 = await client.placeOrder(carol, { symbol: 'DOGE', side: 'buy', type: 'limit', price: '0.09', amount: '300' });
    const one = await client.modifyOrders(carol, [{ orderId: o1.orderId, price: '0.1', amount: '200' }]);
    expect(one.orders[0]).toMatchObject({ index: 0, orderId: o1.orderId, amount: '200', requeued: false, status: 'open', cloid: cloid(5) });
    expect(await client.orderByCloid(carol.address, cloid(5))).toMatchObject({ orderId: o1.orderId, amount: '200', remaining: '200' });
    await client.placeOrder(alice, { symbol: 'DOGE', side: 'sell', type: 'limit', price: '0.2', amount: '100' });
    const many = await client.modifyOrders(carol, [
      { orderId: o1.orderId, price: '0.11', amount: '400' },
      { orderId: o2.orderId, price: '0.2', amount: '300' },
    ]);
    expect(many.orders[0]).toMatchObject({ index: 0, requeued: true, amount: '400' });
    expect(many.orders[1]).toMatchObject({ index: 1, status: 'rejected', error: { code: 'WOULD_TAKE' } });
    // The index applies OrderModified: /v1/order and /v1/orders read the new price and size.
    const indexed = await waitFor(async () => {
      const o = await client.order(o1.orderId);
      return o.price === '0.11' ? o : undefined;
    }, 5_000, 'the modified order in the index');
    expect(indexed).toMatchObject({ orderId: o1.orderId, price: '0.11', amount: '400', remaining: '400', filled: '0', status: 'open' });
    expect((await client.orders(carol.address)).find((o: any) => o.orderId === o1.orderId)).toMatchObject({ price: '0.11', amount: '400', remaining: '400' });
    await expectError(client.modifyOrders(carol, [{ orderId: o2.orderId, price: '0.2', amount: '300' }]), 422, 'WOULD_TAKE');
    await expectError(client.modifyOrders(alice, [{ orderId: o2.orderId, price: '0.08', amount: '300' }]), 403, 'NOT_OWNER');
  });
});

describe('the orders topic of /ws', () => {
  it('pushes the OrderModified of a modify, with its new price and size, after the snapshot', async () => {
    const [dave] = DEVNET_KEYS.accounts.slice(7, 8).map((a) => privateKeyToAccount(a.privateKey));
    const placed = await client.placeOrder(dave, { symbol: 'DOGE', side: 'buy', type: 'limit', price: '0.05', amount: '100', cloid: cloid(9) });
    const ws = new WebSocket(`${client.baseUrl.replace('http', 'ws')}/ws`);
    const msgs: any[] = [];
    ws.onmessage = (m) => msgs.push(JSON.parse(String(m.data)));
    await new Promise((r) => (ws.onopen = r));
    try {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['orders', { address: dave.address }] }));
      await waitFor(() => msgs.some((m) => m.method === 'eth_subscription') || undefined, 5_000, 'the snapshot');
      await client.modifyOrders(dave, [{ orderId: placed.orderId, price: '0.06', amount: '150' }]);
      const pushed = await waitFor(() => msgs.find((m) => m.params?.result?.type === 'OrderModified')?.params.result, 5_000, 'OrderModified on the orders topic');
      expect(pushed).toMatchObject({ orderId: placed.orderId, price: '60000', size: String(150n * 10n ** 18n), remaining: String(150n * 10n ** 18n), cloid: cloid(9), requeued: true });
    } finally {
      ws.close();
    }
  });
});

describe('the not-open cancel (decision 89)', () => {
  it('a cancelled or filled order answers 422 ORDER_NOT_OPEN with its state; an id never placed 404', async () => {
    const o = await client.placeOrder(alice, { symbol: 'ARB', side: 'sell', type: 'limit', price: '1', amount: '100' });
    await client.cancelOrder(alice, o.orderId);
    await expectError(client.cancelOrder(alice, o.orderId), 422, 'ORDER_NOT_OPEN', 'cancelled');
    const f = await client.placeOrder(alice, { symbol: 'ARB', side: 'sell', type: 'limit', price: '1', amount: '100' });
    await client.placeOrder(bob, { symbol: 'ARB', side: 'buy', type: 'limit', price: '1', amount: '100' });
    await expectError(client.cancelOrder(alice, f.orderId), 422, 'ORDER_NOT_OPEN', 'filled');
    await expectError(client.cancelNative(alice, alice.address, BigInt(f.orderId)), 422, 'ORDER_NOT_OPEN', 'filled');
    await expectError(client.cancelOrder(alice, '99999999'), 404, 'UNKNOWN_ORDER');
  });
});

describe('bad input per new field: 400 naming the field, before the signature', () => {
  const base = { symbol: 'SOL', side: 'sell', type: 'limit', price: '150', amount: '1', trader: '0x' + '11'.repeat(20), nonce: 1, signature: '0x' + '00'.repeat(65) };
  it.each([
    ['cloid', { cloid: '0x1234' }],
    ['cloid', { cloid: '0x' + 'AB'.repeat(16) }],
    ['tif', { tif: 'Fok' }],
    ['expiresAfter', { expiresAfter: -5 }],
    ['expiresAfter', { expiresAfter: 'soon' }],
  ])('POST /v1/order %s %j', async (field, bad) => {
    const r = await client.call<any>('POST', '/v1/order', { ...base, ...bad });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_OPTIONS');
    expect(r.body.error.message).toContain(field);
  });

  it('reduceOnly must be a boolean; Alo on a market order is refused', async () => {
    const r1 = await client.call<any>('POST', '/v1/order', { ...base, reduceOnly: 'yes' });
    expect(r1.status).toBe(400);
    expect(JSON.stringify(r1.body)).toContain('reduceOnly');
    const r2 = await client.call<any>('POST', '/v1/order', { ...base, type: 'market', tif: 'Alo' });
    expect(r2.status).toBe(400);
    expect(r2.body.error).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(r2.body.error.message).toContain('tif');
  });

  it('batch items name their index; modify and cancel-by-cloid fields', async () => {
    const b = await client.call<any>('POST', '/v1/order/batch', { orders: [{ symbol: 'SOL', side: 'sell', price: '1', amount: '1' }, { symbol: 'SOL', side: 'sell', price: '1', amount: '1', tif: 'X' }], trader: base.trader, nonce: 1, signature: base.signature });
    expect(b.status).toBe(400);
    expect(b.body.error.message).toContain('orders[1].tif');
    const m = await client.call<any>('POST', '/v1/order/modify', { orders: [{ orderId: 'x', price: '1', amount: '1' }], trader: base.trader, nonce: 1, signature: base.signature });
    expect(m.body.error).toMatchObject({ code: 'INVALID_ORDER_ID' });
    expect(m.status).toBe(400);
    const m2 = await client.call<any>('POST', '/v1/order/modify', { orders: [{ orderId: '5', price: '0', amount: '1' }], trader: base.trader, nonce: 1, signature: base.signature });
    expect(m2.body.error).toMatchObject({ code: 'INVALID_PRICE' });
    const m3 = await client.call<any>('POST', '/v1/order/modify', { orders: [{ orderId: '5', price: '1', amount: '0' }], trader: base.trader, nonce: 1, signature: base.signature });
    expect(m3.body.error).toMatchObject({ code: 'INVALID_AMOUNT' });
    const c = await client.call<any>('DELETE', '/v1/order/by-cloid/0xzz', { trader: base.trader, nonce: 1, signature: base.signature });
    expect(c.status).toBe(400);
    expect(c.body.error.code).toBe('INVALID_ORDER_ID');
    const n = await client.call<any>('POST', '/order/cancel-by-cloid', { cloid: '0x12', owner: base.trader, nonce: 1, signature: base.signature });
    expect(n.status).toBe(400);
    expect(n.body.error.code).toBe('INVALID_OPTIONS');
    const nm = await client.call<any>('POST', '/order/modify', { order_id: '5', price: '0', size: '1', owner: base.trader, nonce: 1, signature: base.signature });
    expect(nm.status).toBe(400);
    expect(nm.body.error.code).toBe('INVALID_PRICE');
  });
});
