/**
 * The perp formulas, pure and integer (docs/economics.md "Perpetuals" has worked numbers
 * for each, and test/perps/math.test.ts checks the same numbers).
 *
 * Units: USDC amounts in 10⁻⁶ USDC; prices ×1e6; sizes ×1e18; rates in parts per
 * billion (ppb); funding indices ×FUNDING_SCALE per 1e18 units of size. Every division
 * rounds in a stated direction, so every validator computes the same figures.
 */
import { SIZE_ONE, type Price6, type Size18, type Usdc6 } from '../../util/fixed';

export const BPS = 10_000n;
const PPB = 1_000_000_000n;
/** Funding index scale: owed = ⌈size × Δindex / FUNDING_SCALE⌉ USDC units. */
export const FUNDING_SCALE = 10n ** 30n;
/** 8 hours: the period contract [C-limits-funding] quotes the interest rate and clamp for. */
const FUNDING_PERIOD_MS = 8n * 3_600_000n;
/** Smallest margin of a perp open, USDC units (1 USDC). */
export const MIN_PERP_MARGIN: Usdc6 = 1_000_000n;

/** ⌊a / b⌋ for b > 0 and any sign of a. */
export function floorDiv(a: bigint, b: bigint): bigint {
  return a >= 0n ? a / b : -((-a + b - 1n) / b);
}

/** ⌈a / b⌉ for b > 0 and any sign of a. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return -floorDiv(-a, b);
}

export function absBig(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** USDC units of price × size: ⌊price × size / 1e18⌋. */
export function notional(price: Price6, size: Size18): Usdc6 {
  return (price * size) / SIZE_ONE;
}

/** Size opened by `margin` at `leverage` and `price`: ⌊margin × leverage × 1e18 / price⌋. */
export function openSize(margin: Usdc6, leverage: number, price: Price6): Size18 {
  return (margin * BigInt(leverage) * SIZE_ONE) / price;
}

/** Taker fee: ⌈notional × bps / 10,000⌉. */
export function perpFee(notionalUsdc: Usdc6, feeBps: number): Usdc6 {
  return ceilDiv(notionalUsdc * BigInt(feeBps), BPS);
}

/** Unrealized PnL at `price` (positive: the trader gains, the pool loses). */
export function upnl(isLong: boolean, entryPrice: Price6, size: Size18, price: Price6): Usdc6 {
  const entry = notional(entryPrice, size);
  const now = notional(price, size);
  return isLong ? now - entry : entry - now;
}

/** Funding the position owes since it last realized (negative: it is owed), rounded up. */
export function fundingOwed(size: Size18, indexNow: bigint, indexAt: bigint): Usdc6 {
  return ceilDiv(size * (indexNow - indexAt), FUNDING_SCALE);
}

/** Maintenance margin: ⌊notional at the mark × maintenanceMarginBps / 10,000⌋. */
export function maintenanceMargin(price: Price6, size: Size18, mmBps: number): Usdc6 {
  return (notional(price, size) * BigInt(mmBps)) / BPS;
}

interface PositionTerms {
  isLong: boolean;
  entryPrice: Price6;
  size: Size18;
  /** Margin less funding owed: what stands behind the position. */
  collateral: Usdc6;
}

/** Equity at `price`: collateral + unrealized PnL. */
export function equity(t: PositionTerms, price: Price6): Usdc6 {
  return t.collateral + upnl(t.isLong, t.entryPrice, t.size, price);
}

/** The liquidation rule: equity below maintenance at the oracle price. */
export function liquidatable(t: PositionTerms, price: Price6, mmBps: number): boolean {
  return equity(t, price) < maintenanceMargin(price, t.size, mmBps);
}

/**
 * The liquidation price: for a long the highest price at which `liquidatable` holds
 * (0 if none: a fully collateralized long), for a short the lowest. The rule is
 * monotone in the price, so this is exact: a long is liquidated iff price ≤ it, a short
 * iff price ≥ it. Found by bisection around the closed form
 *   long  (N − collateral) / (size × (1 − mm)),   short (N + collateral) / (size × (1 + mm)).
 */
