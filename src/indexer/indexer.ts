/**
 * The read-side index of the exchange: trades, fills, candles, orders, leaderboard,
 * agents and protocol stats, derived only from the chain's blocks (their timestamps)
 * and receipts (their events, src/state/events.ts).
 *
 * It lives in its OWN LevelDB folder. Nothing in it is authoritative: an operator may
 * delete the folder at any time and the node rebuilds it, byte for byte the same,
 * from the chain store (`catchUp`). Every block is written in ONE atomic batch
 * together with the new indexed height, so a crash leaves whole blocks only and the
 * next start resumes after the last one written. Writes are not fsynced: a block lost
 * on power failure is simply indexed again from the chain store.
 *
 * Keys are binary: one IndexBucket byte, then fixed-width big-endian fields, so that
 * LevelDB's byte order is numeric order (heights, order ids, bucket times). Values are
 * JSON with amounts as decimal integer strings (chain units: prices ×1e6, sizes ×1e18,
 * USDC ×1e6); queries format them as decimal strings with `formatDecimal`.
 */
import { mkdir, rm } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { writeBatch, type Op } from '../storage/batch';
import { BoundedCache } from '../util/cache';
import type { Receipt } from '../state/context';
import type { OrderPlacedEvent, OrderStatus, OrderUpdatedEvent, TradeExecutedEvent } from '../state/events';
import { formatDecimal } from '../util/decimal';
import { CANDLE_INTERVALS, bucketStart, isCandleInterval, mergeTrades, type BlockCandle, type CandleInterval, type CandleRecord } from './candles';
import { isOrderId, parseEvent } from './parse';

export enum IndexBucket {
  /**
   * utf8 name -> value. 'height' -> u64 last indexed height; 'schema' -> u32 layout
   * version; 'identity' -> utf8 chain identity (e.g. genesis hash); 'stats' -> StatsRecord (`recordCodec`)
   */
  Meta = 0,
  /** utf8 symbol -> u32 pair id (first seen in an event) */
  Pair = 1,
  /** pair id u32 ‖ position (height u64 ‖ receipt u32 ‖ event u32) -> TradeRecord (a JSON array of its values, `recordCodec`) */
  Trade = 2,
  /** address (20 bytes) ‖ position (16 bytes) ‖ side u8 (0 buy, 1 sell) -> FillRecord (`recordCodec`) */
  Fill = 3,
  /** pair id u32 ‖ interval seconds u32 ‖ bucket start u64 (Unix seconds) -> CandleRecord (`recordCodec`) */
  Candle = 4,
  /** order id u64 -> OrderRecord (`recordCodec`) */
  Order = 5,
  /** owner address (20 bytes) ‖ order id u64 -> empty */
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

/** Bumped whenever a key or value layout changes: an index of another schema is rebuilt. */
export const INDEX_SCHEMA_VERSION = 3;

export const TRADES_LIMIT_MAX = 200;
export const FILLS_LIMIT_MAX = 200;
export const CANDLES_LIMIT_MAX = 500;
export const ORDERS_LIMIT_MAX = 50;
export const LEADERBOARD_LIMIT_MAX = 500;
export const AGENTS_LIMIT_MAX = 1000;

/** catchUp writes at most this many blocks, or about this many events, per batch. */
export const CATCHUP_BLOCKS_PER_BATCH = 256;
export const CATCHUP_EVENTS_PER_BATCH = 20_000;
/**
 * A block with nothing to index writes nothing (an idle chain makes 45 a second, and each
 * write cost a LevelDB batch on every node); the stored height is brought up to date at
 * least this often, so a restart re-reads at most this many blocks (about 20 s at idle).
 */
export const HEIGHT_CHECKPOINT_BLOCKS = 1_000;

const PRICE_DECIMALS = 6;
const SIZE_DECIMALS = 18;
const USDC_DECIMALS = 6;
const U128_MAX = (1n << 128n) - 1n;

// ---------------------------------------------------------------------------------
// Public shapes

export type SideName = 'buy' | 'sell';

export interface TradeItem {
  symbol: string;
  price: string;
  amount: string;
  buyer: string;
  seller: string;
  buyerIsAgent: boolean;
  txHash: string;
  /** Block time, Unix ms. */
  time: number;
  takerSide: SideName;
}

export interface FillItem {
  symbol: string;
  /** From the queried address's point of view. */
  side: SideName;
  price: string;
  amount: string;
  /** USDC exchanged by the trade (price × size). */
  usdcSettled: string;
  txHash: string;
  time: number;
  /** The queried address's order in this trade. */
  orderId: string;
  /** USDC fee paid by the queried address (taker fee, or "0" as maker). */
  fee: string;
}

export interface CandleItem {
  /** Bucket start, Unix seconds. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  /** Base-asset volume. */
  volume: string;
}

export interface OrderItem {
  orderId: string;
  symbol: string;
  pairId: number;
  side: SideName;
  type: 'limit' | 'market';
  /** Limit price, or a market order's worst price ("0" when none). */
  price: string;
  amount: string;
  filled: string;
  remaining: string;
  status: OrderStatus;
  isAgent: boolean;
  leverage: number;
  /** Volume-weighted average fill price, rounded down to 1e-6; null before any fill. */
  avgPrice: string | null;
  /** Why the engine ended the order ('market-rest', 'self-trade', 'user'), when it said. */
  reason?: string;
  txHash: string;
  /** Placement block time, Unix ms. */
  time: number;
  /** Block time of the last change, Unix ms. */
  updatedTime: number;
}

export interface LeaderboardItem {
  address: string;
  /** Σ usdc of the trades the address was buyer or seller of (a self-trade counts once). */
  volume: string;
  trades: number;
  isAgent: boolean;
}

export interface StatsItem {
  /** OrderPlaced events. */
  totalOrders: number;
  totalTrades: number;
  /** Trades where the buyer or the seller is an agent. */
  agentTrades: number;
  humanTrades: number;
  volumeUsdc: string;
}

export interface AgentItem {
  address: string;
  trades: number;
  volume: string;
  /** Block time at which the address was first seen acting as an agent, Unix ms. */
  firstSeen: number;
}

export type LeaderboardType = 'agents' | 'all';

/** What catchUp reads: ChainStore satisfies it. */
export interface ChainStoreLike {
  headHeight(): Promise<number | undefined>;
  getBlock(height: number): Promise<{ header: { timestampMs: number } } | undefined>;
  getReceipts(height: number): Promise<Receipt[] | undefined>;
}

export type TxHashOf = (receipt: Receipt, position: number) => string;

export interface IndexerOpenOptions {
  /**
   * Identity of the chain the index belongs to (the genesis hash). An index written
   * for another identity refuses to open (IndexerIncompatibleError).
   */
  identity?: string;
}

export interface CatchUpOptions {
  /** Stops between batches (throws the signal's reason). */
  signal?: AbortSignal;
  blocksPerBatch?: number;
}

/** The index was written by another schema version or for another chain: delete and rebuild it. */
export class IndexerIncompatibleError extends Error {
  override readonly name = 'IndexerIncompatibleError';
}

/** indexBlock was given a height past indexedHeight + 1: catch up from the store first. */
export class IndexerGapError extends Error {
  override readonly name = 'IndexerGapError';
  constructor(readonly expected: number, readonly got: number) {
    super(`indexer: expected height ${expected}, got ${got} (catch up from the chain store first)`);
  }
}

// ---------------------------------------------------------------------------------
// Stored records (chain units)

interface TradeRecord {
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
}

interface FillRecord {
  symbol: string;
  side: 0 | 1;
  price: bigint;
  size: bigint;
  usdc: bigint;
  txHash: string;
  time: number;
  orderId: string;
  fee: bigint;
}

interface OrderRecord {
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
}

interface AccountRecord {
  /** OrderPlaced events of this owner. */
  orders: number;
  trades: number;
  volume: bigint;
  isAgent: boolean;
  /** Unix ms when first seen as an agent; null while never. */
  firstSeen: number | null;
}

interface StatsRecord {
  totalOrders: number;
  totalTrades: number;
  agentTrades: number;
  humanTrades: number;
  volumeUsdc: bigint;
}

const EMPTY_STATS: Readonly<StatsRecord> = Object.freeze({ totalOrders: 0, totalTrades: 0, agentTrades: 0, humanTrades: 0, volumeUsdc: 0n });

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/**
 * A stored record: a JSON array of its values in a fixed field order (schema 3), bigints
 * as decimal strings, an absent optional field as null. Field names are not stored: they
 * were two fifths of an order record's bytes. `fields` must name every field of T (the
 * compiler checks), so a field added to a record and forgotten here does not compile.
 */
interface RecordCodec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

type Covers<T, F extends readonly string[]> = [Exclude<keyof T, F[number]>] extends [never] ? F : never;

function recordCodec<T>() {
  return <const F extends readonly (keyof T & string)[]>(fields: Covers<T, F>, big: readonly F[number][], optional: readonly F[number][] = []): RecordCodec<T> => {
    const n = fields.length;
    const isBig = fields.map((f) => big.includes(f));
    const isOptional = fields.map((f) => optional.includes(f));
    return {
      encode(value: T): Uint8Array {
        const v = value as Record<string, unknown>;
        const out = new Array<unknown>(n);
        for (let i = 0; i < n; i++) {
          const x = v[fields[i]];
          out[i] = isBig[i] ? (x as bigint).toString() : x === undefined ? null : x;
        }
        // Buffer.from takes small strings from Node's shared pool instead of a new
        // ArrayBuffer each; the batch copies the bytes into LevelDB's write batch at once.
        return Buffer.from(JSON.stringify(out), 'utf8');
      },
      decode(bytes: Uint8Array): T {
        const a = JSON.parse(textDecoder.decode(bytes)) as unknown[];
        if (!Array.isArray(a) || a.length !== n) throw new Error(`index record of ${Array.isArray(a) ? a.length : 'no'} values, expected ${n}`);
        const o: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const x = a[i];
          if (isOptional[i] && x === null) continue;
          o[fields[i]] = isBig[i] ? BigInt(x as string) : x;
        }
        return o as T;
      },
    };
  };
}

