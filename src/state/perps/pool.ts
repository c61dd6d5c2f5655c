/**
 * The liquidity pool: counterparty to every perp position (docs/economics.md "The
 * pool"). Its USDC (`PoolRecord.usdc`) pays traders' profits and receives their losses;
 * it never goes negative (every payment out of it is capped by what it holds, and the
 * ADL threshold keeps traders' profit well below it).
 *
 *   realPoolValue = pool USDC − traders' unrealized PnL against it, at the oracle prices
 *
 *                 + the pool's own orderbook positions' unrealized PnL (taken over in liquidations)
 *
 * with the traders' PnL taken per market side from the book's aggregates
 * (⌊price × Σ size / 1e18⌋ − Σ entry notional for longs, the reverse for shorts), so it
 * costs O(markets). Deposits mint shares at that value, withdrawals burn them at it.
 */
import type { Address } from '../../util/bytes';
import type { ExecContext } from '../context';
import { badRequest, rejected } from '../errors';
import { oraclePrice } from '../oracle';
import type { PoolRecord } from '../records';
import type { State } from '../state';
import { BPS, notional, sharesForDeposit, usdcForShares } from './math';
import { bookUpnl } from './book-index';
import type { Price6, Size18, Usdc6 } from '../../util/fixed';

interface MarketMark {
  pairId: number;
  /** Oracle price ×1e6 (the last median, fresh or not). */
  price: Price6;
  fresh: boolean;
  longUpnl: Usdc6;
  shortUpnl: Usdc6;
  /** notional(price, long size + short size). */
  openInterest: Usdc6;
  positions: number;
}

/** Every market with open positions, ascending pair id, marked at the oracle price. */
function marketMarks(state: State, nowMs: number): MarketMark[] {
  const out: MarketMark[] = [];
  const ids = [...state.perp.markets.keys()].sort((a, b) => a - b);
  for (const pairId of ids) {
    const m = state.perp.markets.get(pairId)!;
    const positions = m.long.count + m.short.count;
    if (positions === 0) continue;
    const op = oraclePrice(state, pairId, nowMs);
    // A market holds positions only once it had a price; without one its PnL is taken as 0.
    const price = op?.price ?? 0n;
    out.push({
      pairId,
      price,
      fresh: op?.fresh ?? false,
      longUpnl: op ? notional(price, m.long.size) - m.long.entryNotional : 0n,
      shortUpnl: op ? m.short.entryNotional - notional(price, m.short.size) : 0n,
      openInterest: op ? notional(price, m.long.size + m.short.size) : 0n,
      positions,
    });
  }
  return out;
}

/** An orderbook position the pool holds (taken over in a liquidation), marked at the oracle price. */
interface BookMark {
  pairId: number;
  price: Price6;
  fresh: boolean;
  /** Signed size and cost of the pool's position. */
  size: Size18;
  cost: Usdc6;
  /** The pool's unrealized PnL on it (positive: the pool gains). */
  upnl: Usdc6;
}

/** The pool's orderbook positions, ascending pair id, marked at the oracle price (entry when none: PnL 0). */
export function bookMarks(state: State, nowMs: number): BookMark[] {
  const out: BookMark[] = [];
  const ids = [...state.bookLiq.poolPositions.keys()].sort((a, b) => a - b);
  for (const pairId of ids) {
    const p = state.bookLiq.poolPositions.get(pairId)!;
    const op = oraclePrice(state, pairId, nowMs);
    out.push({ pairId, price: op?.price ?? 0n, fresh: op?.fresh ?? false, size: p.size, cost: p.cost, upnl: op ? bookUpnl(p, op.price) : 0n });
  }
  return out;
}

interface PoolValuation {
  usdc: Usdc6;
  totalShares: bigint;
  /** Traders' net unrealized PnL against the pool. */
  traderPnl: Usdc6;
  /** Traders' unrealized profit: Σ over market sides of max(side PnL, 0): what the pool would pay if the winning sides closed now. */
  traderProfit: Usdc6;
  /** The pool's unrealized PnL on the orderbook positions it holds (in realPoolValue). */
  bookUpnl: Usdc6;
  realPoolValue: Usdc6;
  /** Some market with open positions (perp, or the pool's orderbook ones) has no fresh oracle price. */
  stale: boolean;
  marks: MarketMark[];
  bookMarks: BookMark[];
}

export function poolValuation(state: State, nowMs: number): PoolValuation {
  const pool = state.poolRecord();
  const marks = marketMarks(state, nowMs);
  let traderPnl = 0n;
  let traderProfit = 0n;
  let stale = false;
  for (const m of marks) {
    traderPnl += m.longUpnl + m.shortUpnl;
    if (m.longUpnl > 0n) traderProfit += m.longUpnl;
    if (m.shortUpnl > 0n) traderProfit += m.shortUpnl;
    if (!m.fresh) stale = true;
  }
  const books = bookMarks(state, nowMs);
  let bookPnl = 0n;
  for (const b of books) {
    bookPnl += b.upnl;
    if (!b.fresh && b.size !== 0n) stale = true;
  }
  return { usdc: pool.usdc, totalShares: pool.totalShares, traderPnl, traderProfit, bookUpnl: bookPnl, realPoolValue: pool.usdc - traderPnl + bookPnl, stale, marks, bookMarks: books };
}

/** The open-interest cap of a market: openInterestCapBps of the pool's value (0 when the value is not positive). */
export function openInterestCap(capBps: number, realPoolValue: Usdc6): Usdc6 {
  return realPoolValue > 0n ? (realPoolValue * BigInt(capBps)) / BPS : 0n;
}

