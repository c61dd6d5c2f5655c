/**
 * A naive reference orderbook: two arrays kept sorted by priority (re-sorted on every
 * insert), matched by a linear scan. Deliberately simple so it is obviously right;
 * the property tests demand that OrderBook agrees with it exactly.
 */
import type { Address } from '../../src/util/bytes';
import type { Fill, RestingOrder, Side } from '../../src/state/orderbook/engine';

const SCALE = 10n ** 18n;

/** a before b in priority on its side: better price, then lower id. */
function before(a: RestingOrder, b: RestingOrder): number {
  if (a.price !== b.price) return (a.side === 0 ? a.price > b.price : a.price < b.price) ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface RefResult {
  fills: Fill[];
  filled: bigint;
  notional: bigint;
  remaining: bigint;
  rested: boolean;
  selfTradeCancelled: RestingOrder[];
}

export class RefBook {
  bids: RestingOrder[] = [];
  asks: RestingOrder[] = [];

  private take(side: Side, owner: Address, size: bigint, limit: bigint | null): RefResult {
    const book = side === 0 ? this.asks : this.bids;
    const res: RefResult = { fills: [], filled: 0n, notional: 0n, remaining: size, rested: false, selfTradeCancelled: [] };
    let i = 0;
    while (res.remaining > 0n && i < book.length) {
      const m = book[i];
      if (limit !== null && (side === 0 ? m.price > limit : m.price < limit)) break;
      if (m.owner === owner) {
        res.selfTradeCancelled.push({ ...m });
        book.splice(i, 1);
        continue;
      }
      const t = res.remaining < m.remaining ? res.remaining : m.remaining;
      m.remaining -= t;
      res.remaining -= t;
      res.filled += t;
      res.notional += (m.price * t) / SCALE;
      res.fills.push({ makerId: m.id, maker: m.owner, makerIsAgent: m.isAgent, price: m.price, size: t, makerRemaining: m.remaining });
      if (m.remaining === 0n) book.splice(i, 1);
      else i++;
    }
    return res;
  }

  placeLimit(o: { id: bigint; owner: Address; side: Side; price: bigint; size: bigint; isAgent: boolean }): RefResult {
    const res = this.take(o.side, o.owner, o.size, o.price);
    if (res.remaining > 0n) {
      this.insert({ id: o.id, owner: o.owner, side: o.side, price: o.price, remaining: res.remaining, isAgent: o.isAgent });
      res.rested = true;
    }
    return res;
  }

  placeMarket(o: { owner: Address; side: Side; size: bigint; worstPrice: bigint | null }): RefResult {
    return this.take(o.side, o.owner, o.size, o.worstPrice);
  }

  insert(o: RestingOrder): void {
    const arr = o.side === 0 ? this.bids : this.asks;
    arr.push({ ...o });
    arr.sort(before);
  }

  cancel(id: bigint): RestingOrder | undefined {
    for (const arr of [this.bids, this.asks]) {
      const i = arr.findIndex((o) => o.id === id);
      if (i >= 0) return arr.splice(i, 1)[0];
    }
    return undefined;
  }

  orders(): RestingOrder[] {
    return [...this.bids, ...this.asks].map((o) => ({ ...o }));
  }
}
