/**
 * A validator's configured price sources, read once per observation (decision 168): every
 * source of every market at once, each within its timeout, then each market judged by
 * aggregate.ts. It runs inside the oracle actor, whose mailbox holds only its own ticks:
 * a slow or dead source delays that validator's observation by at most the timeout and
 * never the chain's blocks.
 *
 * What goes wrong is said once per change, not once per read: a source that starts
 * failing gets one warning naming it and what is wrong (unreachable, timed out, an HTTP
 * error, garbage, stale, an outlier), and one line when it recovers; a market that loses
 * its price gets one warning saying why, and one line when it has one again. The same
 * states are kept in FeedStats for /metrics.
 */
import type { Logger } from '../../util/log';
import { describeSource, readSource, SourceError, type SourceSpec } from './adapters';
import { aggregate, type SourceReading } from './aggregate';
import { rulesOf, type PriceSourcesConfig } from './config';

export interface SourceState {
  market: string;
  /** The last read's outcome: ok, or the kind of failure (timeout, unreachable, bad-answer, stale, outlier). */
  status: 'ok' | 'timeout' | 'unreachable' | 'bad-answer' | 'stale' | 'outlier';
  reads: number;
  failures: number;
}

/** What /metrics shows of the price sources (src/metrics/node-metrics.ts). */
export interface FeedStats {
  rounds: number;
  /** Wall time of the last round (every source read and judged), ms. */
  lastRoundMs: number;
  /** By market symbol: whether the last round gave it a price. */
  markets: Map<string, boolean>;
  /** By source name (adapters.ts describeSource). */
  sources: Map<string, SourceState>;
}

export function newFeedStats(): FeedStats {
  return { rounds: 0, lastRoundMs: 0, markets: new Map(), sources: new Map() };
}

type Outcome = { ok: true; reading: SourceReading } | { ok: false; status: SourceState['status']; detail: string };

export class FeedReader {
  private readonly now: () => number;

  constructor(
    readonly config: PriceSourcesConfig,
    readonly stats: FeedStats = newFeedStats(),
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** The symbols this reader prices. */
  get symbols(): string[] {
    return this.config.markets.map((m) => m.symbol);
  }

  /** One round: the price ×1e6 of every market that has one now, by symbol. */
  async read(log: Logger): Promise<Map<string, bigint>> {
    const started = this.now();
    const outcomes = await Promise.all(this.config.markets.map((m) => Promise.all(m.sources.map((s) => this.readOne(s)))));
    const judgedAt = this.now();
    const out = new Map<string, bigint>();
    this.config.markets.forEach((m, i) => {
      const names = m.sources.map(describeSource);
      const readings: SourceReading[] = [];
      const problems: string[] = [];
      outcomes[i].forEach((o, j) => {
        if (o.ok) readings.push(o.reading);
        else {
          this.note(log, m.symbol, names[j], o.status, o.detail);
          problems.push(`${names[j]} ${o.detail}`);
        }
      });
      const result = aggregate(readings, rulesOf(this.config, m), judgedAt);
      for (const r of result.refused) {
        this.note(log, m.symbol, r.source, r.reason, `refused as ${r.reason}: ${r.detail}`);
        problems.push(`${r.source} ${r.reason}`);
      }
      for (const name of result.accepted) this.note(log, m.symbol, name, 'ok', 'answers again');
      const priced = result.price !== undefined;
      if (this.stats.markets.get(m.symbol) !== priced) {
        if (priced) log.info({ market: m.symbol, sources: result.accepted }, `oracle: market ${m.symbol} has a price again, the median of ${result.accepted.length} sources`);
        else
          log.warn(
            { market: m.symbol, accepted: result.accepted.length, minSources: m.minSources },
            `oracle: market ${m.symbol} has no price: ${result.accepted.length} of ${m.sources.length} sources usable, fewer than ${m.minSources} (${problems.join('; ') || 'none answered'}); this validator reports nothing for it`,
          );
        this.stats.markets.set(m.symbol, priced);
      }
      if (priced) out.set(m.symbol, result.price!);
    });
    this.stats.rounds++;
    this.stats.lastRoundMs = this.now() - started;
    return out;
  }

  private async readOne(s: SourceSpec): Promise<Outcome> {
    try {
      const r = await readSource(s, AbortSignal.timeout(this.config.timeoutMs), this.now);
      return { ok: true, reading: { source: describeSource(s), ...r } };
    } catch (err) {
      return failure(err, this.config.timeoutMs);
    }
  }

  /** Counts a source's outcome and logs when its status changes (a recovery only after a failure). */
  private note(log: Logger, market: string, source: string, status: SourceState['status'], detail: string): void {
    let st = this.stats.sources.get(source);
    if (!st) this.stats.sources.set(source, (st = { market, status: 'ok', reads: 0, failures: 0 }));
    st.reads++;
    if (status !== 'ok') st.failures++;
    if (status === st.status) return;
    if (status === 'ok') log.info({ market, source }, `oracle: price source ${source} (market ${market}) ${detail}`);
    else log.warn({ market, source, problem: status }, `oracle: price source ${source} (market ${market}) ${detail}`);
    st.status = status;
  }
}

/** A failed read in words: what the operator looks at first. */
function failure(err: unknown, timeoutMs: number): Outcome {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return { ok: false, status: 'timeout', detail: `did not answer within ${timeoutMs} ms` };
  if (err instanceof SourceError) return { ok: false, status: 'bad-answer', detail: err.message };
  const cause = e?.cause?.code ?? e?.cause?.message ?? (e as { code?: string })?.code;
  return { ok: false, status: 'unreachable', detail: `is unreachable: ${e?.message ?? String(err)}${cause && !e.message.includes(cause) ? ` (${cause})` : ''}` };
}
