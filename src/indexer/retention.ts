/**
 * The index's own retention (issue 27 deliver 2, decision 134): trades, fills, candles and
 * the order history are kept for a time of their own, independent of the chain store's
 * block window (the index is derived data; an operator who wants all of it keeps 0).
 * Ages count in block time against the newest block indexed, never the wall clock, so a
 * node replaying old blocks deletes nothing it will not delete again.
 *
 * What goes: trades and fills whose block time is before the cutoff; candles whose bucket
 * started before it; an order placed before it that is closed (filled, cancelled,
 * rejected), its history entry and its record (an order still open stays, however old).
 * Each bucket's cutoff, once applied, is kept in the meta bucket ('lowest:<kind>', block
 * time in ms), so a query can tell "pruned" from "there was nothing". Deletes go in
 * batches of INDEX_PRUNE_KEYS_PER_BATCH keys, and a run deletes at most
 * INDEX_PRUNE_KEYS_PER_RUN (the next run goes on).
 */
import type { ClassicLevel } from 'classic-level';
import { writeBatch, type Op } from '../storage/batch';
import { CANDLE_INTERVALS } from './candles';
import { IndexBucket, key, metaKey, ORDER, prefixEnd, readU64, u32, u64 } from './layout';

export interface IndexRetention {
  /** Trades and fills older than this (ms of block time); 0 keeps all. */
  tradesMs: number;
  /** Candles whose bucket started longer ago than this; 0 keeps all. */
  candlesMs: number;
  /** Closed orders placed longer ago than this (history and record); 0 keeps all. */
  ordersMs: number;
}

export const DAY_MS = 86_400_000;
/** The defaults of `start` (docs/operations.md): a month of trades, fills and order history; every candle (they are few). */
export const INDEX_RETENTION_DEFAULTS: IndexRetention = { tradesMs: 30 * DAY_MS, candlesMs: 0, ordersMs: 30 * DAY_MS };
/** Block time between two pruning runs of the index: a run scans the fills and the order history whole. */
export const INDEX_PRUNE_EVERY_MS = 3_600_000;
const INDEX_PRUNE_KEYS_PER_BATCH = 1_000;
const INDEX_PRUNE_KEYS_PER_RUN = 100_000;

export type RetainedKind = 'trades' | 'fills' | 'candles' | 'orders';
/** Per kind, the oldest block time (ms) still kept, or null: nothing pruned. */
export type LowestKept = Record<RetainedKind, number | null>;

const KINDS: RetainedKind[] = ['trades', 'fills', 'candles', 'orders'];
const CLOSED = new Set(['filled', 'cancelled', 'rejected']);

/** Where the block time sits in a Fill key (bucket 1 ‖ address 20) and an AccountOrder key (the same). */
const TIME_AT = 21;

export async function readLowestKept(db: ClassicLevel<Uint8Array, Uint8Array>): Promise<LowestKept> {
  const values = await db.getMany(KINDS.map((k) => metaKey(`lowest:${k}`)));
  const out = {} as LowestKept;
  KINDS.forEach((k, i) => (out[k] = values[i] ? readU64(values[i]!) : null));
  return out;
}

/** Deletes what `retention` no longer keeps at block time `nowMs`; returns the keys deleted. */
export async function pruneIndex(db: ClassicLevel<Uint8Array, Uint8Array>, pairIds: readonly number[], retention: IndexRetention, nowMs: number): Promise<number> {
  const deleter = new Deleter(db);
  if (retention.tradesMs > 0) {
    const cutoff = Math.max(0, nowMs - retention.tradesMs);
    for (const pid of pairIds) await deleter.range(key(IndexBucket.Trade, u32(pid)), key(IndexBucket.Trade, u32(pid), u64(cutoff)));
    await deleter.scan(Uint8Array.of(IndexBucket.Fill), (k) => readU64(k.subarray(TIME_AT, TIME_AT + 8)) < cutoff);
    await deleter.lowest('trades', cutoff);
    await deleter.lowest('fills', cutoff);
  }
  if (retention.candlesMs > 0) {
    const cutoffSec = Math.floor(Math.max(0, nowMs - retention.candlesMs) / 1000);
    for (const pid of pairIds) {
      for (const sec of Object.values(CANDLE_INTERVALS)) await deleter.range(key(IndexBucket.Candle, u32(pid), u32(sec)), key(IndexBucket.Candle, u32(pid), u32(sec), u64(cutoffSec)));
    }
    await deleter.lowest('candles', cutoffSec * 1000);
  }
  if (retention.ordersMs > 0) {
    const cutoff = Math.max(0, nowMs - retention.ordersMs);
    await deleter.closedOrders(cutoff);
    await deleter.lowest('orders', cutoff);
  }
  await deleter.flush();
  return deleter.deleted;
}

class Deleter {
  deleted = 0;
  #ops: Op[] = [];
  constructor(private readonly db: ClassicLevel<Uint8Array, Uint8Array>) {}

  get full(): boolean {
    return this.deleted + this.#ops.length >= INDEX_PRUNE_KEYS_PER_RUN;
  }

  async del(k: Uint8Array): Promise<void> {
    this.#ops.push({ type: 'del', key: k });
    if (this.#ops.length >= INDEX_PRUNE_KEYS_PER_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#ops.length === 0) return;
    const n = this.#ops.filter((o) => o.type === 'del').length;
    await writeBatch(this.db, this.#ops, false);
    this.deleted += n;
    this.#ops = [];
  }

  async range(gte: Uint8Array, lt: Uint8Array): Promise<void> {
    for await (const k of this.db.keys({ gte, lt })) {
      if (this.full) return;
      await this.del(k);
    }
  }

  async scan(prefix: Uint8Array, old: (k: Uint8Array) => boolean): Promise<void> {
    for await (const k of this.db.keys({ gte: prefix, lt: prefixEnd(prefix) })) {
      if (this.full) return;
      if (old(k)) await this.del(k);
    }
  }

  /** History entries (owner ‖ time ‖ id) placed before `cutoff` whose order is closed: the entry and the record go. */
  async closedOrders(cutoff: number): Promise<void> {
    const prefix = Uint8Array.of(IndexBucket.AccountOrder);
    for await (const k of this.db.keys({ gte: prefix, lt: prefixEnd(prefix) })) {
      if (this.full) return;
      if (readU64(k.subarray(TIME_AT, TIME_AT + 8)) >= cutoff) continue;
      const idKey = k.subarray(TIME_AT + 8, TIME_AT + 16);
      const recordKey = key(IndexBucket.Order, idKey);
      const v = await this.db.get(recordKey);
      if (v !== undefined && !CLOSED.has(ORDER.decode(v).status)) continue;
      await this.del(k);
      if (v !== undefined) await this.del(recordKey);
    }
  }

  /** Records a kind's cutoff, unless the run stopped short of it (then the next run goes on and records it). */
  async lowest(kind: RetainedKind, cutoffMs: number): Promise<void> {
    if (this.full) return;
    this.#ops.push({ type: 'put', key: metaKey(`lowest:${kind}`), value: u64(cutoffMs) });
  }
}

