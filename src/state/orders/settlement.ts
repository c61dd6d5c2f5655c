/**
 * Settlement of orderbook fills into positions and USDC (docs/economics.md).
 *
 * Cash view: in every fill the buyer's cash falls by exactly the notional and the
 * seller's rises by exactly the notional, however each side splits the fill between
 * closing and opening. With `cost` the signed USDC paid for a position's open size,
 * every account's (free + locked + inPositions − cost) moves by that cash flow, so
 * Σ balances − Σ cost is conserved to the unit. Margin (notional ÷ leverage) moves
 * between free and inPositions; closing releases margin pro rata and realizes
 * proceeds − cost share.
 */
import type { Position } from '../records';
import { SIZE_ONE, type Price6, type Size18, type Usdc6 } from '../../util/fixed';

export { SIZE_ONE };

/** USDC units of price (×1e6) × size (×1e18): floor(price × size / 1e18). */
export function notional(price: Price6, size: Size18): Usdc6 {
  return (price * size) / SIZE_ONE;
}

export function ceilDiv(a: bigint, b: bigint): bigint {
  return a <= 0n ? a / b : (a + b - 1n) / b;
}

export function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** The USDC side of an account. `free` may only go negative through a maker's loss beyond its means (bad debt). */
export interface Wallet {
  free: Usdc6;
  inPositions: Usdc6;
}

interface FillSettlement {
  position: Position;
  wallet: Wallet;
  /** Realized PnL of the closing part (0 when only opening). */
  realized: Usdc6;
}

/**
 * Applies one fill of `signedSize` (+ buy, − sell) at `price` to a position.
 * Takers pay opening margin rounded up; makers, whose margin was locked when the order
 * rested, take it rounded down so it never exceeds what the lock released.
 */
export function settleFill(
  position: Position,
  wallet: Wallet,
  signedSize: Size18,
  price: Price6,
  leverage: number,
  role: 'taker' | 'maker',
): FillSettlement {
  const qty = abs(signedSize);
  const dir = signedSize > 0n ? 1n : -1n;
  const total = notional(price, qty);
  let { size, cost, margin } = position;
  let { free, inPositions } = wallet;
  let realized = 0n;
  let closeQty = 0n;
  if (size !== 0n && (size > 0n) !== (dir > 0n)) {
    const held = abs(size);
    closeQty = qty < held ? qty : held;
    const full = closeQty === held;
    const releasedMargin = full ? margin : (margin * closeQty) / held;
    const releasedCost = full ? cost : (cost * closeQty) / held;
    const closeNotional = notional(price, closeQty);
    const cash = dir > 0n ? -closeNotional : closeNotional;
    realized = cash - releasedCost;
    size += dir * closeQty;
    cost -= releasedCost;
    margin -= releasedMargin;
    inPositions -= releasedMargin;
    free += releasedMargin + realized;
  }
  const openQty = qty - closeQty;
  if (openQty > 0n) {
    // The opening part's notional is what is left of the fill's, so this side's cash
    // flow totals exactly `total`, whatever the counterparty's split.
    const openNotional = total - (closeQty > 0n ? notional(price, closeQty) : 0n);
    const lev = BigInt(leverage);
    const m = role === 'taker' ? ceilDiv(openNotional, lev) : openNotional / lev;
    size += dir * openQty;
    cost += dir * openNotional;
    margin += m;
    free -= m;
    inPositions += m;
  }
  return { position: { size, cost, margin }, wallet: { free, inPositions }, realized };
}

/** Taker fee: rounded up, so no fill trades free of fees by rounding. */
export function takerFee(usdc: Usdc6, feeBps: number): Usdc6 {
  return ceilDiv(usdc * BigInt(feeBps), 10_000n);
}

/**
 * Maker fee (genesis `fees.makerFeeBps`, at most the taker fee, never negative: no
 * rebates; decision 103): rounded up as the taker fee is. Charged to the resting order's
 * owner on each fill, out of the order's lock, which reserves it (restingLock).
 */
export function makerFee(usdc: Usdc6, feeBps: number): Usdc6 {
  return ceilDiv(usdc * BigInt(feeBps), 10_000n);
}

/** What a resting order locks: its margin and the maker fee on all of it, at its own price (makers fill at their price). */
export function restingLock(price: Price6, size: Size18, leverage: number, makerFeeBps: number): Usdc6 {
  return orderLock(price, size, leverage) + makerFee(notional(price, size), makerFeeBps);
}

/** USDC a resting order locks: its notional ÷ leverage, rounded up. */
export function orderLock(price: Price6, size: Size18, leverage: number): Usdc6 {
  return ceilDiv(notional(price, size), BigInt(leverage));
}
