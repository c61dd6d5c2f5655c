/**
 * Matching-engine throughput and memory, our OrderBook against nodejs-order-book 10
 * on the same stream in the same run.
 *
 * Stream (seeded, deterministic; defaults: 1,000,000 ops, seed 42):
 * - one pair, tick 0.01 USDC (10_000 in ×1e6 units), lot 0.001 unit (1e15 in ×1e18
 *   units); the mid starts at 3000 USDC and random-walks one tick with probability
 *   0.1 per op;
 * - ~55% limit orders, side 50/50. 90% passive: 1..100 lots at an exponential
 *   offset (mean 8 ticks) behind the mid (or behind the tick next to the opposite
 *   best when the mid has drifted into it), so they rest;
 *   10% aggressive: 1..40 lots priced 0..3 ticks through the opposite best, so they
 *   cross, sweep one or more levels and may rest the rest;
 * - ~30% cancels, each of an order live at that point of the stream (the generator
 *   tracks liveness by running the stream once through our engine, untimed);
 * - ~15% market orders: side 50/50, half bounded by a worst price (mid ± 20 ticks),
 *   half unbounded; size 1 + uniform(0, L / 2000) lots where L is the opposite
 *   liquidity within 20 ticks of the mid. Takers sizing on visible liquidity keep the
 *   book's depth roughly stationary (fixed taker sizes either drain the book to a few
 *   hundred orders or let it grow without bound under a fixed 55/30/15 mix);
 * - 100 owners drawn uniformly, so self-trade prevention (expire maker) triggers.
 * The stream is stored column-wise in typed arrays (so it adds next to nothing to the
 * heap the collector traces during the runs). Each op, timed, builds its call's input
 * from the columns, as a decoded transaction would, and makes one call:
 * - ours: bigint id / price / size (exact: sizes are lots × 1e15, exactly representable
 *   as doubles, checked), owner address string, isAgent;
 * - nodejs-order-book (takes numbers): price as the same ×1e6 integer, size in lots,
 *   id as a decimal string, owner as accountId with stpMode EXPIRE_MAKER (the same
 *   self-trade policy); a bounded market order becomes a limit IOC at the worst price
 *   (same semantics: takes up to the bound, cancels the rest), an unbounded one
 *   market().
 * Both engines' total filled size, STP expiries, successful cancels and final resting
 * count are compared after the run, to show they did the same work.
 *
 * Memory (in a fresh child process, same flags): 1,000,000 non-crossing resting orders
 * (bids below, asks above a mid, 2,000 price levels per side, 100 owners, a fresh
 * owner string per order as decoding would give), heap used and RSS after a forced GC.
 *
 * Standalone: `node --expose-gc --import tsx bench/orderbook.ts [ops] [seed] [rounds] [--nob-memory]`.
 * Importable: `benchOrderbook(opts)` returns the figures.
 */
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { OrderBook as NobOrderBook, SelfTradePreventionMode, Side as NobSide } from 'nodejs-order-book';
import { BUY, OrderBook, SELL, type Side } from '../src/state/orderbook/engine';
import type { Address } from '../src/util/bytes';
import { mulberry32 } from './rng';

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
/** Market order size: 1 + uniform(0, nearLots / MARKET_DIVISOR) lots. */
const MARKET_DIVISOR = 2000;

function ownerAddress(i: number): Address {
  return `0x${i.toString(16).padStart(40, '0')}` as Address;
}

/** The stream, column-wise in typed arrays so it adds next to nothing to the heap the
 *  collector has to trace while the engines run. */
interface Stream {
  n: number;
  /** 0 = limit, 1 = cancel, 2 = market */
  kind: Uint8Array;
  id: Float64Array;
  side: Uint8Array;
  owner: Uint16Array;
  /** limit: price (×1e6); market: worst price (×1e6), 0 = unbounded */
  price: Float64Array;
  /** size in lots (nodejs-order-book's size) */
  lots: Uint32Array;
  /** size ×1e18 as a double: lots × 1e15 is exactly representable below 2^53 × 2^15 (checked) */
  size: Float64Array;
  mix: { limit: number; aggressiveLimit: number; cancel: number; market: number; marketBounded: number };
}

