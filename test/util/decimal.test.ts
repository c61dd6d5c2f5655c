import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDecimal, parseDecimal } from '../../src/util/decimal';

/** The definition: whole × 10^decimals + the fraction scaled to `decimals` digits. */
const reference = (whole: string, frac: string, decimals: number): bigint => BigInt(whole) * 10n ** BigInt(decimals) + (frac === '' ? 0n : BigInt(frac) * 10n ** BigInt(decimals - frac.length));

describe('parseDecimal', () => {
  it('equals the definition for every well-formed value, and round-trips through formatDecimal', () => {
    const digits = (min: number, max: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    const whole = fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 30)).map(([a, b]) => a + b));
    fc.assert(
      fc.property(whole, fc.integer({ min: 0, max: 18 }), digits(0, 18), (w, decimals, f) => {
        const frac = f.slice(0, decimals);
        const text = frac === '' ? w : `${w}.${frac}`;
        const v = parseDecimal(text, decimals);
        expect(v).toBe(reference(w, frac, decimals));
        expect(parseDecimal(formatDecimal(v!, decimals), decimals)).toBe(v);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses what is not a plain non-negative decimal with at most `decimals` fraction digits', () => {
    for (const bad of ['', '.5', '5.', '-1', '+1', '01', '1e3', ' 1', '1 ', '0x10', '1.2.3', '1,5', '١', 'NaN']) expect(parseDecimal(bad, 6)).toBeNull();
    expect(parseDecimal('1.1234567', 6)).toBeNull();
    expect(parseDecimal('1.123456', 6)).toBe(1_123_456n);
    expect(parseDecimal('7', 0)).toBe(7n);
    expect(parseDecimal('7.0', 0)).toBeNull();
    expect(parseDecimal(5 as unknown, 6)).toBeNull();
    expect(parseDecimal('1'.repeat(81), 0)).toBeNull();
  });
});
