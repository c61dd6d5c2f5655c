/**
 * The indexer's storage layout: the buckets of its LevelDB folder, the records stored in
 * them (chain units), their codecs and the binary keys. Keys are one IndexBucket byte,
 * then fixed-width big-endian fields, so LevelDB's byte order is numeric order
 * (heights, order ids, bucket times). A change here bumps INDEX_SCHEMA_VERSION: an index
 * of another schema is deleted and rebuilt from the chain store.
 */
import type { OrderStatus } from '../state/events';
import type { CandleRecord } from './candles';

export enum IndexBucket {
  /**
   * utf8 name -> value. 'height' -> u64 last indexed height; 'schema' -> u32 layout
   * version; 'identity' -> utf8 chain identity (e.g. genesis hash); 'stats' -> StatsRecord (`recordCodec`)
   */
  Meta = 0,
  /** utf8 symbol -> u32 pair id (first seen in an event) */
  Pair = 1,
  /**
   * pair id u32 ‖ block time u64 (Unix ms) ‖ position (height u64 ‖ receipt u32 ‖ event u32)
   * -> TradeRecord (a JSON array of its values, `recordCodec`). The time lets a query seek
   * a time range; the position keeps chain order within a block: the receipts by index,
   * then the block's own events at receipt BLOCK_EVENTS_RECEIPT.
   */
  Trade = 2,
  /** address (20 bytes) ‖ block time u64 ‖ position (16 bytes) ‖ side u8 (0 buy, 1 sell) -> FillRecord (`recordCodec`) */
  Fill = 3,
  /** pair id u32 ‖ interval seconds u32 ‖ bucket start u64 (Unix seconds) -> CandleRecord (`recordCodec`) */
  Candle = 4,
  /** order id u64 -> OrderRecord (`recordCodec`) */
  Order = 5,
  /** owner address (20 bytes) ‖ placement block time u64 (Unix ms) ‖ order id u64 -> empty */
  AccountOrder = 6,
  /** address (20 bytes) -> AccountRecord (`recordCodec`: orders placed, trades, volume, agent flag, first seen) */
  Account = 7,
  /**
   * board u8 (0 all, 1 agents) ‖ (2^128 − 1 − volume) u128 ‖ address (20 bytes) -> empty.
   * Ascending key order is volume descending, ties by address ascending.
   */
  Rank = 8,
  /** first seen as agent u64 (Unix ms) ‖ address (20 bytes) -> empty */
  Agent = 9,
}

/**
 * Bumped whenever a key or value layout changes: an index of another schema is rebuilt
 * (the indexer actor deletes it and catches up from the chain store). 4: Trade, Fill and
 * AccountOrder keys carry the block time, for time ranges and cursors (decision 95);
 * records gained trailing optional client order ids. 5: a block's own events are indexed
 * after its receipts (scheduled cancels, TWAP slice orders and fills) and OrderModified
 * changes an order's price, size and remaining.
 */
export const INDEX_SCHEMA_VERSION = 5;

/**
 * The receipt position of a block's own events (scheduled cancels, TWAP slices, perp
 * steps: BlockResult.blockEvents) in trade and fill keys: after every receipt, as they
 * run after every transaction.
 */
export const BLOCK_EVENTS_RECEIPT = 0xffff_ffff;

/** The txHash of records made by a block's own step, which no transaction carried: 0x and 64 zeros. */
export const NO_TX_HASH = `0x${'0'.repeat(64)}` as `0x${string}`;

const U128_MAX = (1n << 128n) - 1n;

// ---- stored records (chain units) ------------------------------------------------

export interface TradeRecord {
  symbol: string;
  pairId: number;
  price: bigint;
  size: bigint;
  usdc: bigint;
  buyer: string;
  seller: string;
  buyerIsAgent: boolean;
  sellerIsAgent: boolean;
  takerSide: 0 | 1;
  makerOrderId: string;
  takerOrderId: string;
  takerFee: bigint;
  txHash: string;
  time: number;
  /** The maker's and the taker's client order ids, when their orders had one. */
  makerCloid?: string;
  takerCloid?: string;
}

export interface FillRecord {
  symbol: string;
  side: 0 | 1;
  price: bigint;
  size: bigint;
  usdc: bigint;
  txHash: string;
  time: number;
  orderId: string;
  fee: bigint;
  /** The client order id of `orderId`, when it had one. */
  cloid?: string;
}

