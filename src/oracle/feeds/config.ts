/**
 * The price sources file (`--price-sources FILE`, or `<home>/price-sources.json` for
 * `start --home`; docs/operations.md "Price sources"; decision 168): per market symbol
 * (a pair's symbol in state, e.g. "ETH"), the sources a validator's oracle reads, and the
 * rules it judges them by. Every field but `markets` has a default:
 *
 *   {
 *     "timeoutMs": 800, "maxAgeMs": 10000, "maxDeviationBps": 100, "minSources": 2,
 *     "markets": {
 *       "ETH": [ { "kind": "binance", "symbol": "ETHUSDT" }, { "kind": "coinbase", "product": "ETH-USD" } ],
 *       "BNB": { "minSources": 1, "sources": [ { "kind": "binance", "symbol": "BNBUSDT" } ] },
 *       "DOT": [ { "kind": "file", "path": "fixed-prices.json" } ]
 *     }
 *   }
 *
 * A source may name its `base` URL (tests point it at loopback); a file source's `path`
 * is relative to the sources file and its `key` defaults to the market's symbol. A
 * market's own `minSources` overrides the file's.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SourceSpec } from './adapters';
import {
  PRICE_SOURCE_MAX_AGE_MS_DEFAULT,
  PRICE_SOURCE_MAX_DEVIATION_BPS_DEFAULT,
  PRICE_SOURCE_MIN_DEFAULT,
  PRICE_SOURCE_TIMEOUT_MS_DEFAULT,
  type AggregateRules,
} from './aggregate';

export interface MarketSources {
  symbol: string;
  sources: SourceSpec[];
  minSources: number;
}

export interface PriceSourcesConfig {
  /** Each source's own bound on one read; below the oracle's one-second interval. */
  timeoutMs: number;
  maxAgeMs: number;
  maxDeviationBps: number;
  markets: MarketSources[];
}


/** An observation carries at most 1,024 prices (docs/oracle.md). */
export const PRICE_SOURCE_MARKETS_MAX = 1024;
/** Each source is one request a second: more than this per market is a mistake, not robustness. */
export const PRICE_SOURCES_PER_MARKET_MAX = 16;

export function rulesOf(c: PriceSourcesConfig, m: MarketSources): AggregateRules {
  return { maxAgeMs: c.maxAgeMs, maxDeviationBps: c.maxDeviationBps, minSources: m.minSources };
}

/** Reads and checks a price sources file; the error names the file and the field. */
export function readPriceSourcesFile(file: string): PriceSourcesConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`price sources ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`price sources ${file}: not JSON (${(err as Error).message})`);
  }
  return parsePriceSources(json, dirname(resolve(file)), file);
}

export function parsePriceSources(json: unknown, baseDir: string, name = 'price sources'): PriceSourcesConfig {
  const fail = (what: string): never => {
    throw new Error(`${name}: ${what}`);
  };
  if (!isObject(json)) fail('must be a JSON object');
  const o = json as Record<string, unknown>;
  const int = (key: string, dflt: number, min: number, max: number): number => {
    const v = o[key] ?? dflt;
    if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) fail(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return v as number;
  };
  // At most 5 s: the chain's staleness bound; a read that long already delays this validator's observations past it.
  const timeoutMs = int('timeoutMs', PRICE_SOURCE_TIMEOUT_MS_DEFAULT, 1, 5_000);
  const maxAgeMs = int('maxAgeMs', PRICE_SOURCE_MAX_AGE_MS_DEFAULT, 1, 86_400_000);
  const maxDeviationBps = int('maxDeviationBps', PRICE_SOURCE_MAX_DEVIATION_BPS_DEFAULT, 1, 10_000);
  const minDefault = int('minSources', PRICE_SOURCE_MIN_DEFAULT, 1, 100);
  if (!isObject(o.markets)) fail('markets must be an object of market symbol → sources');
  const markets: MarketSources[] = [];
  const entries = Object.entries(o.markets as Record<string, unknown>);
  if (entries.length > PRICE_SOURCE_MARKETS_MAX) fail(`markets: at most ${PRICE_SOURCE_MARKETS_MAX} (an observation's pair limit), got ${entries.length}`);
  for (const [symbol, entry] of entries) {
    const at = `markets.${symbol}`;
    const list = Array.isArray(entry) ? entry : isObject(entry) ? (entry as Record<string, unknown>).sources : undefined;
    if (!Array.isArray(list) || list.length === 0) fail(`${at} must be a non-empty list of sources, or {"sources": [...], "minSources": n}`);
    if ((list as unknown[]).length > PRICE_SOURCES_PER_MARKET_MAX) fail(`${at}: at most ${PRICE_SOURCES_PER_MARKET_MAX} sources, got ${(list as unknown[]).length}`);
    const own = Array.isArray(entry) ? undefined : (entry as Record<string, unknown>).minSources;
    if (own !== undefined && (!Number.isSafeInteger(own) || (own as number) < 1)) fail(`${at}.minSources must be a positive integer`);
    const minSources = (own as number | undefined) ?? Math.min(minDefault, (list as unknown[]).length);
    if (minSources > (list as unknown[]).length) fail(`${at}.minSources ${minSources} is more than its ${(list as unknown[]).length} sources`);
    markets.push({ symbol, minSources, sources: (list as unknown[]).map((s, i) => sourceSpec(s, symbol, baseDir, `${at}[${i}]`, fail)) });
  }
  return { timeoutMs, maxAgeMs, maxDeviationBps, markets };
}

function sourceSpec(s: unknown, symbol: string, baseDir: string, at: string, fail: (what: string) => never): SourceSpec {
  if (!isObject(s)) fail(`${at} must be an object with a kind`);
  const o = s as Record<string, unknown>;
  const str = (key: string, required: boolean): string | undefined => {
    const v = o[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v === '') fail(`${at}.${key} must be a non-empty string`);
    return v as string;
  };
  const base = str('base', false);
  if (base !== undefined && !/^https?:\/\//.test(base)) fail(`${at}.base must be an http(s) URL, got ${base}`);
  switch (o.kind) {
    case 'binance':
      return { kind: 'binance', symbol: str('symbol', true)!, ...(base ? { base } : {}) };
    case 'coinbase':
      return { kind: 'coinbase', product: str('product', true)!, ...(base ? { base } : {}) };
    case 'file':
      return { kind: 'file', path: resolve(baseDir, str('path', true)!), key: str('key', false) ?? symbol };
    default:
      return fail(`${at}.kind must be binance, coinbase or file, got ${JSON.stringify(o.kind)}`);
  }
}

function isObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
