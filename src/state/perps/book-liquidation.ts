/**
 * Liquidation of orderbook positions (decision 53; docs/economics.md
 * "Orderbook positions: liquidation"), every block after the perp liquidations.
 *
 * Per pair with a FRESH oracle price (a stale one pauses this market, as for perps), the
 * positions whose equity (margin + unrealized PnL at the oracle price) is below
 * maintenance (maintenanceMarginBps of the notional at the oracle price) are taken over
 * by the liquidity pool:
 *   1. the owner's resting orders on that pair are cancelled, their locks released;
 *   2. the position closes at the oracle price: PnL realized, the pair's taker fee on the
 *      notional to the fee account (capped by the equity left), the rest of the equity
 *      to the owner's free balance (never below zero);
 *   3. the pool becomes the holder of the same signed size at the oracle price (merged
 *      into the orderbook position it may already hold on the pair), so the pair's
 *      positions still net to zero and every counterparty can realize its PnL;
 *   4. a loss beyond the margin (equity < 0) is taken from the owner's own free balance
 *      as far as it is positive (an orderbook loss beyond margin reaches the free
 *      balance: decisions 24 and 44), and the rest is paid by the pool: out of its USDC,
 *      and what that cannot cover is added to the cost of the pool's position (a worse
 *      entry: the pool's mark-to-market value carries the loss). Nobody else pays.
 *
 * Candidates come from the index (src/state/perps/book-index.ts): only the entries the
 * price reaches, each confirmed with the exact rule.
 */
import type { Address } from '../../util/bytes';
import type { ExecContext } from '../context';
import { oraclePrice } from '../oracle';
import { cancelPairOrders } from '../orders/execution';
import type { Position } from '../records';
import { takerFee } from '../orders/settlement';
import type { State } from '../state';
import { absBig, notional } from './math';
import { bookLiquidatable, bookUpnl, POOL_BOOK_OWNER } from './book-index';
import { payFromPool, payToPool } from './pool';
import type { Price6, Size18, Usdc6 } from '../../util/fixed';

interface BookLiquidation {
  owner: Address;
  pairId: number;
  /** Signed size taken over by the pool. */
  size: Size18;
  price: Price6;
  margin: Usdc6;
  pnl: Usdc6;
  fee: Usdc6;
  /** USDC to the owner's free balance. */
  payout: Usdc6;
  /** Loss beyond margin (−equity when negative). */
  shortfall: Usdc6;
  coveredByOwner: Usdc6;
  coveredByPool: Usdc6;
  ordersCancelled: bigint[];
}

interface BookLiqStats {
  liquidations: number;
  badDebt: bigint;
  last: { owner: Address; pairId: number; size: bigint; price: bigint; timeMs: number; shortfall: bigint } | null;
}

const EMPTY_BOOK_LIQ_STATS: BookLiqStats = { liquidations: 0, badDebt: 0n, last: null };

export function bookLiqStats(state: State): BookLiqStats {
  return (state.meta.get('bookLiqStats') as BookLiqStats | undefined) ?? EMPTY_BOOK_LIQ_STATS;
}

const posKey = (owner: Address, pairId: number) => `${owner}:${pairId}`;

function writePosition(state: State, owner: Address, pairId: number, p: Position): void {
  if (p.size === 0n && p.cost === 0n && p.margin === 0n) state.positions.delete(posKey(owner, pairId));
  else state.positions.set(posKey(owner, pairId), p);
}

/**
 * The pool takes `signedSize` at `price` into its orderbook position on the pair (no
 * margin): an opposite part closes what it holds (realized PnL to or from its USDC), the
 * rest opens at the price. `debt` is a loss the pool also pays (a liquidated position's
 * shortfall). What its USDC cannot pay stays in the position's cost.
 */
