/**
 * Reduce-only orders (issue 24, decision 87): an order that may only bring its owner's
 * orderbook position (src/state/records.ts Position) towards zero, never past it.
 *
 * The rule holds at every fill, not only at placement:
 *   - placement: the order's side must oppose the position, and its size is shrunk to
 *     what the position still allows after the owner's older resting reduce-only orders
 *     on that side (allowance), rounded down to the lot; nothing left → 422
 *     WOULD_INCREASE_POSITION;
 *   - matching: before a taker walks the book, every resting reduce-only maker the walk
 *     would reach is capped at what its owner's position allows at that point of the
 *     walk (the maker may have been reduced by an earlier fill of the same walk):
 *     `makerCaps` plans it on copies, `applyMakerCaps` shrinks or cancels those orders
 *     when the taker commits;
 *   - upkeep: at the end of every order that changed positions (inside its transaction,
 *     after its fills), each touched owner's resting reduce-only orders on the pair are
 *     walked in id order against the position: the older ones keep their size while the
 *     allowance lasts, a later one is shrunk to what is left, and the rest (or any on the
 *     position's own side) are cancelled with reason 'reduce-only'.
 * So Σ remaining of an owner's resting reduce-only orders on a pair never exceeds
 * |position|, and no fill of one ever increases |position| (test/trading/
 * reduce-only.test.ts, a property test).
 */
import type { PairParams } from '../../genesis/types';
import type { Address } from '../../util/bytes';
import type { Size18 } from '../../util/fixed';
import type { ExecContext } from '../context';
import type { SimulationResult } from '../orderbook/engine';
import type { OpenOrder } from '../records';
import type { State } from '../state';
import { InvariantError } from '../state';
import { removeOrder, shrinkOrder } from './records';

const abs = (v: bigint) => (v < 0n ? -v : v);

/** The side that reduces a position of signed `size` (0 buy reduces a short), or null when flat. */
function reducingSide(size: bigint): 0 | 1 | null {
  return size > 0n ? 1 : size < 0n ? 0 : null;
}

/** The owner's resting reduce-only orders on a pair, in id order. */
export function reduceOnlyOrders(state: State, owner: Address, pairId: number): OpenOrder[] {
  if (!state.reduceOnlyOrders.get(owner)) return [];
  return state
    .openOrderIds(owner)
    .map((id) => state.orders.get(String(id))!)
    .filter((o) => o.reduceOnly && o.pairId === pairId);
}

/**
 * What a reduce-only order of `side` may still hold: |position| less the older resting
 * reduce-only orders on that side (all but `except`), rounded down to the lot; 0 when
 * the side does not reduce.
 */
export function reduceOnlyAllowance(state: State, pair: PairParams, owner: Address, side: 0 | 1, except?: bigint): Size18 {
  const pos = state.position(owner, pair.id).size;
  if (reducingSide(pos) !== side) return 0n;
  let left = abs(pos);
  for (const o of reduceOnlyOrders(state, owner, pair.id)) if (o.id !== except && o.side === side) left -= o.remaining;
  if (left <= 0n) return 0n;
  return left - (left % pair.lotSize);
}

/**
 * Caps on the reduce-only makers a taker's walk would reach, so that none of their
 * fills increases its owner's |position| (planned on copies: positions as the walk
 * changes them). `simulate(caps)` is the book's simulation under caps; the caps grow
 * until the simulation stops reaching an over-sized maker (at most one per maker).
 */
export function makerCaps(state: State, simulate: (caps: ReadonlyMap<bigint, bigint>) => SimulationResult): { caps: Map<bigint, bigint>; sim: SimulationResult } {
  const caps = new Map<bigint, bigint>();
  for (;;) {
    const sim = simulate(caps);
    const positions = new Map<string, bigint>();
    let capped = false;
    for (const f of sim.fills) {
      const m = state.orders.get(String(f.makerId));
      if (!m) throw new InvariantError(`maker order ${f.makerId} is in the book but not in state`);
      const key = `${m.owner}:${m.pairId}`;
      const pos = positions.get(key) ?? state.position(m.owner, m.pairId).size;
      const delta = m.side === 0 ? f.size : -f.size;
      if (m.reduceOnly && !caps.has(m.id)) {
        const may = reducingSide(pos) === m.side ? (abs(pos) < f.size ? abs(pos) : f.size) : 0n;
        if (may < f.size) {
          caps.set(m.id, may);
          capped = true;
          break;
        }
      }
      positions.set(key, pos + delta);
    }
    if (!capped) return { caps, sim };
  }
}

/** Commits planned caps: each capped maker is shrunk to its cap, or cancelled at 0 (reason 'reduce-only'). */
export function applyMakerCaps(ctx: ExecContext, caps: ReadonlyMap<bigint, bigint>): void {
  const ids = [...caps.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const id of ids) {
    const order = ctx.state.orders.get(String(id))!;
    const cap = caps.get(id)!;
    if (cap === 0n) removeOrder(ctx, id, 'reduce-only');
    else if (cap < order.remaining) shrinkOrder(ctx, order, cap);
  }
}

/** Upkeep after positions moved: the owner's resting reduce-only orders on the pair fit the position again (see the header). */
export function enforceReduceOnly(ctx: ExecContext, owner: Address, pair: PairParams): void {
  const orders = reduceOnlyOrders(ctx.state, owner, pair.id);
  if (orders.length === 0) return;
  const pos = ctx.state.position(owner, pair.id).size;
  const side = reducingSide(pos);
  let left = abs(pos);
  for (const o of orders) {
    const fit = o.side === side ? (o.remaining < left ? o.remaining : left - (left % pair.lotSize)) : 0n;
    if (fit <= 0n) removeOrder(ctx, o.id, 'reduce-only');
    else if (fit < o.remaining) shrinkOrder(ctx, o, fit);
    left -= fit > 0n ? fit : 0n;
  }
}
