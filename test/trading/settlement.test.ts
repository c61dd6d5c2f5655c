/** Settlement arithmetic with hand-computed figures (docs/economics.md). */
import { describe, expect, it } from 'vitest';
import { notional, orderLock, settleFill, takerFee } from '../../src/state/orders/settlement';

const E18 = 10n ** 18n;
const usd = (n: number) => BigInt(Math.round(n * 1e6));
const empty = { size: 0n, cost: 0n, margin: 0n };

describe('settlement figures', () => {
  it('notional, lock and fee', () => {
    expect(notional(usd(2500.5), 2n * E18)).toBe(usd(5001)); // 2 ETH at 2500.50 = 5001 USDC
    expect(orderLock(usd(2500), 3n * E18, 5)).toBe(usd(1500)); // 7500 / 5
    expect(orderLock(usd(1), 10n ** 12n, 3)).toBe(1n); // notional 1 unit ÷ 3 rounds up to 1
    expect(takerFee(usd(10_000), 3)).toBe(usd(3)); // 3 bps of 10,000
    expect(takerFee(1n, 3)).toBe(1n); // rounds up
  });

  it('open long at 2x, then close half higher and half lower', () => {
    // Buy 2 ETH at 2000, leverage 2: margin 2000 from free.
    let s = settleFill(empty, { free: usd(5000), inPositions: 0n }, 2n * E18, usd(2000), 2, 'taker');
    expect(s.position).toEqual({ size: 2n * E18, cost: usd(4000), margin: usd(2000) });
    expect(s.wallet).toEqual({ free: usd(3000), inPositions: usd(2000) });
    // Sell 1 at 2300: releases half the margin (1000) and half the cost (2000); PnL = 2300 − 2000 = +300.
    s = settleFill(s.position, s.wallet, -1n * E18, usd(2300), 2, 'taker');
    expect(s.realized).toBe(usd(300));
    expect(s.position).toEqual({ size: E18, cost: usd(2000), margin: usd(1000) });
    expect(s.wallet).toEqual({ free: usd(3000 + 1000 + 300), inPositions: usd(1000) });
    // Sell 1 at 1800: PnL −200.
    s = settleFill(s.position, s.wallet, -1n * E18, usd(1800), 2, 'taker');
    expect(s.realized).toBe(usd(-200));
    expect(s.position).toEqual(empty);
    expect(s.wallet).toEqual({ free: usd(4300 + 1000 - 200), inPositions: 0n });
  });

  it('a sell larger than the long flips to a short: close part, open the rest', () => {
    const long = { size: E18, cost: usd(100), margin: usd(100) };
    const s = settleFill(long, { free: usd(1000), inPositions: usd(100) }, -3n * E18, usd(110), 1, 'taker');
    // close 1: +10 PnL, margin 100 back; open short 2 at 110: margin 220, cost −220.
    expect(s.realized).toBe(usd(10));
    expect(s.position).toEqual({ size: -2n * E18, cost: usd(-220), margin: usd(220) });
    expect(s.wallet).toEqual({ free: usd(1000 + 100 + 10 - 220), inPositions: usd(220) });
  });

  it('cash view: each side moves by exactly the notional, whatever its split', () => {
    // Buyer closes a short of 0.3 and opens 0.7; seller opens 1. Price with a non-integral product.
    const price = 1_234_567n;
    const buyer = settleFill({ size: -3n * 10n ** 17n, cost: -370_370n, margin: 370_370n }, { free: 10n ** 9n, inPositions: 370_370n }, E18, price, 3, 'taker');
    const seller = settleFill(empty, { free: 10n ** 9n, inPositions: 0n }, -E18, price, 3, 'maker');
    const cashBuyer = buyer.wallet.free + buyer.wallet.inPositions - buyer.position.cost - (10n ** 9n + 370_370n + 370_370n);
    const cashSeller = seller.wallet.free + seller.wallet.inPositions - seller.position.cost - 10n ** 9n;
    expect(cashBuyer).toBe(-notional(price, E18));
    expect(cashSeller).toBe(notional(price, E18));
  });
});
