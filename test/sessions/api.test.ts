/**
 * Sessions and agents through real HTTP, signed by viem (`signTypedData`) in the 64-byte
 * wire form: every transition of the Session and Agent mode states (contract
 * [C-state-session-*], [C-state-agent-*], 401 and 400 included), expiry by block time,
 * a session key refused for everything but trading, each cap at its boundary,
 * REDUCE_ONLY, replays after revoke and re-create, the agent reads, and the second
 * listener (the session-and-agent port).
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionApiAddress } from '../../actors/api/api-actor';
import { ExchangeApiError, ExchangeClient, type NativeOrder } from '../../src/client';
import type { Node } from '../../src/node/node';
import { DEVNET_KEYS, startNode, tempDir, waitFor } from '../helpers/devnet';

const dir = tempDir();
let node: Node;
let client: ExchangeClient; // 64-byte signatures
let client65: ExchangeClient;
let port9001: ExchangeClient; // the session-and-agent listener
const acct = DEVNET_KEYS.accounts.map((a) => privateKeyToAccount(a.privateKey));
const [alice, bob, carol, dave, erin, frank, grace] = acct.slice(0, 7);
const newKey = () => privateKeyToAccount(generatePrivateKey());
const lower = (a: string) => a.toLowerCase();
const ETH = 1;
const usd = (n: number) => BigInt(Math.round(n * 1e6));
const size = (n: number) => BigInt(Math.round(n * 1000)) * 10n ** 15n;
const nowS = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  const started = await startNode(dir.path, { sessionApi: { host: '127.0.0.1', port: 0 } });
  node = started.node;
  const chainId = node.config.genesis.chainId;
  client = new ExchangeClient(started.url, { chainId, signatureForm: 64 });
  client65 = new ExchangeClient(started.url, { chainId });
  port9001 = new ExchangeClient(sessionApiAddress(node.config)!, { chainId, signatureForm: 64 });
});
afterAll(async () => {
  await node?.stop();
  dir.remove();
});

async function expectError(p: Promise<unknown>, status: number, code?: string, field?: string) {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err, 'expected the call to fail').toBeInstanceOf(ExchangeApiError);
  expect({ status: err.status, code: code ? err.code : undefined }, err.message).toEqual({ status, code });
  if (field) expect(err.message).toContain(field);
  expect(err.body.success).toBe(false);
  expect(typeof err.body.timestamp).toBe('number');
}

async function raw(path: string, body: unknown) {
  return client.call<any>('POST', path, body);
}

const restingBuy = (owner: `0x${string}`, o: Partial<NativeOrder> = {}): NativeOrder => ({ owner, pairId: ETH, side: 'Buy', orderType: 'Limit', price: usd(1000), size: size(0.01), ...o });

// Shows contract [C-service-sessions], [C-session-api].
describe('Session table', () => {
  // Shows contract [C-state-session-create], [C-res-session], [D-envelope-native].
  it('none → active: an owner-signed SessionCreate answers 200 {success, status: submitted} once final; get and valid show it', async () => {
    const sk = newKey();
    const expiresAt = nowS() + 3_600;
    const r = await client.createSession(alice, { sessionKey: sk.address, expiresAt });
    expect(r).toMatchObject({ success: true, status: 'submitted' });
    expect(r.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await client.call<any>('GET', `/tx/${r.tx_hash}`)).status).toBe(200); // final when answered
    const s = await client.getSession(alice.address);
    expect(s).toMatchObject({ owner: lower(alice.address), session_key: lower(sk.address), expires_at: expiresAt, state: 'active' });
    expect(s.created_at).toBeLessThanOrEqual(nowS());
    expect(typeof s.nonce).toBe('number');
    expect(await client.sessionValid(alice.address, sk.address)).toEqual({ valid: true });
    expect(await client.sessionValid(alice.address, newKey().address)).toEqual({ valid: false });
    // The session key trades for the owner: an agent order.
    const order = await client.placeNative(sk, restingBuy(alice.address));
    expect(order).toMatchObject({ success: true, status: 'open' });
    const book = await client.orderbook('ETH');
    expect(book.bids.find((l: any) => l.id === order.order_id)?.isAgent).toBe(true);
  });

  // Shows contract [C-state-session-unsigned], [C-errors-session-401].
  it('none: a missing or invalid signature is 401 and changes nothing', async () => {
    const sk = newKey();
    const body = await client.sessionCreateBody(bob, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    const { signature, ...unsigned } = body;
    const missing = await raw('/session/create', unsigned);
    expect([missing.status, missing.body.error.code]).toEqual([401, 'MISSING_SIGNATURE']);
    const byOther = await client.sessionCreateBody(carol, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    const wrong = await raw('/session/create', { ...byOther, owner: bob.address });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    const garbage = await raw('/session/create', { ...body, signature: `0x${'11'.repeat(64)}` });
    expect(garbage.status).toBe(401);
    const tampered = await raw('/session/create', { ...body, expires_at: body.expires_at + 1 });
    expect(tampered.status).toBe(401);
    const malformed = await raw('/session/create', { ...body, signature: '0x1234' });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'INVALID_SIGNATURE_FORMAT']);
    expect((await client.call<any>('GET', `/session/get?owner=${bob.address}`)).status).toBe(404);
    // The 65-byte form is accepted too.
    expect(await client65.createSession(bob, { sessionKey: sk.address, expiresAt: nowS() + 600 })).toMatchObject({ success: true });
    void signature;
  });

  it('shapes: session_key equal to the owner, bad addresses and non-integer expiry are 400', async () => {
    const self = await raw('/session/create', await client.sessionCreateBody(carol, { sessionKey: carol.address, expiresAt: nowS() + 60 }));
    expect([self.status, self.body.error.code]).toEqual([400, 'INVALID_SESSION_KEY']);
    const body = await client.sessionCreateBody(carol, { sessionKey: newKey().address, expiresAt: nowS() + 60 });
    for (const patch of [{ expires_at: -1 }, { expires_at: '123' }, { session_key: '0x12' }, { owner: 'x' }, { extra: 1 }]) {
      const r = await raw('/session/create', { ...body, ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
    }
  });

  // Shows contract [C-limits-session].
  it('expires_at not after the block time, or beyond 30 days, is refused by execution (422 INVALID_EXPIRY)', async () => {
    const sk = newKey();
    await expectError(client.createSession(carol, { sessionKey: sk.address, expiresAt: nowS() - 10 }), 422, 'INVALID_EXPIRY', 'expires_at');
    await expectError(client.createSession(carol, { sessionKey: sk.address, expiresAt: nowS() + 30 * 86_400 + 60 }), 422, 'INVALID_EXPIRY', '30 days');
    expect((await client.call<any>('GET', `/session/get?owner=${carol.address}`)).status).toBe(404);
    // 30 days exactly (from a second at or before the block time) is accepted.
    expect(await client.createSession(carol, { sessionKey: sk.address, expiresAt: nowS() + 30 * 86_400 })).toMatchObject({ success: true });
  });

  it('active → active: a new create replaces the session; the old key is refused 403', async () => {
    const [k1, k2] = [newKey(), newKey()];
    await client.createSession(dave, { sessionKey: k1.address, expiresAt: nowS() + 600 });
    await client.createSession(dave, { sessionKey: k2.address, expiresAt: nowS() + 900 });
    expect((await client.getSession(dave.address)).session_key).toBe(lower(k2.address));
    expect(await client.sessionValid(dave.address, k1.address)).toEqual({ valid: false });
    await expectError(client.placeNative(k1, restingBuy(dave.address)), 403, 'NOT_AUTHORIZED');
    expect(await client.placeNative(k2, restingBuy(dave.address))).toMatchObject({ success: true });
  });

  // Shows contract [C-state-session-revoke], [D-envelope-not-found].
  it('active → no active session: the owner revokes; get is 404 in the envelope; the key is refused; a second revoke is 404', async () => {
    const sk = newKey();
    await client.createSession(erin, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    const r = await client.revokeSession(erin);
    expect(r).toMatchObject({ success: true, status: 'submitted' });
    await expectError(client.getSession(erin.address), 404, 'NO_ACTIVE_SESSION');
    expect(await client.sessionValid(erin.address, sk.address)).toEqual({ valid: false });
    await expectError(client.placeNative(sk, restingBuy(erin.address)), 403, 'SESSION_REVOKED');
    await expectError(client.revokeSession(erin), 404, 'NO_ACTIVE_SESSION');
    const missing = await raw('/session/revoke', { owner: erin.address, nonce: 1 });
    expect(missing.status).toBe(401);
  });

  // Shows contract [C-state-session-expire], [D-time-block].
  it('active → expired when the block time reaches expires_at: the key is refused 403 SESSION_EXPIRED', async () => {
    const sk = newKey();
    const expiresAt = nowS() + 4;
    await client.createSession(frank, { sessionKey: sk.address, expiresAt });
    expect(await client.placeNative(sk, restingBuy(frank.address))).toMatchObject({ success: true });
    await waitFor(() => node.chain().state.head().timestampMs >= expiresAt * 1000 || undefined, 10_000, 'block time past expiry');
    expect(await client.sessionValid(frank.address, sk.address)).toEqual({ valid: false });
    await expectError(client.getSession(frank.address), 404, 'NO_ACTIVE_SESSION');
    await expectError(client.placeNative(sk, restingBuy(frank.address)), 403, 'SESSION_EXPIRED');
    // Revoking an expired session finds nothing to revoke.
    await expectError(client.revokeSession(frank), 404, 'NO_ACTIVE_SESSION');
  });

  // Shows contract [C-auth-session-key].
  it('a session key can only trade: its session and agent operations for the owner are refused 403, changing nothing', async () => {
    const sk = newKey();
    await client.createSession(grace, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    const before = await client.getSession(grace.address);
    const capsBefore = await client.agentCaps(grace.address);
    await expectError(client.createSession(sk, { owner: grace.address, sessionKey: newKey().address, expiresAt: nowS() + 600 }), 403, 'OWNER_ONLY');
    await expectError(client.revokeSession(sk, { owner: grace.address }), 403, 'OWNER_ONLY');
    await expectError(client.setAgentCaps(sk, { owner: grace.address, maxLeverage: 10n ** 6n, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 12n, maxTotalPosition: 10n ** 24n }), 403, 'OWNER_ONLY');
    await expectError(client.setAgentMode(sk, 2, { owner: grace.address }), 403, 'OWNER_ONLY');
    // There is no withdrawal or transfer route yet; REST trading (the other signed kinds) recovers the trader itself.
    const rest = await client.signOrder(sk, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1000', amount: '0.01' });
    expect((await client.call<any>('POST', '/v1/order', { ...rest, trader: grace.address })).status).toBe(401);
    expect(await client.getSession(grace.address)).toEqual(before);
    expect(await client.agentCaps(grace.address)).toEqual(capsBefore);
    // ...and on the session port the same.
    await expectError(port9001.setAgentMode(sk, 0, { owner: grace.address }), 403, 'OWNER_ONLY');
  });
});

describe('Agent mode table', () => {
  // Each test has its own owner (acct[7], acct[13]–acct[16]), so a mode or caps one test
  // sets is never the state another starts from; the session keys are made in beforeAll.
  const owners = { free: acct[7], modes: acct[13], off: acct[14], caps: acct[15], bounds: acct[16] };
  const keys = { free: newKey(), off: newKey(), bounds: newKey() };
  beforeAll(async () => {
    for (const k of ['free', 'off', 'bounds'] as const) await client.createSession(owners[k], { sessionKey: keys[k].address, expiresAt: nowS() + 3_600 });
  });

  // Shows contract [C-state-agent-free], [C-res-agent-caps], [D-orders-agent-mode].
  it('defaults to ACTIVE without caps: the session key trades freely; agentCaps reads (mode, caps_set, ...)', async () => {
    const [owner, sk] = [owners.free, keys.free];
    expect(await client.agentCaps(owner.address)).toEqual({
      owner: lower(owner.address), mode: 2, mode_name: 'ACTIVE', caps_set: false, max_leverage: '0', allowed_order_types: 0, max_input_per_trade: '0', max_total_position: '0',
    });
    expect(await client.placeNative(sk, restingBuy(owner.address, { leverage: 50 }))).toMatchObject({ success: true });
  });

  // Shows contract [C-state-agent-mode], [C-state-agent-mode-range], [C-errors-mode-400], [C-agent-api].
  it('any mode → mode 0, 1 or 2 (owner-signed); above 2 is 400 and changes nothing', async () => {
    const owner = owners.modes;
    for (const [mode, name] of [[0, 'OFF'], [1, 'REDUCE_ONLY'], [2, 'ACTIVE'], [2, 'ACTIVE'], [0, 'OFF']] as const) {
      expect(await client.setAgentMode(owner, mode)).toMatchObject({ success: true, status: 'submitted' });
      expect((await client.agentCaps(owner.address)).mode_name).toBe(name);
    }
    await expectError(client.setAgentMode(owner, 3), 400, 'INVALID_MODE', 'mode');
    await expectError(client.setAgentMode(owner, 255), 400, 'INVALID_MODE');
    expect((await client.agentCaps(owner.address)).mode_name).toBe('OFF');
    const { signature: _s, ...unsigned } = await client.agentModeBody(owner, 2);
    expect((await raw('/agent/mode', unsigned)).status).toBe(401);
  });

  // Shows contract [D-orders-agent-mode].
  it('OFF stops the session key even without caps (403 AGENT_MODE_OFF); the owner still trades', async () => {
    const [owner, sk] = [owners.off, keys.off];
    expect(await client.setAgentMode(owner, 0)).toMatchObject({ success: true });
    expect(await client.agentCaps(owner.address)).toMatchObject({ mode_name: 'OFF', caps_set: false });
    await expectError(client.placeNative(sk, restingBuy(owner.address)), 403, 'AGENT_MODE_OFF');
    expect(await client.placeNative(owner, restingBuy(owner.address))).toMatchObject({ success: true });
    await client.setAgentMode(owner, 2);
    expect(await client.placeNative(sk, restingBuy(owner.address))).toMatchObject({ success: true });
  });

  // Shows contract [C-state-agent-caps], [C-errors-caps-401], [C-agent-api].
  it('caps not set → caps set: 200 submitted; 401 for a missing or invalid signature', async () => {
    const owner = owners.caps;
    const caps = { maxLeverage: 200_000, allowedOrderTypes: 3, maxInputPerTrade: usd(1_000), maxTotalPosition: size(10) };
    const body = await client.agentCapsBody(owner, caps);
    const { signature: _s, ...unsigned } = body;
    const missing = await raw('/agent/caps', unsigned);
    expect([missing.status, missing.body.error.code]).toEqual([401, 'MISSING_SIGNATURE']);
    const byOther = await client.agentCapsBody(bob, { ...caps, owner: owner.address });
    const invalid = await raw('/agent/caps', byOther);
    expect([invalid.status, invalid.body.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    expect((await raw('/agent/caps', { ...body, max_total_position: '1' })).status).toBe(401); // not what was signed
    expect((await client.agentCaps(owner.address)).caps_set).toBe(false);
    expect(await client.setAgentCaps(owner, caps)).toMatchObject({ success: true, status: 'submitted' });
    expect(await client.agentCaps(owner.address)).toMatchObject({ mode: 2, caps_set: true, max_leverage: '200000', allowed_order_types: 3, max_input_per_trade: '1000000000', max_total_position: String(size(10)) });
    expect((await raw('/agent/caps', { ...(await client.agentCapsBody(owner, caps)), max_input_per_trade: '1.5' })).status).toBe(400);
  });

  // Shows contract [C-res-agent-caps].
  it('caps set: each cap hit exactly at its boundary (at the cap accepted, one unit over refused 403)', async () => {
    const [owner, sk] = [owners.bounds, keys.bounds];
    expect((await client.agentCaps(owner.address)).mode_name).toBe('ACTIVE');
    const base = { maxLeverage: 50_000, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 15n, maxTotalPosition: 10n ** 30n };
    const caps = (c: Partial<typeof base>) => client.setAgentCaps(owner, { ...base, ...c });
    const place = (o: Partial<NativeOrder>) => client.placeNative(sk, restingBuy(owner.address, o));

    await caps({});
    expect(await place({ leverage: 5 })).toMatchObject({ success: true }); // 5x = 50000 bps
    await expectError(place({ leverage: 6 }), 403, 'CAP_LEVERAGE', 'leverage');
    await caps({ maxLeverage: 49_999 });
    await expectError(place({ leverage: 5 }), 403, 'CAP_LEVERAGE');

    await caps({ allowedOrderTypes: 0b10 });
    expect(await place({})).toMatchObject({ success: true });
    await expectError(place({ orderType: 'Market', price: 0n }), 403, 'CAP_ORDER_TYPE');
    await caps({ allowedOrderTypes: 0b01 });
    await expectError(place({}), 403, 'CAP_ORDER_TYPE');

    // 0.01 ETH at 1000 USDC, leverage 2: 10 USDC notional, 5 USDC margin.
    await caps({ maxInputPerTrade: usd(5) });
    expect(await place({ leverage: 2 })).toMatchObject({ success: true });
    await caps({ maxInputPerTrade: usd(5) - 1n });
    const before = await client.balance(owner.address);
    await expectError(place({ leverage: 2 }), 403, 'CAP_INPUT');
    expect(await client.balance(owner.address)).toEqual(before);

    await caps({ maxTotalPosition: size(0.02) });
    expect(await place({ size: size(0.02) })).toMatchObject({ success: true });
    await caps({ maxTotalPosition: size(0.02) - 1n });
    await expectError(place({ size: size(0.02) }), 403, 'CAP_POSITION');
    // The owner's own orders answer to no cap.
    expect(await client.placeNative(owner, restingBuy(owner.address, { size: size(1), leverage: 10 }))).toMatchObject({ success: true });
  });

  it('REDUCE_ONLY lets a long be reduced and closed, refuses growth and a flip to short', async () => {
    const o = acct[8];
    const k = newKey();
    await client.createSession(o, { sessionKey: k.address, expiresAt: nowS() + 600 });
    await client.placeOrder(bob, { symbol: 'BTC', side: 'sell', type: 'limit', price: '60000', amount: '0.05' });
    await client.placeOrder(o, { symbol: 'BTC', side: 'buy', type: 'market', amount: '0.05' });
    await client.placeOrder(bob, { symbol: 'BTC', side: 'buy', type: 'limit', price: '59000', amount: '1' });
    await client.setAgentMode(o, 1);
    const sell = (s: number, orderType: 'Market' | 'Limit' = 'Market') => client.placeNative(k, { owner: o.address, pairId: 2, side: 'Sell', orderType, price: orderType === 'Limit' ? usd(70_000) : 0n, size: size(s) });
    await expectError(sell(0.06, 'Limit'), 403, 'AGENT_REDUCE_ONLY'); // flip to short
    await expectError(client.placeNative(k, { owner: o.address, pairId: 2, side: 'Buy', orderType: 'Limit', price: usd(50_000), size: size(0.01) }), 403, 'AGENT_REDUCE_ONLY');
    expect(await sell(0.02)).toMatchObject({ success: true, status: 'filled' });
    expect(await sell(0.03)).toMatchObject({ success: true, status: 'filled' });
    await expectError(sell(0.01), 403, 'AGENT_REDUCE_ONLY'); // nothing left
  });
});

describe('replay', () => {
  // Shows contract [D-nonces-space].
  it('replaying any signed operation after revoke and re-create fails (409 NONCE_USED)', async () => {
    const o = acct[9];
    const sk = newKey();
    const create = await client.sessionCreateBody(o, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    expect((await raw('/session/create', create)).status).toBe(200);
    const order = await client.placeNative(sk, restingBuy(o.address, { nonce: 777n }));
    expect(order.success).toBe(true);
    const caps = await client.agentCapsBody(o, { maxLeverage: 500_000, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 12n, maxTotalPosition: 10n ** 22n });
    expect((await raw('/agent/caps', caps)).status).toBe(200);
    const mode = await client.agentModeBody(o, 2);
    expect((await raw('/agent/mode', mode)).status).toBe(200);
    const revoke = await client.sessionRevokeBody(o);
    expect((await raw('/session/revoke', revoke)).status).toBe(200);
    await client.createSession(o, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    for (const [path, body] of [['/session/create', create], ['/agent/caps', caps], ['/agent/mode', mode], ['/session/revoke', revoke]] as const) {
      const r = await raw(path, body);
      expect([r.status, r.body.error?.code], path).toEqual([409, 'NONCE_USED']);
    }
    await expectError(client.placeNative(sk, restingBuy(o.address, { nonce: 777n })), 409, 'NONCE_USED');
    expect((await client.getSession(o.address)).session_key).toBe(lower(sk.address));
  });
});

describe('agent reads', () => {
  // Shows contract [C-account-agents].
  it('trades, book, account, agents, stats and leaderboard see the session key\'s orders as agent orders', async () => {
    const o = acct[10];
    const sk = newKey();
    await client.createSession(o, { sessionKey: sk.address, expiresAt: nowS() + 600 });
    await client.placeOrder(bob, { symbol: 'SOL', side: 'sell', type: 'limit', price: '150', amount: '2' });
    const m = await client.placeNative(sk, { owner: o.address, pairId: 4, side: 'Buy', orderType: 'Market', price: 0n, size: size(1) });
    expect(m.status).toBe('filled');
    const [trade] = await client.trades('SOL');
    expect(trade).toMatchObject({ buyer: lower(o.address), buyerIsAgent: true, seller: lower(bob.address) });
    expect((await client.account(o.address)).isAgent).toBe(true);
    expect((await client.account(bob.address)).isAgent).toBe(false);
    const agents = await client.agents();
    expect(agents.find((a) => a.address === lower(o.address))).toMatchObject({ mode: 'ACTIVE', capsSet: false, sessionActive: true, trades: 1, volume: '150' });
    // An account that only set a mode is registered too.
    const only = acct[11];
    await client.setAgentMode(only, 2);
    expect((await client.agents()).find((a) => a.address === lower(only.address))).toMatchObject({ trades: 0, firstSeen: null, mode: 'ACTIVE' });
    expect(await client.agent(only.address)).toMatchObject({ isAgent: true, trades: 0 });
    expect((await client.account(only.address)).isAgent).toBe(true);
    expect(await client.agent(o.address)).toMatchObject({ isAgent: true, trades: 1, sessionActive: true });
    expect((await client.agent(acct[19].address)).isAgent).toBe(false);
    const stats = await client.stats();
    expect(stats.agentTrades).toBeGreaterThanOrEqual(1);
    expect((await client.leaderboard('agents')).map((r: any) => r.address)).toContain(lower(o.address));
    expect((await client.leaderboard('agents')).map((r: any) => r.address)).not.toContain(lower(bob.address));
    const orders = await client.orders(o.address);
    expect(orders[0]).toMatchObject({ orderId: m.order_id, isAgent: true });
  });
});

describe('the session-and-agent port', () => {
  // Shows contract [C-session-api], [C-agent-api].
  it('serves /session/* and /agent/* on its own listener (loopback), not the other routes', async () => {
    const address = sessionApiAddress(node.config)!;
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(address).not.toBe(node.apiAddress);
    const o = acct[12];
    const sk = newKey();
    expect(await port9001.createSession(o, { sessionKey: sk.address, expiresAt: nowS() + 600 })).toMatchObject({ success: true, status: 'submitted' });
    expect(await port9001.sessionValid(o.address, sk.address)).toEqual({ valid: true });
    expect((await port9001.getSession(o.address)).session_key).toBe(lower(sk.address));
    expect(await port9001.setAgentCaps(o, { maxLeverage: 10_000, allowedOrderTypes: 2, maxInputPerTrade: 1n, maxTotalPosition: 1n })).toMatchObject({ success: true });
    expect(await port9001.setAgentMode(o, 1)).toMatchObject({ success: true });
    expect(await port9001.agentCaps(o.address)).toMatchObject({ mode: 1, caps_set: true });
    await expectError(port9001.setAgentMode(o, 7), 400, 'INVALID_MODE');
    const missing = await port9001.call<any>('POST', '/session/create', { owner: o.address, session_key: sk.address, expires_at: nowS() + 60, nonce: 1 });
    expect(missing.status).toBe(401);
    expect(await port9001.revokeSession(o)).toMatchObject({ success: true });
    const cors = await fetch(`${address}/session/valid?owner=${o.address}&session_key=${sk.address}`, { headers: { origin: 'https://example.org' } });
    expect(cors.headers.get('access-control-allow-origin')).toBe('*');
    expect((await port9001.call<any>('GET', '/v1/stats')).status).toBe(404);
    expect((await port9001.call<any>('POST', '/order/place', {})).status).toBe(404);
  });
});
