/** Decimal strings <-> scaled bigints, exactly; no floating point anywhere. */

const DECIMAL_RE = /^(0|[1-9][0-9]*)(\.([0-9]+))?$/;

/**
 * Parses a non-negative decimal string ("2500.5") into units of 10^-decimals.
 * Returns null for anything else: signs, exponents, spaces, too many fraction digits.
 */
export function parseDecimal(value: unknown, decimals: number): bigint | null {
  if (typeof value !== 'string' || value.length > 80) return null;
  const m = DECIMAL_RE.exec(value);
  if (!m) return null;
  const frac = m[3] ?? '';
  if (frac.length > decimals) return null;
  // The digits of whole and fraction, the fraction padded to `decimals`: one conversion.
  return BigInt(m[1] + frac.padEnd(decimals, '0'));
}

/** Formats units of 10^-decimals as the shortest exact decimal string ("2500.5", "0", "-1.25"). */
export function formatDecimal(units: bigint, decimals: number): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const frac = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export const USDC_DECIMALS = 6;
export const NATIVE_DECIMALS = 18;
