/**
 * Placing and cancelling orders: the one path every order kind goes through (REST,
 * batch, native, session keys). Order of work, so a rejected order changes nothing:
 *   1. validate against the pair (tick, lot, minimum, leverage)        → 400
 *   2. simulate the match and settle it on copies of the taker's
 *      account and position; any shortfall rejects, as does a pair
 *      without a spot book (decision 76)                              → 422
 *   3. only then mutate: the engine matches (must equal the simulation),
 *      taker and makers settle, fees move, events are emitted.
 * Nothing after step 3 begins can fail by design; if it does, it is a bug and the
 * node halts (InvariantError) rather than leave the engine and the tables apart.
 *
 * Order options (issue 24, decision 87): a client order id (unique per owner among open
 * orders: 409 DUPLICATE_CLOID), a time in force (Gtc rests; Ioc never rests, its
 * unfilled rest is cancelled with reason 'ioc'; Alo is refused 422 WOULD_TAKE when its
 * price meets the opposite side), and reduce-only (src/state/orders/reduce-only.ts).
 */
import type { PairParams } from '../../genesis/types';
import type { Address } from '../../util/bytes';
import type { ExecContext } from '../context';
import type { Hex } from '../../util/bytes';
import type { TimeInForce } from '../../codec/txs/options';
import { badRequest, conflict, forbidden, rejected, TxError } from '../errors';
import type { CancelReason, OrderStatus, OrderTerms } from '../events';
import type { OpenOrder, Position } from '../records';
import { dropOrder, orderIdByCloid, removeOrder, writeOrder } from './records';
import { applyMakerCaps, enforceReduceOnly, makerCaps, reduceOnlyAllowance } from './reduce-only';
import { makerFee, notional, restingLock, settleFill, takerFee } from './settlement';
import { requireAgentOrder } from '../accounts/agents';
import { requireSpot } from '../pair-markets';
import { InvariantError } from '../state';
import { authorityOf, isAgentSigner } from '../accounts/subaccounts';
import type { State } from '../state';
import type { Price6, Size18, Usdc6 } from '../../util/fixed';

/** An order to place: its signed terms (the shape OrderPlaced reports), isAgent asserted against signer ≠ owner. */
export interface OrderInput extends OrderTerms {
  /** Default false. */
  reduceOnly?: boolean;
}

interface OrderOutcome {
  orderId: bigint;
  status: OrderStatus;
  filled: Size18;
  remaining: Size18;
  /** Σ notional of the fills (USDC units): the average price is notional × 1e18 / filled. */
  notional: Usdc6;
}

export function pairOrThrow(state: State, pairId: number): PairParams {
  const pair = state.pairs.get(String(pairId));
  if (!pair) throw badRequest('UNKNOWN_PAIR', `pairId: no pair ${pairId}`);
  return pair;
}

/** Checks that need only the pair's parameters (400). `sizeField`: the size's name on the wire (native routes: `size`). */
export function validateOrder(pair: PairParams, o: Pick<OrderInput, 'orderType' | 'price' | 'size' | 'leverage' | 'side'>, sizeField = 'amount'): void {
  if (o.side !== 0 && o.side !== 1) throw badRequest('INVALID_SIDE', 'side: must be buy or sell');
  if (o.size <= 0n) throw badRequest('INVALID_AMOUNT', `${sizeField}: must be positive`);
  if (o.size % pair.lotSize !== 0n) throw badRequest('INVALID_AMOUNT', `${sizeField}: must be a multiple of the lot size ${pair.lotSize} (×1e-18)`);
  if (o.size < pair.minSize) throw badRequest('INVALID_AMOUNT', `${sizeField}: below the minimum size ${pair.minSize} (×1e-18)`);
  if (o.orderType === 1 && o.price <= 0n) throw badRequest('INVALID_PRICE', 'price: a limit order needs a positive price');
  if (o.price < 0n || (o.price > 0n && o.price % pair.tickSize !== 0n)) {
    throw badRequest('INVALID_PRICE', `price: must be a multiple of the tick size ${pair.tickSize} (×1e-6)`);
  }
  if (o.price > BigInt(Number.MAX_SAFE_INTEGER)) throw badRequest('INVALID_PRICE', 'price: too large');
  if (!Number.isInteger(o.leverage) || o.leverage < 1 || o.leverage > pair.maxLeverage) {
    throw badRequest('INVALID_LEVERAGE', `leverage: must be an integer from 1 to ${pair.maxLeverage}`);
  }
}

