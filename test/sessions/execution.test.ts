/**
 * Sessions and agents in execution, driven block by block with chosen block times:
 * the 30-day window and expiry by block time (exact boundaries), the one signer rule
 * (a session key can only trade) for every kind, the agent mode and each cap at its
 * boundary, agent flags on events, and that the stored records are the machines'.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TxKind } from '../../src/codec/tx';
import { agentCapsOf, newMargin } from '../../src/state/accounts/agents';
import { OPS } from '../../src/state/ops';
import { SIGNER_RULES, sessionSnapshot } from '../../src/state/accounts/sessions';
import { agentSnapshot } from '../../src/state/accounts/agents';
import { accounts, genesis, Harness, ok, refused, seededKey, txs, type Key, type PlaceParams } from './harness';

const E18 = 10n ** 18n;
const DAY_S = 86_400n;
const MAX_S = BigInt(genesis.limits.maxSessionDurationMs / 1000);
const ETH = 1;
const usd = (n: number) => BigInt(Math.round(n * 1e6));
const size = (n: number) => BigInt(Math.round(n * 1000)) * 10n ** 15n; // in lots of 0.001

let h: Harness;
let nonce = 1n;
const n = () => nonce++;
beforeEach(async () => {
  h = await Harness.open();
});
afterEach(async () => {
  await h.close();
});

/** Block time in whole seconds (blocks below are placed on whole seconds). */
const T0 = genesis.genesisTimeMs + 1_000_000;
const sec = (ms: number) => BigInt(ms / 1000);

async function openSession(owner: Key, sk: Key, atMs: number, lifetimeS = 3_600n): Promise<void> {
  ok(await h.one(txs.sessionCreate(owner.address, owner, { sessionKey: sk.address, expiresAt: sec(atMs) + lifetimeS, nonce: n() }), atMs));
}

const restingBuy = (price = usd(1000), sz = size(0.01), leverage = 1): PlaceParams => ({ pairId: ETH, side: 0, orderType: 1, price, size: sz, leverage, nonce: n() });

describe('the signer rule', () => {
  it('every transaction kind has a rule and every execution rule is wrapped by it', () => {
    const kinds = Object.values(TxKind).filter((k): k is TxKind => typeof k === 'number');
    expect(Object.keys(SIGNER_RULES).map(Number).sort((a, b) => a - b)).toEqual([...kinds].sort((a, b) => a - b));
    expect([...OPS.keys()].sort((a, b) => a - b)).toEqual([...kinds].sort((a, b) => a - b));
    for (const kind of [TxKind.SessionCreate, TxKind.SessionRevoke, TxKind.SetAgentCaps, TxKind.SetAgentMode, TxKind.RestOrder, TxKind.RestBatch, TxKind.RestCancel, TxKind.RestCancelAll]) {
      expect(SIGNER_RULES[kind].who, TxKind[kind]).toBe('owner');
    }
    expect(SIGNER_RULES[TxKind.NativePlace].who).toBe('trader');
    expect(SIGNER_RULES[TxKind.NativeCancel].who).toBe('trader');
  });

  it('a session key signing any session or agent operation is refused in execution (403), changing nothing', async () => {
    const [alice] = accounts;
    const sk = seededKey(1);
    await openSession(alice, sk, T0);
    const before = h.state.sessions.get(alice.address);
    const rs = await h.block(
      [
        txs.sessionCreate(alice.address, sk, { sessionKey: seededKey(2).address, expiresAt: sec(T0) + 100n, nonce: n() }),
        txs.sessionRevoke(alice.address, sk, n()),
        txs.caps(alice.address, sk, { maxLeverage: 10n ** 6n, allowedOrderTypes: 3, maxInputPerTrade: 1n, maxTotalPosition: 1n, nonce: n() }),
        txs.mode(alice.address, sk, 0, n()),
      ],
      T0 + 1_000,
    );
    for (const r of rs) refused(r, 403, 'OWNER_ONLY');
    expect(h.state.sessions.get(alice.address)).toEqual(before);
    expect(h.state.agents.has(alice.address)).toBe(false);
    // Nor may any other key act for the owner.
    refused(await h.one(txs.mode(alice.address, accounts[1], 0, n())), 403, 'OWNER_ONLY');
  });

  it('a key that is someone\'s session key still acts for its own account (authority is per owner, signer pair)', async () => {
    const [alice, bob] = accounts;
    await openSession(alice, bob, T0); // bob's address as alice's session key
    ok(await h.one(txs.mode(bob.address, bob, 1, n())));
    expect(agentCapsOf(h.state, bob.address).mode).toBe(1);
  });
});

