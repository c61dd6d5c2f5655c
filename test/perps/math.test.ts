/**
 * The perp formulas against figures computed by hand (docs/economics.md "Perpetuals"
 * shows the same numbers): margin, liquidation price, funding payment, ADL ranking,
 * pool share pricing. Plus the liquidation index's slack: whatever funding does, a
 * liquidatable position is always among the index's candidates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adlScore,
  compareAdl,
  equity,
  fundingOwed,
  fundingRate,
  fundingSettlement,
  liquidatable,
  liquidationKey,
  liquidationPrice,
  longShift,
  maintenanceMargin,
  notional,
  openSize,
  perpFee,
  premiumPpb,
  sharesForDeposit,
  shortShift,
  upnl,
  usdcForShares,
} from '../../src/state/perps/math';

const P = 1_000_000n; // price ×1e6
const U = 1_000_000n; // USDC units
const ONE = 10n ** 18n; // one unit of size
const FUNDING = { interestRatePer8hPpm: 100, fundingClampPpm: 500, fundingCapPpm: 40_000 };

describe('margin, size and fee of an open', () => {
  // ETH at 3,000; 100 USDC of margin at 10x: notional 1,000 USDC.
  //   size = ⌊100e6 × 10 × 1e18 / 3,000e6⌋ = 333,333,333,333,333,333 (0.333… ETH)
  //   entry notional = ⌊3,000e6 × size / 1e18⌋ = 999,999,999 (999.999999 USDC)
  //   initial margin = notional / leverage ≈ 99.9999999 ≤ 100: the margin covers it
  //   fee = ⌈999,999,999 × 3 / 10,000⌉ = ⌈299,999.9997⌉ = 300,000 (0.30 USDC)
  //   maintenance at entry (ETH 100 bps) = ⌊999,999,999 × 100 / 10,000⌋ = 9,999,999
  // Shows contract [D-orders-maintenance].
  it('gives the hand-computed size, notional, fee and maintenance', () => {
    const size = openSize(100n * U, 10, 3000n * P);
    expect(size).toBe(333_333_333_333_333_333n);
    expect(notional(3000n * P, size)).toBe(999_999_999n);
    expect(perpFee(999_999_999n, 3)).toBe(300_000n);
    expect(maintenanceMargin(3000n * P, size, 100)).toBe(9_999_999n);
    expect(notional(3000n * P, size) / 10n).toBeLessThanOrEqual(100n * U);
  });

  it('PnL of 1 ETH long from 3,000 to 3,150 is +150 USDC; the short mirror −150', () => {
    expect(upnl(true, 3000n * P, ONE, 3150n * P)).toBe(150n * U);
    expect(upnl(false, 3000n * P, ONE, 3150n * P)).toBe(-150n * U);
  });
});

describe('liquidation price', () => {
  const size = 333_333_333_333_333_333n;
  const long = { isLong: true, entryPrice: 3000n * P, size, collateral: 100n * U };
  const short = { ...long, isLong: false };

  // Long: equity = 100 + notional(p) − 999.999999 falls below 1% of notional(p) at
  //   p ≈ (999.999999 − 100) / (0.333… × 0.99) = 2,727.2727…; with the floors of
  //   notional and maintenance the exact boundary is 2,727.272724.
  it('long 10x on ETH: 2,727.272724, exact at the unit', () => {
    expect(liquidationPrice(long, 100)).toBe(2_727_272_724n);
    expect(liquidatable(long, 2_727_272_724n, 100)).toBe(true);
    expect(liquidatable(long, 2_727_272_725n, 100)).toBe(false);
  });

  // Short: 100 + 999.999999 − notional(p) < 1% of notional(p) from
  //   p ≈ 1,099.999999 / (0.333… × 1.01) = 3,267.326729; exact boundary 3,267.326734
  //   (at 3,267.326733: notional 1,089.108910, equity 10.891089 = maintenance, not below).
  it('short 10x on ETH: 3,267.326734, exact at the unit', () => {
    expect(liquidationPrice(short, 100)).toBe(3_267_326_734n);
    expect(liquidatable(short, 3_267_326_734n, 100)).toBe(true);
    expect(liquidatable(short, 3_267_326_733n, 100)).toBe(false);
    expect(equity(short, 3_267_326_733n)).toBe(10_891_089n);
    expect(maintenanceMargin(3_267_326_733n, size, 100)).toBe(10_891_089n);
  });

  it('a 1x long is never liquidated (0); funding owed moves the price up', () => {
    const oneX = { isLong: true, entryPrice: 3000n * P, size: openSize(100n * U, 1, 3000n * P), collateral: 100n * U };
    expect(liquidationPrice(oneX, 100)).toBe(0n);
    expect(liquidationPrice({ ...long, collateral: 90n * U }, 100)).toBeGreaterThan(2_727_272_724n);
  });

  it('is exact and monotone for random positions', () => {
    fc.assert(
      fc.property(
        fc.boolean(), fc.bigInt({ min: 1n * P, max: 100_000n * P }), fc.bigInt({ min: 10n ** 12n, max: 10n ** 21n }), fc.bigInt({ min: -10n * U, max: 10_000n * U }), fc.constantFrom(100, 200, 250, 500),
        (isLong, entryPrice, size, collateral, mm) => {
          const t = { isLong, entryPrice, size, collateral };
          const liq = liquidationPrice(t, mm);
          if (isLong) {
            if (liq === 0n) expect(liquidatable(t, 1n, mm)).toBe(false);
            else {
              expect(liquidatable(t, liq, mm)).toBe(true);
              expect(liquidatable(t, liq + 1n, mm)).toBe(false);
            }
          } else {
            expect(liquidatable(t, liq, mm)).toBe(true);
            if (liq > 1n) expect(liquidatable(t, liq - 1n, mm)).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const clamp = (v: bigint) => (v > SAFE ? SAFE : v < -SAFE ? -SAFE : v);

describe('the liquidation index key', () => {
  it('a position liquidatable after any funding is always a candidate (key + shift reaches the price)', () => {
    fc.assert(
      fc.property(
        fc.boolean(), fc.bigInt({ min: 100n * P, max: 100_000n * P }), fc.integer({ min: 1, max: 50 }), fc.bigInt({ min: 1n * U, max: 50_000n * U }),
        fc.bigInt({ min: -(10n ** 34n), max: 10n ** 34n }), fc.bigInt({ min: -(10n ** 34n), max: 10n ** 34n }), fc.constantFrom(100, 200, 250, 500),
        fc.integer({ min: -3000, max: 3000 }),
        (isLong, entryPrice, leverage, margin, indexAtOpen, indexNow, mm, moveBps) => {
          const size = openSize(margin, leverage, entryPrice);
          fc.pre(size > 0n);
          const pos = { isLong, entryPrice, size, margin, fundingIndex: indexAtOpen };
          const key = BigInt(liquidationKey(pos, mm));
          const collateral = margin - fundingOwed(size, indexNow, indexAtOpen);
          const terms = { isLong, entryPrice, size, collateral };
          const liq = liquidationPrice(terms, mm);
          // The exact liquidation boundary, and a random price: both must be candidates when liquidatable.
          const price = (entryPrice * BigInt(10_000 + moveBps)) / 10_000n;
          for (const p of [liq, price]) {
            if (p <= 0n || !liquidatable(terms, p, mm)) continue;
            // As the engine compares: key against price − shift, both clamped to safe integers.
            if (isLong) expect(key).toBeGreaterThanOrEqual(clamp(p - longShift(indexNow, mm)));
            else expect(key).toBeLessThanOrEqual(clamp(p - shortShift(indexNow, mm)));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('funding', () => {
  it('with no premium the rate is the interest: 0.01% per 8 h, 0.00125% per hour', () => {
    expect(fundingRate(0n, 3_600_000, FUNDING)).toEqual({ per8hPpb: 100_000n, perIntervalPpb: 12_500n });
  });

  // Book mid 3,015 over oracle 3,000: premium 0.5% = 5,000,000 ppb.
  //   F = 0.5% + clamp(0.01% − 0.5%, ±0.05%) = 0.5% − 0.05% = 0.45% per 8 h; hourly 0.05625%.
  it('a 0.5% premium: 0.45% per 8 h, 0.05625% hourly', () => {
    expect(premiumPpb(3015n * P, 3000n * P)).toBe(5_000_000n);
    expect(fundingRate(5_000_000n, 3_600_000, FUNDING)).toEqual({ per8hPpb: 4_500_000n, perIntervalPpb: 562_500n });
  });

  it('a 50% premium is capped at 4% per hour; a discount pays the other way', () => {
    expect(fundingRate(500_000_000n, 3_600_000, FUNDING).perIntervalPpb).toBe(40_000_000n);
    expect(fundingRate(-500_000_000n, 3_600_000, FUNDING).perIntervalPpb).toBe(-40_000_000n);
    // −0.2% premium: F = −0.2% + clamp(0.01% + 0.2%, ±0.05%) = −0.15%; hourly −0.01875%.
    expect(fundingRate(-2_000_000n, 3_600_000, FUNDING)).toEqual({ per8hPpb: -1_500_000n, perIntervalPpb: -187_500n });
  });

  // 10 ETH long, 4 ETH short at 3,000, hourly rate 0.00125%:
  //   T = 0.00125% × min(30,000, 12,000) = 0.15 USDC from the longs to the shorts;
  //   per long ETH 0.015 USDC, per short ETH 0.0375 USDC.
  it('longs pay shorts pro rata, peer to peer: 0.15 USDC; 0.015 per long ETH, 0.0375 per short ETH', () => {
    const s = fundingSettlement(12_500n, 3000n * P, 10n * ONE, 4n * ONE);
    expect(s.amount).toBe(150_000n);
    expect(fundingOwed(ONE, s.longStep, 0n)).toBe(15_000n);
    expect(fundingOwed(ONE, s.shortStep, 0n)).toBe(-37_500n);
    expect(fundingOwed(10n * ONE, s.longStep, 0n)).toBe(150_000n);
    expect(fundingOwed(4n * ONE, s.shortStep, 0n)).toBe(-150_000n);
    // A negative rate: shorts pay longs the same amount.
    const n = fundingSettlement(-12_500n, 3000n * P, 10n * ONE, 4n * ONE);
    expect(fundingOwed(4n * ONE, n.shortStep, 0n)).toBe(150_000n);
    expect(fundingOwed(10n * ONE, n.longStep, 0n)).toBe(-150_000n);
    // One side empty: nothing moves.
    expect(fundingSettlement(12_500n, 3000n * P, 10n * ONE, 0n).amount).toBe(0n);
  });

  it('payers never pay less and receivers never get more than T, whatever the split', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -40_000_000n, max: 40_000_000n }), fc.bigInt({ min: 1n * P, max: 100_000n * P }),
        fc.array(fc.bigInt({ min: 10n ** 12n, max: 10n ** 20n }), { minLength: 1, maxLength: 6 }), fc.array(fc.bigInt({ min: 10n ** 12n, max: 10n ** 20n }), { minLength: 1, maxLength: 6 }),
        (rate, price, longs, shorts) => {
          const sum = (a: bigint[]) => a.reduce((x, y) => x + y, 0n);
          const s = fundingSettlement(rate, price, sum(longs), sum(shorts));
          const paidByLongs = sum(longs.map((l) => fundingOwed(l, s.longStep, 0n)));
          const paidByShorts = sum(shorts.map((l) => fundingOwed(l, s.shortStep, 0n)));
          const payers = rate >= 0n ? paidByLongs : paidByShorts;
          const receivers = rate >= 0n ? paidByShorts : paidByLongs;
          expect(payers).toBeGreaterThanOrEqual(s.amount);
          expect(-receivers).toBeLessThanOrEqual(s.amount);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('ADL ranking: PnL ratio × leverage', () => {
  // A: +100 on 100 margin at 10x → 1.0 × 10 = 10 (10,000,000 ppm)
  // B: +300 on 500 margin at 2x  → 0.6 × 2  = 1.2 (1,200,000)
  // C: +50 on 20 margin at 50x   → 2.5 × 50 = 125 (125,000,000)
  // D: −40: not in profit, never deleveraged (score 0)
  it('ranks C, A, B; a losing position scores 0', () => {
    const a = { id: 1n, upnl: 100n * U, score: adlScore(100n * U, 10, 100n * U) };
    const b = { id: 2n, upnl: 300n * U, score: adlScore(300n * U, 2, 500n * U) };
    const c = { id: 3n, upnl: 50n * U, score: adlScore(50n * U, 50, 20n * U) };
    expect([a.score, b.score, c.score]).toEqual([10_000_000n, 1_200_000n, 125_000_000n]);
    expect(adlScore(-40n * U, 20, 100n * U)).toBe(0n);
    expect([a, b, c].sort(compareAdl).map((x) => x.id)).toEqual([3n, 1n, 2n]);
    // Ties: the larger PnL first, then the lower id.
    const t1 = { id: 7n, upnl: 10n, score: 5n };
    const t2 = { id: 4n, upnl: 20n, score: 5n };
    const t3 = { id: 5n, upnl: 20n, score: 5n };
    expect([t1, t2, t3].sort(compareAdl).map((x) => x.id)).toEqual([4n, 5n, 7n]);
  });
});

describe('pool share pricing', () => {
  // Pool: 10,000,000 USDC and 10,000,000 × 1e6 shares (1 share unit per USDC unit at genesis).
  // Traders are up 500,000 USDC against it: realPoolValue = 9,500,000 USDC.
  // A deposit of 95,000 USDC mints 95,000 × 10,000,000 / 9,500,000 = 100,000 USDC-worth of
  // share units (100,000 × 1e6), i.e. at 0.95 USDC per share.
  it('deposit at 0.95: 95,000 USDC buy 100,000e6 shares; burnt at 1.02 they return 102,000 USDC', () => {
    const total = 10_000_000n * U;
    const shares = sharesForDeposit(95_000n * U, total, 9_500_000n * U);
    expect(shares).toBe(100_000n * U);
    // Later the traders are down 200,000: value 10,000,000 + 95,000 + 200,000 over 10,100,000e6 shares.
    const value = 10_295_000n * U;
    expect(usdcForShares(shares, total + shares, value)).toBe(101_930_693_069n);
    // At exactly 1.02 per share: 100,000 shares → 102,000 USDC.
    expect(usdcForShares(shares, 10_000_000n * U, 10_200_000n * U)).toBe(102_000n * U);
  });

  it('an empty pool mints 1:1; a worthless pool mints nothing', () => {
    expect(sharesForDeposit(5n * U, 0n, 0n)).toBe(5n * U);
    expect(sharesForDeposit(5n * U, 10n, 0n)).toBe(0n);
    expect(usdcForShares(10n, 10n, -5n)).toBe(0n);
  });
});
