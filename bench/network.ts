/**
 * The 6-validator network on this machine: six node processes (libp2p over TCP on
 * loopback, LevelDB with fsync each), as `npm start` runs them.
 *  - idle: block interval (proposer timestamps of consecutive blocks) median and p99,
 *    and blocks per second of wall time;
 *  - load: pre-signed limit orders through REST spread over the six nodes, each answered
 *    only once its block is final: orders/s sustained and submit-to-final p50/p99 with
 *    many requests in flight (throughput), then with one per node (latency);
 *  - each node's RSS and CPU share.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Pool } from 'undici';
import { closedLoop, signedOrderBodies } from './load';
import { LocalNetwork } from '../test/helpers/network';

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};

function procStat(pid: number): { cpuMs: number; rssMiB: number; peakRssMiB: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (k: string) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0);
  return { cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / 100, rssMiB: Math.round(kib('VmRSS') / 1024), peakRssMiB: Math.round(kib('VmHWM') / 1024) };
}

export async function benchNetwork(opts: { idleSeconds?: number; warmupSeconds?: number; orders?: number; concurrency?: number } = {}): Promise<Record<string, unknown>> {
  const idleSeconds = opts.idleSeconds ?? 20;
  // A validator runs for days; its first seconds are V8 compiling the hot paths (the
  // optimizing compiler took 18% of the CPU 20 s after start, under 2% after 60 s).
  const warmupSeconds = opts.warmupSeconds ?? Number(process.env.BENCH_WARMUP_S ?? 40);
  const total = opts.orders ?? 9_000;
  const concurrency = opts.concurrency ?? 384;
  const lightOrders = 600;
  const lightConcurrency = 6;
  const net = await LocalNetwork.start(6);
  try {
    await net.waitHeight(20);
    await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
    // ---- idle
    const h0 = await net.height(1);
    const t0 = performance.now();
    const cpu0 = net.nodes.map((n) => procStat(n.proc!.pid!).cpuMs);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const h1 = await net.height(1);
    const idleWall = (performance.now() - t0) / 1000;
    const idleCpuPct = net.nodes.map((n, i) => Math.round(((procStat(n.proc!.pid!).cpuMs - cpu0[i]) / 1000 / idleWall) * 100));
    const stamps: number[] = [];
    for (let h = h0; h <= h1; h++) stamps.push((await net.block(1, h)).timestampMs);
    const intervals = stamps.slice(1).map((t, i) => t - stamps[i]);

    // ---- load
    const bodies = signedOrderBodies(total);
    const pools = net.nodes.map((n) => new Pool(n.url, { connections: 16, pipelining: 4 }));
    const hStart = await net.height(1);
    const cpu1 = net.nodes.map((n) => procStat(n.proc!.pid!).cpuMs);
    const { seconds: loadWall, latencies, statuses } = await closedLoop(pools, '/v1/order', bodies, concurrency);
    const hEnd = await net.height(1);
    const loadCpuPct = net.nodes.map((n, i) => Math.round(((procStat(n.proc!.pid!).cpuMs - cpu1[i]) / 1000 / loadWall) * 100));
    // Light load: few requests in flight, so latency is the pipeline's, not the queue's.
    const light = await closedLoop(pools, '/v1/order', signedOrderBodies(lightOrders), lightConcurrency);
    await Promise.all(pools.map((p) => p.close()));
    const final = statuses.get(200) ?? 0;
    const rss = net.nodes.map((n) => procStat(n.proc!.pid!));
    return {
      idleBlocks: h1 - h0,
      idleBlocksPerSec: +((h1 - h0) / idleWall).toFixed(1),
      idleBlockIntervalMsMedian: quantile(intervals, 0.5),
      idleBlockIntervalMsP99: quantile(intervals, 0.99),
      idleNodeCpuPctOfCore: idleCpuPct,
      orders: total,
      ordersFinal200: final,
      statuses: Object.fromEntries(statuses),
      ordersPerSecToFinal: Math.round(final / loadWall),
      latencyMsP50: +quantile(latencies, 0.5).toFixed(1),
      latencyMsP99: +quantile(latencies, 0.99).toFixed(1),
      blocksDuringLoad: hEnd - hStart,
      lightLoad: {
        orders: lightOrders,
        concurrency: lightConcurrency,
        ordersPerSecToFinal: Math.round((light.statuses.get(200) ?? 0) / light.seconds),
        latencyMsP50: +quantile(light.latencies, 0.5).toFixed(1),
        latencyMsP99: +quantile(light.latencies, 0.99).toFixed(1),
        non200: lightOrders - (light.statuses.get(200) ?? 0),
      },
      loadNodeCpuPctOfCore: loadCpuPct,
      nodeRssMiB: rss.map((r) => r.rssMiB),
      nodePeakRssMiB: rss.map((r) => r.peakRssMiB),
      conditions: `6 validator processes + this load process on ${os.cpus().length} cores; measured after ${warmupSeconds} s of warm-up; libp2p TCP loopback; fsync per block and per signed vote; ${concurrency} concurrent requests spread over the 6 REST ports; orders pre-signed; load avg ${os.loadavg()[0].toFixed(1)}`,
    };
  } finally {
    await net.stop();
  }
}
