/**
 * The 6-validator network on this machine: six node processes (libp2p over TCP on
 * loopback, LevelDB with fsync each), as `npm start` runs them.
 *  - the budget (issue 25; bench/budget.ts, docs/performance.md "Network budget (issue
 *    25)"): idle, then open loops offering 500, 1,000, 2,000 and 3,000 orders/s, each as
 *    single orders (POST /v1/order) and as signed ten-order batches (POST
 *    /v1/order/batch), each answered only once its block is final. Over each level's
 *    window: each validator process's CPU (/proc/<pid>/stat), the blocks and their
 *    proposer timestamps, each request's submit-to-final latency (from its scheduled
 *    time) and the orders final. One table: B (CPU per block per validator, from idle),
 *    c (CPU per order per validator beyond blocks × B), the block interval (median, p99,
 *    mean), the interval B / (usable cores − rate × c) predicts, latency p50/p99, orders/s
 *    final; printed aligned and returned as data;
 *  - a short closed-loop sweep (requests in flight, each shape) with the busiest level
 *    that keeps p50 ≤ 50 ms and p99 ≤ 150 ms, and the peak;
 *  - each node's RSS.
 * Environment (for short runs): BENCH_LEVEL_S (15) seconds a level; BENCH_RATES
 * (500,1000,2000,3000) orders/s offered; BENCH_SHAPES (1,10) orders per request;
 * BENCH_SWEEP (1; 0 skips the closed loops); BENCH_SWEEP_LEVELS (say 1x384x9000,10x6x4000:
 * orders per request × requests in flight × orders, in place of the sweep's own); BENCH_WARMUP_S (40) seconds idle before
 * measuring, during which every body is signed; BENCH_WARM_ORDERS (3,000) batched orders
 * and a third as many single ones sent unmeasured before the loaded levels;
 * BENCH_USABLE_CORES (cores − 0.1) in the formula; BENCH_NODE_BINARY=<file> runs the
 * validators from a single-file build (`npm run build -- --out <file>`) instead of the
 * source tree.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Pool } from 'undici';
import { budgetTable, formatBudgetTable, quantile, type LevelSample } from './budget';
import { closedLoop, openLoop, signedBatchBodies, signedOrderBodies, type LoadResult } from './load';
import { LocalNetwork } from '../test/helpers/network';

export { quantile };

/**
 * Past capacity an open loop sheds what would wait more than about a second (load.ts,
 * openLoop): latency and each level's length stay bounded. 256 requests may be in flight
 * before any answer, more than a level below capacity needs (1,000 orders/s at 100 ms).
 */
const SHED = { afterMs: 1_000, minInFlight: 256 };
/** Pause after a level, so its backlog (mempool, the index off the commit path) is not the next level's. */
const SETTLE_MS = 2_000;

/** A batch answers 200 with each order's outcome: an order refused inside it is not final. */
const rejectedInBatch = (body: string) => (JSON.parse(body).data.orders as { status: string }[]).filter((o) => o.status === 'rejected').length;

/** An answer inspector adding each batch's refused orders into `add`. */
const countRefused = (add: (n: number) => void) => (status: number, body: string) => {
  if (status === 200) add(rejectedInBatch(body));
};