const OWNER_ADDRS: Address[] = Array.from({ length: OWNERS }, (_, i) => ownerAddress(i + 1));
const isAgentOwner = (ownerIx: number) => (ownerIx & 3) === 0;

function buildStream(n: number, seed: number): Stream {
  const r = mulberry32(seed);
  const st: Stream = {
    n,
    kind: new Uint8Array(n),
    id: new Float64Array(n),
    side: new Uint8Array(n),
    owner: new Uint16Array(n),
    price: new Float64Array(n),
    lots: new Uint32Array(n),
    size: new Float64Array(n),
    mix: { limit: 0, aggressiveLimit: 0, cancel: 0, market: 0, marketBounded: 0 },
  };
  const mix = st.mix;
  const book = new OrderBook(1); // only to know which orders are live and where the book is
  const live: bigint[] = [];
  let mid = MID0_TICKS;
  let nextId = 1;
  for (let i = 0; i < n; i++) {
    if (r() < 0.1) mid += r() < 0.5 ? -1 : 1;
    const u = r();
    const side: Side = r() < 0.5 ? BUY : SELL;
    const ownerIx = Math.floor(r() * OWNERS);
    st.side[i] = side;
    st.owner[i] = ownerIx;
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
        st.kind[i] = 1;
        st.id[i] = Number(id);
        mix.cancel++;
        continue;
      }
    }
    const id = nextId++;
    st.id[i] = id;
    let lots: number;
    if (u < 0.85) {
      const aggressive = r() < 0.1;
      const bestOpp = side === BUY ? book.bestAsk() : book.bestBid();
      let ticks: number;
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
      const price = BigInt(ticks) * TICK;
      const res = book.placeLimit({ id: BigInt(id), owner: OWNER_ADDRS[ownerIx], side, price, size: BigInt(lots) * LOT, isAgent: isAgentOwner(ownerIx) });
      if (res.rested) live.push(BigInt(id));
      st.kind[i] = 0;
      st.price[i] = Number(price);
      mix.limit++;
      if (aggressive) mix.aggressiveLimit++;
    } else {
      // takers size themselves on the liquidity within 20 ticks of the mid: this keeps
      // the book's depth stationary (deeper book, bigger market orders)
      const bound = BigInt(side === BUY ? mid + 20 : mid - 20) * TICK;
      const nearLots = Number(book.availableLiquidity(side, bound) / LOT);
      lots = 1 + Math.floor(r() * (nearLots / MARKET_DIVISOR));
      const bounded = r() < 0.5;
      book.placeMarket({ id: BigInt(id), owner: OWNER_ADDRS[ownerIx], side, size: BigInt(lots) * LOT, worstPrice: bounded ? bound : null, isAgent: isAgentOwner(ownerIx) });
      st.kind[i] = 2;
      st.price[i] = bounded ? Number(bound) : 0;
      mix.market++;
      if (bounded) mix.marketBounded++;
    }
    st.lots[i] = lots;
    st.size[i] = Number(BigInt(lots) * LOT);
    if (BigInt(st.size[i]) !== BigInt(lots) * LOT) throw new Error('size not exact as a double');
  }
  return st;
}

interface RunResult {
  secs: number;
  /** process CPU time (all threads: includes the GC's helper threads) */
  cpuSecs: number;
  /** main-thread CPU time (the engine's own work and the GC pauses it runs itself) */
  mainCpuSecs: number;
  filledLots: number;
  stpExpired: number;
  cancelled: number;
  resting: number;
}

/** Main-thread CPU seconds (process.threadCpuUsage: Node ≥ 22.16); NaN where missing. */
function threadCpu(): number {
  const f = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (!f) return Number.NaN;
  const u = f.call(process);
  return (u.user + u.system) / 1e6;
}

type Clocks = Pick<RunResult, 'secs' | 'cpuSecs' | 'mainCpuSecs'>;

/** Starts the wall, process-CPU and main-thread-CPU clocks; the function returned reads them. */
function startClocks(): () => Clocks {
  const c0 = process.cpuUsage();
  const m0 = threadCpu();
  const t0 = process.hrtime.bigint();
  return () => {
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const mainCpuSecs = threadCpu() - m0;
    const cpu = process.cpuUsage(c0);
    return { secs, cpuSecs: (cpu.user + cpu.system) / 1e6, mainCpuSecs };
  };
}

