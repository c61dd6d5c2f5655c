/**
 * Issue 24's order features through the real execution path (placeOrder, modifyOrder,
 * cancelOrder / cancelByCloid under a journal checkpoint, as applyBlock runs them):
 * client order ids, IOC, ALO, reduce-only (a property test: no fill of a reduce-only
 * order ever increases its owner's |position|), modify's time priority and the
 * not-open answer of a cancel (decisions 87–89).
 */
import fc from 'fast-check';
import { encodePacked, hashTypedData, keccak256 } from 'viem';
import { optionsText } from '../../src/signing/action-options';
import { eip712Domain } from '../../src/signing/eip712';
import { hashOrderMessage, orderTypedDataTypes } from '../../src/signing/eip712-orders';
import { cancelCloidDigest, modifyDigest, placeOrderDigest } from '../../src/signing/exchange-digest';
import { bytesToHex } from '../../src/util/bytes';
import { describe, expect, it } from 'vitest';
import { ZERO_HASH, type BlockHeader } from '../../src/codec/block';
import type { ChainEvent, ExecContext } from '../../src/state/context';
import { TxError } from '../../src/state/errors';
import { genesisState } from '../../src/state/genesis';
import { cancelByCloid, cancelOrder, placeOrder, type OrderInput } from '../../src/state/orders/execution';
import { modifyOrder } from '../../src/state/orders/modify';
import { orderCodec } from '../../src/state/records';
import type { State } from '../../src/state/state';
import type { Hex } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis(1);
const traders = DEVNET_KEYS.accounts.slice(0, 4).map((a) => a.address);
const [a, b, c] = traders;
const ETH = genesis.pairs.find((p) => p.symbol === 'ETH')!;
const E = 10n ** 18n;
const P = (usd: number) => BigInt(usd) * 1_000_000n;
const CLOID = '0x000102030405060708090a0b0c0d0e0f' as Hex;

function fresh(): State {
  return genesisState(genesis, hash).state;
}

function ctxFor(state: State, events: ChainEvent[]): ExecContext {
  const header = { chainId: genesis.chainId, height: 1, timestampMs: genesis.genesisTimeMs + 1, round: 0, parentHash: ZERO_HASH, parentStateRoot: ZERO_HASH, validatorsHash: ZERO_HASH, proposer: traders[0], txRoot: ZERO_HASH, txCount: 0, lastCommitHash: ZERO_HASH } as BlockHeader;
  return { state, params: state.params(), header, emit: (e) => events.push(e) };
}

/** Runs an operation the way applyTx does: checkpoint, rollback on TxError. */
function run(state: State, fn: (ctx: ExecContext) => void): { ok: boolean; events: ChainEvent[]; code?: string; status?: number } {
  const events: ChainEvent[] = [];
  const cp = state.journal.checkpoint();
  try {
    fn(ctxFor(state, events));
    return { ok: true, events };
  } catch (err) {
    if (!(err instanceof TxError)) throw err;
    state.journal.rollback(cp);
    return { ok: false, events: [], code: err.code, status: err.status };
  }
}

const limit = (owner: `0x${string}`, side: 0 | 1, price: bigint, size: bigint, extra: Partial<OrderInput> = {}): OrderInput => ({
  owner, signer: owner, pairId: ETH.id, side, orderType: 1, price, size, leverage: 1, isAgent: false, ...extra,
});
const place = (state: State, o: OrderInput) => run(state, (ctx) => void placeOrder(ctx, o));
const placedId = (r: { events: ChainEvent[] }) => BigInt(r.events.find((e) => e.type === 'OrderPlaced')!.orderId as string);

