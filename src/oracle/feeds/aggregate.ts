/**
 * One market's price from its sources' readings (decision 169): pure, so the rule is
 * tested apart from any network.
 *
 * 1. A reading older than `maxAgeMs` (by the source's own time) is stale and refused; a
 *    source that did not answer within its timeout has no reading at all.
 * 2. With two readings or more, a reading more than `maxDeviationBps` from the median of
 *    all the fresh readings is an outlier and refused (with exactly two that disagree by
 *    more than twice the bound, both are: there is no telling which is wrong). Not the
 *    median of the others: with three sources and one liar, an honest source's "others"
 *    are the other honest one and the liar, whose mean would put the honest source off.
 * 3. The median of the rest (even count: the lower-rounded mean of the middle two) is the
 *    price, if at least `minSources` remain; otherwise the market has no price this round.
 */

/** Each source's bound on one read (the price sources file's default): below the oracle's one-second interval. */
export const PRICE_SOURCE_TIMEOUT_MS_DEFAULT = 800;
/** A source's price older than this is stale: ten seconds, twice the chain's own staleness bound for the median. */
export const PRICE_SOURCE_MAX_AGE_MS_DEFAULT = 10_000;
/** 1 %: exchanges quoting the same market agree far closer (USD against USDT included); a source this far off is broken or lying. */
export const PRICE_SOURCE_MAX_DEVIATION_BPS_DEFAULT = 100;
export const PRICE_SOURCE_MIN_DEFAULT = 2;

export interface AggregateRules {
  maxAgeMs: number;
  maxDeviationBps: number;
  minSources: number;
}

export interface SourceReading {
  source: string;
  price: bigint;
  timeMs: number;
}

export interface Refusal {
  source: string;
  reason: 'stale' | 'outlier';
  detail: string;
}

export interface Aggregate {
  /** The median of the accepted readings; undefined when fewer than minSources remain. */
  price: bigint | undefined;
  accepted: string[];
  refused: Refusal[];
}

/** The median of a non-empty list of prices (even count: the mean of the middle two, rounded down). */
export function medianPrice(values: readonly bigint[]): bigint {
  if (values.length === 0) throw new RangeError('median of no values');
  const s = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2n;
}

export function aggregate(readings: readonly SourceReading[], rules: AggregateRules, nowMs: number): Aggregate {
  const refused: Refusal[] = [];
  const fresh: SourceReading[] = [];
  for (const r of readings) {
    const age = nowMs - r.timeMs;
    if (age > rules.maxAgeMs) refused.push({ source: r.source, reason: 'stale', detail: `its price is ${Math.round(age / 1000)} s old (bound ${rules.maxAgeMs / 1000} s)` });
    else fresh.push(r);
  }
  const accepted: SourceReading[] = [];
  const centre = fresh.length >= 2 ? medianPrice(fresh.map((r) => r.price)) : undefined;
  for (const r of fresh) {
    const diff = centre === undefined ? 0n : r.price > centre ? r.price - centre : centre - r.price;
    if (centre !== undefined && diff * 10_000n > BigInt(rules.maxDeviationBps) * centre) {
      refused.push({ source: r.source, reason: 'outlier', detail: `${fmtBps((diff * 10_000n) / centre)} from the median of the sources (bound ${fmtBps(BigInt(rules.maxDeviationBps))})` });
    } else accepted.push(r);
  }
  const price = accepted.length >= rules.minSources && accepted.length > 0 ? medianPrice(accepted.map((r) => r.price)) : undefined;
  return { price, accepted: accepted.map((r) => r.source), refused };
}

function fmtBps(bps: bigint): string {
  return `${bps / 100n}.${(bps % 100n).toString().padStart(2, '0')} %`;
}