export function liquidationPrice(t: PositionTerms, mmBps: number): Price6 {
  if (t.size <= 0n) return 0n;
  const pred = (p: bigint) => liquidatable(t, p, mmBps);
  const N = notional(t.entryPrice, t.size);
  const mm = BigInt(mmBps);
  const delta = ceilDiv(4n * SIZE_ONE, t.size) + 4n;
  if (t.isLong) {
    if (!pred(1n)) return 0n;
    const est = ((N - t.collateral) * SIZE_ONE * BPS) / (t.size * (BPS - mm));
    // Largest p with pred(p): lo has pred true, hi has pred false.
    let lo = est - delta > 1n ? est - delta : 1n;
    if (!pred(lo)) lo = 1n;
    let hi = est + delta > lo ? est + delta : lo + 1n;
    while (pred(hi)) hi = hi * 2n;
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if (pred(mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }
  if (pred(1n)) return 1n;
  const est = ((N + t.collateral) * SIZE_ONE * BPS) / (t.size * (BPS + mm));
  // Smallest p with pred(p): lo has pred false, hi has pred true.
  let lo = est - delta > 1n ? est - delta : 1n;
  if (pred(lo)) lo = 1n;
  let hi = est + delta > lo ? est + delta : lo + 1n;
  while (!pred(hi)) hi = hi * 2n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (pred(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

// ---- the liquidation index: keys that funding does not move ---------------------------

/*
 * Funding changes every open position's collateral each hour, and so its liquidation
 * price; rewriting every position each hour would cost a state write per position. But
 * funding per unit of size is the same for every position of a side, so it shifts every
 * liquidation price of that side by the same amount (up to rounding):
 *   long  Δprice = ΔI × 1e18 / (FUNDING_SCALE × (1 − mm)),  short  −ΔI × 1e18 / (FUNDING_SCALE × (1 + mm)).
 * The index key of a position is its liquidation price at funding index 0, widened by a
 * slack that covers every rounding (the bounds are derived in docs/economics.md); the
 * scan adds the side's current shift. A key is a pure function of the stored record, so
 * a restarted node rebuilds the same index. Candidates are then checked exactly with
 * `liquidatable`, so the slack only costs the odd extra check, never a missed or a wrong
 * liquidation.
 */

const KEY_MAX = BigInt(Number.MAX_SAFE_INTEGER);

function clampKey(v: bigint): number {
  return Number(v > KEY_MAX ? KEY_MAX : v < -KEY_MAX ? -KEY_MAX : v);
}

/** Price shift of the long side's liquidation prices at funding index `index`. */
export function longShift(index: bigint, mmBps: number): bigint {
  return floorDiv(index * SIZE_ONE * BPS, FUNDING_SCALE * (BPS - BigInt(mmBps)));
}

/** Price shift of the short side's liquidation prices at funding index `index`. */
export function shortShift(index: bigint, mmBps: number): bigint {
  return -floorDiv(index * SIZE_ONE * BPS, FUNDING_SCALE * (BPS + BigInt(mmBps)));
}

/** Index key of a position: its liquidation price at funding index 0, widened by the slack. */
export function liquidationKey(p: { isLong: boolean; entryPrice: Price6; size: Size18; margin: Usdc6; fundingIndex: bigint }, mmBps: number): number {
  const collateral = p.margin - fundingOwed(p.size, 0n, p.fundingIndex);
  const base = liquidationPrice({ isLong: p.isLong, entryPrice: p.entryPrice, size: p.size, collateral }, mmBps);
  const mm = BigInt(mmBps);
  const N = notional(p.entryPrice, p.size);
  // Prices stop at 1, the closed form does not: where the exact search hit that floor,
  // the (possibly negative) closed form keeps the shift argument valid.
  if (p.isLong) {
    const closed = floorDiv((N - collateral) * SIZE_ONE * BPS, p.size * (BPS - mm));
    const slack = ceilDiv((2n * BPS + (BPS - mm)) * SIZE_ONE, (BPS - mm) * p.size) + 3n;
    return clampKey((base > closed ? base : closed) + slack);
  }
  const closed = floorDiv((N + collateral) * SIZE_ONE * BPS, p.size * (BPS + mm));
  const slack = ceilDiv(3n * SIZE_ONE, p.size) + 3n;
  return clampKey((base < closed ? base : closed) - slack);
}

// ---- funding ---------------------------------------------------------------------------

interface FundingParams {
  /** Interest per 8 hours, ppm (100 = 0.01%). */
  interestRatePer8hPpm: number;
  /** Clamp on (interest − premium), ppm (500 = 0.05%). */
  fundingClampPpm: number;
  /** Cap on the hourly rate, ppm (40000 = 4%). */
  fundingCapPpm: number;
}

/**
 * The funding rate of contract [C-limits-funding]. F (per 8 h) = P + clamp(I − P, −C, +C), with P the average
 * premium and I the interest rate; the rate settled per interval is F × interval / 8 h
 * (truncated toward zero), capped at ±cap. All in ppb; positive: longs pay shorts.
 */
export function fundingRate(avgPremiumPpb: bigint, intervalMs: number, p: FundingParams): { per8hPpb: bigint; perIntervalPpb: bigint } {
  const interest = BigInt(p.interestRatePer8hPpm) * 1000n;
  const clamp = BigInt(p.fundingClampPpm) * 1000n;
  const cap = BigInt(p.fundingCapPpm) * 1000n;
  let diff = interest - avgPremiumPpb;
  if (diff > clamp) diff = clamp;
  if (diff < -clamp) diff = -clamp;
  const per8hPpb = avgPremiumPpb + diff;
  let perIntervalPpb = (per8hPpb * BigInt(intervalMs)) / FUNDING_PERIOD_MS;
  if (perIntervalPpb > cap) perIntervalPpb = cap;
  if (perIntervalPpb < -cap) perIntervalPpb = -cap;
  return { per8hPpb, perIntervalPpb };
}

/** Premium of the book's mid over the oracle price, ppb, truncated toward zero. */
export function premiumPpb(mid: Price6, oracle: Price6): bigint {
  return ((mid - oracle) * PPB) / oracle;
}

/**
 * One settlement: the paying side (longs when the rate is positive) pays
 * T = |rate| × min(long notional, short notional) at the oracle price, pro rata to size;
 * the receiving side receives T pro rata. Index steps: the payers' index rises by
 * ⌈T × SCALE / payerSize⌉, the receivers' falls by ⌊T × SCALE / receiverSize⌋, so
 * payers never pay less and receivers never get more than T (dust stays in the pot).
 */
export function fundingSettlement(ratePpb: bigint, price: Price6, longSize: Size18, shortSize: Size18): { amount: Usdc6; longStep: bigint; shortStep: bigint } {
  if (ratePpb === 0n || longSize === 0n || shortSize === 0n) return { amount: 0n, longStep: 0n, shortStep: 0n };
  const smaller = longSize < shortSize ? longSize : shortSize;
  const amount = (notional(price, smaller) * absBig(ratePpb)) / PPB;
  if (amount === 0n) return { amount: 0n, longStep: 0n, shortStep: 0n };
  const longsPay = ratePpb > 0n;
  const payerSize = longsPay ? longSize : shortSize;
  const receiverSize = longsPay ? shortSize : longSize;
  const payStep = ceilDiv(amount * FUNDING_SCALE, payerSize);
  const receiveStep = -((amount * FUNDING_SCALE) / receiverSize);
  return longsPay ? { amount, longStep: payStep, shortStep: receiveStep } : { amount, longStep: receiveStep, shortStep: payStep };
}

// ---- ADL ranking ---------------------------------------------------------------------

/** ADL score: PnL ratio × leverage, in ppm: upnl × leverage × 1e6 / margin (0 when not in profit). */
export function adlScore(upnlUsdc: Usdc6, leverage: number, margin: Usdc6): bigint {
  if (upnlUsdc <= 0n || margin <= 0n) return 0n;
  return (upnlUsdc * BigInt(leverage) * 1_000_000n) / margin;
}

/** Ranking order: higher score first, then higher PnL, then lower position id. */
export function compareAdl(a: { score: bigint; upnl: bigint; id: bigint }, b: { score: bigint; upnl: bigint; id: bigint }): number {
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.upnl !== b.upnl) return a.upnl > b.upnl ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

// ---- pool shares ---------------------------------------------------------------------

/** Shares minted for a deposit: amount × totalShares / poolValue (⌊⌋); 1:1 for an empty pool. */
export function sharesForDeposit(amount: Usdc6, totalShares: bigint, poolValue: Usdc6): bigint {
  if (totalShares === 0n) return amount;
  if (poolValue <= 0n) return 0n;
  return (amount * totalShares) / poolValue;
}

/** USDC for burning shares: shares × poolValue / totalShares (⌊⌋). */
export function usdcForShares(shares: bigint, totalShares: bigint, poolValue: Usdc6): Usdc6 {
  if (totalShares === 0n || poolValue <= 0n) return 0n;
  return (shares * poolValue) / totalShares;
}
