/**
 * Matching-engine throughput and memory, our OrderBook against nodejs-order-book 10
 * on the same stream in the same run.
 *
 * Stream (seeded, deterministic; defaults: 1,000,000 ops, seed 42):
 * - one pair, tick 0.01 USDC (10_000 in ×1e6 units), lot 0.001 unit (1e15 in ×1e18
 *   units); the mid starts at 3000 USDC and random-walks one tick with probability
 *   0.1 per op;
 * - ~55% limit orders, side 50/50. 90% passive: 1..100 lots at mid ∓ an exponential
 *   offset (mean 8 ticks) behind the mid (or behind the tick next to the opposite best
 *   when the mid has drifted into it), so they rest;
 *   10% aggressive: 1..40 lots priced 0..3 ticks through the opposite best, so they
 *   cross, sweep one or more levels and may rest the rest;
 * - ~30% cancels, each of an order live at that point of the stream (the generator
 *   tracks liveness by running the stream once through our engine, untimed);
 * - ~15% market orders: side 50/50, 1..30 lots, half bounded by a worst price
 *   (mid ± 20 ticks), half unbounded;
 * - 100 owners drawn uniformly, so self-trade prevention (expire maker) triggers.
 * Each engine gets the stream pre-built as its own input objects before the clock
 * starts; each op is one call. nodejs-order-book takes numbers and string ids: price
 * as the same ×1e6 integer (Number), size in lots, id as a decimal string, owner as
 * accountId with stpMode EXPIRE_MAKER (the same self-trade policy), a bounded market
 * order as a limit IOC at the worst price (same semantics), an unbounded one as
 * market(). Both engines' total filled size, STP expiries and final resting count are
 * compared after the run, to show they did the same work.
 *
 * Memory: 1,000,000 non-crossing resting orders (bids below, asks above a mid, 2,000
 * price levels per side, 100 owners), heap used and RSS delta after a forced GC.
 *
 * Standalone: `node --expose-gc --import tsx bench/orderbook.ts [ops] [seed]`.
 * Importable: `benchOrderbook(opts)` returns the figures.
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { OrderBook as NobOrderBook, SelfTradePreventionMode, Side as NobSide } from 'nodejs-order-book';
import { BUY, OrderBook, SELL, type Side } from '/work/main/src/state/orderbook/engine';
import type { Address } from '/work/main/src/util/bytes';

export interface OrderbookBenchOptions {
  ops?: number;
  seed?: number;
  /** Timed rounds per engine (alternating); the best round is reported. */
  rounds?: number;
  memoryOrders?: number;
  /** Also measure nodejs-order-book's memory for the same resting orders. */
  nobMemory?: boolean;
  log?: (line: string) => void;
}

const TICK = 10_000n; // 0.01 USDC in ×1e6 units
const LOT = 10n ** 15n; // 0.001 unit in ×1e18 units
const MID0_TICKS = 300_000; // 3000 USDC
const OWNERS = 100;

