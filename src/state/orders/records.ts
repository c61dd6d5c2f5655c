/**
 * The resting-order records and what must move with them: the book, the owner's lock,
 * the client-order-id index (TableId.OrderCloid: `${owner}:${cloid}` → order id,
 * decision 87), and the OrderUpdated / OrderModified events. Every path that adds,
 * shrinks or ends a resting order goes through here so the four cannot drift apart.
 * These run after an order's checks passed (commit phase): they cannot fail.
 */
import type { Address, Hex } from '../../util/bytes';
import type { Size18 } from '../../util/fixed';
import type { ExecContext } from '../context';
import type { CancelReason } from '../events';
import type { OpenOrder } from '../records';
import { InvariantError, type State } from '../state';

const cloidKey = (owner: Address, cloid: Hex) => `${owner}:${cloid}`;

/** The open order a trader's client order id names, if any. */
export function orderIdByCloid(state: State, owner: Address, cloid: Hex): bigint | undefined {
  return state.orderCloids.get(cloidKey(owner, cloid));
}

/** Writes a resting order (new or changed) and its cloid index entry. */
export function writeOrder(state: State, order: OpenOrder): void {
  if (order.cloid !== undefined && !state.orders.has(String(order.id))) state.orderCloids.set(cloidKey(order.owner, order.cloid), order.id);
  state.orders.set(String(order.id), order);
}

/** Deletes a resting order's record and its cloid index entry (the book and the lock are the caller's). */
export function dropOrder(state: State, order: OpenOrder): void {
  state.orders.delete(String(order.id));
  if (order.cloid !== undefined) state.orderCloids.delete(cloidKey(order.owner, order.cloid));
}

/**
 * Removes a resting order from book and state and releases its lock. `inBook` false when
 * the engine already took it off the book (self-trade prevention).
 */
export function removeOrder(ctx: ExecContext, id: bigint, reason: CancelReason, inBook = true): OpenOrder {
  const { state } = ctx;
  const key = String(id);
  const order = state.orders.get(key);
  if (!order) throw new InvariantError(`order ${id} to remove is not in state`);
  if (inBook && !state.book(order.pairId).cancel(id)) throw new InvariantError(`order ${id} is in state but not in the book`);
  const acc = state.account(order.owner);
  state.accounts.set(order.owner, { ...acc, usdcFree: acc.usdcFree + order.locked, usdcLocked: acc.usdcLocked - order.locked });
  dropOrder(state, order);
  ctx.emit({
    type: 'OrderUpdated', orderId: key, owner: order.owner, pairId: order.pairId, status: 'cancelled',
    filled: order.size - order.remaining, remaining: order.remaining, reason, ...(order.cloid !== undefined ? { cloid: order.cloid } : {}),
  });
  return order;
}

/**
 * Shrinks a resting reduce-only order to `remaining` in place (its time priority kept),
 * releasing the lock of the part taken away (the lock scales with the rest, as a fill
 * releases it), and says so in an OrderModified event with reason 'reduce-only'.
 */
export function shrinkOrder(ctx: ExecContext, order: OpenOrder, remaining: Size18): void {
  const { state } = ctx;
  if (remaining <= 0n || remaining >= order.remaining) throw new InvariantError(`shrink of order ${order.id} to ${remaining} from ${order.remaining}`);
  if (!state.book(order.pairId).resize(order.id, remaining)) throw new InvariantError(`order ${order.id} is in state but not in the book`);
  const locked = (order.locked * remaining) / order.remaining;
  const acc = state.account(order.owner);
  state.accounts.set(order.owner, { ...acc, usdcFree: acc.usdcFree + (order.locked - locked), usdcLocked: acc.usdcLocked - (order.locked - locked) });
  const size = order.size - (order.remaining - remaining);
  writeOrder(state, { ...order, size, remaining, locked });
  const pair = state.pairs.get(String(order.pairId))!;
  ctx.emit({
    type: 'OrderModified', orderId: String(order.id), owner: order.owner, pairId: order.pairId, symbol: pair.symbol, side: order.side,
    price: order.price, size, remaining, previousPrice: order.price, previousRemaining: order.remaining, requeued: false, locked,
    ...(order.cloid !== undefined ? { cloid: order.cloid } : {}), reason: 'reduce-only',
  });
}
