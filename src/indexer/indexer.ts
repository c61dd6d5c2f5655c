/**
 * The read-side index of the exchange: trades, fills, candles, orders, leaderboard,
 * agents and protocol stats, derived only from the chain's blocks (their timestamps),
 * receipts and block events (their events, src/state/events.ts).
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
 *
 * This file is the facade: opening, closing, indexing blocks and the queries. The
 * parts: types.ts (public shapes, limits, errors), layout.ts (buckets, records, codecs,
 * keys), staging.ts (a block's events into one write batch), parse.ts (narrowing the
 * receipt events), candles.ts (the candle arithmetic), retention.ts (what is deleted with age).
 *
 * A chain store whose base is past the next height to index (its blocks were pruned, or
 * it was restored by state sync) is indexed from its base on: the index records that
 * first height ('from') and holds nothing from before it.
 */
import { mkdir } from 'node:fs/promises';
import { emptyStoreFolder } from '../storage/set-aside';
import { ClassicLevel } from 'classic-level';
import { writeBatch, type Op } from '../storage/batch';
import type { ChainEvent, Receipt } from '../state/context';
import { CANDLE_INTERVALS, isCandleInterval, type CandleInterval } from './candles';
import {
  ACCOUNT,
  addressBytes,
  bytesToAddress,
  CANDLE,
  EMPTY_STATS,
  FILL,
  INDEX_SCHEMA_VERSION,
  IndexBucket,
  key,
  metaKey,
  ORDER,
  orderIdKey,
  prefixEnd,
  readU64,
  STATS,
  textDecoder,
  textEncoder,
  TRADE,
  u32,
  u64,
  ZERO_ACCOUNT,
  type AccountRecord,
  type StatsRecord,
} from './layout';
import { checkPageQuery, CursorKind, encodeCursor, pageRange, type Page, type PageQuery } from './paging';
import { agentItem, candleItem, fillItem, orderItem, tradeItem, usdc } from './items';
import { isOrderId } from './parse';
import { BlockStager, type Staging } from './staging';
import { pruneIndex, readLowestKept, type IndexRetention, type LowestKept } from './retention';
import {
  AGENTS_LIMIT_MAX,
  CANDLES_LIMIT_MAX,
  CATCHUP_BLOCKS_PER_BATCH,
  CATCHUP_EVENTS_PER_BATCH,
  FILLS_LIMIT_MAX,
  HEIGHT_CHECKPOINT_BLOCKS,
  IndexerGapError,
  IndexerIncompatibleError,
  LEADERBOARD_LIMIT_MAX,
  ORDERS_LIMIT_MAX,
  TRADES_LIMIT_MAX,
  type AgentItem,
  type CandleItem,
  type CatchUpOptions,
  type ChainStoreLike,
  type FillItem,
  type IndexerOpenOptions,
  type LeaderboardItem,
  type LeaderboardType,
  type OrderItem,
  type StatsItem,
  type TradeItem,
  type TxHashOf,
} from './types';

export * from './types';
export { checkPageQuery, CURSOR_MAX_CHARS, CursorKind, decodeCursor, PageQueryError, type Page, type PageQuery } from './paging';
export { BLOCK_EVENTS_RECEIPT, IndexBucket, INDEX_SCHEMA_VERSION, NO_TX_HASH } from './layout';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
/** Where the order id sits in an AccountOrder key: bucket (1) ‖ owner (20) ‖ time (8) ‖ id (8). */
const ACCOUNT_ORDER_ID_AT = 29;

function normAddress(address: string): string | undefined {
  return typeof address === 'string' && ADDRESS_RE.test(address) ? address.toLowerCase() : undefined;
}

function boundLimit(limit: number, max: number, what: string): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`${what}: limit must be a positive integer, got ${String(limit)}`);
  return Math.min(limit, max);
}