describe('sessions in execution', () => {
  it('expires_at must be after the block time and at most 30 days ahead: both bounds exact (422)', async () => {
    const [alice] = accounts;
    const sk = seededKey(3);
    const create = (expiresAt: bigint) => txs.sessionCreate(alice.address, alice, { sessionKey: sk.address, expiresAt, nonce: n() });
    refused(await h.one(create(sec(T0)), T0), 422, 'INVALID_EXPIRY');
    refused(await h.one(create(sec(T0 + 1_000) + MAX_S + 1n), T0 + 1_000), 422, 'INVALID_EXPIRY');
    expect(h.state.sessions.has(alice.address)).toBe(false);
    ok(await h.one(create(sec(T0 + 2_000) + MAX_S), T0 + 2_000));
    expect(MAX_S).toBe(30n * DAY_S);
    ok(await h.one(create(sec(T0 + 3_000) + 1n), T0 + 3_000));
    const rec = h.state.sessions.get(alice.address)!;
    expect(rec).toEqual({ state: 'active', sessionKey: sk.address, expiresAtMs: T0 + 4_000, createdAtMs: T0 + 3_000, nonce: rec.nonce });
    expect(sessionSnapshot(rec).value).toBe('active');
  });

  it('a session key trades until the block time reaches expires_at, then 403 SESSION_EXPIRED', async () => {
    const [alice] = accounts;
    const sk = seededKey(4);
    await openSession(alice, sk, T0, 10n);
    const expiry = T0 + 10_000;
    const r1 = await h.one(txs.place(alice.address, sk, restingBuy()), expiry - 1);
    ok(r1);
    expect(r1.events.find((e) => e.type === 'OrderPlaced')).toMatchObject({ owner: alice.address, signer: sk.address, isAgent: true });
    refused(await h.one(txs.place(alice.address, sk, restingBuy()), expiry), 403, 'SESSION_EXPIRED');
    // Cancels are trading too: refused once expired.
    refused(await h.one(txs.cancel(alice.address, sk, 1n, n())), 403, 'SESSION_EXPIRED');
  });

  it('one session per owner: a new create replaces the key; the old key is NOT_AUTHORIZED', async () => {
    const [alice] = accounts;
    const [k1, k2] = [seededKey(5), seededKey(6)];
    await openSession(alice, k1, T0);
    await openSession(alice, k2, T0 + 1_000);
    refused(await h.one(txs.place(alice.address, k1, restingBuy())), 403, 'NOT_AUTHORIZED');
    ok(await h.one(txs.place(alice.address, k2, restingBuy())));
  });

  it('revoke: the key is refused (SESSION_REVOKED); revoking nothing is 404; re-create works, old nonces stay spent', async () => {
    const [alice] = accounts;
    const sk = seededKey(7);
    await openSession(alice, sk, T0);
    const order = txs.place(alice.address, sk, restingBuy());
    ok(await h.one(order));
    const revoke = txs.sessionRevoke(alice.address, alice, n());
    ok(await h.one(revoke));
    expect(sessionSnapshot(h.state.sessions.get(alice.address)).value).toBe('revoked');
    refused(await h.one(txs.place(alice.address, sk, restingBuy())), 403, 'SESSION_REVOKED');
    refused(await h.one(txs.sessionRevoke(alice.address, alice, n())), 404, 'NO_ACTIVE_SESSION');
    await openSession(alice, sk, h.timeMs + 1_000 - ((h.timeMs + 1_000) % 1000));
    refused(await h.one(order), 409, 'NONCE_USED');
    refused(await h.one(revoke), 409, 'NONCE_USED');
    ok(await h.one(txs.place(alice.address, sk, restingBuy())));
  });

  it('records survive a restart and are the machine\'s snapshots', async () => {
    const [alice] = accounts;
    await openSession(alice, seededKey(8), T0);
    ok(await h.one(txs.mode(alice.address, alice, 1, n())));
    ok(await h.one(txs.caps(alice.address, alice, { maxLeverage: 20_000n, allowedOrderTypes: 2, maxInputPerTrade: 5n, maxTotalPosition: 6n, nonce: n() })));
    const root = h.rootHex();
    const session = h.state.sessions.get(alice.address);
    const agent = h.state.agents.get(alice.address);
    await h.reopen();
    expect(h.rootHex()).toBe(root);
    expect(h.state.sessions.get(alice.address)).toEqual(session);
    expect(h.state.agents.get(alice.address)).toEqual(agent);
    expect(agentSnapshot(agent!).value).toEqual({ mode: 'reduceOnly', caps: 'set' });
  });
});

