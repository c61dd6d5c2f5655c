/**
 * Fixed-point scales in the type (src/util/fixed.ts): a value that carries one scale is
 * refused where another is expected (each `@ts-expect-error` fails the typecheck the
 * day the types would let it through), while plain bigint arithmetic passes anywhere.
 * At run time the brands are plain bigints: the figures are unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { PerpPosition } from '../../src/state/records';
import type { OrderInput } from '../../src/state/orders/execution';
import { notional, orderLock } from '../../src/state/orders/settlement';
import { liquidationPrice, upnl } from '../../src/state/perps/math';
import { PRICE_ONE, price6, SIZE_ONE, size18, USDC_ONE, usdc6, type Price6, type Size18 } from '../../src/util/fixed';

const OWNER = '0x1111111111111111111111111111111111111111';

// Shows contract [D-envelope-bigint].
describe('fixed-point scales', () => {
  it('refuses a size where a price is expected, and a USDC amount where a size is', () => {
    const price: Price6 = price6(3000n * PRICE_ONE);
    const size: Size18 = size18(SIZE_ONE / 2n);
    // @ts-expect-error: a Size18 where notional() wants the Price6
    const swapped = notional(size, price);
    // @ts-expect-error: a Size18 given as an order's price
    const order: OrderInput = { owner: OWNER, signer: OWNER, pairId: 1, side: 0, orderType: 1, price: size, size, leverage: 1, isAgent: false };
    const pos = { isLong: true, entryPrice: price, size, margin: usdc6(150n * USDC_ONE) } as Pick<PerpPosition, 'isLong' | 'entryPrice' | 'size' | 'margin'>;
    // @ts-expect-error: a position's margin (Usdc6) where its size is expected
    const pnl = upnl(pos.isLong, pos.entryPrice, pos.margin, price);
    // @ts-expect-error: a notional (Usdc6) as a price
    const lock = orderLock(notional(price, size), size, 1);
    // Plain bigint arithmetic passes at any boundary: the brands sit on typed values only.
    const right = notional(price, size);
    expect(right).toBe(1500n * USDC_ONE);
    expect(orderLock(price + 0n, size, 2)).toBe(750n * USDC_ONE);
    // At run time they are the bigints they were: the types are the only guard.
    expect(swapped).toBe(right);
    expect(order.price).toBe(size);
    expect(pnl).toBe(0n);
    expect(lock).toBe((((price * size) / SIZE_ONE) * size) / SIZE_ONE);
    expect(liquidationPrice({ isLong: true, entryPrice: price, size, collateral: pos.margin }, 50)).toBeLessThan(price);
  });
});
