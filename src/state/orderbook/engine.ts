/**
 * The native orderbook's matching engine: one OrderBook per pair, price-time priority,
 * fills at the maker's price, self-trade prevention by expiring the maker.
 *
 * Runs inside deterministic block execution, so:
 * - amounts are bigint (prices ×1e6, sizes ×1e18); no floats touch an amount;
 * - prices become JS numbers only as level keys, asserted < 2^53 at the boundary, and
 *   order ids become numbers only as keys of the id index, asserted likewise;
 * - nothing iterates a Map: levels are walked through a key-sorted structure
 *   (SortedLevels), orders within a level through an intrusive FIFO list kept in
 *   ascending id order. Outcomes depend only on the sequence of calls.
 *
 * Data structures:
 * - per side, SortedLevels<Level> (chunked sorted array keyed by a number, best level
 *   last) plus a Map<price, Level> to find an existing level in O(1);
 * - per level, a doubly linked list of OrderNode (O(1) append, O(1) unlink), the
 *   number of orders and their Σ remaining (so depth and availableLiquidity cost
 *   O(levels), not O(orders));
 * - IdIndex (open-addressing hash table on the id) for get/cancel in O(1).
 *
 * Time priority: within a level the list is ordered by ascending priority number
 * (`seq`), which is the id unless a modify moved the order to the back of a level
 * (requeue(), decision 88: the caller draws the new seq from the same monotonic counter
 * as the ids). A new order normally appends at the tail; a seq lower than the tail's
 * (only possible through restore() or a caller that breaks monotonicity) is inserted
 * at its position, so "time priority == ascending seq" holds by construction.
 *
 * Self-trade prevention ("expire maker"): when the taker reaches, with size still to
 * fill and within its price bound, a resting order of the same owner, that order is
 * removed and reported in selfTradeCancelled, and the walk continues behind it. A
 * same-owner order the taker never reaches (taker already filled, or price beyond the
 * bound) stays. simulate() skips exactly those orders.
 *
 * Guards (the caller validates first; these only assert): size, price and worstPrice
 * must be positive bigints, prices < 2^53, ids bigints in [0, 2^53), side 0 or 1,
 * otherwise RangeError; an id equal to a resting order's → Error. All guards run before
 * the book is touched, so a throwing call changes nothing.
 *
 * Results are fresh objects the caller may keep (the book never touches them again),
 * except that an empty fills / selfTradeCancelled list is one shared frozen array.
 *
 * notional = Σ over fills of floor(price × size / 1e18), each term floored separately
 * (so it is the sum of the per-fill USDC amounts that settlement moves, not a floor of
 * the sum). With the pairs' tick and lot sizes every term is exact anyway.
 */
import type { Address } from '../../util/bytes';
import { IdIndex } from './idindex';
import { SortedLevels } from './levels';
import type { Price6, Size18, Usdc6 } from '../../util/fixed';

export const BUY = 0;
export const SELL = 1;
export type Side = 0 | 1;

export interface RestingOrder {
  id: bigint;
  owner: Address;
  side: Side;
  price: Price6;
  remaining: Size18;
  isAgent: boolean;
  /** Time priority within the level (absent: the id). */
  seq?: bigint;
}

export interface Fill {
  makerId: bigint;
  maker: Address;
  makerIsAgent: boolean;
  /** The maker's price. */
  price: Price6;
  size: Size18;
  /** Maker's remaining size after this fill; 0 = fully filled and removed. */
  makerRemaining: Size18;
}

/** Treat as read-only: an empty `fills` / `selfTradeCancelled` is a shared frozen array. */
export interface TakerResult {
  fills: Fill[];
  /** Σ fills[i].size. */
  filled: Size18;
  /** Σ floor(fills[i].price × fills[i].size / 1e18). */
  notional: Usdc6;
  /** size − filled. For a market order this part is cancelled. */
  remaining: Size18;
  /** True when the unfilled rest now rests on the book (limit orders only). */
  rested: boolean;
  /** Resting orders of the taker's owner removed by self-trade prevention, in walk order. */
  selfTradeCancelled: RestingOrder[];
}

interface SimulatedFill {
  makerId: bigint;
  price: Price6;
  size: Size18;
}

export interface SimulationResult {
  fills: SimulatedFill[];
  filled: Size18;
  notional: Usdc6;
}

interface DepthLevel {
  price: Price6;
  size: Size18;
  orders: number;
}

interface LimitOrderInput {
  id: bigint;
  owner: Address;
  side: Side;
  price: Price6;
  size: Size18;
  isAgent: boolean;
}