export class Indexer {
  private height: number;
  private statsRec: StatsRecord;
  /** Pair ids by symbol, as stored (the stager adds new ones once written). */
  private readonly pairs: Map<string, number>;
  private readonly stager: BlockStager;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The height the database holds: behind `height` after blocks with nothing to index. */
  private storedHeight: number;
  private malformed = 0;
  /** The first height indexed (1 unless the chain store's base was past it; meta 'from'). */
  private from = 1;
  /** Per kind, the oldest block time kept (null: nothing deleted yet); read at open, moved by pruneRetained. */
  private lowest: LowestKept = { trades: null, fills: null, candles: null, orders: null };
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
    this.stager = new BlockStager(db, pairs);
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
      const idx = new Indexer(db, dir, height, stats, pairs);
      const fromV = await db.get(metaKey('from'));
      if (fromV) idx.from = readU64(fromV);
      idx.lowest = await readLowestKept(db);
      return idx;
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Deletes an index (it is rebuilt from the chain store): what is in its folder, not the
   * folder, which may be a mount point or a symlink to another disk (decision 166).
   */
  static async destroy(dir: string): Promise<void> {
    emptyStoreFolder(dir);
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

  /** The first height the index holds (1 unless it started past a pruned or restored chain store's base). */
  indexedFrom(): number {
    return this.from;
  }

  /** Per kind (trades, fills, candles, orders), the oldest block time (ms) kept, or null: nothing was deleted. */
  lowestKept(): LowestKept {
    return { ...this.lowest };
  }

  /**
   * Deletes what `retention` no longer keeps at block time `nowMs` (src/indexer/retention.ts),
   * between block writes. Returns the keys deleted.
   */
  async pruneRetained(retention: IndexRetention, nowMs: number): Promise<number> {
    return this.exclusive(async () => {
      const n = await pruneIndex(this.db, [...this.pairs.values()], retention, nowMs);
      this.lowest = await readLowestKept(this.db);
      return n;
    });
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
   * Indexes one block: every event of its ok receipts, then its own events (BlockResult.
   * blockEvents), plus the new indexed height, in one atomic batch. A height ≤ indexedHeight() is skipped (idempotent); a height past
   * indexedHeight() + 1 throws IndexerGapError.
   */
  async indexBlock(height: number, timestampMs: number, receipts: Receipt[], blockEvents: readonly ChainEvent[] = [], txHashOf?: TxHashOf): Promise<void> {
    checkBlockArgs(height, timestampMs);
    await this.exclusive(async () => {
      if (height <= this.height) return;
      if (height !== this.height + 1) throw new IndexerGapError(this.height + 1, height);
      const st = this.stager.newStaging(this.height, this.statsRec);
      await this.stager.stageBlock(st, height, timestampMs, receipts, txHashOf, blockEvents);
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
      let base = (await store.base?.()) ?? 1;
      // A store restored by state sync keeps block `base` (its head then) without its
      // receipts, which no snapshot carries (decision 140): the index starts after it.
      if (this.height + 1 < base && (await store.getReceipts(base)) === undefined) base++;
      if (this.height + 1 < base && base <= target + 1) await this.startAt(base);
      const from = this.height;
      while (this.height < target) {
        opts.signal?.throwIfAborted();
        const st = this.stager.newStaging(this.height, this.statsRec);
        let missing: Error | undefined;
        for (let h = this.height + 1; h <= target && st.blocks < perBatch && st.events < CATCHUP_EVENTS_PER_BATCH; h++) {
          const [block, receipts, blockEvents] = await Promise.all([store.getBlock(h), store.getReceipts(h), store.getBlockEvents?.(h)]);
          if (block === undefined || receipts === undefined) {
            missing = new Error(`indexer: ${block === undefined ? 'block' : 'receipts of block'} ${h} is missing from the chain store (head ${head})`);
            break;
          }
          checkBlockArgs(h, block.header.timestampMs);
          await this.stager.stageBlock(st, h, block.header.timestampMs, receipts, undefined, blockEvents ?? []);
        }
        if (st.blocks > 0) await this.flush(st); // keep the whole blocks read before a failure
        if (missing) throw missing;
        await new Promise<void>((resolve) => setImmediate(resolve)); // let queries and other actors run
      }
      return this.height - from;
    });
  }

  /** Skips to a chain store's base: the heights before it are gone from the store (pruned, or never there: state sync). */
  private async startAt(base: number): Promise<void> {
    await writeBatch(this.db, [{ type: 'put', key: metaKey('height'), value: u64(base - 1) }, { type: 'put', key: metaKey('from'), value: u64(base) }], false);
    this.from = base;
    this.storedHeight = base - 1;
    this.advanceTo(base - 1);
  }

  // -------------------------------------------------------------------------------
  // Queries

  /** The most recent trades of a pair, newest first. */
  async trades(symbol: string, limit: number = TRADES_LIMIT_MAX): Promise<TradeItem[]> {
    const n = boundLimit(limit, TRADES_LIMIT_MAX, 'trades');
    const pairId = this.pairs.get(symbol);
    if (pairId === undefined) return [];
    const rows = await this.scan(key(IndexBucket.Trade, u32(pairId)), n, true);
    return rows.map(([, v]) => tradeItem(TRADE.decode(v)));
  }

  /** The most recent fills of an address (as buyer or seller), newest first. */
  async fills(address: string, limit: number = FILLS_LIMIT_MAX): Promise<FillItem[]> {
    const n = boundLimit(limit, FILLS_LIMIT_MAX, 'fills');
    const a = normAddress(address);
    if (a === undefined) return [];
    const rows = await this.scan(key(IndexBucket.Fill, addressBytes(a)), n, true);
    return rows.map(([, v]) => fillItem(FILL.decode(v)));
  }

  /**
   * A page of a pair's trades in a time range, newest first (decision 95): at most
   * `limit` (≤ TRADES_LIMIT_MAX, never clamped), then `nextCursor` for the older rest.
   */
  async tradesPage(symbol: string, q: PageQuery = {}): Promise<Page<TradeItem>> {
    const { limit, after } = checkPageQuery(CursorKind.Trades, q, TRADES_LIMIT_MAX);
    const pairId = this.pairs.get(symbol);
    if (pairId === undefined) return { items: [], nextCursor: null };
    const { rows, nextCursor } = await this.pageRows(CursorKind.Trades, key(IndexBucket.Trade, u32(pairId)), q.startTime ?? 0, q.endTime, after, limit);
    return { items: rows.map(([, v]) => tradeItem(TRADE.decode(v))), nextCursor };
  }

  /** A page of an address's fills in a time range, newest first (as tradesPage). */
  async fillsPage(address: string, q: PageQuery = {}): Promise<Page<FillItem>> {
    const { limit, after } = checkPageQuery(CursorKind.Fills, q, FILLS_LIMIT_MAX);
    const a = normAddress(address);
    if (a === undefined) return { items: [], nextCursor: null };
    const { rows, nextCursor } = await this.pageRows(CursorKind.Fills, key(IndexBucket.Fill, addressBytes(a)), q.startTime ?? 0, q.endTime, after, limit);
    return { items: rows.map(([, v]) => fillItem(FILL.decode(v))), nextCursor };
  }

  /** A page of the orders an address placed in a time range (placement time), newest first (as tradesPage). */
  async ordersPage(address: string, q: PageQuery = {}): Promise<Page<OrderItem>> {
    const { limit, after } = checkPageQuery(CursorKind.Orders, q, ORDERS_LIMIT_MAX);
    const a = normAddress(address);
    if (a === undefined) return { items: [], nextCursor: null };
    const { rows, nextCursor } = await this.pageRows(CursorKind.Orders, key(IndexBucket.AccountOrder, addressBytes(a)), q.startTime ?? 0, q.endTime, after, limit);
    const values = await this.db.getMany(rows.map(([k]) => key(IndexBucket.Order, k.subarray(ACCOUNT_ORDER_ID_AT, ACCOUNT_ORDER_ID_AT + 8))));
    const items: OrderItem[] = [];
    for (const v of values) if (v) items.push(orderItem(ORDER.decode(v)));
    return { items, nextCursor };
  }

  /**
   * A page of a pair's candles whose bucket start (×1000, ms) lies in [startTime,
   * endTime]: the newest `limit` (≤ CANDLES_LIMIT_MAX) buckets of the range that had
   * trades, oldest first within the page as `candles` answers; `nextCursor` gives the
   * older buckets.
   */
  async candlesPage(symbol: string, interval: CandleInterval, q: PageQuery = {}): Promise<Page<CandleItem>> {
    if (!isCandleInterval(interval)) throw new RangeError(`candles: unknown interval ${String(interval)}`);
    const { limit, after } = checkPageQuery(CursorKind.Candles, q, CANDLES_LIMIT_MAX);
    const pairId = this.pairs.get(symbol);
    if (pairId === undefined) return { items: [], nextCursor: null };
    const lo = Math.ceil((q.startTime ?? 0) / 1000);
    const hi = q.endTime === undefined ? undefined : Math.floor(q.endTime / 1000);
    const { rows, nextCursor } = await this.pageRows(CursorKind.Candles, key(IndexBucket.Candle, u32(pairId), u32(CANDLE_INTERVALS[interval])), lo, hi, after, limit);
    rows.reverse();
    return { items: rows.map(([, v]) => candleItem(CANDLE.decode(v))), nextCursor };
  }

  /** The most recent `limit` candles of a pair (buckets that had trades), oldest first. */
  async candles(symbol: string, interval: CandleInterval, limit: number = CANDLES_LIMIT_MAX): Promise<CandleItem[]> {
    if (!isCandleInterval(interval)) throw new RangeError(`candles: unknown interval ${String(interval)}`);
    const n = boundLimit(limit, CANDLES_LIMIT_MAX, 'candles');
    const pairId = this.pairs.get(symbol);
    if (pairId === undefined) return [];
    const rows = await this.scan(key(IndexBucket.Candle, u32(pairId), u32(CANDLE_INTERVALS[interval])), n, true);
    rows.reverse();
    return rows.map(([, v]) => candleItem(CANDLE.decode(v)));
  }

  /** The last orders an address placed (highest order id first). */
  async orders(address: string, limit: number = ORDERS_LIMIT_MAX): Promise<OrderItem[]> {
    const n = boundLimit(limit, ORDERS_LIMIT_MAX, 'orders');
    const a = normAddress(address);
    if (a === undefined) return [];
    const keys = await this.scanKeys(key(IndexBucket.AccountOrder, addressBytes(a)), n, true);
    const values = await this.db.getMany(keys.map((k) => key(IndexBucket.Order, k.subarray(ACCOUNT_ORDER_ID_AT, ACCOUNT_ORDER_ID_AT + 8))));
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

  /**
   * Up to `limit` rows of a history, newest first, whose key time (the u64 after
   * `prefix`) is in [lo, hi] and which lie below the cursor `after`; `nextCursor` is that
   * of the last row when more rows follow (one extra row is read to know).
   */
  private async pageRows(kind: CursorKind, prefix: Uint8Array, lo: number, hi: number | undefined, after: Uint8Array | undefined, limit: number): Promise<{ rows: [Uint8Array, Uint8Array][]; nextCursor: string | null }> {
    const range = pageRange(prefix, lo, hi, after);
    if (range === undefined) return { rows: [], nextCursor: null };
    const rows = await this.db.iterator({ ...range, reverse: true, limit: limit + 1 }).all();
    if (rows.length <= limit) return { rows, nextCursor: null };
    rows.length = limit;
    return { rows, nextCursor: encodeCursor(kind, rows[limit - 1][0].subarray(prefix.length)) };
  }

  private async scanKeys(prefix: Uint8Array, limit: number, reverse: boolean): Promise<Uint8Array[]> {
    return this.db.keys({ gte: prefix, lt: prefixEnd(prefix), reverse, limit }).all();
  }

  private async accountRecords(addrs: string[]): Promise<(AccountRecord | undefined)[]> {
    if (addrs.length === 0) return [];
    const values = await this.db.getMany(addrs.map((a) => key(IndexBucket.Account, addressBytes(a))));
    return values.map((v) => (v ? ACCOUNT.decode(v) : undefined));
  }

  /** Writes the staged blocks and the new height in one batch, then publishes the in-memory state. */
  private async flush(st: Staging): Promise<void> {
    const ops: Op[] = this.stager.ops(st);
    await writeBatch(this.db, ops, false);
    this.storedHeight = st.height;
    // Published only once the batch is on disk: a failed batch leaves memory as the disk is.
    this.statsRec = st.stats;
    this.stager.publish(st);
    this.malformed += st.malformed;
    this.orphans += st.orphans;
    this.advanceTo(st.height);
  }
}

function checkBlockArgs(height: number, timestampMs: number): void {
  if (!Number.isSafeInteger(height) || height < 1) throw new RangeError(`indexer: height must be an integer >= 1, got ${String(height)}`);
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) throw new RangeError(`indexer: timestampMs must be a non-negative integer, got ${String(timestampMs)}`);
}
