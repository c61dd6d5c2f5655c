/**
 * Property tests over random streams of limit / market / cancel operations: several
 * owners, prices on a small grid so orders cross, tiny level chunks so the sorted
 * level structure splits and merges. After every operation the engine must agree with
 * the naive reference model and satisfy the invariants directly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUY, OrderBook, SELL, type Fill, type RestingOrder, type Side, type TakerResult } from '../../src/state/orderbook/engine';
import type { Address } from '../../src/util/bytes';
import { RefBook } from './reference';

const OWNERS = [1, 2, 3, 4].map((i) => `0x${String(i).repeat(40)}` as Address);
const TICK = 10_000n;
// an odd lot, so price × size is not a multiple of 1e18 and per-fill flooring of notional matters
const LOT = 1_234_567_890_123_457n;
const SCALE = 10n ** 18n;

type Op =
  | { t: 'limit'; owner: number; side: Side; tick: number; lots: number; agent: boolean }
  | { t: 'market'; owner: number; side: Side; lots: number; worstTick: number | null }
  | { t: 'cancel'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('limit' as const), owner: fc.nat(3), side: fc.constantFrom<Side>(BUY, SELL), tick: fc.integer({ min: 1, max: 30 }), lots: fc.integer({ min: 1, max: 20 }), agent: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('market' as const), owner: fc.nat(3), side: fc.constantFrom<Side>(BUY, SELL), lots: fc.integer({ min: 1, max: 40 }), worstTick: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('cancel' as const), pick: fc.nat() }) },
);

/** Priority of a resting order on its side: smaller = earlier. */
function priorityBefore(a: RestingOrder, b: RestingOrder): boolean {
  if (a.price !== b.price) return a.side === BUY ? a.price > b.price : a.price < b.price;
  return a.id < b.id;
}

function liquidity(orders: RestingOrder[], side: Side, limit: bigint | null): bigint {
  let s = 0n;
  for (const o of orders) if (o.side === side && (limit === null || (side === SELL ? o.price <= limit : o.price >= limit))) s += o.remaining;
  return s;
}

function aggregate(orders: RestingOrder[], side: Side) {
  const out: { price: bigint; size: bigint; orders: number }[] = [];
  for (const o of orders) {
    if (o.side !== side) continue;
    const last = out[out.length - 1];
    if (last && last.price === o.price) {
      last.size += o.remaining;
      last.orders++;
    } else out.push({ price: o.price, size: o.remaining, orders: 1 });
  }
  return out;
}

/** Everything observable about the book, checked against the model and invariants. */
function checkBook(book: OrderBook, ref: RefBook): RestingOrder[] {
  const orders = book.orders();
  expect(orders).toEqual(ref.orders());
  expect(book.size).toBe(orders.length);
  const bids = orders.filter((o) => o.side === BUY);
  const asks = orders.filter((o) => o.side === SELL);
  for (let i = 1; i < bids.length; i++) expect(priorityBefore(bids[i - 1], bids[i])).toBe(true);
  for (let i = 1; i < asks.length; i++) expect(priorityBefore(asks[i - 1], asks[i])).toBe(true);
  const bb = book.bestBid();
  const ba = book.bestAsk();
  expect(bb).toBe(bids[0]?.price ?? null);
  expect(ba).toBe(asks[0]?.price ?? null);
  if (bb !== null && ba !== null) expect(bb < ba).toBe(true); // never crossed
  for (const o of orders) {
    expect(o.remaining > 0n).toBe(true);
    expect(book.get(o.id)).toEqual(o);
  }
  const d = book.depth(1000);
  expect(d.bids).toEqual(aggregate(orders, BUY));
  expect(d.asks).toEqual(aggregate(orders, SELL));
  expect(book.depth(2).bids).toEqual(d.bids.slice(0, 2));
  const top = book.topOrders(3);
  expect(top.bids).toEqual(bids.slice(0, 3));
  expect(top.asks).toEqual(asks.slice(0, 3));
  for (const t of [1, 7, 15, 30]) {
    const p = BigInt(t) * TICK;
    expect(book.availableLiquidity(BUY, p)).toBe(liquidity(orders, SELL, p));
    expect(book.availableLiquidity(SELL, p)).toBe(liquidity(orders, BUY, p));
  }
  return orders;
}