interface MarketOrderInput {
  id: bigint;
  owner: Address;
  side: Side;
  size: Size18;
  /** Worst acceptable price (buy: highest, sell: lowest); null = no bound. */
  worstPrice: Price6 | null;
  isAgent: boolean;
}

/** Shared empty lists of results without fills / expiries: frozen, so a caller that
 *  tried to modify one would throw instead of corrupting every other result. */
const NO_FILLS: readonly Fill[] = Object.freeze([]);
const NO_ORDERS: readonly RestingOrder[] = Object.freeze([]);

/** Prices are ×1e6 integers; sizes ×1e18. */
const SIZE_SCALE = 10n ** 18n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

class Level {
  head: OrderNode | null = null;
  tail: OrderNode | null = null;
  count = 0;
  total = 0n;
  constructor(
    readonly side: Side,
    readonly price: bigint,
    /** bids: price, asks: −price (larger = better). */
    readonly key: number,
  ) {}
}

class OrderNode {
  prev: OrderNode | null = null;
  next: OrderNode | null = null;
  constructor(
    readonly id: bigint,
    readonly owner: Address,
    readonly isAgent: boolean,
    public remaining: bigint,
    readonly level: Level,
    /** Time priority within the level: ascending from head to tail. */
    readonly seq: bigint,
  ) {}
}

class BookSide {
  readonly levels: SortedLevels<Level>;
  /** price → level. Keyed by the bigint price (by value), so lookups box nothing. */
  readonly byPrice = new Map<bigint, Level>();
  constructor(
    readonly side: Side,
    levelChunk: number | undefined,
  ) {
    this.levels = new SortedLevels<Level>(levelChunk);
  }
}

function snapshot(n: OrderNode): RestingOrder {
  const l = n.level;
  const out: RestingOrder = { id: n.id, owner: n.owner, side: l.side, price: l.price, remaining: n.remaining, isAgent: n.isAgent };
  if (n.seq !== n.id) out.seq = n.seq;
  return out;
}

function checkSide(side: Side): void {
  if (side !== BUY && side !== SELL) throw new RangeError(`side must be 0 (buy) or 1 (sell), got ${String(side)}`);
}

/** Asserts 0 < price < 2^53 (so Number(price) is exact where a level key needs it). */
function checkPrice(price: bigint, what: string): void {
  if (typeof price !== 'bigint' || price <= 0n) throw new RangeError(`${what} must be a positive bigint, got ${String(price)}`);
  if (price > MAX_SAFE) throw new RangeError(`${what} ${price} exceeds 2^53 - 1`);
}

function checkSize(size: bigint): void {
  if (typeof size !== 'bigint' || size <= 0n) throw new RangeError(`size must be a positive bigint, got ${String(size)}`);
}

function idNumber(id: bigint): number {
  if (typeof id !== 'bigint' || id < 0n || id > MAX_SAFE) throw new RangeError(`order id must be a bigint in [0, 2^53), got ${String(id)}`);
  return Number(id);
}

export class OrderBook {
  private readonly bids: BookSide;
  private readonly asks: BookSide;
  private readonly byId = new IdIndex<OrderNode>();
  /** Highest id ever seen (placed, taken or restored): a higher id cannot be a duplicate. */
  private maxIdKey = -1;
  /** Scratch lists of the matching walk, copied out at exact length (no growth garbage). */
  private readonly fillBuf: (Fill | undefined)[] = [];
  private readonly expiredBuf: (RestingOrder | undefined)[] = [];

  /** opts.levelChunk: SortedLevels chunk size (tests use tiny ones to exercise splits). */
  constructor(
    readonly pairId: number,
    opts: { levelChunk?: number } = {},
  ) {
    this.bids = new BookSide(BUY, opts.levelChunk);
    this.asks = new BookSide(SELL, opts.levelChunk);
  }

  get size(): number {
    return this.byId.size;
  }

  // ---------------------------------------------------------------- mutations

  placeLimit(o: LimitOrderInput): TakerResult {
    checkSide(o.side);
    checkPrice(o.price, 'price');
    checkSize(o.size);
    const idKey = this.newId(o.id);
    const res = this.take(o.side, o.owner, o.size, o.price);
    if (res.remaining > 0n) {
      this.rest(o.side === BUY ? this.bids : this.asks, o.id, idKey, o.owner, o.isAgent, o.price, res.remaining, o.id);
      res.rested = true;
    }
    return res;
  }

