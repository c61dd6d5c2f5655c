/**
 * Orderbook positions (the Position table, settled by src/state/orders/settlement.ts) seen by
 * the liquidation step (src/state/perps/book-liquidation.ts; docs/economics.md
 * "Orderbook positions: liquidation"; decision 53).
 *
 * Formulas (pure, integer): an orderbook position of signed size S (×1e18), signed cost
 * C (USDC units paid for the open size) and margin M is worth, at price P,
 *   upnl     = ±⌊P × |S| / 1e18⌋ − C            (+ for a long, − for a short)
 *   equity   = M + upnl
 *   maint    = ⌊⌊P × |S| / 1e18⌋ × mm / 10,000⌋  (mm: the pair's maintenanceMarginBps)
 * and is liquidated when equity < maint. Orderbook positions pay no funding, so the
 * liquidation price is a fixed function of the record, and the index key is a bound on
 * it that needs no search:
 *   long : key = ⌈((C − M) × 10⁴ + (10⁴ − mm)) × 1e18 / ((10⁴ − mm) × |S|)⌉ ≥ every liquidatable P
 *   short: key = ⌊(M − C) × 10⁴ × 1e18 / ((10⁴ + mm) × |S|)⌋            < every liquidatable P
 * (derivation in docs/economics.md). The bound is at most about 2 × 1e18 / |S| price
 * units wide of the exact price, so the few candidates inside it are confirmed with the
 * exact rule and never liquidated wrongly.
 *
 * BookLiqIndex is derived (not state): kept by the Position table's change hook,
 * including on rollback, and rebuilt from the records on load (State.rebuildIndexes).
 * The hook only notes the position's latest value; the sorted indexes are brought up to
 * date when read (markets, candidates, snapshot, size) or before a pair's parameters
 * change (settle(): the keys depend on the pair's maintenance margin, so each key is
 * computed with the margin in force when its position was written, as an eager update
 * would). A position written many times in a block (every fill of its owner) is then
 * re-keyed once, not once per write (issue 25, round two: decision 115).
 * It also keeps the positions the liquidity pool holds (owner POOL_BOOK_OWNER), which
 * are never liquidated (the pool has no margin; its USDC stands behind them).
 */
import type { Address } from '../../util/bytes';
import type { Position } from '../records';
import { SIZE_ONE } from '../orders/settlement';
import { absBig, BPS, ceilDiv, floorDiv, notional } from './math';
import { SortedIndex } from './sorted-index';

/** The owner under which the liquidity pool holds the orderbook positions it took over. */
export const POOL_BOOK_OWNER = '0x0000000000000000000000000000000000001003' as Address;
const POOL_KEY_PREFIX = `${POOL_BOOK_OWNER}:`;

/** Unrealized PnL of an orderbook position at `price`. */
export function bookUpnl(p: Position, price: bigint): bigint {
  const v = notional(price, absBig(p.size));
  return (p.size > 0n ? v : -v) - p.cost;
}

function bookEquity(p: Position, price: bigint): bigint {
  return p.margin + bookUpnl(p, price);
}

function bookMaintenance(p: Position, price: bigint, mmBps: number): bigint {
  return (notional(price, absBig(p.size)) * BigInt(mmBps)) / BPS;
}

/** The liquidation rule: equity below maintenance at the (oracle) price. */
export function bookLiquidatable(p: Position, price: bigint, mmBps: number): boolean {
  return p.size !== 0n && bookEquity(p, price) < bookMaintenance(p, price, mmBps);
}

const KEY_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const clampKey = (v: bigint): number => Number(v > KEY_MAX ? KEY_MAX : v < -KEY_MAX ? -KEY_MAX : v);

/** Index key: a long is liquidatable only at P ≤ key, a short only at P > key (header). */
export function bookLiquidationKey(p: Position, mmBps: number): number {
  const s = absBig(p.size);
  const mm = BigInt(mmBps);
  if (p.size > 0n) return clampKey(ceilDiv(((p.cost - p.margin) * BPS + (BPS - mm)) * SIZE_ONE, (BPS - mm) * s));
  return clampKey(floorDiv((p.margin - p.cost) * BPS * SIZE_ONE, (BPS + mm) * s));
}

/**
 * The exact liquidation price: for a long the highest price at which the rule holds (0
 * if none: a fully funded long), for a short the lowest. The rule is monotone in the
 * price (equity − maintenance = M − C + n − ⌊n × mm / 10⁴⌋ for a long, n = ⌊P|S|/1e18⌋),
 * so a bisection below the key finds it.
 */
