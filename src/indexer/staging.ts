/**
 * Staging blocks into the index: the events of a block's ok receipts, then its own
 * events (BlockResult.blockEvents, stored beside the receipts), narrowed by parse.ts, become changes to trades, fills, orders, accounts, candles and stats, held
 * in a Staging until the Indexer writes them in one batch with the new height
 * (`ops`, then `publish` once the batch is on disk). Every stored record a block will
 * modify is read ahead in one getMany (`readAhead`), so staging itself never awaits.
 * One batch is one block, or up to CATCHUP_BLOCKS_PER_BATCH blocks in catchUp.
 */
import type { ClassicLevel } from 'classic-level';
import type { Op } from '../storage/batch';
import type { ChainEvent, Receipt } from '../state/context';
import type { OrderModifiedEvent, OrderPlacedEvent, OrderUpdatedEvent, TradeExecutedEvent } from '../state/events';
import { BoundedCache } from '../util/cache';
import { CANDLE_INTERVALS, bucketStart, mergeTrades, type BlockCandle, type CandleRecord } from './candles';
import {
  ACCOUNT,
  addressBytes,
  BLOCK_EVENTS_RECEIPT,
  CANDLE,
  EMPTY,
  FILL,
  IndexBucket,
  key,
  metaKey,
  NO_TX_HASH,
  ORDER,
  orderIdKey,
  position,
  rankKey,
  STATS,
  textEncoder,
  TRADE,
  u32,
  u64,
  ZERO_ACCOUNT,
  type AccountRecord,
  type FillRecord,
  type OrderRecord,
  type StatsRecord,
  type TradeRecord,
} from './layout';
import { parseEvent } from './parse';
import { ACCOUNT_CACHE_MAX, IndexerGapError, ORDER_CACHE_MAX, type TxHashOf } from './types';

interface AccountEntry {
  address: string;
  orig: AccountRecord | undefined;
  cur: AccountRecord;
}

/** What one write batch changes, built block by block. */
export interface Staging {
  height: number;
  blocks: number;
  events: number;
  malformed: number;
  orphans: number;
  /** Append-only puts: trades, fills, account→order entries, pairs. */
  puts: Op[];
  /** Records changed by the staged blocks (written by `ops`). */
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

/** An exchange event of the block, tagged with its kind; a trade carries its key position. */
type StagedEvent =
  | { type: 'OrderPlaced'; ev: OrderPlacedEvent; txHash: string }
  | { type: 'TradeExecuted'; ev: TradeExecutedEvent; txHash: string; pos: Uint8Array }
  | { type: 'OrderUpdated'; ev: OrderUpdatedEvent; txHash: string }
  | { type: 'OrderModified'; ev: OrderModifiedEvent; txHash: string };

const INTERVAL_SECONDS = Object.values(CANDLE_INTERVALS);

/**
 * The committed state staging builds on besides the database: the pairs by symbol, the
 * latest candle of each pair and interval, and bounded caches of recent orders and
 * accounts. Changed only by `publish`, after a batch is on disk.
 */
export class BlockStager {
  /** The latest candle per `${pairId}:${interval}` as stored: trades hit the current bucket. */
  private readonly latestCandles = new Map<string, CandleRecord>();
  private readonly orderCache = new BoundedCache<string, OrderRecord>(ORDER_CACHE_MAX);
  private readonly accountCache = new BoundedCache<string, AccountRecord>(ACCOUNT_CACHE_MAX);

  constructor(
    private readonly db: ClassicLevel<Uint8Array, Uint8Array>,
    /** Pair ids by symbol, as stored (shared with the Indexer's queries). */
    readonly pairs: Map<string, number>,
  ) {}

  /** An empty staging on top of the committed `height` and `stats`. */
  newStaging(height: number, stats: StatsRecord): Staging {
    return {
      height,
      blocks: 0,
      events: 0,
      malformed: 0,
      orphans: 0,
      puts: [],
      orders: new Map(),
      accounts: new Map(),
      candles: new Map(),
      pairs: new Map(),
      stats: { ...stats },
      readOrders: new Map(),
      readAccounts: new Map(),
      readCandles: new Map(),
    };
  }