  placeMarket(o: MarketOrderInput): TakerResult {
    checkSide(o.side);
    checkSize(o.size);
    if (o.worstPrice !== null) checkPrice(o.worstPrice, 'worstPrice');
    this.newId(o.id);
    return this.take(o.side, o.owner, o.size, o.worstPrice);
  }

  cancel(id: bigint): RestingOrder | undefined {
    if (typeof id !== 'bigint' || id < 0n || id > MAX_SAFE) return undefined;
    const node = this.byId.get(Number(id));
    if (node === undefined) return undefined;
    const out = snapshot(node);
    this.removeNode(node, node.level.side === BUY ? this.bids : this.asks);
    return out;
  }

  restore(o: RestingOrder): void {
    checkSide(o.side);
    checkPrice(o.price, 'price');
    checkSize(o.remaining);
    const idKey = idNumber(o.id);
    if (this.byId.has(idKey)) throw new Error(`restore: duplicate order id ${o.id}`);
    if (o.side === BUY) {
      const ask = this.asks.levels.best();
      if (ask !== undefined && o.price >= ask.price) throw new Error(`restore: bid ${o.id} at ${o.price} would cross best ask ${ask.price}`);
    } else {
      const bid = this.bids.levels.best();
      if (bid !== undefined && o.price <= bid.price) throw new Error(`restore: ask ${o.id} at ${o.price} would cross best bid ${bid.price}`);
    }
    if (idKey > this.maxIdKey) this.maxIdKey = idKey;
    this.rest(o.side === BUY ? this.bids : this.asks, o.id, idKey, o.owner, o.isAgent, o.price, o.remaining, o.seq ?? o.id);
  }

  /**
   * Shrinks a resting order in place, keeping its time priority (a modify that only
   * lowers the size, a reduce-only order shrunk to its owner's position). Returns false
   * when no such order rests; 0 < remaining < its current remaining, else RangeError.
   */
  resize(id: bigint, remaining: bigint): boolean {
    if (typeof id !== 'bigint' || id < 0n || id > MAX_SAFE) return false;
    const node = this.byId.get(Number(id));
    if (node === undefined) return false;
    checkSize(remaining);
    if (remaining >= node.remaining) throw new RangeError(`resize: ${remaining} does not shrink order ${id} (${node.remaining})`);
    node.level.total -= node.remaining - remaining;
    node.remaining = remaining;
    return true;
  }

  /**
   * Moves a resting order to the back of the level of `price` with a new size and a new
   * priority `seq` (greater than every seq resting: the caller's counter), keeping its
   * id (a modify that changes the price or grows the size, decision 88). The new price
   * must not cross the opposite side (a modify never takes): Error, before any change.
   */
  requeue(id: bigint, price: bigint, remaining: bigint, seq: bigint): boolean {
    if (typeof id !== 'bigint' || id < 0n || id > MAX_SAFE) return false;
    const node = this.byId.get(Number(id));
    if (node === undefined) return false;
    checkPrice(price, 'price');
    checkSize(remaining);
    const side = node.level.side;
    if (this.wouldCross(side, price)) throw new Error(`requeue: order ${id} at ${price} would cross the opposite side`);
    const bs = side === BUY ? this.bids : this.asks;
    this.removeNode(node, bs);
    this.rest(bs, id, Number(id), node.owner, node.isAgent, price, remaining, seq);
    return true;
  }

  /** Would a limit order of `side` at `price` meet a resting order of the other side (any owner)? */
  wouldCross(side: Side, price: bigint): boolean {
    if (side === BUY) {
      const ask = this.asks.levels.best();
      return ask !== undefined && price >= ask.price;
    }
    const bid = this.bids.levels.best();
    return bid !== undefined && price <= bid.price;
  }

  // ---------------------------------------------------------------- reads

  get(id: bigint): RestingOrder | undefined {
    if (typeof id !== 'bigint' || id < 0n || id > MAX_SAFE) return undefined;
    const node = this.byId.get(Number(id));
    return node === undefined ? undefined : snapshot(node);
  }

  bestBid(): bigint | null {
    const l = this.bids.levels.best();
    return l === undefined ? null : l.price;
  }

  bestAsk(): bigint | null {
    const l = this.asks.levels.best();
    return l === undefined ? null : l.price;
  }

  depth(levels: number): { bids: DepthLevel[]; asks: DepthLevel[] } {
    const max = countLimit(levels);
    return { bids: depthOf(this.bids, max), asks: depthOf(this.asks, max) };
  }