export function bookLiquidationPrice(p: Position, mmBps: number): bigint {
  if (p.size === 0n) return 0n;
  const pred = (x: bigint) => bookLiquidatable(p, x, mmBps);
  const key = BigInt(bookLiquidationKey(p, mmBps));
  if (p.size > 0n) {
    if (key < 1n || !pred(1n)) return 0n;
    let lo = 1n; // pred true
    let hi = key + 1n; // pred false (key bounds every liquidatable price)
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if (pred(mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }
  let lo = key > 0n ? key : 0n; // pred false (every liquidatable price is above the key)
  let hi = lo + 1n;
  while (!pred(hi)) hi *= 2n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (pred(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

interface Entry {
  pairId: number;
  key: number;
  isLong: boolean;
  id: number;
}

interface BookMarket {
  /** Longs by key: scanned from the top down to the price. */
  long: SortedIndex;
  /** Shorts by key: scanned from the bottom up to the price. */
  short: SortedIndex;
}

const ownerOf = (positionKey: string) => positionKey.slice(0, positionKey.indexOf(':'));
const pairOf = (positionKey: string) => Number(positionKey.slice(positionKey.indexOf(':') + 1));

export class BookLiqIndex {
  private readonly _markets = new Map<number, BookMarket>();
  /** Positions written since the last settle(), by position key: their latest value (undefined: deleted). */
  private readonly pending = new Map<string, Position | undefined>();
  /** The pool's orderbook positions by pair. */
  readonly poolPositions = new Map<number, Position>();
  private readonly entries = new Map<string, Entry>();
  /** Owners interned to the numeric ids the sorted index holds (order never matters: candidates are sorted by owner). */
  private readonly ownerIds = new Map<string, number>();
  private readonly owners: string[] = [];

  constructor(private readonly mmBpsOf: (pairId: number) => number) {}

  get size(): number {
    this.settle();
    return this.entries.size;
  }

  /** The sorted indexes per pair, up to date. */
  get markets(): Map<number, BookMarket> {
    this.settle();
    return this._markets;
  }

  market(pairId: number): BookMarket {
    let m = this._markets.get(pairId);
    if (!m) this._markets.set(pairId, (m = { long: new SortedIndex(), short: new SortedIndex() }));
    return m;
  }

  clear(): void {
    this._markets.clear();
    this.poolPositions.clear();
    this.entries.clear();
    this.pending.clear();
  }

  /** The Position table's change hook: the pool's positions at once, a trader's noted for settle(). */
  onChange(_prev: Position | undefined, next: Position | undefined, positionKey: string): void {
    if (positionKey.startsWith(POOL_KEY_PREFIX)) {
      const pairId = pairOf(positionKey);
      if (next) this.poolPositions.set(pairId, next);
      else this.poolPositions.delete(pairId);
      return;
    }
    this.pending.set(positionKey, next);
  }

  /**
   * Re-keys the positions written since the last call, with `mmBpsOf` the pairs'
   * maintenance margins (the State's pair change hook passes the margins before the
   * change). The result depends only on their final values, not on the order of the writes.
   */
  settle(mmBpsOf: (pairId: number) => number = this.mmBpsOf): void {
    if (this.pending.size === 0) return;
    for (const [positionKey, next] of this.pending) this.rekey(positionKey, next, mmBpsOf);
    this.pending.clear();
  }

  private rekey(positionKey: string, next: Position | undefined, mmBpsOf: (pairId: number) => number): void {
    const owner = ownerOf(positionKey);
    const pairId = pairOf(positionKey);
    const old = this.entries.get(positionKey);
    if (old) {
      (old.isLong ? this.market(old.pairId).long : this.market(old.pairId).short).remove(old.key, old.id);
      this.entries.delete(positionKey);
    }
    if (!next || next.size === 0n) return;
    let id = this.ownerIds.get(owner);
    if (id === undefined) {
      id = this.owners.length;
      this.owners.push(owner);
      this.ownerIds.set(owner, id);
    }
    const e: Entry = { pairId, key: bookLiquidationKey(next, mmBpsOf(pairId)), isLong: next.size > 0n, id };
    (e.isLong ? this.market(pairId).long : this.market(pairId).short).insert(e.key, e.id);
    this.entries.set(positionKey, e);
  }

  /** Owners whose position on the pair the price may liquidate (keys it reaches), ascending address. */
  candidates(pairId: number, price: bigint): Address[] {
    this.settle();
    const m = this._markets.get(pairId);
    if (!m) return [];
    const p = clampKey(price);
    const ids = [...m.long.descendingTo(p), ...m.short.ascendingTo(p)];
    if (ids.length === 0) return ids as never[];
    return ids.map((id) => this.owners[id] as Address).sort();
  }

  /** Every indexed entry as [pairId, side, key, owner], sorted (tests: a rebuilt index equals the live one). */
  snapshot(): [number, 'long' | 'short', number, string][] {
    this.settle();
    const out: [number, 'long' | 'short', number, string][] = [];
    for (const [k, e] of this.entries) out.push([e.pairId, e.isLong ? 'long' : 'short', e.key, ownerOf(k)]);
    return out.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || a[2] - b[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0));
  }
}
