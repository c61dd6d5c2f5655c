/**
 * Price source adapters (docs/oracle.md "Price sources"; decision 168): each reads one
 * market's price from one place and answers it in the chain's price units (×1e6,
 * src/util/fixed.ts), parsed from the decimal string exactly (no floating point), with
 * the time the source gives for it. Three kinds:
 *
 * - `binance`: GET {base}/api/v3/ticker/price?symbol=ETHUSDT → {"symbol":"ETHUSDT","price":"3012.45000000"}.
 *   The answer carries no time: the price is taken as of its arrival.
 * - `coinbase`: GET {base}/products/ETH-USD/ticker → {"price":"3012.45","time":"2026-…Z",…}:
 *   `time` is the last trade's, so a market that stopped trading reads as stale.
 * - `file`: a JSON file {"ETH": "3000", …} read afresh each round (fixed prices for a test
 *   network; edit the file to move them). Its prices are as of the read.
 *
 * A price with more than six decimals is cut to six (toward zero; the chain has no finer
 * unit); anything but a positive decimal string (a number, an exponent, a sign) is refused.
 */
import { readFile } from 'node:fs/promises';
import { parseDecimal } from '../../util/decimal';
import { PRICE_DECIMALS } from '../../util/fixed';

export const BINANCE_BASE_DEFAULT = 'https://api.binance.com';
export const COINBASE_BASE_DEFAULT = 'https://api.exchange.coinbase.com';

/** One source of one market, as the price sources file names it (src/oracle/feeds/config.ts). */
export type SourceSpec =
  | { kind: 'binance'; symbol: string; base?: string }
  | { kind: 'coinbase'; product: string; base?: string }
  | { kind: 'file'; path: string; key: string };

/** A price read: ×1e6, and the time (ms) the source gives for it. */
export interface Reading {
  price: bigint;
  timeMs: number;
}

/** A source that answered, but not with a usable price: the message says what is wrong. */
export class SourceError extends Error {}

/** A decimal string as price units ×1e6, digits past the sixth cut; null unless a positive decimal string. */
export function priceUnits(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const dot = value.indexOf('.');
  const cut = dot >= 0 && value.length - dot - 1 > PRICE_DECIMALS ? value.slice(0, dot + 1 + PRICE_DECIMALS) : value;
  const units = parseDecimal(cut, PRICE_DECIMALS);
  return units !== null && units > 0n ? units : null;
}

/** A short name for logs and metrics: the kind, what it reads and, for a base of its own, its host (never a secret: the sources file holds none). */
export function describeSource(s: SourceSpec): string {
  switch (s.kind) {
    case 'binance':
      return `binance:${s.symbol}${at(s.base)}`;
    case 'coinbase':
      return `coinbase:${s.product}${at(s.base)}`;
    case 'file':
      return `file:${s.path}#${s.key}`;
  }
}

/** `@host[:port]` of a base URL other than the exchange's own, so two servers of one format keep apart. */
function at(base: string | undefined): string {
  if (base === undefined) return '';
  try {
    return `@${new URL(base).host}`;
  } catch {
    return `@${base}`;
  }
}

/** The URL a source is read from (undefined for a file). */
export function sourceUrl(s: SourceSpec): string | undefined {
  switch (s.kind) {
    case 'binance':
      return `${trimSlash(s.base ?? BINANCE_BASE_DEFAULT)}/api/v3/ticker/price?symbol=${encodeURIComponent(s.symbol)}`;
    case 'coinbase':
      return `${trimSlash(s.base ?? COINBASE_BASE_DEFAULT)}/products/${encodeURIComponent(s.product)}/ticker`;
    case 'file':
      return undefined;
  }
}

function trimSlash(base: string): string {
  return base.replace(/\/+$/, '');
}

/** Binance's ticker answer: the price of `symbol`, as of `receivedMs`. */
export function parseBinance(body: unknown, symbol: string, receivedMs: number): Reading {
  const o = asObject(body);
  if (o.symbol !== symbol) throw new SourceError(`answered for symbol ${JSON.stringify(o.symbol)}, not ${symbol}`);
  return { price: priceField(o.price), timeMs: receivedMs };
}

/** Coinbase's ticker answer: the last trade's price and time. */
export function parseCoinbase(body: unknown): Reading {
  const o = asObject(body);
  const price = priceField(o.price);
  const timeMs = typeof o.time === 'string' ? Date.parse(o.time) : NaN;
  if (!Number.isFinite(timeMs)) throw new SourceError(`its time ${JSON.stringify(o.time)} is not an ISO time`);
  return { price, timeMs };
}

/** A fixed-price file's entry for `key`, as of `readMs`. */
export function parseFixedFile(body: unknown, key: string, readMs: number): Reading {
  const o = asObject(body);
  if (!(key in o)) throw new SourceError(`has no price for ${key}`);
  return { price: priceField(o[key]), timeMs: readMs };
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new SourceError('answered something other than a JSON object');
  return body as Record<string, unknown>;
}

function priceField(v: unknown): bigint {
  const p = priceUnits(v);
  if (p === null) throw new SourceError(`its price ${JSON.stringify(v)?.slice(0, 40)} is not a positive decimal string`);
  return p;
}

/**
 * Reads one source once, within `signal` (the caller's timeout). Throws SourceError
 * (answered, unusable), or the fetch's or the file's own error (unreachable, timed out,
 * missing), which the reader words for the log.
 */
export async function readSource(s: SourceSpec, signal: AbortSignal, now: () => number): Promise<Reading> {
  if (s.kind === 'file') {
    const text = await readFile(s.path, { encoding: 'utf8', signal });
    return parseFixedFile(parseJson(text), s.key, now());
  }
  const res = await fetch(sourceUrl(s)!, { signal, headers: { accept: 'application/json' } });
  const text = await boundedText(res);
  if (!res.ok) throw new SourceError(`answered HTTP ${res.status}${text ? `: ${text.slice(0, 80).replace(/\s+/g, ' ')}` : ''}`);
  const body = parseJson(text);
  return s.kind === 'binance' ? parseBinance(body, s.symbol, now()) : parseCoinbase(body);
}

/** A ticker answer is a few hundred bytes: one larger than this is refused unread past it. */
export const SOURCE_ANSWER_BYTES_MAX = 64 * 1024;

async function boundedText(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > SOURCE_ANSWER_BYTES_MAX) {
        await res.body.cancel().catch(() => undefined);
        throw new SourceError(`answered more than ${SOURCE_ANSWER_BYTES_MAX} bytes`);
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SourceError(text.trim() === '' ? 'answered nothing' : `answered something other than JSON: ${JSON.stringify(text.slice(0, 40))}`);
  }
}