/** Invariants of one taker result, given the book before and after it. */
function checkTaker(r: TakerResult, side: Side, size: bigint, limit: bigint | null, owner: Address, before: RestingOrder[], after: RestingOrder[]) {
  let sum = 0n;
  let notional = 0n;
  const beforeById = new Map(before.map((o) => [o.id, o]));
  const afterById = new Map(after.map((o) => [o.id, o]));
  let prev: RestingOrder | undefined;
  for (const f of r.fills) {
    sum += f.size;
    notional += (f.price * f.size) / SCALE;
    const m = beforeById.get(f.makerId)!;
    expect(m).toBeDefined();
    expect(m.side).not.toBe(side);
    expect(m.owner).not.toBe(owner);
    expect(f.price).toBe(m.price); // maker's price
    if (limit !== null) expect(side === BUY ? f.price <= limit : f.price >= limit).toBe(true);
    expect(f.size > 0n).toBe(true);
    expect(f.makerRemaining).toBe(m.remaining - f.size); // maker decreases by exactly the fill
    expect(afterById.get(f.makerId)?.remaining).toBe(f.makerRemaining === 0n ? undefined : f.makerRemaining);
    if (prev) expect(priorityBefore(prev, m)).toBe(true); // price, then time priority
    prev = m;
  }
  expect(r.filled).toBe(sum);
  expect(r.notional).toBe(notional);
  expect(r.remaining).toBe(size - sum);
  // Nothing better than the last maker reached was left behind (other owners' orders
  // were filled, the taker's own expired), and a taker with size left exhausted its range.
  const opp = after.filter((o) => o.side !== side && o.id !== prev?.id);
  if (prev) for (const o of opp) expect(priorityBefore(o, prev)).toBe(false);
  for (const c of r.selfTradeCancelled) {
    expect(c.owner).toBe(owner);
    expect(beforeById.get(c.id)).toEqual(c);
    expect(afterById.has(c.id)).toBe(false);
  }
  if (r.remaining > 0n) {
    for (const o of opp) expect(limit === null ? false : side === BUY ? o.price > limit : o.price < limit).toBe(true);
  }
  // conservation: the opposite side lost exactly the fills and the expired orders
  const oppBefore = liquidity(before, side === BUY ? SELL : BUY, null);
  const oppAfter = liquidity(after, side === BUY ? SELL : BUY, null);
  const expired = r.selfTradeCancelled.reduce((s, o) => s + o.remaining, 0n);
  expect(oppBefore - oppAfter).toBe(sum + expired);
}

function fillsOf(r: { fills: Fill[] }) {
  return r.fills.map((f) => ({ makerId: f.makerId, price: f.price, size: f.size }));
}

interface Step {
  book: OrderBook;
  ref: RefBook;
  nextId: bigint;
  issued: bigint[];
}

/** Applies one op to engine and model, checking everything; returns the engine result for replay comparison. */
function step(s: Step, op: Op): unknown {
  const { book, ref } = s;
  const before = book.orders();
  if (op.t === 'cancel') {
    const id = s.issued.length ? s.issued[op.pick % s.issued.length] : 0n;
    const got = book.cancel(id);
    expect(got).toEqual(ref.cancel(id));
    checkBook(book, ref);
    return got;
  }
  const owner = OWNERS[op.owner];
  const id = s.nextId++;
  s.issued.push(id);
  const size = BigInt(op.lots) * LOT;
  let r: TakerResult;
  let limit: bigint | null;
  if (op.t === 'limit') {
    limit = BigInt(op.tick) * TICK;
    const sim = book.simulate(op.side, size, limit, owner);
    r = book.placeLimit({ id, owner, side: op.side, price: limit, size, isAgent: op.agent });
    expect(r).toEqual(ref.placeLimit({ id, owner, side: op.side, price: limit, size, isAgent: op.agent }));
    expect(sim).toEqual({ fills: fillsOf(r), filled: r.filled, notional: r.notional });
    expect(r.rested).toBe(r.remaining > 0n);
    if (r.rested) expect(book.get(id)).toEqual({ id, owner, side: op.side, price: limit, remaining: r.remaining, isAgent: op.agent });
  } else {
    limit = op.worstTick === null ? null : BigInt(op.worstTick) * TICK;
    const sim = book.simulate(op.side, size, limit, owner);
    r = book.placeMarket({ id, owner, side: op.side, size, worstPrice: limit, isAgent: false });
    expect(r).toEqual(ref.placeMarket({ owner, side: op.side, size, worstPrice: limit }));
    expect(sim).toEqual({ fills: fillsOf(r), filled: r.filled, notional: r.notional });
    expect(r.rested).toBe(false);
    expect(book.get(id)).toBeUndefined();
  }
  const after = checkBook(book, ref);
  checkTaker(r, op.side, size, limit, owner, before, after);
  return r;
}