describe('the signed text of options', () => {
  const opts = { cloid: CLOID, tif: 'Alo' as const, expiresAfter: 1795673513000n };
  const text = optionsText(opts);
  it('REST digests append it as a string after the nonce; without options they are unchanged', () => {
    expect(text).toBe('cloid=0x000102030405060708090a0b0c0d0e0f;tif=Alo;expiresAfter=1795673513000');
    const packed = (options: string) =>
      keccak256(encodePacked(['string', 'string', 'string', 'string', 'string', 'uint256', 'string'], ['ETH', 'buy', 'limit', '2000', '0.5', 1795673453000n, options]));
    expect(bytesToHex(placeOrderDigest({ symbol: 'ETH', side: 'buy', type: 'limit', price: '2000', amount: '0.5', nonce: 1795673453000n, options: text }))).toBe(packed(text));
    expect(bytesToHex(placeOrderDigest({ symbol: 'ETH', side: 'buy', type: 'limit', price: '2000', amount: '0.5', nonce: 1795673453000n }))).toBe(packed(''));
    expect(bytesToHex(cancelCloidDigest(CLOID, 7n))).toBe(keccak256(encodePacked(['string', 'string', 'uint256'], ['cancel-cloid', CLOID, 7n])));
    expect(bytesToHex(modifyDigest([{ orderId: '42', price: '2001', amount: '1' }], 8n, 'expiresAfter=5'))).toBe(
      keccak256(encodePacked(['string', 'string', 'string', 'string', 'uint256', 'string'], ['modify', '42', '2001', '1', 8n, 'expiresAfter=5'])),
    );
  });

  it('EIP-712 types gain a trailing string options member only when there are options (as viem hashes them)', () => {
    const domain = eip712Domain(genesis.chainId) as any;
    const owner = traders[0];
    const place = { owner, pairId: 1n, side: 0n, orderType: 1n, price: 2_000_000_000n, size: E, leverage: 1n, nonce: 9n };
    for (const t of ['', text]) {
      expect(bytesToHex(hashOrderMessage(genesis.chainId, 'PlaceOrder', place, t))).toBe(
        hashTypedData({ domain, types: orderTypedDataTypes('PlaceOrder', t) as any, primaryType: 'PlaceOrder', message: (t ? { ...place, options: t } : place) as any }),
      );
    }
    const cancel = { owner, cloid: CLOID, nonce: 3n };
    expect(bytesToHex(hashOrderMessage(genesis.chainId, 'CancelByCloid', cancel, ''))).toBe(hashTypedData({ domain, types: orderTypedDataTypes('CancelByCloid', '') as any, primaryType: 'CancelByCloid', message: cancel }));
    const modify = { owner, orderId: 4n, price: 1n, size: 2n, nonce: 5n };
    expect(bytesToHex(hashOrderMessage(genesis.chainId, 'ModifyOrder', modify, 'expiresAfter=5'))).toBe(
      hashTypedData({ domain, types: orderTypedDataTypes('ModifyOrder', 'expiresAfter=5') as any, primaryType: 'ModifyOrder', message: { ...modify, options: 'expiresAfter=5' } }),
    );
  });
});

describe('client order ids', () => {
  it('are shown on every event, unique among open orders (409), cancellable, and free again once the order ends', () => {
    const state = fresh();
    const r = place(state, limit(a, 1, P(2000), E, { cloid: CLOID }));
    expect(r.events[0]).toMatchObject({ type: 'OrderPlaced', cloid: CLOID });
    expect(r.events.at(-1)).toMatchObject({ type: 'OrderUpdated', status: 'open', cloid: CLOID });
    expect(state.orders.get(String(placedId(r)))!.cloid).toBe(CLOID);
    const dup = place(state, limit(a, 1, P(2100), E, { cloid: CLOID }));
    expect(dup).toMatchObject({ ok: false, status: 409, code: 'DUPLICATE_CLOID' });
    // another trader may use the same cloid
    expect(place(state, limit(b, 1, P(2100), E, { cloid: CLOID })).ok).toBe(true);
    const taker = place(state, limit(c, 0, P(2000), E, { cloid: '0xffffffffffffffffffffffffffffffff' as Hex }));
    expect(taker.events.find((e) => e.type === 'TradeExecuted')).toMatchObject({ makerCloid: CLOID, takerCloid: '0xffffffffffffffffffffffffffffffff' });
    // filled: the cloid is free again, and cancel by it answers 404
    expect(run(state, (ctx) => void cancelByCloid(ctx, a, CLOID))).toMatchObject({ ok: false, status: 404, code: 'UNKNOWN_ORDER' });
    const again = place(state, limit(a, 1, P(2200), E, { cloid: CLOID }));
    expect(again.ok).toBe(true);
    const cancelled = run(state, (ctx) => void cancelByCloid(ctx, a, CLOID));
    expect(cancelled.events.at(-1)).toMatchObject({ type: 'OrderUpdated', status: 'cancelled', reason: 'user', cloid: CLOID, orderId: String(placedId(again)) });
    expect(state.orderCloids.size).toBe(1); // b's
    state.checkInvariants();
  });

  it('a cancel of a filled or cancelled order answers 422 ORDER_NOT_OPEN; of an id never drawn 404 UNKNOWN_ORDER', () => {
    const state = fresh();
    const id = placedId(place(state, limit(a, 1, P(2000), E)));
    expect(run(state, (ctx) => void cancelOrder(ctx, a, id)).ok).toBe(true);
    expect(run(state, (ctx) => void cancelOrder(ctx, a, id))).toMatchObject({ ok: false, status: 422, code: 'ORDER_NOT_OPEN' });
    expect(run(state, (ctx) => void cancelOrder(ctx, a, 999n))).toMatchObject({ ok: false, status: 404, code: 'UNKNOWN_ORDER' });
  });
});

