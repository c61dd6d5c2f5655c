/** Hand-computed cases for the matching engine. */
import { describe, expect, it } from 'vitest';
import { BUY, OrderBook, SELL, type Side } from '../../src/state/orderbook/engine';
import type { Address } from '../../src/util/bytes';

const A = `0x${'a'.repeat(40)}` as Address;
const B = `0x${'b'.repeat(40)}` as Address;
const C = `0x${'c'.repeat(40)}` as Address;
const U = 10n ** 18n; // one unit of size
const P = 1_000_000n; // one USDC of price

function limit(book: OrderBook, id: number, owner: Address, side: Side, price: bigint, size: bigint, isAgent = false) {
  return book.placeLimit({ id: BigInt(id), owner, side, price, size, isAgent });
}

describe('OrderBook: matching', () => {
  it('partial fill of a maker at the maker price; the maker keeps the rest', () => {
    const book = new OrderBook(1);
    expect(limit(book, 1, A, SELL, 100n * P, 10n * U).rested).toBe(true);
    const r = limit(book, 2, B, BUY, 105n * P, 4n * U, true);
    expect(r.fills).toEqual([{ makerId: 1n, maker: A, makerIsAgent: false, price: 100n * P, size: 4n * U, makerRemaining: 6n * U }]);
    expect(r.filled).toBe(4n * U);
    expect(r.remaining).toBe(0n);
    expect(r.rested).toBe(false);
    expect(r.notional).toBe(400n * P);
    expect(book.get(1n)?.remaining).toBe(6n * U);
    expect(book.get(2n)).toBeUndefined();
    expect(book.bestBid()).toBeNull();
    expect(book.bestAsk()).toBe(100n * P);
    expect(book.size).toBe(1);
  });

  it('sweeps several levels in price then time order, then rests the rest at its limit', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, SELL, 101n * P, 2n * U);
    limit(book, 2, B, SELL, 100n * P, 1n * U);
    limit(book, 3, C, SELL, 101n * P, 3n * U);
    limit(book, 4, A, SELL, 103n * P, 5n * U);
    const r1 = limit(book, 5, B, BUY, 102n * P, 5n * U);
    // B's own ask (id 2) is first in priority: it is expired, not filled.
    expect(r1.selfTradeCancelled.map((o) => o.id)).toEqual([2n]);
    expect(r1.fills.map((f) => [f.makerId, f.price, f.size, f.makerRemaining])).toEqual([
      [1n, 101n * P, 2n * U, 0n],
      [3n, 101n * P, 3n * U, 0n],
    ]);
    expect(r1.filled).toBe(5n * U);
    expect(r1.notional).toBe(505n * P);
    expect(r1.rested).toBe(false);

    const r2 = limit(book, 6, C, BUY, 102n * P, 10n * U);
    expect(r2.fills).toEqual([]);
    expect(r2.rested).toBe(true);
    expect(r2.remaining).toBe(10n * U);
    expect(book.bestBid()).toBe(102n * P);
    expect(book.bestAsk()).toBe(103n * P);

    const r3 = limit(book, 7, B, BUY, 104n * P, 6n * U);
    expect(r3.fills.map((f) => [f.makerId, f.size, f.makerRemaining])).toEqual([[4n, 5n * U, 0n]]);
    expect(r3.remaining).toBe(1n * U);
    expect(r3.rested).toBe(true);
    expect(book.depth(10)).toEqual({
      bids: [
        { price: 104n * P, size: 1n * U, orders: 1 },
        { price: 102n * P, size: 10n * U, orders: 1 },
      ],
      asks: [],
    });
  });

  it('time priority within a level: lower id first', () => {
    const book = new OrderBook(1);
    limit(book, 10, A, BUY, 50n * P, 1n * U);
    limit(book, 11, B, BUY, 50n * P, 1n * U);
    limit(book, 12, A, BUY, 51n * P, 1n * U);
    const r = limit(book, 13, C, SELL, 50n * P, 3n * U);
    expect(r.fills.map((f) => f.makerId)).toEqual([12n, 10n, 11n]);
    expect(r.fills.map((f) => f.price)).toEqual([51n * P, 50n * P, 50n * P]);
  });

  it('market order with worstPrice stops at the bound and cancels the rest', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, SELL, 100n * P, 1n * U);
    limit(book, 2, A, SELL, 101n * P, 2n * U);
    limit(book, 3, A, SELL, 105n * P, 4n * U);
    const r = book.placeMarket({ id: 4n, owner: B, side: BUY, size: 10n * U, worstPrice: 101n * P, isAgent: false });
    expect(r.fills.map((f) => [f.makerId, f.price, f.size])).toEqual([
      [1n, 100n * P, 1n * U],
      [2n, 101n * P, 2n * U],
    ]);
    expect(r.filled).toBe(3n * U);
    expect(r.remaining).toBe(7n * U);
    expect(r.rested).toBe(false);
    expect(r.notional).toBe(302n * P);
    expect(book.size).toBe(1);
    expect(book.bestBid()).toBeNull();
    expect(book.bestAsk()).toBe(105n * P);
  });

  it('market sell without a bound sweeps the whole bid side', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, BUY, 100n * P, 1n * U);
    limit(book, 2, B, BUY, 1n * P, 1n * U);
    const r = book.placeMarket({ id: 3n, owner: C, side: SELL, size: 5n * U, worstPrice: null, isAgent: true });
    expect(r.fills.map((f) => f.makerId)).toEqual([1n, 2n]);
    expect(r.filled).toBe(2n * U);
    expect(r.remaining).toBe(3n * U);
    expect(r.notional).toBe(101n * P);
    expect(book.size).toBe(0);
  });

  it('self-trade prevention expires the maker and keeps matching behind it', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, SELL, 100n * P, 1n * U);
    limit(book, 2, B, SELL, 100n * P, 1n * U);
    limit(book, 3, A, SELL, 101n * P, 2n * U);
    limit(book, 4, A, SELL, 102n * P, 2n * U); // beyond the taker's limit: stays
    const sim = book.simulate(BUY, 3n * U, 101n * P, A);
    const r = limit(book, 5, A, BUY, 101n * P, 3n * U);
    expect(r.selfTradeCancelled).toEqual([
      { id: 1n, owner: A, side: SELL, price: 100n * P, remaining: 1n * U, isAgent: false },
      { id: 3n, owner: A, side: SELL, price: 101n * P, remaining: 2n * U, isAgent: false },
    ]);
    expect(r.fills.map((f) => [f.makerId, f.size])).toEqual([[2n, 1n * U]]);
    expect(sim).toEqual({ fills: [{ makerId: 2n, price: 100n * P, size: 1n * U }], filled: 1n * U, notional: 100n * P });
    expect(r.rested).toBe(true);
    expect(book.orders().map((o) => [o.id, o.side, o.price, o.remaining])).toEqual([
      [5n, BUY, 101n * P, 2n * U],
      [4n, SELL, 102n * P, 2n * U],
    ]);
  });

  it('a same-owner order the taker never reaches is not cancelled', () => {
    const book = new OrderBook(1);
    limit(book, 1, B, SELL, 100n * P, 1n * U);
    limit(book, 2, A, SELL, 100n * P, 1n * U);
    const r = limit(book, 3, A, BUY, 100n * P, 1n * U);
    expect(r.fills.map((f) => f.makerId)).toEqual([1n]);
    expect(r.selfTradeCancelled).toEqual([]);
    expect(book.get(2n)?.remaining).toBe(1n * U);
  });

  it('cancel removes the order, then matching skips it', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, SELL, 100n * P, 5n * U);
    limit(book, 2, C, SELL, 100n * P, 5n * U);
    expect(book.cancel(1n)).toEqual({ id: 1n, owner: A, side: SELL, price: 100n * P, remaining: 5n * U, isAgent: false });
    expect(book.cancel(1n)).toBeUndefined();
    expect(book.get(1n)).toBeUndefined();
    expect(book.depth(5).asks).toEqual([{ price: 100n * P, size: 5n * U, orders: 1 }]);
    const r = limit(book, 3, B, BUY, 100n * P, 3n * U);
    expect(r.fills.map((f) => [f.makerId, f.size, f.makerRemaining])).toEqual([[2n, 3n * U, 2n * U]]);
    expect(book.cancel(2n)?.remaining).toBe(2n * U);
    expect(book.size).toBe(0);
    expect(book.bestAsk()).toBeNull();
    expect(book.depth(5)).toEqual({ bids: [], asks: [] });
  });

  it('notional floors each fill separately', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, SELL, 3n, U / 2n); // 3e-6 USDC × 0.5 = 1.5e-6 → 1
    limit(book, 2, B, SELL, 3n, U / 2n);
    const r = limit(book, 3, C, BUY, 3n, U);
    expect(r.fills.length).toBe(2);
    expect(r.notional).toBe(2n); // not floor(3 × 1) = 3
    expect(book.simulate(BUY, U, null, C).notional).toBe(0n);
  });

  it('simulate agrees with the mutating call and mutates nothing', () => {
    const book = new OrderBook(1);
    limit(book, 1, A, BUY, 99n * P, 2n * U);
    limit(book, 2, B, BUY, 98n * P, 2n * U);
    limit(book, 3, A, BUY, 98n * P, 2n * U);
    const before = book.orders();
    const sim = book.simulate(SELL, 5n * U, 98n * P, B);
    expect(book.orders()).toEqual(before);
    const r = limit(book, 4, B, SELL, 98n * P, 5n * U);
    expect(r.fills.map((f) => ({ makerId: f.makerId, price: f.price, size: f.size }))).toEqual(sim.fills);
    expect(r.filled).toBe(sim.filled);
    expect(r.notional).toBe(sim.notional);
    expect(sim.fills.map((f) => f.makerId)).toEqual([1n, 3n]);
  });

  it('depth, topOrders, availableLiquidity', () => {
    const book = new OrderBook(7);
    limit(book, 1, A, BUY, 10n * P, 1n * U, true);
    limit(book, 2, B, BUY, 10n * P, 2n * U);
    limit(book, 3, A, BUY, 9n * P, 4n * U);
    limit(book, 4, C, SELL, 12n * P, 3n * U);
    limit(book, 5, C, SELL, 11n * P, 5n * U);
    expect(book.pairId).toBe(7);
    expect(book.depth(1)).toEqual({ bids: [{ price: 10n * P, size: 3n * U, orders: 2 }], asks: [{ price: 11n * P, size: 5n * U, orders: 1 }] });
    expect(book.depth(0)).toEqual({ bids: [], asks: [] });
    expect(book.depth(Number.NaN)).toEqual({ bids: [], asks: [] });
    expect(book.topOrders(-1)).toEqual({ bids: [], asks: [] });
    expect(book.depth(1.9).bids.length).toBe(1);
    const top = book.topOrders(2);
    expect(top.bids.map((o) => [o.id, o.isAgent])).toEqual([
      [1n, true],
      [2n, false],
    ]);
    expect(top.asks.map((o) => o.id)).toEqual([5n, 4n]);
    expect(book.orders().map((o) => o.id)).toEqual([1n, 2n, 3n, 5n, 4n]);
    expect(book.availableLiquidity(SELL, 10n * P)).toBe(3n * U);
    expect(book.availableLiquidity(SELL, 1n)).toBe(7n * U);
    expect(book.availableLiquidity(SELL, 11n * P)).toBe(0n);
    expect(book.availableLiquidity(BUY, 11n * P)).toBe(5n * U);
    expect(book.availableLiquidity(BUY, 100n * P)).toBe(8n * U);
  });
});