  topOrders(n: number): { bids: RestingOrder[]; asks: RestingOrder[] } {
    const max = countLimit(n);
    return { bids: ordersOf(this.bids, max), asks: ordersOf(this.asks, max) };
  }

  orders(): RestingOrder[] {
    const all = ordersOf(this.bids, Infinity);
    for (const o of ordersOf(this.asks, Infinity)) all.push(o);
    return all;
  }

  availableLiquidity(takerSide: Side, worstPrice: bigint): bigint {
    checkSide(takerSide);
    checkPrice(worstPrice, 'worstPrice');
    const buy = takerSide === BUY;
    const opp = buy ? this.asks : this.bids;
    let sum = 0n;
    const chunks = opp.levels.chunks;
    for (let ci = chunks.length - 1; ci >= 0; ci--) {
      const c = chunks[ci];
      for (let i = c.length - 1; i >= 0; i--) {
        const lvl = c[i];
        if (buy ? lvl.price > worstPrice : lvl.price < worstPrice) return sum;
        sum += lvl.total;
      }
    }
    return sum;
  }

  /**
   * The fills a taker would get, without changing the book. `caps` (maker id → the most
   * it may still trade, 0 = skip it) plans the reduce-only makers the caller will shrink
   * or cancel before matching (src/state/orders/reduce-only.ts).
   */
  simulate(side: Side, size: bigint, limitPrice: bigint | null, owner: Address, caps?: ReadonlyMap<bigint, bigint>): SimulationResult {
    checkSide(side);
    checkSize(size);
    if (limitPrice !== null) checkPrice(limitPrice, 'limitPrice');
    const buy = side === BUY;
    const fills: SimulatedFill[] = [];
    let rem = size;
    let notional = 0n;
    const chunks = (buy ? this.asks : this.bids).levels.chunks;
    walk: for (let ci = chunks.length - 1; ci >= 0; ci--) {
      const c = chunks[ci];
      for (let i = c.length - 1; i >= 0; i--) {
        const lvl = c[i];
        if (limitPrice !== null && (buy ? lvl.price > limitPrice : lvl.price < limitPrice)) break walk;
        const price = lvl.price;
        for (let n = lvl.head; n !== null; n = n.next) {
          if (n.owner === owner) continue; // would be expired by self-trade prevention
          const avail = caps === undefined ? n.remaining : (caps.get(n.id) ?? n.remaining);
          if (avail === 0n) continue;
          const take = rem < avail ? rem : avail;
          fills.push({ makerId: n.id, price, size: take });
          notional += (price * take) / SIZE_SCALE;
          rem -= take;
          if (rem === 0n) break walk;
        }
      }
    }
    return { fills, filled: size - rem, notional };
  }

  // ---------------------------------------------------------------- internals

  /** Validates a taker's id: in range and not resting (ids above every seen id cannot be). */
  private newId(id: bigint): number {
    const idKey = idNumber(id);
    if (idKey > this.maxIdKey) this.maxIdKey = idKey;
    else if (this.byId.has(idKey)) throw new Error(`duplicate order id ${id}`);
    return idKey;
  }

  /**
   * The matching walk shared by limit and market orders. limit: the taker's price bound
   * (buy: highest, sell: lowest acceptable), null = none. simulate() is the same walk
   * without mutations; keep the two in step (the property tests compare them).
   */
  private take(side: Side, owner: Address, size: bigint, limit: bigint | null): TakerResult {
    const buy = side === BUY;
    const opp = buy ? this.asks : this.bids;
    const levels = opp.levels;
    const fills = this.fillBuf;
    const expired = this.expiredBuf;
    let nFills = 0;
    let nExpired = 0;
    let rem = size;
    let notional = 0n;
    for (;;) {
      const lvl = levels.best();
      if (lvl === undefined) break;
      const price = lvl.price;
      if (limit !== null && (buy ? price > limit : price < limit)) break;
      let n = lvl.head;
      while (n !== null) {
        const next = n.next;
        if (n.owner === owner) {
          expired[nExpired++] = snapshot(n);
          this.unlink(n, lvl);
          lvl.total -= n.remaining;
        } else {
          const makerRem = n.remaining;
          if (rem < makerRem) {
            const left = makerRem - rem;
            n.remaining = left;
            lvl.total -= rem;
            fills[nFills++] = { makerId: n.id, maker: n.owner, makerIsAgent: n.isAgent, price, size: rem, makerRemaining: left };
            notional += (price * rem) / SIZE_SCALE;
            rem = 0n;
            break;
          }
          fills[nFills++] = { makerId: n.id, maker: n.owner, makerIsAgent: n.isAgent, price, size: makerRem, makerRemaining: 0n };
          notional += (price * makerRem) / SIZE_SCALE;
          rem -= makerRem;
          lvl.total -= makerRem;
          n.remaining = 0n;
          this.unlink(n, lvl);
          if (rem === 0n) break;
        }
        n = next;
      }
      if (lvl.count === 0) {
        levels.popBest();
        opp.byPrice.delete(lvl.price);
      }
      if (rem === 0n) break;
    }
    const res: TakerResult = {
      fills: nFills === 0 ? (NO_FILLS as Fill[]) : (fills.slice(0, nFills) as Fill[]),
      filled: rem === size ? 0n : size - rem,
      notional,
      remaining: rem,
      rested: false,
      selfTradeCancelled: nExpired === 0 ? (NO_ORDERS as RestingOrder[]) : (expired.slice(0, nExpired) as RestingOrder[]),
    };
    // The buffers must not keep this walk's objects alive.
    for (let i = 0; i < nFills; i++) fills[i] = undefined;
    for (let i = 0; i < nExpired; i++) expired[i] = undefined;
    return res;
  }