const TRADE = recordCodec<TradeRecord>()(
  ['symbol', 'pairId', 'price', 'size', 'usdc', 'buyer', 'seller', 'buyerIsAgent', 'sellerIsAgent', 'takerSide', 'makerOrderId', 'takerOrderId', 'takerFee', 'txHash', 'time'],
  ['price', 'size', 'usdc', 'takerFee'],
);
const FILL = recordCodec<FillRecord>()(['symbol', 'side', 'price', 'size', 'usdc', 'txHash', 'time', 'orderId', 'fee'], ['price', 'size', 'usdc', 'fee']);
const ORDER = recordCodec<OrderRecord>()(
  ['orderId', 'owner', 'symbol', 'pairId', 'side', 'orderType', 'price', 'size', 'leverage', 'isAgent', 'status', 'filled', 'remaining', 'filledUsdc', 'tradedSize', 'reason', 'txHash', 'time', 'updatedTime'],
  ['price', 'size', 'filled', 'remaining', 'filledUsdc', 'tradedSize'],
  ['reason'],
);
const ACCOUNT = recordCodec<AccountRecord>()(['orders', 'trades', 'volume', 'isAgent', 'firstSeen'], ['volume']);
const STATS = recordCodec<StatsRecord>()(['totalOrders', 'totalTrades', 'agentTrades', 'humanTrades', 'volumeUsdc'], ['volumeUsdc']);
const CANDLE = recordCodec<CandleRecord>()(['time', 'open', 'high', 'low', 'close', 'volume'], ['open', 'high', 'low', 'close', 'volume']);

// ---------------------------------------------------------------------------------
// Keys

// Key parts and keys come from Buffer.allocUnsafe: small sizes are carved from Node's
// shared pool instead of a new ArrayBuffer each (a block's index writes build thousands).
// They are copied into LevelDB's write batch; nothing here reads `.buffer` unoffset.