describe('OrderBook: guards', () => {
  it('rejects non-positive sizes and prices, prices ≥ 2^53, bad sides', () => {
    const book = new OrderBook(1);
    const ok = { id: 1n, owner: A, side: BUY as Side, price: P, size: U, isAgent: false };
    expect(() => book.placeLimit({ ...ok, size: 0n })).toThrow(RangeError);
    expect(() => book.placeLimit({ ...ok, size: -1n })).toThrow(RangeError);
    expect(() => book.placeLimit({ ...ok, price: 0n })).toThrow(RangeError);
    expect(() => book.placeLimit({ ...ok, price: -5n })).toThrow(RangeError);
    expect(() => book.placeLimit({ ...ok, price: 2n ** 53n })).toThrow(RangeError);
    expect(() => book.placeLimit({ ...ok, side: 2 as Side })).toThrow(RangeError);
    expect(() => book.placeLimit({ ...ok, id: -1n })).toThrow(RangeError);
    expect(() => book.placeMarket({ id: 1n, owner: A, side: BUY, size: 0n, worstPrice: null, isAgent: false })).toThrow(RangeError);
    expect(() => book.placeMarket({ id: 1n, owner: A, side: BUY, size: U, worstPrice: 0n, isAgent: false })).toThrow(RangeError);
    expect(() => book.simulate(BUY, 0n, null, A)).toThrow(RangeError);
    expect(() => book.availableLiquidity(BUY, 0n)).toThrow(RangeError);
    expect(book.size).toBe(0);
    book.placeLimit({ ...ok, price: 2n ** 53n - 1n });
    expect(book.bestBid()).toBe(2n ** 53n - 1n);
  });

  it('rejects a duplicate of a resting id, for limit and market orders', () => {
    const book = new OrderBook(1);
    limit(book, 5, A, BUY, P, U);
    limit(book, 9, A, BUY, P, U);
    expect(() => limit(book, 5, B, SELL, 2n * P, U)).toThrow(/duplicate/);
    expect(() => book.placeMarket({ id: 9n, owner: B, side: SELL, size: U, worstPrice: null, isAgent: false })).toThrow(/duplicate/);
    expect(book.size).toBe(2);
    // an id that is not resting any more may come back (the caller's counter never does this, but it is not a duplicate)
    book.cancel(5n);
    limit(book, 5, A, BUY, P, U);
    expect(book.topOrders(5).bids.map((o) => o.id)).toEqual([5n, 9n]);
  });
});