/** The order-id counter: ids, and the priority numbers of requeued orders (decision 88), are drawn from it. */
export function nextOrderId(state: State): bigint {
  const id = (state.meta.get('nextOrderId') as bigint | undefined) ?? 1n;
  state.meta.set('nextOrderId', id + 1n);
  return id;
}

/** Ids below the counter were drawn: an order that is not open is known but ended (decision 89). */
export function orderNotOpen(state: State, id: bigint, field = 'orderId'): TxError {
  const next = (state.meta.get('nextOrderId') as bigint | undefined) ?? 1n;
  if (id >= 1n && id < next) return rejected('ORDER_NOT_OPEN', `${field}: order ${id} is not open (filled or cancelled)`);
  return new TxError(404, 'UNKNOWN_ORDER', `${field}: no open order ${id}`);
}

const posKey = (owner: Address, pairId: number) => `${owner}:${pairId}`;

function writePosition(state: State, owner: Address, pairId: number, p: Position): void {
  if (p.size === 0n && p.cost === 0n && p.margin === 0n) state.positions.delete(posKey(owner, pairId));
  else state.positions.set(posKey(owner, pairId), p);
}

export function placeOrder(ctx: ExecContext, o: OrderInput): OrderOutcome {
  const { state, params } = ctx;
  const pair = pairOrThrow(state, o.pairId);
  validateOrder(pair, o);
  const tif: TimeInForce = o.tif ?? 'Gtc';
  const isLimit = o.orderType === 1;
  if (tif === 'Alo' && !isLimit) throw badRequest('INVALID_OPTIONS', 'tif: Alo (post-only) needs a limit order');
  const rests = isLimit && tif !== 'Ioc';
  const book = state.book(o.pairId);
  const bound = o.price > 0n ? o.price : null;

  // 2. Plan on copies: the taker's fills, fees and the lock for any resting rest.
  if (o.cloid !== undefined && orderIdByCloid(state, o.owner, o.cloid) !== undefined) {
    throw conflict('DUPLICATE_CLOID', `cloid: ${o.owner} already has an open order with cloid ${o.cloid}`);
  }
  let size = o.size;
  if (o.reduceOnly) {
    const allowance = reduceOnlyAllowance(state, pair, o.owner, o.side);
    if (allowance === 0n) throw rejected('WOULD_INCREASE_POSITION', `reduceOnly: a ${o.side === 0 ? 'buy' : 'sell'} would not reduce ${o.owner}'s position on ${pair.symbol}`);
    if (allowance < size) size = allowance;
  }
  if (tif === 'Alo' && book.wouldCross(o.side, o.price)) throw rejected('WOULD_TAKE', `tif: an Alo (post-only) order at ${o.price} would take liquidity on ${pair.symbol}`);
  const { caps, sim } = makerCaps(state, (c) => book.simulate(o.side, size, bound, o.owner, c));
  // An order signed by the owner's session key answers to the owner's agent mode and
  // caps (403, before any balance rule: contract [D-envelope-order]; decision 17). Who may sign at all was
  // settled by the kind's signer rule (src/state/accounts/sessions.ts).
  // A sub-account's master is not an agent; its master's session key answers to the master's settings (decision 94).
  if (o.isAgent !== isAgentSigner(state, o.owner, o.signer)) throw new InvariantError(`order input: isAgent ${o.isAgent} but signer ${o.signer}, owner ${o.owner}`);
  if (o.isAgent) requireAgentOrder(state, authorityOf(state, o.owner), { ...o, size }, state.position(o.owner, o.pairId), sim.fills);
  // A perp-only pair has no spot book (decision 76): 422, after shape and who may.
  requireSpot(pair);
  if (!isLimit && sim.filled === 0n) throw rejected('NO_LIQUIDITY', `no liquidity for a market ${o.side === 0 ? 'buy' : 'sell'} on ${pair.symbol}`);
  const account = state.account(o.owner);
  let position = state.position(o.owner, o.pairId);
  let wallet = { free: account.usdcFree, inPositions: account.usdcInPositions };
  let fees = 0n;
  const signed = o.side === 0 ? 1n : -1n;
  for (const f of sim.fills) {
    const s = settleFill(position, wallet, signed * f.size, f.price, o.leverage, 'taker');
    const fee = takerFee(notional(f.price, f.size), params.fees.takerFeeBps);
    position = s.position;
    wallet = { ...s.wallet, free: s.wallet.free - fee };
    fees += fee;
  }
  const rest = rests ? size - sim.filled : 0n;
  const lock = rest > 0n ? restingLock(o.price, rest, o.leverage, params.fees.makerFeeBps) : 0n;
  if (wallet.free - lock < 0n) {
    throw rejected('INSUFFICIENT_BALANCE', `free balance ${account.usdcFree} is short of the ${account.usdcFree - (wallet.free - lock)} USDC units this order needs`);
  }

  // 3. Commit: from here on nothing may fail.
  const orderId = nextOrderId(state);
  const cloidField = o.cloid !== undefined ? { cloid: o.cloid } : {};
  try {
    ctx.emit({
      type: 'OrderPlaced', orderId: String(orderId), owner: o.owner, signer: o.signer, pairId: o.pairId, symbol: pair.symbol,
      side: o.side, orderType: o.orderType, price: o.price, size, leverage: o.leverage, isAgent: o.isAgent,
      ...cloidField, ...(o.tif !== undefined ? { tif: o.tif } : {}), ...(o.reduceOnly ? { reduceOnly: true as const } : {}),
    });
    // Reduce-only makers the walk would over-fill are cut first (planned above: the walk below meets exactly the plan).
    applyMakerCaps(ctx, caps);
    const result = rests
      ? book.placeLimit({ id: orderId, owner: o.owner, side: o.side, price: o.price, size, isAgent: o.isAgent })
      : book.placeMarket({ id: orderId, owner: o.owner, side: o.side, size, worstPrice: bound, isAgent: o.isAgent });
    if (result.filled !== sim.filled || result.fills.length !== sim.fills.length) {
      throw new InvariantError(`engine fills differ from its simulation for order ${orderId}`);
    }
    for (const cancelled of result.selfTradeCancelled) removeOrder(ctx, cancelled.id, 'self-trade', false);
    // The plan as deltas: self-trade cancels above may already have released locks.
    const now = state.account(o.owner);
    state.accounts.set(o.owner, {
      ...now,
      usdcFree: now.usdcFree + (wallet.free - lock - account.usdcFree),
      usdcLocked: now.usdcLocked + lock,
      usdcInPositions: now.usdcInPositions + (wallet.inPositions - account.usdcInPositions),
    });
    writePosition(state, o.owner, o.pairId, position);
    if (fees > 0n) {
      const fa = state.account(params.feeAccount);
      state.accounts.set(params.feeAccount, { ...fa, usdcFree: fa.usdcFree + fees });
    }
    const touched: Address[] = [o.owner];
    for (const f of result.fills) {
      const makerCloid = state.orders.get(String(f.makerId))?.cloid;
      const usdc = notional(f.price, f.size);
      const mFee = makerFee(usdc, params.fees.makerFeeBps);
      settleMaker(ctx, f.makerId, f.price, f.size, f.makerRemaining, mFee);
      if (!touched.includes(f.maker)) touched.push(f.maker);
      const buyerIsTaker = o.side === 0;
      ctx.emit({
        type: 'TradeExecuted', pairId: o.pairId, symbol: pair.symbol, price: f.price, size: f.size, usdc,
        buyer: buyerIsTaker ? o.owner : f.maker, seller: buyerIsTaker ? f.maker : o.owner,
        buyerIsAgent: buyerIsTaker ? o.isAgent : f.makerIsAgent, sellerIsAgent: buyerIsTaker ? f.makerIsAgent : o.isAgent,
        takerSide: o.side, makerOrderId: String(f.makerId), takerOrderId: String(orderId), takerFee: takerFee(usdc, params.fees.takerFeeBps),
        ...(makerCloid !== undefined ? { makerCloid } : {}), ...(o.cloid !== undefined ? { takerCloid: o.cloid } : {}),
        ...(mFee > 0n ? { makerFee: mFee } : {}),
      });
    }
    let status: OrderStatus;
    if (result.rested) {
      writeOrder(state, {
        id: orderId, owner: o.owner, signer: o.signer, pairId: o.pairId, side: o.side, price: o.price, size,
        remaining: result.remaining, leverage: o.leverage, locked: lock, isAgent: o.isAgent, createdMs: ctx.header.timestampMs,
        ...cloidField, tif: tif === 'Alo' ? 'Alo' : 'Gtc', reduceOnly: o.reduceOnly === true,
      });
      status = result.filled > 0n ? 'partial' : 'open';
    } else status = result.remaining === 0n ? 'filled' : 'cancelled';
    ctx.emit({
      type: 'OrderUpdated', orderId: String(orderId), owner: o.owner, pairId: o.pairId, status, filled: result.filled, remaining: result.remaining,
      ...(status === 'cancelled' ? { reason: tif === 'Ioc' ? 'ioc' : 'market-rest' } : {}), ...cloidField,
    });
    // Positions moved: every touched owner's resting reduce-only orders fit them again (decision 87).
    if (result.fills.length > 0) for (const owner of touched) enforceReduceOnly(ctx, owner, pair);
    return { orderId, status, filled: result.filled, remaining: result.remaining, notional: result.notional };
  } catch (err) {
    if (err instanceof InvariantError) throw err;
    throw new InvariantError(`order ${orderId} failed after the engine matched it: ${(err as Error).message}`);
  }
}