  /**
   * Stages one block's events (throws IndexerGapError unless it follows the staging's
   * height): its ok receipts' by index, then its own (`blockEvents`, which run after every
   * transaction), whose records carry NO_TX_HASH and whose trades sit at receipt
   * position BLOCK_EVENTS_RECEIPT.
   */
  async stageBlock(st: Staging, height: number, time: number, receipts: Receipt[], txHashOf?: TxHashOf, blockEvents: readonly ChainEvent[] = []): Promise<void> {
    if (height !== st.height + 1) throw new IndexerGapError(st.height + 1, height);
    const staged: StagedEvent[] = [];
    const stage = (events: readonly ChainEvent[], receipt: number, txHash: string): void => {
      for (let j = 0; j < events.length; j++) {
        const parsed = parseEvent(events[j]);
        if (parsed.kind === 'other') continue;
        st.events++;
        if (parsed.kind === 'malformed') st.malformed++;
        else {
          const ev = parsed.event;
          // Only a trade has a key of its own: its position in the chain.
          if (ev.type === 'TradeExecuted') staged.push({ type: ev.type, ev, txHash, pos: position(height, receipt, j) });
          else if (ev.type === 'OrderPlaced') staged.push({ type: ev.type, ev, txHash });
          else if (ev.type === 'OrderUpdated') staged.push({ type: ev.type, ev, txHash });
          else staged.push({ type: ev.type, ev, txHash });
        }
      }
    };
    for (let i = 0; i < receipts.length; i++) {
      const r = receipts[i];
      if (r.status !== 'ok' || !Array.isArray(r.events) || r.events.length === 0) continue;
      stage(r.events, i, txHashOf ? txHashOf(r, i) : r.txHash);
    }
    if (Array.isArray(blockEvents) && blockEvents.length > 0) stage(blockEvents, BLOCK_EVENTS_RECEIPT, NO_TX_HASH);
    if (staged.length === 0) {
      st.height = height;
      st.blocks++;
      return;
    }
    await this.readAhead(st, staged, time);
    // Every record the events touch is now in the staging maps: the rest is synchronous.
    const blockCandles = new Map<number, BlockCandle>();
    for (const s of staged) {
      switch (s.type) {
        case 'OrderPlaced':
          this.stagePlaced(st, s.ev, s.txHash, time);
          break;
        case 'TradeExecuted':
          this.stageTrade(st, s.ev, s.pos, s.txHash, time, blockCandles);
          break;
        case 'OrderUpdated':
          this.stageUpdated(st, s.ev, time);
          break;
        case 'OrderModified':
          this.stageModified(st, s.ev, time);
          break;
      }
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
      } else if (ev.type === 'OrderUpdated' || ev.type === 'OrderModified') {
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
      ...(ev.cloid === undefined ? {} : { cloid: ev.cloid }),
    });
    st.puts.push({ type: 'put', key: key(IndexBucket.AccountOrder, addressBytes(ev.owner), u64(time), orderIdKey(ev.orderId)), value: EMPTY });
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
    if (ev.makerCloid !== undefined) trade.makerCloid = ev.makerCloid;
    if (ev.takerCloid !== undefined) trade.takerCloid = ev.takerCloid;
    const timeKey = u64(time);
    st.puts.push({ type: 'put', key: key(IndexBucket.Trade, u32(pairId), timeKey, pos), value: TRADE.encode(trade) });

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
        fee: takes ? ev.takerFee : (ev.makerFee ?? 0n),
      };
      const cloid = takes ? ev.takerCloid : ev.makerCloid;
      if (cloid !== undefined) rec.cloid = cloid;
      st.puts.push({ type: 'put', key: key(IndexBucket.Fill, addressBytes(address), timeKey, pos, Uint8Array.of(side)), value: FILL.encode(rec) });
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

  /**
   * A resting order modified in place (decision 88): its price, its size (filled plus
   * the new remaining) and remaining are the modify's; status, fills and placement time
   * stay (the order keeps its id and its AccountOrder key).
   */
  private stageModified(st: Staging, ev: OrderModifiedEvent, time: number): void {
    const o = this.orderNow(st, ev.orderId);
    if (!o) {
      st.orphans++;
      return;
    }
    st.orders.set(ev.orderId, { ...o, price: ev.price, size: ev.size, remaining: ev.remaining, updatedTime: time });
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

  /** The write batch of the staged blocks: their records, stats and height (flush writes it in one batch). */
  ops(st: Staging): Op[] {
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
    return ops;
  }

  /** After the batch is on disk: the committed pairs, latest candles and cached records. */
  publish(st: Staging): void {
    for (const [symbol, pairId] of st.pairs) this.pairs.set(symbol, pairId);
    for (const { pairId, interval, rec } of st.candles.values()) {
      const k = `${pairId}:${interval}`;
      const latest = this.latestCandles.get(k);
      if (!latest || latest.time <= rec.time) this.latestCandles.set(k, rec);
    }
    for (const [id, o] of st.orders) this.orderCache.set(id, o);
    for (const [a, e] of st.accounts) this.accountCache.set(a, e.cur);
  }
}

function markAgent(a: AccountRecord, time: number): void {
  if (a.isAgent) return;
  a.isAgent = true;
  a.firstSeen = time;
}