/** CPU time and resident memory of process `pid`, from /proc (Linux). */
export function procStat(pid: number): { cpuMs: number; rssMiB: number; peakRssMiB: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (k: string) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0);
  return { cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / 100, rssMiB: Math.round(kib('VmRSS') / 1024), peakRssMiB: Math.round(kib('VmHWM') / 1024) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const envNumber = (name: string, fallback: number): number => (process.env[name] ? Number(process.env[name]) : fallback);
const envList = (name: string, fallback: number[]): number[] =>
  process.env[name] !== undefined ? process.env[name]!.split(',').filter(Boolean).map(Number) : fallback;

/** CPU of this (the load) process so far, ms. */
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** What a level's traffic produced: the orders and their requests' latencies. */
interface Traffic {
  ordersOffered: number;
  ordersFinal: number;
  ordersShed: number;
  latenciesMs: number[];
  /** Answers by HTTP status (a refusal or failure shows here). */
  statuses: Record<number, number>;
}

/**
 * Runs `traffic` as one level: each validator's CPU, the load process's CPU and the wall
 * time around it, the heights at both ends (validator 1), then the proposer timestamps of
 * the blocks in between (read after the window, so the reads are not in it).
 */
async function measureLevel(net: LocalNetwork, offeredOrdersPerSec: number, perRequest: number, traffic: () => Promise<Traffic>): Promise<{ sample: LevelSample; statuses: Record<number, number> }> {
  const pids = net.nodes.map((n) => n.proc!.pid!);
  const h0 = await net.height(1);
  const cpu0 = pids.map((pid) => procStat(pid).cpuMs);
  const own0 = ownCpuMs();
  const t0 = performance.now();
  const t = await traffic();
  const seconds = (performance.now() - t0) / 1000;
  const loadCpuMs = ownCpuMs() - own0;
  const cpuMsByValidator = pids.map((pid, i) => procStat(pid).cpuMs - cpu0[i]);
  const h1 = await net.height(1);
  const blockTimestampsMs = await timestamps(net, h0, h1);
  const { statuses, ...rest } = t;
  return { sample: { offeredOrdersPerSec, perRequest, seconds, cpuMsByValidator, blockTimestampsMs, loadCpuMs, ...rest }, statuses };
}

/** Proposer timestamps of heights from..to (validator 1), eight reads at a time. */
async function timestamps(net: LocalNetwork, from: number, to: number): Promise<number[]> {
  const out: number[] = new Array(to - from + 1);
  let next = from;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next <= to) {
        const h = next++;
        out[h - from] = (await net.block(1, h)).timestampMs;
      }
    }),
  );
  return out;
}

/** The tally of a load result's answers, and its orders final (a batch's refused orders are not). */
function tally(r: LoadResult, perRequest: number, refusedInBatches: number): { ordersFinal: number; statuses: Record<number, number> } {
  return { ordersFinal: (r.statuses.get(200) ?? 0) * perRequest - refusedInBatches, statuses: Object.fromEntries(r.statuses) };
}