/** A maker's side of a fill: its lock pays its opening margin and its maker fee (to the fee account); closing realizes PnL. */
function settleMaker(ctx: ExecContext, makerId: bigint, price: Price6, size: Size18, makerRemaining: Size18, fee: Usdc6): void {
  const { state } = ctx;
  const key = String(makerId);
  const order = state.orders.get(key);
  if (!order) throw new InvariantError(`maker order ${makerId} is in the book but not in state`);
  const release = makerRemaining === 0n ? order.locked : (order.locked * size) / order.remaining;
  const acc = state.account(order.owner);
  const s = settleFill(
    state.position(order.owner, order.pairId),
    { free: acc.usdcFree + release, inPositions: acc.usdcInPositions },
    (order.side === 0 ? 1n : -1n) * size,
    price,
    order.leverage,
    'maker',
  );
  const free = s.wallet.free - fee;
  state.accounts.set(order.owner, { ...acc, usdcFree: free, usdcLocked: acc.usdcLocked - release, usdcInPositions: s.wallet.inPositions });
  if (fee > 0n) {
    const fa = state.account(ctx.params.feeAccount);
    state.accounts.set(ctx.params.feeAccount, { ...fa, usdcFree: fa.usdcFree + fee });
  }
  writePosition(state, order.owner, order.pairId, s.position);
  if (free < 0n) ctx.emit({ type: 'BadDebt', owner: order.owner, pairId: order.pairId, usdc: -free });
  const filled = order.size - makerRemaining;
  if (makerRemaining === 0n) dropOrder(state, order);
  else writeOrder(state, { ...order, remaining: makerRemaining, locked: order.locked - release });
  ctx.emit({
    type: 'OrderUpdated', orderId: key, owner: order.owner, pairId: order.pairId,
    status: makerRemaining === 0n ? 'filled' : 'partial', filled, remaining: makerRemaining, ...(order.cloid !== undefined ? { cloid: order.cloid } : {}),
  });
}

