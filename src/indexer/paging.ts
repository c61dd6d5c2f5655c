/**
 * Paging of the indexer's histories (decision 95): the query a page is asked with, its
 * checks, the opaque cursor and the key range a page scans. A page walks its bucket from
 * the newest key down; the cursor is the key suffix of the last item returned (after
 * the pair, address or interval prefix), tagged with the history it belongs to and
 * written as base64url. Keys are immutable and new writes only add keys above the ones
 * already indexed (later block times, later positions), so a cursor taken now still
 * continues exactly after its item however many blocks are indexed meanwhile: no item is
 * skipped or repeated.
 */
import { prefixEnd, u64 } from './layout';

/** Which history a cursor belongs to: its first byte. */
export enum CursorKind {
  Trades = 1,
  Fills = 2,
  Orders = 3,
  Candles = 4,
}

/**
 * Bytes after the prefix in each history's keys: trades time u64 ‖ position (16);
 * fills time ‖ position ‖ side u8; orders time ‖ order id u64; candles bucket start u64.
 */
const SUFFIX_BYTES: Record<CursorKind, number> = { [CursorKind.Trades]: 24, [CursorKind.Fills]: 25, [CursorKind.Orders]: 16, [CursorKind.Candles]: 8 };

/** The longest cursor text of any history (base64url of 1 + 25 bytes), for the routes' schemas. */
export const CURSOR_MAX_CHARS = 40;

/** What a page is asked with. Times are block times, Unix ms, both bounds inclusive. */
export interface PageQuery {
  startTime?: number;
  endTime?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** Items per page, 1 to the history's maximum (default: that maximum). */
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** Where the next (older) page starts; null when this page reaches the end. */
  nextCursor: string | null;
}

/** A page query with a bad parameter; `field` names it (the API answers 400 with it). */
export class PageQueryError extends RangeError {
  override readonly name = 'PageQueryError';
  constructor(
    readonly field: 'startTime' | 'endTime' | 'cursor' | 'limit',
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const CURSOR_RE = /^[A-Za-z0-9_-]+$/;

/** Checks a page query against a history's maximum limit; returns the cursor's key suffix, if any. */
export function checkPageQuery(kind: CursorKind, q: PageQuery, maxLimit: number): { limit: number; after?: Uint8Array } {
  if (q.startTime !== undefined && !isTime(q.startTime)) throw new PageQueryError('startTime', 'must be a non-negative integer (Unix ms)');
  if (q.endTime !== undefined && !isTime(q.endTime)) throw new PageQueryError('endTime', 'must be a non-negative integer (Unix ms)');
  if (q.startTime !== undefined && q.endTime !== undefined && q.startTime > q.endTime) throw new PageQueryError('startTime', 'must not be after endTime');
  const limit = q.limit ?? maxLimit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxLimit) throw new PageQueryError('limit', `must be an integer from 1 to ${maxLimit}`);
  return q.cursor === undefined ? { limit } : { limit, after: decodeCursor(kind, q.cursor) };
}

export function encodeCursor(kind: CursorKind, suffix: Uint8Array): string {
  const b = Buffer.allocUnsafe(1 + suffix.length);
  b[0] = kind;
  b.set(suffix, 1);
  return b.toString('base64url');
}

/** The key suffix a cursor of `kind` holds; PageQueryError('cursor') if it is not one. */
export function decodeCursor(kind: CursorKind, text: string): Uint8Array {
  const bad = (why: string): never => {
    throw new PageQueryError('cursor', `${why} (pass the nextCursor of the previous page unchanged)`);
  };
  if (typeof text !== 'string' || text.length === 0 || text.length > CURSOR_MAX_CHARS || !CURSOR_RE.test(text)) bad('not a cursor');
  const b = Buffer.from(text, 'base64url');
  // Node's decoder is lenient: only the canonical text of these bytes is a cursor.
  if (b.toString('base64url') !== text) bad('not a cursor');
  if (b[0] !== kind) bad('a cursor of another history');
  if (b.length !== 1 + SUFFIX_BYTES[kind]) bad('not a cursor');
  return new Uint8Array(b.subarray(1));
}

/**
 * The [gte, lt) keys under `prefix` whose first u64 after it lies in [lo, hi] (key units:
 * ms, or seconds for candles; hi undefined: no upper bound), below the cursor's key.
 * Undefined when the range is empty.
 */
export function pageRange(prefix: Uint8Array, lo: number, hi: number | undefined, after?: Uint8Array): { gte: Uint8Array; lt: Uint8Array } | undefined {
  const gte = Buffer.concat([prefix, u64(lo)]);
  let lt: Uint8Array = hi === undefined ? prefixEnd(prefix) : Buffer.concat([prefix, u64(hi + 1)]);
  if (after !== undefined) {
    const c = Buffer.concat([prefix, after]);
    if (Buffer.compare(c, lt) < 0) lt = c;
  }
  return Buffer.compare(gte, lt) < 0 ? { gte, lt } : undefined;
}
