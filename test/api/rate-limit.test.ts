/**
 * Rate limits and the WebSocket's trading surface (issue 24 deliver 4; decision 98;
 * docs/api.md "Rate limits", "WebSocket"), with real requests to in-process nodes:
 * the per-IP budget on every route (429 RATE_LIMITED, the envelope, Retry-After), route
 * weights, the per-signer budget (charged after the signature: a forged request naming
 * an address spends nothing of it), sockets per IP, and a signed order posted over the
 * socket that fills and is pushed to a fills subscription. Each per-IP test has a node of
 * its own: one IP's budget and socket count, spent by one test, never reach another's.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { RATE_LIMIT_OFF } from '../../src/api/rate-limit';
import { DEVNET_KEYS, useDevnetNode, waitFor } from '../helpers/devnet';

const [alice, bob, carol] = DEVNET_KEYS.accounts.slice(0, 3).map((a) => privateKeyToAccount(a.privateKey));

const IP_LIMITED = { rateLimit: { windowMs: 60_000, ipWeightPerWindow: 30, addressWeightPerWindow: 0, wsConnectionsPerIp: 2 } };
const socketLimited = useDevnetNode(IP_LIMITED);
const ipLimited = useDevnetNode(IP_LIMITED);
const wsLimited = useDevnetNode(IP_LIMITED);
const addressLimited = useDevnetNode({ rateLimit: { ...RATE_LIMIT_OFF, addressWeightPerWindow: 3 } });
const open = useDevnetNode({ rateLimit: RATE_LIMIT_OFF });

async function refusal(p: Promise<unknown>): Promise<ExchangeApiError> {
  const err = await p.then(() => undefined, (e) => e);
  expect(err).toBeInstanceOf(ExchangeApiError);
  return err;
}

function socket(url: string): { ws: WebSocket; messages: any[]; opened: Promise<void>; closed: Promise<{ code: number; reason: string }> } {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`);
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(String(d))));
  const opened = new Promise<void>((r) => ws.once('open', () => r()));
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: String(reason) })));
  return { ws, messages, opened, closed };
}

describe('per-IP budget (every route) and sockets per IP', () => {
  it('holds at most the configured sockets per IP; the next is closed 1008 at once, a freed slot is taken again', async () => {
    const s1 = socket(socketLimited.url);
    const s2 = socket(socketLimited.url);
    await Promise.all([s1.opened, s2.opened]);
    const s3 = socket(socketLimited.url);
    expect(await s3.closed).toEqual({ code: 1008, reason: 'at most 2 WebSocket connections per IP' });
    s1.ws.close();
    await s1.closed;
    // The server counts the close when its side sees it: retry until the slot is free.
    const held = await waitFor(async () => {
      const s = socket(socketLimited.url);
      const r = await Promise.race([s.opened.then(() => 'open'), s.closed.then(() => 'closed')]);
      return r === 'open' ? s : undefined;
    });
    s2.ws.close();
    held.ws.close();
  });

  it('counts each route by its weight and answers 429 RATE_LIMITED in the envelope with Retry-After once spent', async () => {
    const first = await fetch(`${ipLimited.url}/v1/pairs`);
    expect(first.status).toBe(200);
    // Answers that are not refused carry no budget headers: the client reads its budget from GET /v1/rate-limit.
    expect(first.headers.get('x-ratelimit-remaining')).toBeNull();
    const client0 = new ExchangeClient(ipLimited.url, { chainId: ipLimited.node.config.genesis.chainId });
    const before = (await client0.rateLimit()).ip!;
    expect(before).toMatchObject({ limit: 30, windowMs: 60_000 });
    expect(before.used).toBeGreaterThanOrEqual(2);
    expect(before.remaining).toBe(30 - before.used);
    expect(before.resetSec).toBeGreaterThanOrEqual(1);
    // /openapi.json weighs 5 (docs/api.md "Rate limits"); the read itself weighs 1.
    const doc = await fetch(`${ipLimited.url}/openapi.json`);
    expect(doc.status).toBe(200);
    const after = (await client0.rateLimit(alice.address)).ip!;
    expect(after.used).toBe(before.used + 6);
    const left = after.remaining;
    for (let i = 0; i < left; i++) expect((await fetch(`${ipLimited.url}/health`)).status).toBe(200);
    const over = await fetch(`${ipLimited.url}/health`);
    expect(over.status).toBe(429);
    // A refusal carries the budget headers with its Retry-After.
    expect(over.headers.get('x-ratelimit-limit')).toBe('30');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    const body = (await over.json()) as any;
    expect(body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(body.error.message).toMatch(/retry in/);
    expect(typeof body.timestamp).toBe('number');
    // Every route, reads and writes alike, and the typed client sees the same refusal.
    expect((await fetch(`${ipLimited.url}/v1/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(429);
    const client = new ExchangeClient(ipLimited.url, { chainId: ipLimited.node.config.genesis.chainId });
    const err = await refusal(client.pairs());
    expect([err.status, err.code]).toEqual([429, 'RATE_LIMITED']);
    expect(err.retryAfterSec).toBeGreaterThanOrEqual(1);
  });

  it('a WebSocket message spends the same IP budget: once spent, it is answered with the limit error, not served', async () => {
    // A socket opened while the budget lasts, then the whole budget spent over HTTP from the same IP.
    const s = socket(wsLimited.url);
    await s.opened;
    let status = 200;
    for (let i = 0; i <= IP_LIMITED.rateLimit.ipWeightPerWindow && status === 200; i++) status = (await fetch(`${wsLimited.url}/health`)).status;
    expect(status).toBe(429);
    s.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
    const limited = await waitFor(() => s.messages.find((m) => m.id === null || m.id === 1));
    expect(limited.error).toMatchObject({ code: -32005, data: { code: 'RATE_LIMITED' } });
    expect(limited.error.data.retryAfter).toBeGreaterThanOrEqual(1);
    s.ws.close();
  });
});

describe('per-signer budget (signed actions)', () => {
  it('charges the verified signer 1 per action and 1 per order of a batch; forged requests naming it spend nothing; others are unaffected', async () => {
    const client = new ExchangeClient(addressLimited.url, { chainId: addressLimited.node.config.genesis.chainId });
    // Signed by bob but naming alice: 401 at the door, before any budget is charged.
    const forged = await client.signOrder(bob, { symbol: 'ETH', side: 'sell', type: 'limit', price: '3000', amount: '0.01' });
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${addressLimited.url}/v1/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...forged, trader: alice.address, nonce: forged.nonce + i }) });
      expect(r.status).toBe(401);
    }
    await client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '3000', amount: '0.01' });
    await client.placeBatch(alice, [
      { symbol: 'ETH', side: 'sell', price: '3001', amount: '0.01' },
      { symbol: 'ETH', side: 'sell', price: '3002', amount: '0.01' },
    ]);
    const err = await refusal(client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '3003', amount: '0.01' }));
    expect([err.status, err.code]).toEqual([429, 'RATE_LIMITED']);
    expect(err.message).toContain(alice.address.toLowerCase());
    expect(err.retryAfterSec).toBeGreaterThanOrEqual(1);
    const raw = await fetch(`${addressLimited.url}/v1/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(await client.signOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '3004', amount: '0.01' })),
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Carol has her own budget; reads are not charged to an address.
    await client.placeOrder(carol, { symbol: 'ETH', side: 'sell', type: 'limit', price: '3005', amount: '0.01' });
    expect((await client.orderbook('ETH')).asks.length).toBe(4);
    // The budgets as the client reads them: alice spent her 3 (1 order, a batch of 2) and the refused ones count too; no per-IP limit on this node.
    const spent = await client.rateLimit(alice.address);
    expect(spent.ip).toBeNull();
    expect(spent.address).toMatchObject({ limit: 3, remaining: 0, windowMs: 60_000 });
    expect(spent.address!.used).toBeGreaterThanOrEqual(5);
    expect((await client.rateLimit(bob.address)).address).toMatchObject({ used: 0, remaining: 3, resetSec: 0 });
  });
});

describe('the faucet under the nonce rule and the per-signer budget', () => {
  it('claims back to back pass: its nonces are millisecond timestamps (decision 97), and its key spends no signer budget', async () => {
    // addressLimited: 3 weight per signer; the faucet's claims are the node's signature, charged to the IP only.
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${addressLimited.url}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: DEVNET_KEYS.accounts[10 + i].address, amount: '1' }) });
      expect(r.status).toBe(200);
    }
  });
});

describe('WebSocket: post and isSnapshot', () => {
  it('a signed order posted over the socket crosses a resting one, and the fill is pushed to the fills subscription', async () => {
    const client = new ExchangeClient(open.url, { chainId: open.node.config.genesis.chainId });
    const s = socket(open.url);
    await s.opened;
    s.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['fills', { address: bob.address }] }));
    const subId = (await waitFor(() => s.messages.find((m) => m.id === 1))).result;
    const first = await waitFor(() => s.messages.find((m) => m.params?.subscription === subId));
    expect(first.params.result).toMatchObject({ isSnapshot: true, snapshot: true, data: [] });

    const ask = await client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '2000', amount: '1' });
    const bid = await client.signOrder(bob, { symbol: 'ETH', side: 'buy', type: 'limit', price: '2000', amount: '0.5' });
    s.ws.send(JSON.stringify({ method: 'post', id: 7, request: { type: 'action', path: '/v1/order', payload: bid } }));
    const answer = await waitFor(() => s.messages.find((m) => m.channel === 'post' && m.id === 7), 15_000);
    expect(answer.response.status).toBe(200);
    expect(answer.response.body).toMatchObject({ success: true, data: { status: 'filled', side: 'buy', amount: '0.5' } });
    const fill = await waitFor(() => s.messages.find((m) => m.params?.subscription === subId && m.params.result.txHash === answer.response.body.data.txHash));
    expect(fill.params.result).toMatchObject({ symbol: 'ETH', side: 'buy', price: '2000', amount: '0.5', seller: alice.address.toLowerCase() });
    expect(fill.params.result.isSnapshot).toBeUndefined();
    expect(ask.status).toBe('open');

    // The same checks as the REST route: the replayed action is refused as REST refuses it.
    s.ws.send(JSON.stringify({ method: 'post', id: 8, request: { type: 'action', path: '/v1/order', payload: bid } }));
    const replay = await waitFor(() => s.messages.find((m) => m.channel === 'post' && m.id === 8));
    expect(replay.response.status).toBe(409);
    expect(replay.response.body.error.code).toBe('NONCE_USED');
    // A request that is not an action on a path is refused on the socket.
    s.ws.send(JSON.stringify({ method: 'post', id: 9, request: { type: 'action', path: 'http://elsewhere/', payload: {} } }));
    expect((await waitFor(() => s.messages.find((m) => m.channel === 'post' && m.id === 9))).error.code).toBe(-32602);
    s.ws.close();
  });
});