/**
 * Cancels one resting order of `owner`: 404 UNKNOWN_ORDER never placed, 422
 * ORDER_NOT_OPEN placed but ended (decision 89), 403 not the owner's.
 */
export function cancelOrder(ctx: ExecContext, owner: Address, id: bigint): OpenOrder {
  const order = ctx.state.orders.get(String(id));
  if (!order) throw orderNotOpen(ctx.state, id);
  if (order.owner !== owner) throw forbidden('NOT_OWNER', `order ${id} does not belong to ${owner}`);
  return removeOrder(ctx, id, 'user');
}

/** Cancels the open order `owner`'s client order id names: 404 UNKNOWN_ORDER when none is open (decision 87). */
export function cancelByCloid(ctx: ExecContext, owner: Address, cloid: Hex): OpenOrder {
  const id = orderIdByCloid(ctx.state, owner, cloid);
  if (id === undefined) throw new TxError(404, 'UNKNOWN_ORDER', `cloid: ${owner} has no open order with cloid ${cloid}`);
  return cancelOrder(ctx, owner, id);
}

/**
 * Cancels an owner's resting orders on one pair, in id order, releasing their locks as a
 * cancel does (event reason `reason`): the first step of an orderbook liquidation
 * (src/state/perps/book-liquidation.ts). Runs at the end of a block; cannot fail.
 */
export function cancelPairOrders(ctx: ExecContext, owner: Address, pairId: number, reason: CancelReason): bigint[] {
  const ids = ctx.state.openOrderIds(owner).filter((id) => ctx.state.orders.get(String(id))!.pairId === pairId);
  for (const id of ids) removeOrder(ctx, id, reason);
  return ids;
}

/** Cancels every open or partial order of `owner`, in id order. */
export function cancelAll(ctx: ExecContext, owner: Address): bigint[] {
  const ids = ctx.state.openOrderIds(owner);
  for (const id of ids) cancelOrder(ctx, owner, id);
  return ids;
}