/** Where validator 1's CPU went in a run under the profiler: the profile file and the windows to cut it by. */
export interface ProfiledRun {
  dir: string;
  idleWindowUs: [number, number];
  idleBlocks: number;
  loadWindows: { level: string; windowUs: [number, number]; blocks: number; ordersFinal: number }[];
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Restarts validator `index` under `--cpu-prof` (its profile is written to `dir` when it
 * stops), its data kept: it catches up from its peers. LocalNetwork spawns with this
 * process's environment, so the flag goes through NODE_OPTIONS for that one launch.
 */
export async function relaunchProfiled(net: LocalNetwork, index: number, dir: string): Promise<void> {
  await net.kill(index);
  const saved = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${saved ?? ''} --cpu-prof --cpu-prof-dir=${dir}`.trim();
  try {
    await net.launch(index);
  } finally {
    if (saved === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = saved;
  }
}

/** Every numeric leaf of `o` by its dotted path (the counters of /status). */
export function numericLeaves(o: unknown, prefix = '', out: Record<string, number> = {}): Record<string, number> {
  if (typeof o === 'number') out[prefix] = o;
  else if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, v] of Object.entries(o)) numericLeaves(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** The counters validator `index` reports in /status (its p2p transport's and its signature recoveries), whichever its build has. */
async function counters(net: LocalNetwork, index: number): Promise<Record<string, number>> {
  const s = await net.status(index);
  return numericLeaves({ p2p: s.p2p?.stats, signatures: s.signatures });
}

const deltaOf = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]));

/**
 * What validator 2's counters moved per final order of a level, beyond what the level's
 * blocks moved them idle (c's subtraction, on counts): messages, bundles and bytes
 * sent and received, signatures recovered. Counts do not depend on the machine's load.
 */
export interface CounterRun {
  idle: Record<string, number>;
  idleBlocks: number;
  load: Record<string, number>;
  blocks: number;
  ordersFinal: number;
}

export async function benchNetwork(): Promise<Record<string, unknown>> {
  return runNetwork(process.env.BENCH_NODE_BINARY || undefined);
}

/**
 * One run of the network from `binary` (undefined: the source tree through tsx). With
 * `profileDir`, validator 1 is restarted under `--cpu-prof` (its profile is written there
 * when the network stops), left out of B and c, and the windows of the idle level and of
 * each loaded level are returned in `profiled` (the profile's clock).
 */
export async function runNetwork(binary: string | undefined, profileDir?: string): Promise<Record<string, unknown> & { profiled?: ProfiledRun; counted?: CounterRun }> {
  // A validator runs for days; its first seconds are V8 compiling the hot paths (the
  // optimizing compiler took 18% of the CPU 20 s after start, under 2% after 60 s).
  const warmupSeconds = envNumber('BENCH_WARMUP_S', 40);
  const levelSeconds = envNumber('BENCH_LEVEL_S', 15);
  const rates = envList('BENCH_RATES', [500, 1_000, 2_000, 3_000]);
  const shapes = envList('BENCH_SHAPES', [1, 10]);
  const sweepOn = process.env.BENCH_SWEEP !== '0';
  const warmOrders = envNumber('BENCH_WARM_ORDERS', 3_000);
  // The issue's 1.9 of 2 cores: the load process and the system take about 0.1.
  const usableCores = envNumber('BENCH_USABLE_CORES', os.cpus().length - 0.1);
  const bodiesOf = (orders: number, perRequest: number) => (perRequest === 1 ? signedOrderBodies(orders) : signedBatchBodies(orders, perRequest));

  const net = await LocalNetwork.start(6, undefined, { binary });
  try {
    // A generous wait: on a machine shared with other work the six start slowly.
    await net.waitHeight(20, undefined, 180_000);
    if (profileDir) await relaunchProfiled(net, 1, profileDir);
    // Sign every body now, during the warm-up (signing is the traders' cost, not the nodes';
    // 0.5 ms a signature here, a minute for the full run's single orders), in the order
    // they will be sent: nonces rise with signing, and a signer's nonce at or below the
    // least of its 100 highest used is refused (decision 97).
    const warmStart = performance.now();
    const warmSingle = signedOrderBodies(Math.round(warmOrders / 3));
    const warmBatched = signedBatchBodies(warmOrders, 10);
    const plan = rates.flatMap((rate) => shapes.map((perRequest) => ({ rate, perRequest, bodies: bodiesOf(rate * levelSeconds, perRequest) })));
    // Closed loops at rising numbers of requests in flight. Latency at saturation is
    // Little's law (in flight ÷ rate): the sweep shows the rate each level sustains and
    // its latency, and which levels meet the latency targets (p50 ≤ 50 ms, p99 ≤ 150 ms).
    // BENCH_SWEEP_LEVELS=1x384x9000,10x6x4000: orders per request × in flight × orders, in place of these.
    const sweepSpec = process.env.BENCH_SWEEP_LEVELS?.split(',').map((l) => {
      const [perRequest, concurrency, orders] = l.split('x').map(Number);
      return { perRequest, concurrency, orders };
    });
    const sweepLevels = sweepOn
      ? (sweepSpec ?? [
          { perRequest: 1, concurrency: 3, orders: 300 },
          { perRequest: 1, concurrency: 12, orders: 1_200 },
          { perRequest: 1, concurrency: 48, orders: 2_400 },
          { perRequest: 10, concurrency: 3, orders: 2_000 },
          { perRequest: 10, concurrency: 6, orders: 4_000 },
          { perRequest: 10, concurrency: 12, orders: 6_000 },
          { perRequest: 10, concurrency: 48, orders: 12_000 },
        ]).map((l) => ({ ...l, bodies: bodiesOf(l.orders, l.perRequest) }))
      : [];
    const signSeconds = (performance.now() - warmStart) / 1000;
    await sleep(Math.max(0, warmupSeconds * 1000 - (performance.now() - warmStart)));
    const paceMs = ((await (await fetch(`${net.nodes[0].url}/v1/network`)).json()) as { data: { blockTimeMs?: number } }).data.blockTimeMs ?? '?';

    // ---- idle: B
    const idleUs0 = monotonicUs();
    const idleCounters0 = await counters(net, 2);
    const idle = await measureLevel(net, 0, 1, async () => {
      await sleep(levelSeconds * 1000);
      return { ordersOffered: 0, ordersFinal: 0, ordersShed: 0, latenciesMs: [], statuses: {} };
    });
    const idleCounters = deltaOf(idleCounters0, await counters(net, 2));
    let counted: CounterRun | undefined;
    const profiled: ProfiledRun | undefined = profileDir
      ? { dir: profileDir, idleWindowUs: [idleUs0, monotonicUs()], idleBlocks: idle.sample.blockTimestampsMs.length - 1, loadWindows: [] }
      : undefined;

    const pools = net.nodes.map((n) => new Pool(n.url, { connections: 16, pipelining: 4 }));
    // The idle warm-up compiles consensus, not the order paths (REST, admission, matching,
    // indexing): a first, unmeasured pass of each request shape does, as a node that has
    // traded for a while has. Without it the lightest levels, measured first, carried V8's
    // compile time in their tails.
    if (warmOrders > 0) {
      await closedLoop(pools, '/v1/order', warmSingle, 12);
      await closedLoop(pools, '/v1/order/batch', warmBatched, 6);
      await sleep(SETTLE_MS);
    }

    // ---- the loaded levels: open loops at each offered rate and shape (as independent
    // traders send), latency from each request's scheduled time.
    const loads: LevelSample[] = [];
    const answers: Record<string, Record<number, number>> = {};
    for (const { rate, perRequest, bodies } of plan) {
      const requestsPerSec = rate / perRequest;
      const path = perRequest === 1 ? '/v1/order' : '/v1/order/batch';
      const us0 = monotonicUs();
      const counters0 = counted ? undefined : await counters(net, 2);
      const { sample, statuses } = await measureLevel(net, rate, perRequest, async () => {
        let refused = 0;
        const inspect = perRequest > 1 ? countRefused((n) => (refused += n)) : undefined;
        const r = await openLoop(pools, path, bodies, requestsPerSec, inspect, SHED);
        const { ordersFinal, statuses } = tally(r, perRequest, refused);
        return { ordersOffered: bodies.length * perRequest, ordersFinal, ordersShed: r.shed * perRequest, latenciesMs: r.latenciesOk, statuses };
      });
      loads.push(sample);
      answers[`${rate}/s ×${perRequest}`] = statuses;
      if (counters0) counted = { idle: idleCounters, idleBlocks: idle.sample.blockTimestampsMs.length - 1, load: deltaOf(counters0, await counters(net, 2)), blocks: sample.blockTimestampsMs.length - 1, ordersFinal: sample.ordersFinal };
      profiled?.loadWindows.push({ level: `${rate}/s ×${perRequest}`, windowUs: [us0, monotonicUs()], blocks: sample.blockTimestampsMs.length - 1, ordersFinal: sample.ordersFinal });
      await sleep(SETTLE_MS);
    }
    // The profiled validator pays for its profiler: B and c are of the other five.
    const unprofiled = (s: LevelSample): LevelSample => (profileDir ? { ...s, cpuMsByValidator: s.cpuMsByValidator.slice(1) } : s);
    const table = budgetTable(unprofiled(idle.sample), loads.map(unprofiled), usableCores);

    // ---- the closed-loop sweep
    const sweep: { perRequest: number; concurrency: number; orders: number; ordersNotFinal: number; ordersPerSecToFinal: number; latencyMsP50: number; latencyMsP99: number }[] = [];
    for (const level of sweepLevels) {
      let refused = 0;
      const batched = level.perRequest > 1;
      const inspect = batched ? countRefused((n) => (refused += n)) : undefined;
      const r = await closedLoop(pools, batched ? '/v1/order/batch' : '/v1/order', level.bodies, level.concurrency, inspect);
      const { ordersFinal } = tally(r, level.perRequest, refused);
      sweep.push({
        perRequest: level.perRequest,
        concurrency: level.concurrency,
        orders: level.orders,
        ordersNotFinal: level.orders - ordersFinal,
        ordersPerSecToFinal: Math.round(ordersFinal / r.seconds),
        latencyMsP50: +quantile(r.latencies, 0.5).toFixed(1),
        latencyMsP99: +quantile(r.latencies, 0.99).toFixed(1),
      });
    }
    await Promise.all(pools.map((p) => p.close()));
    const rss = net.nodes.map((n) => procStat(n.proc!.pid!));
    const bestOf = (perRequest: number) => {
      const ok = sweep.filter((l) => l.perRequest === perRequest && l.ordersNotFinal === 0 && l.latencyMsP50 <= 50 && l.latencyMsP99 <= 150);
      const b = ok.sort((a, c) => c.ordersPerSecToFinal - a.ordersPerSecToFinal)[0];
      return b ? { concurrency: b.concurrency, ordersPerSecToFinal: b.ordersPerSecToFinal, latencyMsP50: b.latencyMsP50, latencyMsP99: b.latencyMsP99 } : 'none';
    };
    const peakOf = (perRequest: number) => sweep.filter((l) => l.perRequest === perRequest).sort((a, c) => c.ordersPerSecToFinal - a.ordersPerSecToFinal)[0] ?? 'none';
    return {
      budget: `B = ${table.cpuMsPerBlock} ms per block on all ${table.validators}; predicted = B / (${usableCores} − final rate × c) with c summed over the ${table.validators}; pacing floor ${paceMs} ms; ${levelSeconds} s a level:\n${formatBudgetTable(table)}`,
      budgetRows: table.rows,
      budgetAnswers: answers,
      ...(sweepOn
        ? {
            loadSweep: 'closed loops, by orders per request and requests in flight:',
            ...Object.fromEntries(sweep.map((l) => [`  ${l.perRequest === 1 ? 'single' : `batch×${l.perRequest}`} inFlight ${l.concurrency}`, l])),
            bestWithinLatencyTarget: bestOf(1),
            batchedBestWithinLatencyTarget: bestOf(10),
            peak: peakOf(1),
            batchedPeak: peakOf(10),
          }
        : {}),
      nodeRssMiB: rss.map((r) => r.rssMiB),
      nodePeakRssMiB: rss.map((r) => r.peakRssMiB),
      ...(profiled ? { profiled } : {}),
      ...(counted ? { counted } : {}),
      conditions: `6 validator processes (${binary ? `the build ${binary}` : 'the source tree through tsx'})${profileDir ? ', validator 1 under --cpu-prof and left out of B and c' : ''} + this load process on ${os.cpus().length} cores; measured after ${warmupSeconds} s of idle warm-up (all bodies signed in its first ${signSeconds.toFixed(0)} s) and, before the loaded levels, an unmeasured pass of ${Math.round(warmOrders / 3)} single and ${warmOrders} batched orders; open loops shed a request while the oldest unanswered is over ${SHED.afterMs / 1000} s old or more are unanswered than were answered in the last ${SHED.afterMs / 1000} s (at least ${SHED.minInFlight}); ${SETTLE_MS / 1000} s between levels; libp2p TCP loopback; fsync per block and per signed vote; requests spread over the 6 REST ports, answered once final; orders pre-signed; load avg ${os.loadavg()[0].toFixed(1)}`,
    };
  } finally {
    await net.stop();
  }
}