/** Our engine. Each op builds the call's input from the columns (as a decoded
 *  transaction would be) and makes one call. */
function runOurs(st: Stream): RunResult {
  const book = new OrderBook(1);
  const { n, kind, id, side, owner, price, size } = st;
  let filled = 0n;
  let stpExpired = 0;
  let cancelled = 0;
  const stop = startClocks();
  for (let i = 0; i < n; i++) {
    const k = kind[i];
    if (k === 0) {
      const ow = owner[i];
      const r = book.placeLimit({ id: BigInt(id[i]), owner: OWNER_ADDRS[ow], side: side[i] as Side, price: BigInt(price[i]), size: BigInt(size[i]), isAgent: isAgentOwner(ow) });
      filled += r.filled;
      stpExpired += r.selfTradeCancelled.length;
    } else if (k === 1) {
      if (book.cancel(BigInt(id[i])) !== undefined) cancelled++;
    } else {
      const ow = owner[i];
      const p = price[i];
      const r = book.placeMarket({ id: BigInt(id[i]), owner: OWNER_ADDRS[ow], side: side[i] as Side, size: BigInt(size[i]), worstPrice: p === 0 ? null : BigInt(p), isAgent: isAgentOwner(ow) });
      filled += r.filled;
      stpExpired += r.selfTradeCancelled.length;
    }
  }
  const clocks = stop();
  return { ...clocks, filledLots: Number(filled / LOT), stpExpired, cancelled, resting: book.size };
}

/** nodejs-order-book on the same columns: numbers, string ids, accountId + EXPIRE_MAKER. */
function runNob(st: Stream): RunResult {
  const book = new NobOrderBook();
  const { n, kind, id, side, owner, price, lots } = st;
  const stp = SelfTradePreventionMode.EXPIRE_MAKER;
  let filled = 0;
  let stpExpired = 0;
  let cancelled = 0;
  const stop = startClocks();
  for (let i = 0; i < n; i++) {
    const k = kind[i];
    if (k === 1) {
      if (book.cancel(String(id[i])) !== undefined) cancelled++;
      continue;
    }
    const s = side[i] === BUY ? NobSide.BUY : NobSide.SELL;
    const accountId = OWNER_ADDRS[owner[i]];
    const size = lots[i];
    const p = price[i];
    const r =
      k === 0
        ? book.limit({ id: String(id[i]), side: s, price: p, size, accountId, stpMode: stp })
        : p === 0
          ? book.market({ side: s, size, accountId, stpMode: stp })
          : book.limit({ id: String(id[i]), side: s, price: p, size, accountId, stpMode: stp, timeInForce: 'IOC' as never });
    if (r.err) throw new Error(`nodejs-order-book rejected op ${i}: ${r.err.message}`);
    filled += size - r.quantityLeft;
    if (r.stpExpired) stpExpired += r.stpExpired.length;
  }
  const clocks = stop();
  let resting = 0;
  const snap = book.snapshot();
  for (const l of snap.bids) resting += l.orders.length;
  for (const l of snap.asks) resting += l.orders.length;
  return { ...clocks, filledLots: filled, stpExpired, cancelled, resting };
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
      // a fresh string per order, as a decoded transaction would carry (no interning)
      owner: ownerAddress(1 + (i % OWNERS)),
      side,
      price: BigInt(ticks) * TICK,
      size: BigInt(1 + (i % 100)) * LOT + 123_456_789n, // not a round number
      isAgent: (i & 7) === 0,
    });
  }
  const insertSecs = (performance.now() - t0) / 1000;
  gc();
  const mem = process.memoryUsage();
  if (book.size !== n) throw new Error(`expected ${n} resting orders, have ${book.size}`);
  const out = {
    orders: n,
    levelsPerSide: LEVELS,
    insertOpsPerSec: Math.round(n / insertSecs),
    heapUsedDeltaMiB: mib(mem.heapUsed - heap0),
    bytesPerOrder: Math.round((mem.heapUsed - heap0) / n),
    rssBeforeMiB: mib(rss0),
    rssAfterMiB: mib(mem.rss),
    rssDeltaMiB: mib(mem.rss - rss0),
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
  const mem = process.memoryUsage();
  void book.order('1');
  return {
    orders: n,
    heapUsedDeltaMiB: mib(mem.heapUsed - heap0),
    bytesPerOrder: Math.round((mem.heapUsed - heap0) / n),
    rssBeforeMiB: mib(rss0),
    rssAfterMiB: mib(mem.rss),
    rssDeltaMiB: mib(mem.rss - rss0),
  };
}