  /** Unlinks a node from its level's list and the id index (level bookkeeping of total is the caller's). */
  private unlink(n: OrderNode, lvl: Level): void {
    const prev = n.prev;
    const next = n.next;
    if (prev === null) lvl.head = next;
    else prev.next = next;
    if (next === null) lvl.tail = prev;
    else next.prev = prev;
    n.prev = n.next = null;
    lvl.count--;
    this.byId.delete(Number(n.id));
  }

  /** Removes a resting order and, if its level empties, the level. */
  private removeNode(n: OrderNode, bs: BookSide): void {
    const lvl = n.level;
    this.unlink(n, lvl);
    lvl.total -= n.remaining;
    if (lvl.count === 0) {
      if (bs.levels.best() === lvl) bs.levels.popBest();
      else bs.levels.remove(lvl);
      bs.byPrice.delete(lvl.price);
    }
  }

  private rest(bs: BookSide, id: bigint, idKey: number, owner: Address, isAgent: boolean, price: bigint, remaining: bigint, seq: bigint): void {
    let lvl = bs.byPrice.get(price);
    if (lvl === undefined) {
      // price < 2^53 was asserted, so the number key is exact
      const priceNum = Number(price);
      lvl = new Level(bs.side, price, bs.side === BUY ? priceNum : -priceNum);
      bs.byPrice.set(price, lvl);
      bs.levels.insert(lvl);
    }
    const n = new OrderNode(id, owner, isAgent, remaining, lvl, seq);
    const tail = lvl.tail;
    if (tail === null) {
      lvl.head = lvl.tail = n;
    } else if (tail.seq < seq) {
      tail.next = n;
      n.prev = tail;
      lvl.tail = n;
    } else {
      // Lower seq than the tail (restore out of order): insert at its position.
      let after: OrderNode | null = tail;
      while (after !== null && after.seq > seq) after = after.prev;
      n.prev = after;
      n.next = after === null ? lvl.head : after.next;
      if (after === null) lvl.head = n;
      else after.next = n;
      n.next!.prev = n;
    }
    lvl.count++;
    lvl.total += remaining;
    this.byId.set(idKey, n);
  }
}

/** A per-side count limit: NaN and negatives mean 0, fractions round down. */
function countLimit(n: number): number {
  return n > 0 ? Math.floor(n) : 0;
}

function depthOf(bs: BookSide, max: number): DepthLevel[] {
  const out: DepthLevel[] = [];
  const chunks = bs.levels.chunks;
  for (let ci = chunks.length - 1; ci >= 0; ci--) {
    const c = chunks[ci];
    for (let i = c.length - 1; i >= 0; i--) {
      if (out.length >= max) return out;
      const l = c[i];
      out.push({ price: l.price, size: l.total, orders: l.count });
    }
  }
  return out;
}

function ordersOf(bs: BookSide, max: number): RestingOrder[] {
  const out: RestingOrder[] = [];
  const chunks = bs.levels.chunks;
  for (let ci = chunks.length - 1; ci >= 0; ci--) {
    const c = chunks[ci];
    for (let i = c.length - 1; i >= 0; i--) {
      for (let n = c[i].head; n !== null; n = n.next) {
        if (out.length >= max) return out;
        out.push(snapshot(n));
      }
    }
  }
  return out;
}