const opsArb = fc.array(opArb, { minLength: 1, maxLength: 150 });
const chunkArb = fc.constantFrom(2, 3, 4, 512);

describe('OrderBook: properties over random streams', () => {
  it('agrees with the reference model and keeps every invariant after every operation', () => {
    fc.assert(
      fc.property(opsArb, chunkArb, (ops, chunk) => {
        const s: Step = { book: new OrderBook(1, { levelChunk: chunk }), ref: new RefBook(), nextId: 1n, issued: [] };
        for (const op of ops) step(s, op);
      }),
      { numRuns: 300 },
    );
  });

  it('restore() of orders() in any order gives a book that behaves identically afterwards', () => {
    fc.assert(
      fc.property(opsArb, opsArb, chunkArb, fc.nat(), (prefix, suffix, chunk, seed) => {
        const a: Step = { book: new OrderBook(1, { levelChunk: chunk }), ref: new RefBook(), nextId: 1n, issued: [] };
        for (const op of prefix) step(a, op);
        const saved = a.book.orders();
        // restore in a scrambled (deterministic) order: ids must still end up in time priority
        const shuffled = saved.slice();
        let x = seed >>> 0;
        for (let i = shuffled.length - 1; i > 0; i--) {
          x = (Math.imul(x, 1103515245) + 12345) >>> 0;
          const j = x % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        const restored = new OrderBook(1, { levelChunk: chunk === 512 ? 2 : 512 });
        const refB = new RefBook();
        for (const o of shuffled) {
          restored.restore(o);
          refB.insert(o);
        }
        expect(restored.orders()).toEqual(saved);
        expect(restored.depth(100)).toEqual(a.book.depth(100));
        const b: Step = { book: restored, ref: refB, nextId: a.nextId, issued: a.issued.slice() };
        for (const op of suffix) expect(step(b, op)).toEqual(step(a, op));
        expect(b.book.orders()).toEqual(a.book.orders());
      }),
      { numRuns: 150 },
    );
  });

  it('is deterministic: the same stream gives the same results and book', () => {
    fc.assert(
      fc.property(opsArb, (ops) => {
        const run = () => {
          const s: Step = { book: new OrderBook(1), ref: new RefBook(), nextId: 1n, issued: [] };
          const out = ops.map((op) => step(s, op));
          return { out, orders: s.book.orders() };
        };
        expect(run()).toEqual(run());
      }),
      { numRuns: 50 },
    );
  });
});

describe('OrderBook: large book', () => {
  it('agrees with the reference model on a long seeded stream over many levels (real chunk size)', () => {
    // Enough distinct prices (2,000 per side) that the default 512-level chunks split,
    // and cancels that empty levels in the middle of the book.
    const book = new OrderBook(1);
    const ref = new RefBook();
    let x = 12345;
    const rnd = (n: number) => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x % n;
    };
    const live: bigint[] = [];
    for (let i = 1; i <= 6000; i++) {
      const id = BigInt(i);
      const side: Side = rnd(2) === 0 ? BUY : SELL;
      const tick = side === BUY ? 1 + rnd(2000) : 2001 + rnd(2000);
      const o = { id, owner: OWNERS[rnd(4)], side, price: BigInt(tick) * TICK, size: BigInt(1 + rnd(5)) * LOT, isAgent: rnd(2) === 0 };
      expect(book.placeLimit(o)).toEqual(ref.placeLimit(o));
      live.push(id);
    }
    for (let i = 0; i < 3000; i++) {
      const id = live[rnd(live.length)];
      expect(book.cancel(id)).toEqual(ref.cancel(id));
    }
    const r = book.placeMarket({ id: 10_000n, owner: OWNERS[1], side: BUY, size: 2000n * LOT, worstPrice: null, isAgent: false });
    expect(r).toEqual(ref.placeMarket({ owner: OWNERS[1], side: BUY, size: 2000n * LOT, worstPrice: null }));
    const r2 = book.placeLimit({ id: 10_001n, owner: OWNERS[2], side: SELL, price: 1000n * TICK, size: 1500n * LOT, isAgent: true });
    expect(r2).toEqual(ref.placeLimit({ id: 10_001n, owner: OWNERS[2], side: SELL, price: 1000n * TICK, size: 1500n * LOT, isAgent: true }));
    expect(book.orders()).toEqual(ref.orders());
    const bb = book.bestBid();
    const ba = book.bestAsk();
    if (bb !== null && ba !== null) expect(bb < ba).toBe(true);
  });
});