export interface OrderRecord {
  orderId: string;
  owner: string;
  symbol: string;
  pairId: number;
  side: 0 | 1;
  orderType: 0 | 1;
  price: bigint;
  size: bigint;
  leverage: number;
  isAgent: boolean;
  status: OrderStatus;
  filled: bigint;
  remaining: bigint;
  /** Σ usdc of the trades this order took part in (for the average price). */
  filledUsdc: bigint;
  /** Σ size of those trades. */
  tradedSize: bigint;
  reason?: string;
  txHash: string;
  time: number;
  updatedTime: number;
  /** The client order id given at placement, when there was one. */
  cloid?: string;
}

export interface AccountRecord {
  /** OrderPlaced events of this owner. */
  orders: number;
  trades: number;
  volume: bigint;
  isAgent: boolean;
  /** Unix ms when first seen as an agent; null while never. */
  firstSeen: number | null;
}

export interface StatsRecord {
  totalOrders: number;
  totalTrades: number;
  agentTrades: number;
  humanTrades: number;
  volumeUsdc: bigint;
}

export const EMPTY_STATS: Readonly<StatsRecord> = Object.freeze({ totalOrders: 0, totalTrades: 0, agentTrades: 0, humanTrades: 0, volumeUsdc: 0n });

export const textEncoder = new TextEncoder();
export const textDecoder = new TextDecoder();

/**
 * A stored record: a JSON array of its values in a fixed field order (schema 3 on), bigints
 * as decimal strings, an absent optional field as null; trailing absent optional fields
 * are left out, so a field added at the end (the client order ids of schema 4) costs
 * nothing on the records without it. Field names are not stored: they were two fifths of
 * an order record's bytes. `fields` must name every field of T (the
 * compiler checks), so a field added to a record and forgotten here does not compile.
 */
export interface RecordCodec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

type Covers<T, F extends readonly string[]> = [Exclude<keyof T, F[number]>] extends [never] ? F : never;

function recordCodec<T>() {
  return <const F extends readonly (keyof T & string)[]>(fields: Covers<T, F>, big: readonly F[number][], optional: readonly F[number][] = []): RecordCodec<T> => {
    const n = fields.length;
    const isBig = fields.map((f) => big.includes(f));
    const isOptional = fields.map((f) => optional.includes(f));
    // The values from `required` on may be left out when absent (all optional, trailing).
    let required = n;
    while (required > 0 && isOptional[required - 1]) required--;
    return {
      encode(value: T): Uint8Array {
        const v = value as Record<string, unknown>;
        const out = new Array<unknown>(n);
        for (let i = 0; i < n; i++) {
          const x = v[fields[i]];
          out[i] = isBig[i] ? (x as bigint).toString() : x === undefined ? null : x;
        }
        let len = n;
        while (len > required && out[len - 1] === null) len--;
        out.length = len;
        // Buffer.from takes small strings from Node's shared pool instead of a new
        // ArrayBuffer each; the batch copies the bytes into LevelDB's write batch at once.
        return Buffer.from(JSON.stringify(out), 'utf8');
      },
      decode(bytes: Uint8Array): T {
        const a = JSON.parse(textDecoder.decode(bytes)) as unknown[];
        if (!Array.isArray(a) || a.length < required || a.length > n) throw new Error(`index record of ${Array.isArray(a) ? a.length : 'no'} values, expected ${required === n ? n : `${required} to ${n}`}`);
        const o: Record<string, unknown> = {};
        for (let i = 0; i < a.length; i++) {
          const x = a[i];
          if (isOptional[i] && x === null) continue;
          o[fields[i]] = isBig[i] ? BigInt(x as string) : x;
        }
        return o as T;
      },
    };
  };
}

export const TRADE = recordCodec<TradeRecord>()(
  ['symbol', 'pairId', 'price', 'size', 'usdc', 'buyer', 'seller', 'buyerIsAgent', 'sellerIsAgent', 'takerSide', 'makerOrderId', 'takerOrderId', 'takerFee', 'txHash', 'time', 'makerCloid', 'takerCloid'],
  ['price', 'size', 'usdc', 'takerFee'],
  ['makerCloid', 'takerCloid'],
);
export const FILL = recordCodec<FillRecord>()(['symbol', 'side', 'price', 'size', 'usdc', 'txHash', 'time', 'orderId', 'fee', 'cloid'], ['price', 'size', 'usdc', 'fee'], ['cloid']);
export const ORDER = recordCodec<OrderRecord>()(
  ['orderId', 'owner', 'symbol', 'pairId', 'side', 'orderType', 'price', 'size', 'leverage', 'isAgent', 'status', 'filled', 'remaining', 'filledUsdc', 'tradedSize', 'reason', 'txHash', 'time', 'updatedTime', 'cloid'],
  ['price', 'size', 'filled', 'remaining', 'filledUsdc', 'tradedSize'],
  ['reason', 'cloid'],
);
export const ACCOUNT = recordCodec<AccountRecord>()(['orders', 'trades', 'volume', 'isAgent', 'firstSeen'], ['volume']);
export const STATS = recordCodec<StatsRecord>()(['totalOrders', 'totalTrades', 'agentTrades', 'humanTrades', 'volumeUsdc'], ['volumeUsdc']);
export const CANDLE = recordCodec<CandleRecord>()(['time', 'open', 'high', 'low', 'close', 'volume'], ['open', 'high', 'low', 'close', 'volume']);