const THIS_FILE = fileURLToPath(import.meta.url);

function memoryInChild(which: 'ours' | 'nob', n: number): Record<string, unknown> {
  const args = [...process.execArgv.filter((a) => a !== '--expose-gc'), '--expose-gc', THIS_FILE, '--memory-child', which, String(n)];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`memory child failed (${r.status}): ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Record<string, unknown>;
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
  const stream = buildStream(n, seed);
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
    const a = runOurs(stream);
    gc();
    const b = runNob(stream);
    log(
      `round ${round + 1}: ours ${Math.round(n / a.secs)} ops/s (${Math.round(n / a.cpuSecs)}/cpu-s, ${Math.round(n / a.mainCpuSecs)}/main-thread-cpu-s), ` +
        `nodejs-order-book ${Math.round(n / b.secs)} ops/s (${Math.round(n / b.cpuSecs)}/cpu-s, ${Math.round(n / b.mainCpuSecs)}/main-thread-cpu-s)`,
    );
    if (!bestOurs || a.secs < bestOurs.secs) bestOurs = a;
    if (!bestNob || b.secs < bestNob.secs) bestNob = b;
  }
  const ours = bestOurs!;
  const nob = bestNob!;
  const same = ours.filledLots === nob.filledLots && ours.stpExpired === nob.stpExpired && ours.cancelled === nob.cancelled && ours.resting === nob.resting;
  const fig = (x: RunResult) => ({
    opsPerSec: Math.round(n / x.secs),
    opsPerCpuSec: Math.round(n / x.cpuSecs),
    opsPerMainThreadCpuSec: Math.round(n / x.mainCpuSecs),
    secs: +x.secs.toFixed(3),
    filledLots: x.filledLots,
    stpExpired: x.stpExpired,
    cancelled: x.cancelled,
    restingAtEnd: x.resting,
  });
  out.ours = fig(ours);
  out.nodejsOrderBook = fig(nob);
  out.ratio = +(nob.secs / ours.secs).toFixed(2);
  out.ratioCpu = +(nob.cpuSecs / ours.cpuSecs).toFixed(2);
  out.ratioMainThreadCpu = +(nob.mainCpuSecs / ours.mainCpuSecs).toFixed(2);
  out.sameOutcome = same;
  out.rounds = `${rounds} alternating rounds, fastest (wall) of each engine reported; cpu-s = this process's user+system time (all threads, GC helpers included), main-thread-cpu-s = the main thread's alone; the CPU figures depend less than wall time on other load on the machine`;
  if (!same) log('WARNING: the two engines did not produce the same totals on the same stream');

  // Memory in a fresh child process: a clean baseline for the RSS delta, and the
  // throughput runs above are not disturbed by sweeping a million dead orders.
  out.memory = memoryInChild('ours', memN);
  log(`memory: ${JSON.stringify(out.memory)}`);
  if (opts.nobMemory) out.memoryNodejsOrderBook = memoryInChild('nob', memN);
  out.loadAfter = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === '--memory-child') {
  const n = Number(process.argv[4]);
  console.log(JSON.stringify(process.argv[3] === 'nob' ? memoryNob(n) : memoryOurs(n)));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const ops = args[0] ? Number(args[0]) : undefined;
  const seed = args[1] ? Number(args[1]) : undefined;
  const rounds = args[2] ? Number(args[2]) : undefined;
  benchOrderbook({ ops, seed, rounds, nobMemory: process.argv.includes('--nob-memory'), log: (l) => console.log(l) })
    .then((figures) => {
      for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
      console.log(`peak RSS of the bench process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