describe('time in force', () => {
  it('IOC takes what it can and cancels the rest (reason ioc), never resting', () => {
    const state = fresh();
    place(state, limit(a, 1, P(2000), E));
    const r = place(state, limit(b, 0, P(2000), 3n * E, { tif: 'Ioc' }));
    expect(r.events.find((e) => e.type === 'OrderPlaced')).toMatchObject({ tif: 'Ioc' });
    expect(r.events.at(-1)).toMatchObject({ type: 'OrderUpdated', status: 'cancelled', reason: 'ioc', filled: E, remaining: 2n * E });
    expect(state.openOrderIds(b)).toEqual([]);
    expect(state.account(b).usdcLocked).toBe(0n);
    state.checkInvariants();
  });

  it('ALO rests when it would not take and is refused 422 WOULD_TAKE when it would', () => {
    const state = fresh();
    place(state, limit(a, 1, P(2000), E));
    expect(place(state, limit(b, 0, P(2000), E, { tif: 'Alo' }))).toMatchObject({ ok: false, status: 422, code: 'WOULD_TAKE' });
    const r = place(state, limit(b, 0, P(1999), E, { tif: 'Alo' }));
    expect(r.ok).toBe(true);
    expect(state.orders.get(String(placedId(r)))!.tif).toBe('Alo');
    expect(run(state, (ctx) => void placeOrder(ctx, { ...limit(b, 0, 0n, E), orderType: 0, tif: 'Alo' }))).toMatchObject({ ok: false, status: 400, code: 'INVALID_OPTIONS' });
  });
});

