/**
 * Fixed-point scales in the type: the chain's amounts are bigint integers of three
 * scales (docs/economics.md), and a value that carries its scale cannot be passed where
 * another scale is expected:
 *   Price6  — a price, USDC per base unit ×1e6
 *   Size18  — a size of the base asset ×1e18 (signed where a position's direction is)
 *   Usdc6   — USDC units, 6 decimals (notional, margin, fees, PnL, balances)
 *
 * The brands sit at the boundaries that take more than one scale (the events of
 * src/state/events.ts, the order input of the matching engine and of
 * src/state/orders/execution.ts, the settlement and perps math functions, the records of
 * positions and orders). Arithmetic inside stays plain bigint: `price * size` is a
 * bigint, and a plain bigint (a literal, an arithmetic result, a decoded field) is
 * accepted at a boundary of any scale, so the brands cost no conversion and change no
 * encoded byte. What they refuse is a value typed with one scale (a record's `size`,
 * an event's `price`, `notional()`'s result) given where another is expected. The
 * constructors mark a value's scale where it is first known (a parsed decimal, a
 * computed notional).
 */

import { USDC_DECIMALS } from './decimal';

declare const SCALE: unique symbol;

/** A price, ×1e6 (USDC per whole base unit). */
export type Price6 = bigint & { readonly [SCALE]?: 'price ×1e6' };
/** A base-asset size, ×1e18. */
export type Size18 = bigint & { readonly [SCALE]?: 'size ×1e18' };
/** USDC units, ×1e6. */
export type Usdc6 = bigint & { readonly [SCALE]?: 'USDC ×1e6' };

export const PRICE_DECIMALS = 6;
export const SIZE_DECIMALS = 18;
export { USDC_DECIMALS };

/** One unit of each scale: 1 USDC per base unit, one whole base unit, one USDC. */
export const PRICE_ONE: Price6 = 10n ** BigInt(PRICE_DECIMALS);
export const SIZE_ONE: Size18 = 10n ** BigInt(SIZE_DECIMALS);
export const USDC_ONE: Usdc6 = 10n ** BigInt(USDC_DECIMALS);

export const price6 = (v: bigint): Price6 => v;
export const size18 = (v: bigint): Size18 => v;
export const usdc6 = (v: bigint): Usdc6 => v;
