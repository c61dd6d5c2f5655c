/**
 * Modify (issue 24, decision 88): a new price and size for a resting order in one signed
 * action, keeping its id, its client order id, time in force and reduce-only flag.
 *   - `size` is the new unfilled rest (what stays on the book); the order's total
 *     becomes filled + size;
 *   - only the size shrinks at the same price → it keeps its time priority (in place);
 *     the price changes or the size grows → it goes to the back of its (new) level,
 *     with a priority number drawn from the order-id counter;
 *   - a modify never takes: a new price that meets the opposite side is refused 422
 *     WOULD_TAKE, whatever the time in force (cancel and place to take);
 *   - reduce-only: the size is shrunk to what the position allows (as at placement);
 *   - signed by a session key, it answers to the agent mode and caps of the account's
 *     authority (a sub-account's master), before the nonce (requireAgentModify);
 *   - the lock is recomputed: a shrink in place releases in proportion, as a fill does;
 *     a requeue locks restingLock(price, size, leverage, maker fee); a shortfall → 422
 *     INSUFFICIENT_BALANCE.
 * Validate, plan, then mutate, as src/state/orders/execution.ts does.
 */
import type { Address } from '../../util/bytes';
import type { Price6, Size18 } from '../../util/fixed';
import type { ExecContext } from '../context';
import { forbidden, rejected } from '../errors';
import { nextOrderId, orderNotOpen, pairOrThrow, validateOrder } from './execution';
import { writeOrder } from './records';
import { requireAgentMayOrder, requireAgentOrder } from '../accounts/agents';
import { authorityOf, isAgentSigner } from '../accounts/subaccounts';
import { reduceOnlyAllowance } from './reduce-only';
import { restingLock } from './settlement';
import { InvariantError, type State } from '../state';

interface ModifyInput {
  owner: Address;
  signer: Address;
  orderId: bigint;
  price: Price6;
  /** The new unfilled rest. */
  size: Size18;
}

interface ModifyOutcome {
  orderId: bigint;
  price: Price6;
  remaining: Size18;
  requeued: boolean;
}

/**
 * A modify signed by a session key answers to the agent mode and caps of the account's
 * authority (a sub-account's: its master's; decision 94), as a placement does: the
 * modified order is checked as a new limit order at the new price and size (a modify
 * never takes, so no fills). Decidable from the state alone, so it runs before the nonce
 * (NativeModify's authorize; decision 102) and again in execution. An order that is not
 * there, or not the owner's, is left to execution's refusal. Owner- or master-signed: nothing.
 */
export function requireAgentModify(state: State, m: Pick<ModifyInput, 'owner' | 'signer' | 'orderId' | 'price' | 'size'>): void {
  if (!isAgentSigner(state, m.owner, m.signer)) return;
  const authority = authorityOf(state, m.owner);
  requireAgentMayOrder(state, authority);
  const order = state.orders.get(String(m.orderId));
  if (!order || order.owner !== m.owner) return;
  requireAgentOrder(state, authority, { side: order.side, orderType: 1, price: m.price, size: m.size, leverage: order.leverage }, state.position(m.owner, order.pairId), []);
}

export function modifyOrder(ctx: ExecContext, m: ModifyInput): ModifyOutcome {
  const { state } = ctx;
  const order = state.orders.get(String(m.orderId));
  if (!order) throw orderNotOpen(state, m.orderId);
  if (order.owner !== m.owner) throw forbidden('NOT_OWNER', `order ${m.orderId} does not belong to ${m.owner}`);
  const pair = pairOrThrow(state, order.pairId);
  const shape = { side: order.side, orderType: 1 as const, price: m.price, size: m.size, leverage: order.leverage };
  validateOrder(pair, shape);
  requireAgentModify(state, m);
  let size = m.size;
  if (order.reduceOnly) {
    const allowance = reduceOnlyAllowance(state, pair, m.owner, order.side, order.id);
    if (allowance === 0n) throw rejected('WOULD_INCREASE_POSITION', `reduceOnly: order ${order.id} has no position left to reduce on ${pair.symbol}`);
    if (allowance < size) size = allowance;
  }
  const requeued = m.price !== order.price || size > order.remaining;
  const book = state.book(order.pairId);
  if (requeued && book.wouldCross(order.side, m.price)) {
    throw rejected('WOULD_TAKE', `price: order ${order.id} at ${m.price} would take liquidity on ${pair.symbol}; a modify never takes`);
  }
  const locked = requeued ? restingLock(m.price, size, order.leverage, ctx.params.fees.makerFeeBps) : (order.locked * size) / order.remaining;
  const acc = state.account(m.owner);
  if (locked - order.locked > acc.usdcFree) {
    throw rejected('INSUFFICIENT_BALANCE', `free balance ${acc.usdcFree} is short of the ${locked - order.locked - acc.usdcFree} USDC units this modify needs`);
  }

  // Commit: nothing below may fail.
  const seq = requeued ? nextOrderId(state) : order.seq;
  const moved = requeued ? book.requeue(order.id, m.price, size, seq!) : size < order.remaining ? book.resize(order.id, size) : true;
  if (!moved) throw new InvariantError(`order ${order.id} is in state but not in the book`);
  state.accounts.set(m.owner, { ...acc, usdcFree: acc.usdcFree - (locked - order.locked), usdcLocked: acc.usdcLocked + (locked - order.locked) });
  const total = order.size - order.remaining + size;
  writeOrder(state, { ...order, price: m.price, size: total, remaining: size, locked, ...(seq !== undefined ? { seq } : {}) });
  ctx.emit({
    type: 'OrderModified', orderId: String(order.id), owner: order.owner, pairId: order.pairId, symbol: pair.symbol, side: order.side,
    price: m.price, size: total, remaining: size, previousPrice: order.price, previousRemaining: order.remaining, requeued, locked,
    ...(order.cloid !== undefined ? { cloid: order.cloid } : {}), ...(size < m.size ? { reason: 'reduce-only' as const } : {}),
  });
  return { orderId: order.id, price: m.price, remaining: size, requeued };
}