/** ADL threshold: traders' profit may reach adlPoolPnlThresholdBps of the pool's USDC. */
export function profitLimit(thresholdBps: number, poolUsdc: Usdc6): Usdc6 {
  return poolUsdc > 0n ? (poolUsdc * BigInt(thresholdBps)) / BPS : 0n;
}

function setPool(state: State, p: PoolRecord): void {
  if (p.usdc < 0n) throw new Error(`pool USDC would be negative: ${p.usdc}`);
  state.pool.set('pool', p);
}

/** Pays out of the pool at most what it holds; returns what was paid. */
export function payFromPool(state: State, wanted: Usdc6): Usdc6 {
  if (wanted <= 0n) return 0n;
  const pool = state.poolRecord();
  const paid = wanted < pool.usdc ? wanted : pool.usdc;
  if (paid > 0n) setPool(state, { ...pool, usdc: pool.usdc - paid });
  return paid;
}

export function payToPool(state: State, amount: Usdc6): void {
  if (amount <= 0n) return;
  const pool = state.poolRecord();
  setPool(state, { ...pool, usdc: pool.usdc + amount });
}

// ---- deposit and withdraw ------------------------------------------------------------

function requireFreshMarks(v: PoolValuation, what: string): void {
  if (v.stale) {
    const m = v.marks.find((x) => !x.fresh) ?? v.bookMarks.find((x) => !x.fresh && x.size !== 0n)!;
    throw rejected('ORACLE_STALE', `${what} waits for a fresh oracle price of pair ${m.pairId}: the pool cannot be valued on an old price`);
  }
}

export function poolDeposit(ctx: ExecContext, owner: Address, amount: Usdc6): { shares: bigint; value: Usdc6; unlockMs: number } {
  const { state, params, header } = ctx;
  if (amount <= 0n) throw badRequest('INVALID_AMOUNT', 'amount: must be positive');
  const v = poolValuation(state, header.timestampMs);
  requireFreshMarks(v, 'a deposit');
  if (v.totalShares > 0n && v.realPoolValue <= 0n) throw rejected('POOL_INSOLVENT', `the pool's value is ${v.realPoolValue}: shares cannot be priced`);
  const shares = sharesForDeposit(amount, v.totalShares, v.realPoolValue);
  if (shares === 0n) throw rejected('DEPOSIT_TOO_SMALL', `amount: ${amount} USDC units buy no share at pool value ${v.realPoolValue} for ${v.totalShares} shares`);
  const a = state.account(owner);
  if (a.usdcFree < amount) throw rejected('INSUFFICIENT_BALANCE', `free balance ${a.usdcFree} is below ${amount} USDC units`);
  state.accounts.set(owner, { ...a, usdcFree: a.usdcFree - amount });
  const pool = state.poolRecord();
  setPool(state, { ...pool, usdc: pool.usdc + amount, totalShares: pool.totalShares + shares });
  const held = state.poolShares.get(owner);
  const unlockMs = header.timestampMs + params.limits.poolLockupMs;
  state.poolShares.set(owner, { shares: (held?.shares ?? 0n) + shares, unlockMs });
  ctx.emit({ type: 'PoolDeposited', owner, amount, shares, poolValue: v.realPoolValue, totalShares: v.totalShares + shares, unlockMs });
  return { shares, value: v.realPoolValue, unlockMs };
}

export function poolWithdraw(ctx: ExecContext, owner: Address, shares: bigint): { amount: Usdc6 } {
  const { state, params, header } = ctx;
  if (shares <= 0n) throw badRequest('INVALID_SHARES', 'shares: must be positive');
  const held = state.poolShares.get(owner);
  if (!held || held.shares < shares) throw rejected('INSUFFICIENT_SHARES', `shares: ${owner} holds ${held?.shares ?? 0n} pool shares, not ${shares}`);
  if (header.timestampMs < held.unlockMs) {
    throw rejected('POOL_LOCKED', `shares of ${owner} are locked until ${held.unlockMs} (block time ${header.timestampMs}): ${params.limits.poolLockupMs} ms after the last deposit`);
  }
  const v = poolValuation(state, header.timestampMs);
  requireFreshMarks(v, 'a withdrawal');
  const amount = usdcForShares(shares, v.totalShares, v.realPoolValue);
  if (amount > v.usdc) throw rejected('POOL_UTILIZED', `the pool holds ${v.usdc} USDC units, less than the ${amount} these shares are worth`);
  // What stays must still back the open positions: every market's open interest within
  // its cap of the reduced value, and traders' profit within the ADL threshold.
  const valueAfter = v.realPoolValue - amount;
  for (const m of v.marks) {
    const pair = state.pairs.get(String(m.pairId));
    const cap = openInterestCap(pair?.openInterestCapBps ?? 0, valueAfter);
    if (m.openInterest > cap) {
      throw rejected('POOL_UTILIZED', `pair ${m.pairId}: open interest ${m.openInterest} would exceed its cap ${cap} of the pool value left (${valueAfter})`);
    }
  }
  const limit = profitLimit(params.perps.adlPoolPnlThresholdBps, v.usdc - amount);
  if (v.traderProfit > limit) throw rejected('POOL_UTILIZED', `traders' unrealized profit ${v.traderProfit} would exceed ${limit}, the ADL threshold of the pool left`);
  const pool = state.poolRecord();
  setPool(state, { ...pool, usdc: pool.usdc - amount, totalShares: pool.totalShares - shares });
  if (held.shares === shares) state.poolShares.delete(owner);
  else state.poolShares.set(owner, { ...held, shares: held.shares - shares });
  const a = state.account(owner);
  state.accounts.set(owner, { ...a, usdcFree: a.usdcFree + amount });
  ctx.emit({ type: 'PoolWithdrawn', owner, shares, amount, poolValue: v.realPoolValue, totalShares: v.totalShares - shares });
  return { amount };
}