describe('reduce-only', () => {
  it('is refused with nothing to reduce, shrunk to the position at placement, and shrunk or cancelled as the position shrinks', () => {
    const state = fresh();
    expect(place(state, limit(a, 1, P(2100), E, { reduceOnly: true }))).toMatchObject({ ok: false, status: 422, code: 'WOULD_INCREASE_POSITION' });
    // a buys 2 ETH from b
    place(state, limit(b, 1, P(2000), 2n * E));
    place(state, limit(a, 0, P(2000), 2n * E));
    expect(state.position(a, ETH.id).size).toBe(2n * E);
    expect(place(state, limit(a, 0, P(1900), E, { reduceOnly: true }))).toMatchObject({ ok: false, code: 'WOULD_INCREASE_POSITION' });
    const r1 = place(state, limit(a, 1, P(2100), E, { reduceOnly: true }));
    const r2 = place(state, limit(a, 1, P(2200), 5n * E, { reduceOnly: true }));
    expect(r2.events[0]).toMatchObject({ type: 'OrderPlaced', size: E, reduceOnly: true }); // shrunk to what r1 left
    // a sells 1.5 ETH to c outside its reduce-only orders: the position is 0.5, so r1 shrinks to 0.5 and r2 goes
    place(state, limit(c, 0, P(1950), (3n * E) / 2n));
    const r3 = place(state, limit(a, 1, P(1950), (3n * E) / 2n));
    expect(state.position(a, ETH.id).size).toBe(E / 2n);
    expect(state.orders.get(String(placedId(r1)))!.remaining).toBe(E / 2n);
    expect(state.orders.has(String(placedId(r2)))).toBe(false);
    expect(r3.events.filter((e) => e.type === 'OrderUpdated' && e.reason === 'reduce-only').map((e) => (e as { orderId: string }).orderId)).toEqual([String(placedId(r2))]);
    expect(r3.events.find((e) => e.type === 'OrderModified')).toMatchObject({ orderId: String(placedId(r1)), remaining: E / 2n, reason: 'reduce-only' });
    state.checkInvariants();
  });

  it('property: no fill of a reduce-only order increases its owner\u2019s |position|, and its resting ones never exceed it', () => {
    const abs = (v: bigint) => (v < 0n ? -v : v);
    const op = fc.record({
      trader: fc.nat(2),
      side: fc.constantFrom(0 as const, 1 as const),
      ticks: fc.integer({ min: -2, max: 2 }),
      lots: fc.integer({ min: 1, max: 30 }),
      // now and then a large taker that walks several orders of one maker
      sweep: fc.boolean(),
      reduceOnly: fc.boolean(),
      tif: fc.constantFrom('Gtc' as const, 'Ioc' as const),
      modify: fc.boolean(),
    });
    let fills = 0;
    let reduceOnlyFills = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 100 }), (ops) => {
        const state = fresh();
        const reduceOnlyIds = new Set<string>();
        for (const o of ops) {
          const owner = traders[o.trader];
          const price = P(2000) + BigInt(o.ticks) * ETH.tickSize * 1000n; // a grid of 10 USD steps
          const size = ETH.lotSize * BigInt(o.sweep && !o.reduceOnly ? o.lots * 4 : o.lots) * 100n; // 0.1 ETH a unit
          const before = new Map(traders.map((t) => [t, state.position(t, ETH.id).size]));
          const open = state.openOrderIds(owner);
          const r =
            o.modify && open.length > 0
              ? run(state, (ctx) => void modifyOrder(ctx, { owner, signer: owner, orderId: open[o.lots % open.length], price, size }))
              : place(state, limit(owner, o.side, price, size, { reduceOnly: o.reduceOnly, tif: o.tif }));
          // replay the fills: a fill of a reduce-only order moves its owner's position towards zero, never past it
          const pos = new Map(before);
          for (const e of r.events) {
            if (e.type === 'OrderPlaced' && e.reduceOnly) reduceOnlyIds.add(e.orderId);
            if (e.type !== 'TradeExecuted') continue;
            fills++;
            const buyerOrder = e.takerSide === 0 ? e.takerOrderId : e.makerOrderId;
            const sellerOrder = e.takerSide === 0 ? e.makerOrderId : e.takerOrderId;
            for (const [who, id, delta] of [[e.buyer, buyerOrder, e.size], [e.seller, sellerOrder, -e.size]] as const) {
              const was = pos.get(who)!;
              pos.set(who, was + delta);
              if (reduceOnlyIds.has(id)) {
                reduceOnlyFills++;
                expect(abs(was + delta)).toBeLessThanOrEqual(abs(was));
              }
            }
          }
          for (const t of traders) {
            expect(pos.get(t)).toBe(state.position(t, ETH.id).size);
            const p = state.position(t, ETH.id).size;
            const resting = state.openOrderIds(t).map((id) => state.orders.get(String(id))!).filter((x) => x.reduceOnly);
            const sum = resting.reduce((s, x) => s + x.remaining, 0n);
            expect(sum).toBeLessThanOrEqual(abs(p));
            for (const x of resting) expect(x.side).toBe(p > 0n ? 1 : 0);
          }
          state.checkInvariants();
          const bid = state.book(ETH.id).bestBid();
          const ask = state.book(ETH.id).bestAsk();
          if (bid !== null && ask !== null) expect(bid).toBeLessThan(ask);
        }
      }),
      { numRuns: 100 },
    );
    // the streams trade, and reduce-only orders fill often enough for the property to mean something
    expect(fills).toBeGreaterThan(200);
    expect(reduceOnlyFills, `of ${fills} fills`).toBeGreaterThan(40);
  });

  it('a taker walking past its owner’s plain order into a reduce-only one finds the reduce-only one cut to what is left', () => {
    const state = fresh();
    place(state, limit(b, 1, P(2000), E));
    place(state, limit(a, 0, P(2000), E)); // a long 1
    place(state, limit(a, 1, P(2010), E)); // plain sell 1 (best)
    const ro = placedId(place(state, limit(a, 1, P(2020), E, { reduceOnly: true })));
    const r = place(state, limit(c, 0, P(2020), 2n * E)); // takes the plain sell (a flat), then would take the reduce-only one
    expect(state.position(a, ETH.id).size).toBe(0n);
    expect(r.events.find((e) => e.type === 'OrderUpdated' && e.orderId === String(ro))).toMatchObject({ status: 'cancelled', reason: 'reduce-only' });
    expect(r.events.filter((e) => e.type === 'TradeExecuted')).toHaveLength(1);
    state.checkInvariants();
  });
});