function poolTakeOver(state: State, pairId: number, signedSize: Size18, price: Price6, debt: Usdc6): { realized: Usdc6; paid: Usdc6; unpaid: Usdc6 } {
  const held = state.position(POOL_BOOK_OWNER, pairId);
  const dir = signedSize > 0n ? 1n : -1n;
  const qty = absBig(signedSize);
  const total = notional(price, qty);
  let { size, cost } = held;
  let realized = 0n;
  let closeQty = 0n;
  let closeNotional = 0n;
  if (size !== 0n && (size > 0n) !== (dir > 0n)) {
    const h = absBig(size);
    closeQty = qty < h ? qty : h;
    const releasedCost = closeQty === h ? cost : (cost * closeQty) / h;
    closeNotional = notional(price, closeQty);
    realized = (dir > 0n ? -closeNotional : closeNotional) - releasedCost;
    size += dir * closeQty;
    cost -= releasedCost;
  }
  const openQty = qty - closeQty;
  if (openQty > 0n) {
    size += dir * openQty;
    cost += dir * (total - closeNotional);
  }
  const net = realized - debt;
  let paid = 0n;
  let unpaid = 0n;
  if (net > 0n) payToPool(state, net);
  else if (net < 0n) {
    paid = payFromPool(state, -net);
    unpaid = -net - paid;
    cost += unpaid;
  }
  writePosition(state, POOL_BOOK_OWNER, pairId, { size, cost, margin: 0n });
  return { realized, paid, unpaid };
}

/** Liquidates one orderbook position at `price` (the caller confirmed the rule). */
function liquidateBookPosition(ctx: ExecContext, owner: Address, pairId: number, price: Price6): BookLiquidation {
  const { state, params } = ctx;
  const ordersCancelled = cancelPairOrders(ctx, owner, pairId, 'liquidation');
  const pos = state.position(owner, pairId);
  const pnl = bookUpnl(pos, price);
  const equity = pos.margin + pnl;
  const feeWanted = takerFee(notional(price, absBig(pos.size)), params.fees.takerFeeBps);
  const fee = equity <= 0n ? 0n : feeWanted < equity ? feeWanted : equity;
  const payout = equity > fee ? equity - fee : 0n;
  const shortfall = equity < 0n ? -equity : 0n;
  const acc = state.account(owner);
  const coveredByOwner = shortfall > 0n && acc.usdcFree > 0n ? (shortfall < acc.usdcFree ? shortfall : acc.usdcFree) : 0n;
  const coveredByPool = shortfall - coveredByOwner;
  state.accounts.set(owner, { ...acc, usdcFree: acc.usdcFree + payout - coveredByOwner, usdcInPositions: acc.usdcInPositions - pos.margin });
  if (fee > 0n) {
    const fa = state.account(params.feeAccount);
    state.accounts.set(params.feeAccount, { ...fa, usdcFree: fa.usdcFree + fee });
  }
  state.positions.delete(posKey(owner, pairId));
  poolTakeOver(state, pairId, pos.size, price, coveredByPool);
  const pair = state.pairs.get(String(pairId))!;
  ctx.emit({
    type: 'BookLiquidated', owner, pairId, symbol: pair.symbol, size: pos.size, price, cost: pos.cost, margin: pos.margin, pnl, fee, payout,
    ...(shortfall > 0n ? { shortfall, coveredByOwner, coveredByPool } : {}), ordersCancelled: ordersCancelled.map(String),
  });
  return { owner, pairId, size: pos.size, price, margin: pos.margin, pnl, fee, payout, shortfall, coveredByOwner, coveredByPool, ordersCancelled };
}

/**
 * The end-of-block step: per pair (ascending id) with a fresh oracle price, the
 * positions the index says the price may reach, confirmed with the exact rule, in
 * ascending owner order. Returns how many were liquidated.
 */
export function liquidateBook(ctx: ExecContext): number {
  const { state, header } = ctx;
  let count = 0;
  let badDebt = 0n;
  let last: BookLiqStats['last'] = null;
  const pairIds = [...state.bookLiq.markets.keys()].sort((a, b) => a - b);
  for (const pairId of pairIds) {
    const m = state.bookLiq.markets.get(pairId)!;
    if (m.long.size + m.short.size === 0) continue;
    const op = oraclePrice(state, pairId, header.timestampMs);
    if (!op?.fresh) continue;
    const mm = state.pairs.get(String(pairId))!.maintenanceMarginBps;
    for (const owner of state.bookLiq.candidates(pairId, op.price)) {
      if (!bookLiquidatable(state.position(owner, pairId), op.price, mm)) continue;
      const r = liquidateBookPosition(ctx, owner, pairId, op.price);
      count++;
      badDebt += r.coveredByPool;
      last = { owner, pairId, size: r.size, price: op.price, timeMs: header.timestampMs, shortfall: r.shortfall };
    }
  }
  if (count > 0) {
    const s = bookLiqStats(state);
    state.meta.set('bookLiqStats', { liquidations: s.liquidations + count, badDebt: s.badDebt + badDebt, last });
  }
  return count;
}