/** mulberry32: small, seeded, deterministic. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ownerAddress(i: number): Address {
  return `0x${i.toString(16).padStart(40, '0')}` as Address;
}

type Op =
  | { k: 0; o: { id: bigint; owner: Address; side: Side; price: bigint; size: bigint; isAgent: boolean } }
  | { k: 1; id: bigint }
  | { k: 2; o: { id: bigint; owner: Address; side: Side; size: bigint; worstPrice: bigint | null; isAgent: boolean } };

type NobOp =
  | { k: 0; o: { id: string; side: NobSide; price: number; size: number; accountId: string; stpMode: SelfTradePreventionMode } }
  | { k: 1; id: string }
  | { k: 2; o: { side: NobSide; size: number; accountId: string; stpMode: SelfTradePreventionMode } }
  | { k: 3; o: { id: string; side: NobSide; price: number; size: number; accountId: string; stpMode: SelfTradePreventionMode; timeInForce: any } };

interface Stream {
  ops: Op[];
  nob: NobOp[];
  mix: { limit: number; aggressiveLimit: number; cancel: number; market: number; marketBounded: number };
}

export function buildStream(n: number, seed: number): Stream {
  const r = rng(seed);
  const owners = Array.from({ length: OWNERS }, (_, i) => ownerAddress(i + 1));
  const book = new OrderBook(1); // only to know which orders are live when choosing cancels
  const live: bigint[] = [];
  const ops: Op[] = [];
  const nob: NobOp[] = [];
  const mix = { limit: 0, aggressiveLimit: 0, cancel: 0, market: 0, marketBounded: 0 };
  let mid = MID0_TICKS;
  let nextId = 1n;
  const stp = SelfTradePreventionMode.EXPIRE_MAKER;
  for (let i = 0; i < n; i++) {
    if (r() < 0.1) mid += r() < 0.5 ? -1 : 1;
    const u = r();
    const side: Side = r() < 0.5 ? BUY : SELL;
    const ownerIx = Math.floor(r() * OWNERS);
    const owner = owners[ownerIx];
    const nSide = side === BUY ? NobSide.BUY : NobSide.SELL;
    if (u < 0.3 && live.length > 0) {
      // cancel a live order: drop ids found dead (filled / STP-expired) on the way
      let id: bigint | undefined;
      while (live.length > 0) {
        const j = Math.floor(r() * live.length);
        const cand = live[j];
        live[j] = live[live.length - 1];
        live.pop();
        if (book.get(cand) !== undefined) {
          id = cand;
          break;
        }
      }
      if (id !== undefined) {
        book.cancel(id);
        ops.push({ k: 1, id });
        nob.push({ k: 1, id: id.toString() });
        mix.cancel++;
        continue;
      }
    }
    const id = nextId++;
    if (u < 0.85) {
      const aggressive = r() < 0.1;
      const bestOpp = side === BUY ? book.bestAsk() : book.bestBid();
      let ticks: number;
      let lots: number;
      if (aggressive) {
        // through the opposite best by 0..3 ticks (or around the mid on an empty side)
        const k = Math.floor(r() * 4);
        const ref = bestOpp === null ? mid : Number(bestOpp / TICK);
        ticks = side === BUY ? ref + k : ref - k;
        lots = 1 + Math.floor(r() * 40);
      } else {
        // passive: an exponential offset (mean 8 ticks) behind the mid, or behind the tick
        // next to the opposite best when the mid has drifted into it
        const off = Math.floor(-Math.log(1 - r()) * 8);
        let ref = mid;
        if (bestOpp !== null) {
          const b = Number(bestOpp / TICK);
          ref = side === BUY ? Math.min(mid, b - 1) : Math.max(mid, b + 1);
        }
        ticks = side === BUY ? ref - off : ref + off;
        lots = 1 + Math.floor(r() * 100);
      }
      const o = { id, owner, side, price: BigInt(ticks) * TICK, size: BigInt(lots) * LOT, isAgent: (ownerIx & 3) === 0 };
      const res = book.placeLimit(o);
      if (res.rested) live.push(id);
      ops.push({ k: 0, o });
      nob.push({ k: 0, o: { id: id.toString(), side: nSide, price: Number(o.price), size: lots, accountId: owner, stpMode: stp } });
      mix.limit++;
      if (aggressive) mix.aggressiveLimit++;
    } else {
      const lots = 1 + Math.floor(r() * 30);
      const bounded = r() < 0.5;
      const worst = bounded ? BigInt(side === BUY ? mid + 20 : mid - 20) * TICK : null;
      const o = { id, owner, side, size: BigInt(lots) * LOT, worstPrice: worst, isAgent: false };
      book.placeMarket(o);
      ops.push({ k: 2, o });
      if (worst === null) nob.push({ k: 2, o: { side: nSide, size: lots, accountId: owner, stpMode: stp } });
      else nob.push({ k: 3, o: { id: id.toString(), side: nSide, price: Number(worst), size: lots, accountId: owner, stpMode: stp, timeInForce: 'IOC' } });
      mix.market++;
      if (bounded) mix.marketBounded++;
    }
  }
  return { ops, nob, mix };
}

interface RunResult {
  secs: number;
  filledLots: number;
  stpExpired: number;
  cancelled: number;
  resting: number;
}

export function runOurs(ops: Op[]): RunResult {
  const book = new OrderBook(1);
  let filled = 0n;
  let stpExpired = 0;
  let cancelled = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.k === 0) {
      const r = book.placeLimit(op.o);
      filled += r.filled;
      stpExpired += r.selfTradeCancelled.length;
    } else if (op.k === 1) {
      if (book.cancel(op.id) !== undefined) cancelled++;
    } else {
      const r = book.placeMarket(op.o);
      filled += r.filled;
      stpExpired += r.selfTradeCancelled.length;
    }
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  return { secs, filledLots: Number(filled / LOT), stpExpired, cancelled, resting: book.size };
}

function runNob(ops: NobOp[]): RunResult {
  const book = new NobOrderBook();
  let filled = 0;
  let stpExpired = 0;
  let cancelled = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.k === 1) {
      if (book.cancel(op.id) !== undefined) cancelled++;
      continue;
    }
    const r = op.k === 2 ? book.market(op.o) : book.limit(op.o as any);
    if (r.err) throw new Error(`nodejs-order-book rejected op ${i}: ${r.err.message}`);
    filled += op.o.size - r.quantityLeft;
    if (r.stpExpired) stpExpired += r.stpExpired.length;
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  let resting = 0;
  const [asks, bids] = book.depth();
  // depth() gives levels; count orders through the snapshot instead
  const snap = book.snapshot();
  for (const l of snap.bids) resting += l.orders.length;
  for (const l of snap.asks) resting += l.orders.length;
  void asks;
  void bids;
  return { secs, filledLots: filled, stpExpired, cancelled, resting };
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}

function memoryOurs(n: number): Record<string, unknown> {
  const owners = Array.from({ length: OWNERS }, (_, i) => ownerAddress(i + 1));
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const book = new OrderBook(1);
  const LEVELS = 2000;
  for (let i = 0; i < n; i++) {
    const side: Side = i & 1 ? SELL : BUY;
    const lvl = (i >>> 1) % LEVELS; // 0 = nearest the mid
    const ticks = side === BUY ? MID0_TICKS - 1 - lvl : MID0_TICKS + 1 + lvl;
    book.placeLimit({
      id: BigInt(i + 1),
      owner: owners[i % OWNERS],
      side,
      price: BigInt(ticks) * TICK,
      size: BigInt(1 + (i % 100)) * LOT + 123_456_789n, // not a round number: full 64-bit bigints
      isAgent: (i & 7) === 0,
    });
  }
  const insertSecs = (performance.now() - t0) / 1000;
  gc();
  const heap1 = process.memoryUsage().heapUsed;
  const rss1 = process.memoryUsage().rss;
  if (book.size !== n) throw new Error(`expected ${n} resting orders, have ${book.size}`);
  const out = {
    orders: n,
    levelsPerSide: LEVELS,
    insertOpsPerSec: Math.round(n / insertSecs),
    heapUsedDeltaMiB: mib(heap1 - heap0),
    bytesPerOrder: Math.round((heap1 - heap0) / n),
    rssDeltaMiB: mib(rss1 - rss0),
    rssMiB: mib(rss1),
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
  void book.bestBid(); // keep the book alive until measured
  return out;
}

function memoryNob(n: number): Record<string, unknown> {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const book = new NobOrderBook();
  const LEVELS = 2000;
  for (let i = 0; i < n; i++) {
    const buy = (i & 1) === 0;
    const lvl = (i >>> 1) % LEVELS;
    const ticks = buy ? MID0_TICKS - 1 - lvl : MID0_TICKS + 1 + lvl;
    book.limit({ id: String(i + 1), side: buy ? NobSide.BUY : NobSide.SELL, price: ticks * 10_000, size: 1 + (i % 100), accountId: ownerAddress(1 + (i % OWNERS)) });
  }
  gc();
  const heap1 = process.memoryUsage().heapUsed;
  const rss1 = process.memoryUsage().rss;
  void book.order('1');
  return { orders: n, heapUsedDeltaMiB: mib(heap1 - heap0), rssDeltaMiB: mib(rss1 - rss0) };
}

export async function benchOrderbook(opts: OrderbookBenchOptions = {}): Promise<Record<string, unknown>> {
  const n = opts.ops ?? 1_000_000;
  const seed = opts.seed ?? 42;
  const rounds = opts.rounds ?? 3;
  const memN = opts.memoryOrders ?? 1_000_000;
  const log = opts.log ?? (() => {});
  const out: Record<string, unknown> = {};
  out.conditions = `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}, ${os.platform()} ${os.release()}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;
  out.stream = { ops: n, seed, owners: OWNERS, tick: '0.01 USDC', lot: '0.001', mid0: '3000 USDC' };

  const tb = performance.now();
  let stream: Stream | null = buildStream(n, seed);
  const m = stream.mix;
  out.mix = {
    limit: m.limit,
    limitPct: +((100 * m.limit) / n).toFixed(1),
    aggressiveLimit: m.aggressiveLimit,
    cancel: m.cancel,
    cancelPct: +((100 * m.cancel) / n).toFixed(1),
    market: m.market,
    marketPct: +((100 * m.market) / n).toFixed(1),
    marketBounded: m.marketBounded,
  };
  log(`stream built in ${((performance.now() - tb) / 1000).toFixed(1)} s: ${JSON.stringify(out.mix)}`);

  let bestOurs: RunResult | null = null;
  let bestNob: RunResult | null = null;
  for (let round = 0; round < rounds; round++) {
    gc();
    const a = runOurs(stream.ops);
    gc();
    const b = runNob(stream.nob);
    log(`round ${round + 1}: ours ${Math.round(n / a.secs)} ops/s, nodejs-order-book ${Math.round(n / b.secs)} ops/s`);
    if (!bestOurs || a.secs < bestOurs.secs) bestOurs = a;
    if (!bestNob || b.secs < bestNob.secs) bestNob = b;
  }
  const ours = bestOurs!;
  const nob = bestNob!;
  const same = ours.filledLots === nob.filledLots && ours.stpExpired === nob.stpExpired && ours.cancelled === nob.cancelled && ours.resting === nob.resting;
  out.ours = { opsPerSec: Math.round(n / ours.secs), secs: +ours.secs.toFixed(3), filledLots: ours.filledLots, stpExpired: ours.stpExpired, cancelled: ours.cancelled, restingAtEnd: ours.resting };
  out.nodejsOrderBook = { opsPerSec: Math.round(n / nob.secs), secs: +nob.secs.toFixed(3), filledLots: nob.filledLots, stpExpired: nob.stpExpired, cancelled: nob.cancelled, restingAtEnd: nob.resting };
  out.ratio = +(nob.secs / ours.secs).toFixed(2);
  out.sameOutcome = same;
  out.rounds = `${rounds} alternating rounds, best of each reported`;
  if (!same) log('WARNING: the two engines did not produce the same totals on the same stream');
  stream = null;

  out.memory = memoryOurs(memN);
  if (opts.nobMemory) out.memoryNodejsOrderBook = memoryNob(memN);
  return out;
}

