/**
 * The derived view of the open perp positions (not state: rebuilt from the
 * PerpPosition table on load and kept exact by the table's change hook, including on
 * rollback), per market:
 *   - aggregates per side: Σ size, Σ entry notional, Σ margin, count; the pool's
 *     mark-to-market and the open-interest caps read them in O(markets);
 *   - the ids of each side (ADL scans one side, only when ADL triggers);
 *   - liquidation indexes (longs by key descending, shorts ascending; keys from
 *     math.liquidationKey) and TP/SL trigger indexes (`up`: fires when price ≥ level,
 *     long TP and short SL; `down`: fires when price ≤ level, long SL and short TP).
 * Each end-of-block check reads only the entries its price reaches.
 */
import type { Address } from '../../util/bytes';
import type { PerpPosition } from '../records';
import { liquidationKey, notional } from './math';
import { SortedIndex } from './sorted-index';

interface SideAgg {
  size: bigint;
  /** Σ entry notional (⌊entry × size / 1e18⌋ per position). */
  entryNotional: bigint;
  margin: bigint;
  count: number;
  ids: Set<number>;
}

interface MarketBook {
  long: SideAgg;
  short: SideAgg;
  liqLong: SortedIndex;
  liqShort: SortedIndex;
  up: SortedIndex;
  down: SortedIndex;
}

interface Entry {
  pairId: number;
  liqKey: number;
  isLong: boolean;
  up: number | null;
  down: number | null;
}

const newSide = (): SideAgg => ({ size: 0n, entryNotional: 0n, margin: 0n, count: 0, ids: new Set() });

/** The TP/SL levels of a position as (up, down) trigger prices. */
function triggerLevels(p: Pick<PerpPosition, 'isLong' | 'takeProfit' | 'stopLoss'>): { up: bigint; down: bigint } {
  return p.isLong ? { up: p.takeProfit, down: p.stopLoss } : { up: p.stopLoss, down: p.takeProfit };
}

export class PerpBook {
  readonly markets = new Map<number, MarketBook>();
  readonly byOwner = new Map<Address, Set<number>>();
  private readonly entries = new Map<number, Entry>();
  /** Σ margin of all open positions (the invariant compares it with the accounts' share). */
  totalMargin = 0n;

  constructor(private readonly mmBpsOf: (pairId: number) => number) {}

  market(pairId: number): MarketBook {
    let m = this.markets.get(pairId);
    if (!m) {
      m = { long: newSide(), short: newSide(), liqLong: new SortedIndex(), liqShort: new SortedIndex(), up: new SortedIndex(), down: new SortedIndex() };
      this.markets.set(pairId, m);
    }
    return m;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The table's change hook: prev and next of one position record. */
  onChange(prev: PerpPosition | undefined, next: PerpPosition | undefined): void {
    if (prev) this.remove(prev);
    if (next) this.add(next);
  }

  clear(): void {
    this.markets.clear();
    this.byOwner.clear();
    this.entries.clear();
    this.totalMargin = 0n;
  }

  private add(p: PerpPosition): void {
    const id = Number(p.id);
    const m = this.market(p.pairId);
    const side = p.isLong ? m.long : m.short;
    side.size += p.size;
    side.entryNotional += notional(p.entryPrice, p.size);
    side.margin += p.margin;
    side.count++;
    side.ids.add(id);
    this.totalMargin += p.margin;
    let owned = this.byOwner.get(p.owner);
    if (!owned) this.byOwner.set(p.owner, (owned = new Set()));
    owned.add(id);
    const liqKey = liquidationKey(p, this.mmBpsOf(p.pairId));
    (p.isLong ? m.liqLong : m.liqShort).insert(liqKey, id);
    const { up, down } = triggerLevels(p);
    const e: Entry = { pairId: p.pairId, liqKey, isLong: p.isLong, up: up > 0n ? Number(up) : null, down: down > 0n ? Number(down) : null };
    if (e.up !== null) m.up.insert(e.up, id);
    if (e.down !== null) m.down.insert(e.down, id);
    this.entries.set(id, e);
  }

  private remove(p: PerpPosition): void {
    const id = Number(p.id);
    const e = this.entries.get(id);
    if (!e) throw new Error(`perp book: position ${id} is not indexed`);
    const m = this.market(p.pairId);
    const side = p.isLong ? m.long : m.short;
    side.size -= p.size;
    side.entryNotional -= notional(p.entryPrice, p.size);
    side.margin -= p.margin;
    side.count--;
    side.ids.delete(id);
    this.totalMargin -= p.margin;
    const owned = this.byOwner.get(p.owner);
    owned?.delete(id);
    if (owned && owned.size === 0) this.byOwner.delete(p.owner);
    (e.isLong ? m.liqLong : m.liqShort).remove(e.liqKey, id);
    if (e.up !== null) m.up.remove(e.up, id);
    if (e.down !== null) m.down.remove(e.down, id);
    this.entries.delete(id);
  }

  /** Open position ids of an owner, ascending. */
  ownerIds(owner: Address): number[] {
    return [...(this.byOwner.get(owner) ?? [])].sort((a, b) => a - b);
  }
}