describe('agents in execution', () => {
  /** bob quotes the book; alice (owner) holds a session key `sk`. */
  async function setup(): Promise<{ alice: Key; bob: Key; sk: Key }> {
    const [alice, bob] = accounts;
    const sk = seededKey(20);
    await openSession(alice, sk, T0);
    return { alice, bob, sk };
  }

  it('defaults: mode ACTIVE, no caps; the session key trades freely, flagged as agent on every event', async () => {
    const { alice, bob, sk } = await setup();
    expect(agentCapsOf(h.state, alice.address)).toEqual({ mode: 2, capsSet: false, maxLeverageBps: 0n, allowedOrderTypes: 0, maxInput: 0n, maxTotal: 0n });
    ok(await h.one(txs.place(bob.address, bob, { pairId: ETH, side: 1, orderType: 1, price: usd(3000), size: size(1), nonce: n() })));
    const r = await h.one(txs.place(alice.address, sk, { pairId: ETH, side: 0, orderType: 0, price: 0n, size: size(0.5), leverage: 50, nonce: n() }));
    ok(r);
    expect(r.events.find((e) => e.type === 'TradeExecuted')).toMatchObject({ buyer: alice.address, buyerIsAgent: true, sellerIsAgent: false });
    // A resting agent order carries the flag in the book and in state.
    const rest = await h.one(txs.place(alice.address, sk, { pairId: ETH, side: 1, orderType: 1, price: usd(3100), size: size(0.1), nonce: n() }));
    const id = rest.events.find((e) => e.type === 'OrderPlaced')!.orderId as string;
    expect(h.state.orders.get(id)!.isAgent).toBe(true);
    expect(h.state.book(ETH).topOrders(5).asks.find((o) => String(o.id) === id)?.isAgent).toBe(true);
    const fill = await h.one(txs.place(bob.address, bob, { pairId: ETH, side: 0, orderType: 0, price: 0n, size: size(0.1), nonce: n() }));
    expect(fill.events.find((e) => e.type === 'TradeExecuted')).toMatchObject({ seller: alice.address, sellerIsAgent: true, buyerIsAgent: false });
  });

  it('mode OFF stops the session key (with no caps set); the owner still trades; the key may still cancel', async () => {
    const { alice, sk } = await setup();
    const resting = await h.one(txs.place(alice.address, sk, restingBuy()));
    ok(resting);
    ok(await h.one(txs.mode(alice.address, alice, 0, n())));
    const before = h.state.account(alice.address);
    refused(await h.one(txs.place(alice.address, sk, restingBuy())), 403, 'AGENT_MODE_OFF');
    expect(h.state.account(alice.address)).toEqual(before);
    ok(await h.one(txs.place(alice.address, alice, restingBuy())));
    const id = BigInt(resting.events.find((e) => e.type === 'OrderPlaced')!.orderId as string);
    ok(await h.one(txs.cancel(alice.address, sk, id, n())));
    ok(await h.one(txs.mode(alice.address, alice, 2, n())));
    ok(await h.one(txs.place(alice.address, sk, restingBuy())));
  });

  it('each cap at its boundary: at the cap accepted, one unit over refused (403), refused orders change nothing', async () => {
    const { alice, sk } = await setup();
    const caps = { maxLeverage: 50_000n, allowedOrderTypes: 0b11, maxInputPerTrade: 10n ** 18n, maxTotalPosition: 10n ** 30n };
    const setCaps = async (c: Partial<typeof caps>) => ok(await h.one(txs.caps(alice.address, alice, { ...caps, ...c, nonce: n() })));
    const place = (p: PlaceParams) => h.one(txs.place(alice.address, sk, p));

    await setCaps({});
    ok(await place(restingBuy(usd(1000), size(0.01), 5))); // 5x = 50000 bps
    refused(await place(restingBuy(usd(1000), size(0.01), 6)), 403, 'CAP_LEVERAGE');
    await setCaps({ maxLeverage: 49_999n });
    refused(await place(restingBuy(usd(1000), size(0.01), 5)), 403, 'CAP_LEVERAGE');

    await setCaps({ allowedOrderTypes: 0b10 }); // Limit only
    ok(await place(restingBuy()));
    refused(await place({ ...restingBuy(), orderType: 0, price: 0n }), 403, 'CAP_ORDER_TYPE');
    await setCaps({ allowedOrderTypes: 0b01 }); // Market only
    refused(await place(restingBuy()), 403, 'CAP_ORDER_TYPE');

    // 0.01 at 1000 USDC, leverage 2: notional 10 USDC, margin 5 USDC.
    await setCaps({ maxInputPerTrade: usd(5) });
    ok(await place(restingBuy(usd(1000), size(0.01), 2)));
    await setCaps({ maxInputPerTrade: usd(5) - 1n });
    const acct = h.state.account(alice.address);
    const root = h.rootHex();
    const r = await place(restingBuy(usd(1000), size(0.01), 2));
    refused(r, 403, 'CAP_INPUT');
    expect(h.state.account(alice.address)).toEqual(acct);
    expect(h.state.nonces.get(sk.address)).toContain(nonce - 1n); // the nonce is spent, nothing else changed
    expect(h.rootHex()).not.toBe(root);

    await setCaps({ maxTotalPosition: size(0.02) });
    ok(await place(restingBuy(usd(1000), size(0.02))));
    await setCaps({ maxTotalPosition: size(0.02) - 1n });
    refused(await place(restingBuy(usd(1000), size(0.02))), 403, 'CAP_POSITION');
    expect(agentCapsOf(h.state, alice.address)).toMatchObject({ mode: 2, capsSet: true, maxTotal: size(0.02) - 1n });
  });

  it('a market order\'s margin is its simulated fills\' notional ÷ leverage, at the boundary', async () => {
    const { alice, bob, sk } = await setup();
    ok(await h.one(txs.place(bob.address, bob, { pairId: ETH, side: 1, orderType: 1, price: usd(2000), size: size(0.01), nonce: n() })));
    ok(await h.one(txs.place(bob.address, bob, { pairId: ETH, side: 1, orderType: 1, price: usd(2001), size: size(0.01), nonce: n() })));
    // 0.01 × 2000 + 0.01 × 2001 = 40.01 USDC at leverage 1.
    const caps = { maxLeverage: 500_000n, allowedOrderTypes: 3, maxTotalPosition: 10n ** 30n };
    ok(await h.one(txs.caps(alice.address, alice, { ...caps, maxInputPerTrade: usd(40.01) - 1n, nonce: n() })));
    const market = () => txs.place(alice.address, sk, { pairId: ETH, side: 0, orderType: 0, price: 0n, size: size(0.02), nonce: n() });
    refused(await h.one(market()), 403, 'CAP_INPUT');
    ok(await h.one(txs.caps(alice.address, alice, { ...caps, maxInputPerTrade: usd(40.01), nonce: n() })));
    const r = await h.one(market());
    ok(r);
    expect(h.state.position(alice.address, ETH).size).toBe(size(0.02));
    // Reducing needs no new margin: a sell of the long passes even with max_input 0.
    ok(await h.one(txs.caps(alice.address, alice, { ...caps, maxInputPerTrade: 0n, nonce: n() })));
    ok(await h.one(txs.place(alice.address, sk, { pairId: ETH, side: 1, orderType: 1, price: usd(5000), size: size(0.02), nonce: n() })));
    refused(await h.one(txs.place(alice.address, sk, { pairId: ETH, side: 1, orderType: 1, price: usd(5000), size: size(0.021), nonce: n() })), 403, 'CAP_INPUT');
  });

  it('REDUCE_ONLY: reduces a long, closes it, refuses growth and a flip to short', async () => {
    const { alice, bob, sk } = await setup();
    ok(await h.one(txs.place(bob.address, bob, { pairId: ETH, side: 1, orderType: 1, price: usd(3000), size: size(0.05), nonce: n() })));
    ok(await h.one(txs.place(alice.address, alice, { pairId: ETH, side: 0, orderType: 0, price: 0n, size: size(0.05), nonce: n() })));
    ok(await h.one(txs.mode(alice.address, alice, 1, n())));
    ok(await h.one(txs.place(bob.address, bob, { pairId: ETH, side: 0, orderType: 1, price: usd(2990), size: size(1), nonce: n() })));
    const sell = (s: number) => h.one(txs.place(alice.address, sk, { pairId: ETH, side: 1, orderType: 0, price: 0n, size: size(s), nonce: n() }));
    refused(await sell(0.051), 403, 'AGENT_REDUCE_ONLY'); // would flip to short
    refused(await h.one(txs.place(alice.address, sk, restingBuy())), 403, 'AGENT_REDUCE_ONLY'); // grows the long
    ok(await sell(0.02));
    expect(h.state.position(alice.address, ETH).size).toBe(size(0.03));
    ok(await sell(0.03));
    expect(h.state.position(alice.address, ETH).size).toBe(0n);
    refused(await sell(0.01), 403, 'AGENT_REDUCE_ONLY'); // nothing left to reduce
  });
});

describe('newMargin', () => {
  it('counts only the opening part of an order, at the limit price or at the fills', () => {
    const limit = { side: 1 as const, orderType: 1 as const, price: usd(100), size: size(3), leverage: 2 };
    expect(newMargin(limit, size(1), [])).toBe(usd(100)); // closes 1, opens 2 short: 200 / 2
    expect(newMargin(limit, size(5), [])).toBe(0n);
    expect(newMargin(limit, -size(1), [])).toBe(usd(150));
    const market = { side: 0 as const, orderType: 0 as const, price: 0n, size: size(3), leverage: 1 };
    const fills = [{ price: usd(10), size: size(2) }, { price: usd(11), size: size(1) }];
    expect(newMargin(market, -size(1), fills)).toBe(usd(10 + 11)); // the first unit closes the short
    expect(newMargin(market, 0n, fills)).toBe(usd(31));
    expect(newMargin({ ...market, leverage: 3 }, 0n, [{ price: 1n, size: E18 }])).toBe(1n); // rounds up
  });
});
