/** p50, p99 and max of a sample (nearest rank), rounded to `digits` decimals for the report. */
export function quantiles(xs: number[], digits: number): { p50: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => +s[Math.min(s.length - 1, Math.floor(s.length * p))].toFixed(digits);
  return { p50: q(0.5), p99: q(0.99), max: +s[s.length - 1].toFixed(digits) };
}