// ---- keys --------------------------------------------------------------------------

// Key parts and keys come from Buffer.allocUnsafe: small sizes are carved from Node's
// shared pool instead of a new ArrayBuffer each (a block's index writes build thousands).
// They are copied into LevelDB's write batch; nothing here reads `.buffer` unoffset.

export function u32(n: number): Uint8Array {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n, 0);
  return b;
}

const TWO_32 = 2 ** 32;

/** A non-negative safe integer as a big-endian u64 at `offset`, without a BigInt. */
function writeSafeU64(b: Buffer, n: number, offset: number): void {
  b.writeUInt32BE(Math.floor(n / TWO_32), offset);
  b.writeUInt32BE(n % TWO_32, offset + 4);
}

export function u64(n: number | bigint): Uint8Array {
  const b = Buffer.allocUnsafe(8);
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) writeSafeU64(b, n, 0);
  else b.writeBigUInt64BE(BigInt(n), 0);
  return b;
}

/** An order id (decimal text, at most 20 digits) as its u64 key part. */
export function orderIdKey(id: string): Uint8Array {
  const n = Number(id);
  return u64(Number.isSafeInteger(n) ? n : BigInt(id));
}

export function readU64(b: Uint8Array): number {
  return Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0));
}

function u128(n: bigint): Uint8Array {
  const b = Buffer.allocUnsafe(16);
  b.writeBigUInt64BE(BigInt.asUintN(64, n >> 64n), 0);
  b.writeBigUInt64BE(BigInt.asUintN(64, n), 8);
  return b;
}

/** 0x + 40 hex (validated by the event parser or normAddress) -> 20 bytes. */
export function addressBytes(address: string): Uint8Array {
  const out = new Uint8Array(20);
  for (let i = 0; i < 20; i++) out[i] = (hexNibble(address.charCodeAt(2 + 2 * i)) << 4) | hexNibble(address.charCodeAt(3 + 2 * i));
  return out;
}

function hexNibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  throw new Error('indexer: not a hex address');
}

export function bytesToAddress(b: Uint8Array): string {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

export function key(bucket: IndexBucket, ...parts: Uint8Array[]): Uint8Array {
  let n = 1;
  for (const p of parts) n += p.length;
  const out = Buffer.allocUnsafe(n);
  out[0] = bucket;
  let o = 1;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function metaKey(name: string): Uint8Array {
  return key(IndexBucket.Meta, textEncoder.encode(name));
}

/** The smallest key greater than every key starting with `prefix` (its first byte is a bucket < 0xff). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] < 0xff) {
      // A copy: on a Buffer (keys are), slice() would be a view and the increment would change the prefix.
      const out = Uint8Array.prototype.slice.call(prefix, 0, i + 1);
      out[i]++;
      return out;
    }
  }
  throw new Error('prefixEnd: prefix of 0xff bytes');
}

export function position(height: number, receipt: number, event: number): Uint8Array {
  const b = Buffer.allocUnsafe(16);
  writeSafeU64(b, height, 0);
  b.writeUInt32BE(receipt, 8);
  b.writeUInt32BE(event, 12);
  return b;
}

export function rankKey(board: 0 | 1, volume: bigint, address: string): Uint8Array {
  const inv = volume >= U128_MAX ? 0n : U128_MAX - volume;
  return key(IndexBucket.Rank, Uint8Array.of(board), u128(inv), addressBytes(address));
}

/** The value of index-only keys (AccountOrder, Rank, Agent). */
export const EMPTY = new Uint8Array(0);
export const ZERO_ACCOUNT: Readonly<AccountRecord> = Object.freeze({ orders: 0, trades: 0, volume: 0n, isAgent: false, firstSeen: null });