describe('OrderBook: restore', () => {
  it('rebuilds a book, keeping id order within a level whatever the restore order', () => {
    const src = new OrderBook(1);
    limit(src, 1, A, BUY, 10n * P, U);
    limit(src, 2, B, BUY, 10n * P, 2n * U, true);
    limit(src, 3, C, BUY, 10n * P, 3n * U);
    limit(src, 4, A, SELL, 11n * P, U);
    limit(src, 5, B, SELL, 12n * P, U);
    const saved = src.orders();
    const book = new OrderBook(1);
    for (const o of [saved[2], saved[4], saved[0], saved[3], saved[1]]) book.restore(o);
    expect(book.orders()).toEqual(saved);
    const r = limit(book, 6, A, SELL, 10n * P, 10n * U);
    expect(r.selfTradeCancelled.map((o) => o.id)).toEqual([1n]);
    expect(r.fills.map((f) => f.makerId)).toEqual([2n, 3n]);
  });

  it('throws on a crossing order or a duplicate id', () => {
    const book = new OrderBook(1);
    book.restore({ id: 1n, owner: A, side: BUY, price: 10n * P, remaining: U, isAgent: false });
    book.restore({ id: 2n, owner: A, side: SELL, price: 11n * P, remaining: U, isAgent: false });
    expect(() => book.restore({ id: 3n, owner: B, side: SELL, price: 10n * P, remaining: U, isAgent: false })).toThrow(/cross/);
    expect(() => book.restore({ id: 3n, owner: B, side: BUY, price: 11n * P, remaining: U, isAgent: false })).toThrow(/cross/);
    expect(() => book.restore({ id: 1n, owner: B, side: BUY, price: 9n * P, remaining: U, isAgent: false })).toThrow(/duplicate/);
    expect(() => book.restore({ id: 4n, owner: B, side: BUY, price: 9n * P, remaining: 0n, isAgent: false })).toThrow(RangeError);
    expect(book.size).toBe(2);
  });
});