function u32(n: number): Uint8Array {
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

function u64(n: number | bigint): Uint8Array {
  const b = Buffer.allocUnsafe(8);
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) writeSafeU64(b, n, 0);
  else b.writeBigUInt64BE(BigInt(n), 0);
  return b;
}

/** An order id (decimal text, at most 20 digits) as its u64 key part. */
function orderIdKey(id: string): Uint8Array {
  const n = Number(id);
  return u64(Number.isSafeInteger(n) ? n : BigInt(id));
}

function readU64(b: Uint8Array): number {
  return Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0));
}

function u128(n: bigint): Uint8Array {
  const b = Buffer.allocUnsafe(16);
  b.writeBigUInt64BE(BigInt.asUintN(64, n >> 64n), 0);
  b.writeBigUInt64BE(BigInt.asUintN(64, n), 8);
  return b;
}

/** 0x + 40 hex (validated by the event parser or normAddress) -> 20 bytes. */
function addressBytes(address: string): Uint8Array {
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

function bytesToAddress(b: Uint8Array): string {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

function key(bucket: IndexBucket, ...parts: Uint8Array[]): Uint8Array {
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

function metaKey(name: string): Uint8Array {
  return key(IndexBucket.Meta, textEncoder.encode(name));
}

/** The smallest key greater than every key starting with `prefix` (its first byte is a bucket < 0xff). */
function prefixEnd(prefix: Uint8Array): Uint8Array {
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

function position(height: number, receipt: number, event: number): Uint8Array {
  const b = Buffer.allocUnsafe(16);
  writeSafeU64(b, height, 0);
  b.writeUInt32BE(receipt, 8);
  b.writeUInt32BE(event, 12);
  return b;
}

function rankKey(board: 0 | 1, volume: bigint, address: string): Uint8Array {
  const inv = volume >= U128_MAX ? 0n : U128_MAX - volume;
  return key(IndexBucket.Rank, Uint8Array.of(board), u128(inv), addressBytes(address));
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

function normAddress(address: string): string | undefined {
  return typeof address === 'string' && ADDRESS_RE.test(address) ? address.toLowerCase() : undefined;
}

function boundLimit(limit: number, max: number, what: string): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`${what}: limit must be a positive integer, got ${String(limit)}`);
  return Math.min(limit, max);
}

const sideName = (s: 0 | 1): SideName => (s === 0 ? 'buy' : 'sell');
const price = (p: bigint): string => formatDecimal(p, PRICE_DECIMALS);
const size = (s: bigint): string => formatDecimal(s, SIZE_DECIMALS);
const usdc = (u: bigint): string => formatDecimal(u, USDC_DECIMALS);

// ---------------------------------------------------------------------------------
// One write batch (one block, or up to CATCHUP_BLOCKS_PER_BATCH blocks in catchUp)


interface AccountEntry {
  address: string;
  orig: AccountRecord | undefined;
  cur: AccountRecord;
}

interface Staging {
  height: number;
  blocks: number;
  events: number;
  malformed: number;
  orphans: number;
  /** Append-only puts: trades, fills, account→order entries, pairs. */
  puts: Op[];
  /** Records changed by the staged blocks (written by flush). */
  orders: Map<string, OrderRecord>;
  accounts: Map<string, AccountEntry>;
  candles: Map<string, { pairId: number; interval: number; rec: CandleRecord }>;
  pairs: Map<string, number>;
  stats: StatsRecord;
  /** Stored records read ahead of a block in one getMany (undefined: not stored). */
  readOrders: Map<string, OrderRecord | undefined>;
  readAccounts: Map<string, AccountRecord | undefined>;
  readCandles: Map<string, CandleRecord | undefined>;
}

/** Committed records kept in memory (BoundedCache): most fills hit recent orders and active traders. */
export const ORDER_CACHE_MAX = 50_000;
export const ACCOUNT_CACHE_MAX = 50_000;

type StagedEvent =
  | { ev: OrderPlacedEvent; txHash: string }
  | { ev: TradeExecutedEvent; txHash: string; pos: Uint8Array }
  | { ev: OrderUpdatedEvent; txHash: string };

const EMPTY = new Uint8Array(0);
const ZERO_ACCOUNT: Readonly<AccountRecord> = Object.freeze({ orders: 0, trades: 0, volume: 0n, isAgent: false, firstSeen: null });
const INTERVAL_SECONDS = Object.values(CANDLE_INTERVALS);

export class Indexer {
  private height: number;
  private statsRec: StatsRecord;
  private readonly pairs: Map<string, number>;
  /** The latest candle per `${pairId}:${interval}` as stored: trades hit the current bucket. */
  private readonly latestCandles = new Map<string, CandleRecord>();
  private readonly orderCache = new BoundedCache<string, OrderRecord>(ORDER_CACHE_MAX);
  private readonly accountCache = new BoundedCache<string, AccountRecord>(ACCOUNT_CACHE_MAX);
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The height the database holds: behind `height` after blocks with nothing to index. */
  private storedHeight: number;
  private malformed = 0;
  private orphans = 0;
  /** Callers of waitForHeight, each with its timer: resolved as the height passes theirs. */
  private readonly heightWaiters = new Set<{ height: number; done(): void }>();

  private constructor(
    private readonly db: ClassicLevel<Uint8Array, Uint8Array>,
    readonly dir: string,
    height: number,
    stats: StatsRecord,
    pairs: Map<string, number>,
  ) {
    this.height = height;
    this.storedHeight = height;
    this.statsRec = stats;
    this.pairs = pairs;
  }

  /** Opens (creating if missing) the index in `dir`. */
  static async open(dir: string, opts: IndexerOpenOptions = {}): Promise<Indexer> {
    await mkdir(dir, { recursive: true });
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    try {
      const [heightV, schemaV, identityV, statsV] = await db.getMany([metaKey('height'), metaKey('schema'), metaKey('identity'), metaKey('stats')]);
      const storedIdentity = identityV ? textDecoder.decode(identityV) : undefined;
      if (heightV === undefined) {
        const ops: Op[] = [
          { type: 'put', key: metaKey('schema'), value: u32(INDEX_SCHEMA_VERSION) },
          { type: 'put', key: metaKey('height'), value: u64(0) },
          { type: 'put', key: metaKey('stats'), value: STATS.encode(EMPTY_STATS) },
        ];
        if (opts.identity !== undefined) ops.push({ type: 'put', key: metaKey('identity'), value: textEncoder.encode(opts.identity) });
        await writeBatch(db, ops, false);
        return new Indexer(db, dir, 0, { ...EMPTY_STATS }, new Map());
      }
      const schema = schemaV ? new DataView(schemaV.buffer, schemaV.byteOffset, schemaV.byteLength).getUint32(0) : undefined;
      if (schema !== INDEX_SCHEMA_VERSION) {
        throw new IndexerIncompatibleError(`index in ${dir} has schema ${String(schema)}, this node writes ${INDEX_SCHEMA_VERSION}: delete it to rebuild`);
      }
      const height = readU64(heightV);
      if (opts.identity !== undefined && storedIdentity !== opts.identity) {
        if (storedIdentity !== undefined || height > 0) {
          throw new IndexerIncompatibleError(`index in ${dir} belongs to chain ${String(storedIdentity)}, not ${opts.identity}: delete it to rebuild`);
        }
        await db.put(metaKey('identity'), textEncoder.encode(opts.identity));
      }
      const stats = statsV ? STATS.decode(statsV) : { ...EMPTY_STATS };
      const pairs = new Map<string, number>();
      const start = Uint8Array.of(IndexBucket.Pair);
      for await (const [k, v] of db.iterator({ gte: start, lt: prefixEnd(start) })) {
        pairs.set(textDecoder.decode(k.subarray(1)), new DataView(v.buffer, v.byteOffset, v.byteLength).getUint32(0));
      }
      return new Indexer(db, dir, height, stats, pairs);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  /** Deletes an index folder (it is rebuilt from the chain store). */
  static async destroy(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
  }

  /** Waits for the write in progress, stores the indexed height, then closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    for (const w of this.heightWaiters) w.done();
    // Best effort: a height left behind only means the next start re-reads a few empty blocks.
    if (this.height > this.storedHeight) await this.db.put(metaKey('height'), u64(this.height)).catch(() => undefined);
    await this.db.close();
  }

  /** The last height whose events are in the index (0: nothing yet; genesis has no block). */
  indexedHeight(): number {
    return this.height;
  }

  /**
   * Resolves once indexedHeight() reaches `height` (true), or after `timeoutMs` or at
   * close (false). Read-your-writes for the API: a read waits for the blocks committed
   * before it arrived, instead of every write waiting for the index.
   */
  waitForHeight(height: number, timeoutMs: number): Promise<boolean> {
    if (this.height >= height) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const w = {
        height,
        done: () => {
          clearTimeout(timer);
          this.heightWaiters.delete(w);
          resolve(this.height >= height);
        },
      };
      const timer = setTimeout(w.done, timeoutMs);
      this.heightWaiters.add(w);
    });
  }

  /** Publishes a new indexed height and wakes the waiters it satisfies. */
  private advanceTo(height: number): void {
    this.height = height;
    for (const w of this.heightWaiters) if (w.height <= height) w.done();
  }

  /** Exchange events skipped since open because their fields did not have the contract's types. */
  get malformedEvents(): number {
    return this.malformed;
  }

  /** OrderUpdated events skipped since open because their order was never placed. */
  get orphanUpdates(): number {
    return this.orphans;
  }

  /**
   * Indexes one block: every event of its ok receipts, plus the new indexed height, in
   * one atomic batch. A height ≤ indexedHeight() is skipped (idempotent); a height past
   * indexedHeight() + 1 throws IndexerGapError.
   */
  async indexBlock(height: number, timestampMs: number, receipts: Receipt[], txHashOf?: TxHashOf): Promise<void> {
    checkBlockArgs(height, timestampMs);
    await this.exclusive(async () => {
      if (height <= this.height) return;
      if (height !== this.height + 1) throw new IndexerGapError(this.height + 1, height);
      const st = this.newStaging();
      await this.stageBlock(st, height, timestampMs, receipts, txHashOf);
      if (st.events === 0 && height - this.storedHeight < HEIGHT_CHECKPOINT_BLOCKS) {
        // Nothing to index (an empty block, or only events the index does not keep): no
        // write. The stored height lags; a restart re-reads these blocks from the chain
        // store and finds nothing in them either. Bounded by HEIGHT_CHECKPOINT_BLOCKS.
        this.advanceTo(height);
        return;
      }
      await this.flush(st);
    });
  }

  /**
   * Indexes every height after indexedHeight() up to `toHeight` (default: the store's
   * head; never past it), in order, in batches of at most `blocksPerBatch` blocks or
   * about CATCHUP_EVENTS_PER_BATCH events, each batch atomic with its height. Returns
   * the number of heights indexed.
   */
  async catchUp(store: ChainStoreLike, toHeight?: number, opts: CatchUpOptions = {}): Promise<number> {
    const perBatch = opts.blocksPerBatch ?? CATCHUP_BLOCKS_PER_BATCH;
    if (!Number.isSafeInteger(perBatch) || perBatch < 1) throw new RangeError(`catchUp: blocksPerBatch must be a positive integer`);
    return this.exclusive(async () => {
      const head = await store.headHeight();
      if (head === undefined) return 0;
      const target = toHeight === undefined ? head : Math.min(toHeight, head);
      const from = this.height;
      while (this.height < target) {
        opts.signal?.throwIfAborted();
        const st = this.newStaging();
        let missing: Error | undefined;
        for (let h = this.height + 1; h <= target && st.blocks < perBatch && st.events < CATCHUP_EVENTS_PER_BATCH; h++) {
          const [block, receipts] = await Promise.all([store.getBlock(h), store.getReceipts(h)]);
          if (block === undefined || receipts === undefined) {
            missing = new Error(`indexer: ${block === undefined ? 'block' : 'receipts of block'} ${h} is missing from the chain store (head ${head})`);
            break;
          }
          checkBlockArgs(h, block.header.timestampMs);
          await this.stageBlock(st, h, block.header.timestampMs, receipts);
        }
        if (st.blocks > 0) await this.flush(st); // keep the whole blocks read before a failure
        if (missing) throw missing;
        await new Promise<void>((resolve) => setImmediate(resolve)); // let queries and other actors run
      }
      return this.height - from;
    });
  }

  // -------------------------------------------------------------------------------
  // Queries

  /** The most recent trades of a pair, newest first. */
  async trades(symbol: string, limit: number = TRADES_LIMIT_MAX): Promise<TradeItem[]> {
    const n = boundLimit(limit, TRADES_LIMIT_MAX, 'trades');
    const pairId = this.pairs.get(symbol);
    if (pairId === undefined) return [];
    const rows = await this.scan(key(IndexBucket.Trade, u32(pairId)), n, true);
    return rows.map(([, v]) => {
      const t = TRADE.decode(v);
      return {
        symbol: t.symbol,
        price: price(t.price),
        amount: size(t.size),
        buyer: t.buyer,
        seller: t.seller,
        buyerIsAgent: t.buyerIsAgent,
        txHash: t.txHash,
        time: t.time,
        takerSide: sideName(t.takerSide),
      };
    });
  }

  /** The most recent fills of an address (as buyer or seller), newest first. */
  async fills(address: string, limit: number = FILLS_LIMIT_MAX): Promise<FillItem[]> {
    const n = boundLimit(limit, FILLS_LIMIT_MAX, 'fills');
    const a = normAddress(address);
    if (a === undefined) return [];
    const rows = await this.scan(key(IndexBucket.Fill, addressBytes(a)), n, true);
    return rows.map(([, v]) => {
      const f = FILL.decode(v);
      return {
        symbol: f.symbol,
        side: sideName(f.side),
        price: price(f.price),
        amount: size(f.size),
        usdcSettled: usdc(f.usdc),
        txHash: f.txHash,
        time: f.time,
        orderId: f.orderId,
        fee: usdc(f.fee),
      };
    });
  }

  /** The most recent `limit` candles of a pair (buckets that had trades), oldest first. */
  async candles(symbol: string, interval: CandleInterval, limit: number = CANDLES_LIMIT_MAX): Promise<CandleItem[]> {
    if (!isCandleInterval(interval)) throw new RangeError(`candles: unknown interval ${String(interval)}`);
    const n = boundLimit(limit, CANDLES_LIMIT_MAX, 'candles');
    const pairId = this.pairs.get(symbol);
    if (pairId === undefined) return [];
    const rows = await this.scan(key(IndexBucket.Candle, u32(pairId), u32(CANDLE_INTERVALS[interval])), n, true);
    rows.reverse();
    return rows.map(([, v]) => {
      const c = CANDLE.decode(v);
      return { time: c.time, open: price(c.open), high: price(c.high), low: price(c.low), close: price(c.close), volume: size(c.volume) };
    });
  }

  /** The last orders an address placed (highest order id first). */
  async orders(address: string, limit: number = ORDERS_LIMIT_MAX): Promise<OrderItem[]> {
    const n = boundLimit(limit, ORDERS_LIMIT_MAX, 'orders');
    const a = normAddress(address);
    if (a === undefined) return [];
    const keys = await this.scanKeys(key(IndexBucket.AccountOrder, addressBytes(a)), n, true);
    const values = await this.db.getMany(keys.map((k) => key(IndexBucket.Order, k.subarray(21, 29))));
    const out: OrderItem[] = [];
    for (const v of values) if (v) out.push(orderItem(ORDER.decode(v)));
    return out;
  }

  async order(orderId: string): Promise<OrderItem | undefined> {
    if (!isOrderId(orderId)) return undefined;
    const v = await this.db.get(key(IndexBucket.Order, orderIdKey(orderId)));
    return v ? orderItem(ORDER.decode(v)) : undefined;
  }

  /** How many orders the address has placed (OrderPlaced events), whatever became of them. */
  async orderCount(address: string): Promise<number> {
    const a = normAddress(address);
    if (a === undefined) return 0;
    const [r] = await this.accountRecords([a]);
    return r?.orders ?? 0;
  }

  /**
   * Top traders by volume (ties: address ascending). Reads `limit` entries of the
   * Rank index plus their account records: O(limit), whatever the number of traders.
   * Only addresses with at least one trade are ranked.
   */
  async leaderboard(type: LeaderboardType, limit: number = 100): Promise<LeaderboardItem[]> {
    if (type !== 'agents' && type !== 'all') throw new RangeError(`leaderboard: unknown type ${String(type)}`);
    const n = boundLimit(limit, LEADERBOARD_LIMIT_MAX, 'leaderboard');
    const keys = await this.scanKeys(key(IndexBucket.Rank, Uint8Array.of(type === 'agents' ? 1 : 0)), n, false);
    const addrs = keys.map((k) => bytesToAddress(k.subarray(18, 38)));
    const recs = await this.accountRecords(addrs);
    return addrs.map((address, i) => {
      const r = recs[i] ?? ZERO_ACCOUNT;
      return { address, volume: usdc(r.volume), trades: r.trades, isAgent: r.isAgent };
    });
  }

  stats(): StatsItem {
    const s = this.statsRec;
    return { totalOrders: s.totalOrders, totalTrades: s.totalTrades, agentTrades: s.agentTrades, humanTrades: s.humanTrades, volumeUsdc: usdc(s.volumeUsdc) };
  }

  /** Addresses ever seen acting as agents, in the order first seen (ties: address ascending). */
  async agents(limit: number = AGENTS_LIMIT_MAX): Promise<AgentItem[]> {
    const n = boundLimit(limit, AGENTS_LIMIT_MAX, 'agents');
    const keys = await this.scanKeys(Uint8Array.of(IndexBucket.Agent), n, false);
    const addrs = keys.map((k) => bytesToAddress(k.subarray(9, 29)));
    const recs = await this.accountRecords(addrs);
    const out: AgentItem[] = [];
    addrs.forEach((address, i) => {
      const r = recs[i];
      if (r?.isAgent) out.push(agentItem(address, r));
    });
    return out;
  }

  /** The agent record of an address, or undefined when it never acted as an agent. */
  async agent(address: string): Promise<AgentItem | undefined> {
    const a = normAddress(address);
    if (a === undefined) return undefined;
    const [r] = await this.accountRecords([a]);
    return r?.isAgent ? agentItem(a, r) : undefined;
  }

  // -------------------------------------------------------------------------------
  // Internals

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('indexer is closed'));
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async scan(prefix: Uint8Array, limit: number, reverse: boolean): Promise<[Uint8Array, Uint8Array][]> {
    return this.db.iterator({ gte: prefix, lt: prefixEnd(prefix), reverse, limit }).all();
  }

  private async scanKeys(prefix: Uint8Array, limit: number, reverse: boolean): Promise<Uint8Array[]> {
    return this.db.keys({ gte: prefix, lt: prefixEnd(prefix), reverse, limit }).all();
  }

  private async accountRecords(addrs: string[]): Promise<(AccountRecord | undefined)[]> {
    if (addrs.length === 0) return [];
    const values = await this.db.getMany(addrs.map((a) => key(IndexBucket.Account, addressBytes(a))));
    return values.map((v) => (v ? ACCOUNT.decode(v) : undefined));
  }

  private newStaging(): Staging {
    return {
      height: this.height,
      blocks: 0,
      events: 0,
      malformed: 0,
      orphans: 0,
      puts: [],
      orders: new Map(),
      accounts: new Map(),
      candles: new Map(),
      pairs: new Map(),
      stats: { ...this.statsRec },
      readOrders: new Map(),
      readAccounts: new Map(),
      readCandles: new Map(),
    };
  }

  private async stageBlock(st: Staging, height: number, time: number, receipts: Receipt[], txHashOf?: TxHashOf): Promise<void> {
    if (height !== st.height + 1) throw new IndexerGapError(st.height + 1, height);
    const staged: StagedEvent[] = [];
    for (let i = 0; i < receipts.length; i++) {
      const r = receipts[i];
      if (r.status !== 'ok' || !Array.isArray(r.events) || r.events.length === 0) continue;
      const txHash = txHashOf ? txHashOf(r, i) : r.txHash;
      for (let j = 0; j < r.events.length; j++) {
        const parsed = parseEvent(r.events[j]);
        if (parsed.kind === 'other') continue;
        st.events++;
        if (parsed.kind === 'malformed') st.malformed++;
        else {
          const ev = parsed.event;
          staged.push(ev.type === 'TradeExecuted' ? { ev, txHash, pos: position(height, i, j) } : ev.type === 'OrderPlaced' ? { ev, txHash } : { ev, txHash });
        }
      }
    }
    if (staged.length === 0) {
      st.height = height;
      st.blocks++;
      return;
    }
    await this.readAhead(st, staged, time);
    // Every record the events touch is now in the staging maps: the rest is synchronous.
    const blockCandles = new Map<number, BlockCandle>();
    for (const s of staged) {
      if (s.ev.type === 'OrderPlaced') this.stagePlaced(st, s.ev, s.txHash, time);
      else if (s.ev.type === 'TradeExecuted') this.stageTrade(st, s.ev, (s as { pos: Uint8Array }).pos, s.txHash, time, blockCandles);
      else this.stageUpdated(st, s.ev, time);
    }
    // Candles: a block's trades share its time, so they fall in one bucket per interval.
    // One read-modify-write per pair and interval, of the block's OHLCV (mergeTrades).
    for (const [pairId, agg] of blockCandles) {
      for (const interval of INTERVAL_SECONDS) {
        const start = bucketStart(time, interval);
        const k = `${pairId}:${interval}:${start}`;
        st.candles.set(k, { pairId, interval, rec: mergeTrades(this.candleNow(st, k), start, agg) });
      }
    }
    st.height = height;
    st.blocks++;
  }

  /**
   * Puts in the staging maps every record the block's events will read: from the
   * staging itself, the caches, or (for the rest, in ONE getMany) the database: orders,
   * accounts, candle buckets. Staging then never awaits (orderNow, accountNow,
   * candleNow), and never depends on what the caches keep meanwhile.
   */
  private async readAhead(st: Staging, staged: StagedEvent[], time: number): Promise<void> {
    const placedHere = new Set<string>();
    const orderIds = new Set<string>();
    const addrs = new Set<string>();
    const candles = new Map<string, Uint8Array>();
    const wantOrder = (id: string): void => {
      if (st.orders.has(id) || st.readOrders.has(id)) return;
      // An order placed in this block is not stored yet (ids are never reused).
      if (placedHere.has(id)) return void st.readOrders.set(id, undefined);
      const cached = this.orderCache.get(id);
      if (cached !== undefined) st.readOrders.set(id, cached);
      else orderIds.add(id);
    };
    const wantAccount = (a: string): void => {
      if (st.accounts.has(a) || st.readAccounts.has(a)) return;
      const cached = this.accountCache.get(a);
      if (cached !== undefined) st.readAccounts.set(a, cached);
      else addrs.add(a);
    };
    for (const { ev } of staged) {
      if (ev.type === 'OrderPlaced') {
        placedHere.add(ev.orderId);
        wantAccount(ev.owner);
      } else if (ev.type === 'OrderUpdated') {
        wantOrder(ev.orderId);
      } else {
        wantOrder(ev.makerOrderId);
        wantOrder(ev.takerOrderId);
        wantAccount(ev.buyer);
        wantAccount(ev.seller);
        const pairId = this.pairIdOf(st, ev.symbol, ev.pairId);
        for (const interval of INTERVAL_SECONDS) {
          const start = bucketStart(time, interval);
          const k = `${pairId}:${interval}:${start}`;
          if (st.candles.has(k) || st.readCandles.has(k) || candles.has(k)) continue;
          const latest = this.latestCandles.get(`${pairId}:${interval}`);
          if (latest?.time === start) st.readCandles.set(k, latest);
          else candles.set(k, key(IndexBucket.Candle, u32(pairId), u32(interval), u64(start)));
        }
      }
    }
    const ids = [...orderIds];
    const as = [...addrs];
    const cs = [...candles];
    const keys = [...ids.map((id) => key(IndexBucket.Order, orderIdKey(id))), ...as.map((a) => key(IndexBucket.Account, addressBytes(a))), ...cs.map(([, k]) => k)];
    if (keys.length === 0) return;
    const values = await this.db.getMany(keys);
    let n = 0;
    for (const id of ids) {
      const v = values[n++];
      st.readOrders.set(id, v ? ORDER.decode(v) : undefined);
    }
    for (const a of as) {
      const v = values[n++];
      st.readAccounts.set(a, v ? ACCOUNT.decode(v) : undefined);
    }
    for (const [k] of cs) {
      const v = values[n++];
      st.readCandles.set(k, v ? CANDLE.decode(v) : undefined);
    }
  }

  private notePair(st: Staging, symbol: string, pairId: number): void {
    if (this.pairs.has(symbol) || st.pairs.has(symbol)) return;
    st.pairs.set(symbol, pairId);
    st.puts.push({ type: 'put', key: key(IndexBucket.Pair, textEncoder.encode(symbol)), value: u32(pairId) });
  }

  private pairIdOf(st: Staging, symbol: string, fallback: number): number {
    return this.pairs.get(symbol) ?? st.pairs.get(symbol) ?? fallback;
  }

  private stagePlaced(st: Staging, ev: OrderPlacedEvent, txHash: string, time: number): void {
    st.stats.totalOrders++;
    this.notePair(st, ev.symbol, ev.pairId);
    st.orders.set(ev.orderId, {
      orderId: ev.orderId,
      owner: ev.owner,
      symbol: ev.symbol,
      pairId: ev.pairId,
      side: ev.side,
      orderType: ev.orderType,
      price: ev.price,
      size: ev.size,
      leverage: ev.leverage,
      isAgent: ev.isAgent,
      status: 'open',
      filled: 0n,
      remaining: ev.size,
      filledUsdc: 0n,
      tradedSize: 0n,
      txHash,
      time,
      updatedTime: time,
    });
    st.puts.push({ type: 'put', key: key(IndexBucket.AccountOrder, addressBytes(ev.owner), orderIdKey(ev.orderId)), value: EMPTY });
    const owner = this.accountNow(st, ev.owner).cur;
    owner.orders++;
    if (ev.isAgent) markAgent(owner, time);
  }

  private stageTrade(st: Staging, ev: TradeExecutedEvent, pos: Uint8Array, txHash: string, time: number, blockCandles: Map<number, BlockCandle>): void {
    const s = st.stats;
    s.totalTrades++;
    if (ev.buyerIsAgent || ev.sellerIsAgent) s.agentTrades++;
    else s.humanTrades++;
    s.volumeUsdc += ev.usdc;
    this.notePair(st, ev.symbol, ev.pairId);
    const pairId = this.pairIdOf(st, ev.symbol, ev.pairId);

    const trade: TradeRecord = {
      symbol: ev.symbol,
      pairId,
      price: ev.price,
      size: ev.size,
      usdc: ev.usdc,
      buyer: ev.buyer,
      seller: ev.seller,
      buyerIsAgent: ev.buyerIsAgent,
      sellerIsAgent: ev.sellerIsAgent,
      takerSide: ev.takerSide,
      makerOrderId: ev.makerOrderId,
      takerOrderId: ev.takerOrderId,
      takerFee: ev.takerFee,
      txHash,
      time,
    };
    st.puts.push({ type: 'put', key: key(IndexBucket.Trade, u32(pairId), pos), value: TRADE.encode(trade) });

    // Fills, one per side, from that side's point of view.
    const buyerTakes = ev.takerSide === 0;
    const fill = (side: 0 | 1, address: string, takes: boolean): void => {
      const rec: FillRecord = {
        symbol: ev.symbol,
        side,
        price: ev.price,
        size: ev.size,
        usdc: ev.usdc,
        txHash,
        time,
        orderId: takes ? ev.takerOrderId : ev.makerOrderId,
        fee: takes ? ev.takerFee : 0n,
      };
      st.puts.push({ type: 'put', key: key(IndexBucket.Fill, addressBytes(address), pos, Uint8Array.of(side)), value: FILL.encode(rec) });
    };
    fill(0, ev.buyer, buyerTakes);
    fill(1, ev.seller, !buyerTakes);

    // Per-address aggregates (a self-trade counts once).
    const buyer = this.accountNow(st, ev.buyer).cur;
    buyer.trades++;
    buyer.volume += ev.usdc;
    if (ev.buyerIsAgent) markAgent(buyer, time);
    if (ev.seller !== ev.buyer) {
      const seller = this.accountNow(st, ev.seller).cur;
      seller.trades++;
      seller.volume += ev.usdc;
      if (ev.sellerIsAgent) markAgent(seller, time);
    } else if (ev.sellerIsAgent) {
      markAgent(buyer, time);
    }

    // The two orders' average price.
    this.addTraded(st, ev.makerOrderId, ev, time);
    if (ev.takerOrderId !== ev.makerOrderId) this.addTraded(st, ev.takerOrderId, ev, time);

    // Candles: the block's OHLCV per pair, merged into the buckets once the block is staged.
    const agg = blockCandles.get(pairId);
    if (agg === undefined) blockCandles.set(pairId, { open: ev.price, high: ev.price, low: ev.price, close: ev.price, volume: ev.size });
    else {
      if (ev.price > agg.high) agg.high = ev.price;
      if (ev.price < agg.low) agg.low = ev.price;
      agg.close = ev.price;
      agg.volume += ev.size;
    }
  }

  /** A trade of `orderId` adds to its traded notional and size (for its average price). */
  private addTraded(st: Staging, orderId: string, ev: TradeExecutedEvent, time: number): void {
    const o = this.orderNow(st, orderId);
    if (o) st.orders.set(orderId, { ...o, filledUsdc: o.filledUsdc + ev.usdc, tradedSize: o.tradedSize + ev.size, updatedTime: time });
  }

  private stageUpdated(st: Staging, ev: OrderUpdatedEvent, time: number): void {
    const o = this.orderNow(st, ev.orderId);
    if (!o) {
      st.orphans++;
      return;
    }
    const next: OrderRecord = { ...o, status: ev.status, filled: ev.filled, remaining: ev.remaining, updatedTime: time };
    if (ev.reason !== undefined) next.reason = ev.reason;
    st.orders.set(ev.orderId, next);
  }

  /** An order as the staged events left it (after readAhead; undefined: never placed). */
  private orderNow(st: Staging, orderId: string): OrderRecord | undefined {
    const staged = st.orders.get(orderId);
    if (staged) return staged;
    if (!st.readOrders.has(orderId)) throw new Error(`indexer: order ${orderId} was not read ahead`);
    return st.readOrders.get(orderId);
  }

  /** An address's aggregates being staged (after readAhead). */
  private accountNow(st: Staging, address: string): AccountEntry {
    let e = st.accounts.get(address);
    if (!e) {
      if (!st.readAccounts.has(address)) throw new Error(`indexer: account ${address} was not read ahead`);
      const orig = st.readAccounts.get(address);
      e = { address, orig, cur: orig ? { ...orig } : { ...ZERO_ACCOUNT } };
      st.accounts.set(address, e);
    }
    return e;
  }

  /** A candle bucket `${pairId}:${interval}:${start}` as staged or stored (after readAhead; undefined: no trade yet). */
  private candleNow(st: Staging, k: string): CandleRecord | undefined {
    const staged = st.candles.get(k);
    if (staged) return staged.rec;
    if (!st.readCandles.has(k)) throw new Error(`indexer: candle ${k} was not read ahead`);
    return st.readCandles.get(k);
  }

  /** Writes the staged blocks and the new height in one batch, then publishes the in-memory state. */
  private async flush(st: Staging): Promise<void> {
    const ops: Op[] = st.puts.slice();
    for (const o of st.orders.values()) ops.push({ type: 'put', key: key(IndexBucket.Order, orderIdKey(o.orderId)), value: ORDER.encode(o) });
    for (const { address, orig, cur } of st.accounts.values()) {
      if (orig && orig.orders === cur.orders && orig.trades === cur.trades && orig.volume === cur.volume && orig.isAgent === cur.isAgent) continue;
      ops.push({ type: 'put', key: key(IndexBucket.Account, addressBytes(address)), value: ACCOUNT.encode(cur) });
      const wasRanked = orig !== undefined && orig.trades > 0;
      const moved = !wasRanked || orig.volume !== cur.volume;
      if (wasRanked && moved) ops.push({ type: 'del', key: rankKey(0, orig.volume, address) });
      if (wasRanked && orig.isAgent && moved) ops.push({ type: 'del', key: rankKey(1, orig.volume, address) });
      if (cur.trades > 0) {
        if (moved) ops.push({ type: 'put', key: rankKey(0, cur.volume, address), value: EMPTY });
        if (cur.isAgent && (moved || !orig?.isAgent)) ops.push({ type: 'put', key: rankKey(1, cur.volume, address), value: EMPTY });
      }
      if (cur.isAgent && !orig?.isAgent && cur.firstSeen !== null) {
        ops.push({ type: 'put', key: key(IndexBucket.Agent, u64(cur.firstSeen), addressBytes(address)), value: EMPTY });
      }
    }
    for (const { pairId, interval, rec } of st.candles.values()) {
      ops.push({ type: 'put', key: key(IndexBucket.Candle, u32(pairId), u32(interval), u64(rec.time)), value: CANDLE.encode(rec) });
    }
    ops.push({ type: 'put', key: metaKey('stats'), value: STATS.encode(st.stats) });
    ops.push({ type: 'put', key: metaKey('height'), value: u64(st.height) });
    await writeBatch(this.db, ops, false);
    this.storedHeight = st.height;

    // Published only once the batch is on disk: a failed batch leaves memory as the disk is.
    this.statsRec = st.stats;
    for (const [symbol, pairId] of st.pairs) this.pairs.set(symbol, pairId);
    for (const { pairId, interval, rec } of st.candles.values()) {
      const k = `${pairId}:${interval}`;
      const latest = this.latestCandles.get(k);
      if (!latest || latest.time <= rec.time) this.latestCandles.set(k, rec);
    }
    for (const [id, o] of st.orders) this.orderCache.set(id, o);
    for (const [a, e] of st.accounts) this.accountCache.set(a, e.cur);
    this.malformed += st.malformed;
    this.orphans += st.orphans;
    this.advanceTo(st.height);
  }
}

function markAgent(a: AccountRecord, time: number): void {
  if (a.isAgent) return;
  a.isAgent = true;
  a.firstSeen = time;
}

function agentItem(address: string, r: AccountRecord): AgentItem {
  return { address, trades: r.trades, volume: usdc(r.volume), firstSeen: r.firstSeen ?? 0 };
}

function orderItem(o: OrderRecord): OrderItem {
  const item: OrderItem = {
    orderId: o.orderId,
    symbol: o.symbol,
    pairId: o.pairId,
    side: sideName(o.side),
    type: o.orderType === 1 ? 'limit' : 'market',
    price: price(o.price),
    amount: size(o.size),
    filled: size(o.filled),
    remaining: size(o.remaining),
    status: o.status,
    isAgent: o.isAgent,
    leverage: o.leverage,
    // usdc (×1e6) × 1e18 / size (×1e18) = price ×1e6, rounded down.
    avgPrice: o.tradedSize > 0n ? price((o.filledUsdc * 10n ** 18n) / o.tradedSize) : null,
    txHash: o.txHash,
    time: o.time,
    updatedTime: o.updatedTime,
  };
  if (o.reason !== undefined) item.reason = o.reason;
  return item;
}

function checkBlockArgs(height: number, timestampMs: number): void {
  if (!Number.isSafeInteger(height) || height < 1) throw new RangeError(`indexer: height must be an integer >= 1, got ${String(height)}`);
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) throw new RangeError(`indexer: timestampMs must be a non-negative integer, got ${String(timestampMs)}`);
}