describe('modify', () => {
  it('keeps time priority when only the size shrinks, loses it when the price moves or the size grows, survives a restart, and never takes', () => {
    const state = fresh();
    const book = state.book(ETH.id);
    const id1 = placedId(place(state, limit(a, 1, P(2000), 2n * E, { cloid: CLOID })));
    const id2 = placedId(place(state, limit(b, 1, P(2000), 2n * E)));
    const order = () => book.orders().map((o) => o.id);
    expect(order()).toEqual([id1, id2]);
    // shrink: stays first, lock released in proportion
    const shrink = run(state, (ctx) => void modifyOrder(ctx, { owner: a, signer: a, orderId: id1, price: P(2000), size: E }));
    expect(shrink.events[0]).toMatchObject({ type: 'OrderModified', requeued: false, remaining: E, size: E, cloid: CLOID });
    expect(order()).toEqual([id1, id2]);
    expect(state.account(a).usdcLocked).toBe(2000_000_000n);
    // grow: goes behind b, lock recomputed
    const grow = run(state, (ctx) => void modifyOrder(ctx, { owner: a, signer: a, orderId: id1, price: P(2000), size: 3n * E }));
    expect(grow.events[0]).toMatchObject({ type: 'OrderModified', requeued: true, remaining: 3n * E });
    expect(order()).toEqual([id2, id1]);
    expect(state.account(a).usdcLocked).toBe(6000_000_000n);
    // restart: the book rebuilt from the stored records keeps the priority
    for (const [key, rec] of state.orders.entries()) expect(orderCodec.decode(orderCodec.encode(rec))).toEqual(state.orders.get(key));
    state.rebuildIndexes();
    expect(state.book(ETH.id).orders().map((o) => o.id)).toEqual([id2, id1]);
    // crossing: refused, nothing changes
    place(state, limit(c, 0, P(1990), E));
    expect(run(state, (ctx) => void modifyOrder(ctx, { owner: a, signer: a, orderId: id1, price: P(1990), size: E }))).toMatchObject({ ok: false, status: 422, code: 'WOULD_TAKE' });
    // another's order: 403; a filled or cancelled one: 422
    expect(run(state, (ctx) => void modifyOrder(ctx, { owner: b, signer: b, orderId: id1, price: P(2001), size: E }))).toMatchObject({ ok: false, status: 403 });
    run(state, (ctx) => void cancelOrder(ctx, a, id1));
    expect(run(state, (ctx) => void modifyOrder(ctx, { owner: a, signer: a, orderId: id1, price: P(2001), size: E }))).toMatchObject({ ok: false, status: 422, code: 'ORDER_NOT_OPEN' });
    state.checkInvariants();
  });
});
