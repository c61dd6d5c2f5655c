/**
 * Signed orders per second through REST to final on a single node, with submit-to-final
 * latency p50/p99. The node runs as its own process (as in production); this process
 * only sends pre-signed orders (signing is the trader's cost, not the node's).
 * Stream: resting limit orders on both sides of ETH and BTC from 16 accounts, every
 * fourth order crossing (so matching, settlement and fees run), no self-trades.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Pool } from 'undici';
import { closedLoop, signedOrderBodies, singleNode } from './load';

interface Opts {
  orders?: number;
  concurrency?: number;
}

export async function benchRestOrders(opts: Opts = {}): Promise<Record<string, unknown>> {
  const total = opts.orders ?? 6000;
  const concurrency = opts.concurrency ?? 256;
  const { proc, port, stop } = await singleNode('bench-rest-');
  try {
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32, pipelining: 8 });
    const bodies = signedOrderBodies(total);
    /** The node's CPU time (user + system, all threads) from /proc, in ms. */
    const cpuMs = () => {
      const f = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks, USER_HZ = 100
    };
    const cpuBefore = cpuMs();
    const loadCpuBefore = process.cpuUsage();
    const { seconds: secs, latencies, statuses } = await closedLoop([pool], '/v1/order', bodies, concurrency);
    const failed = bodies.length - (statuses.get(200) ?? 0);
    const nodeCpuMs = cpuMs() - cpuBefore;
    const loadCpu = process.cpuUsage(loadCpuBefore);
    await pool.close();
    latencies.sort((a, b) => a - b);
    const q = (p: number) => +latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(1);
    const status = await (await fetch(`http://127.0.0.1:${port}/status`)).json();
    const rssMiB = Number(
      readFileSync(`/proc/${proc.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? 0,
    ) / 1024;
    return {
      orders: total,
      concurrency,
      ordersPerSecToFinal: Math.round(total / secs),
      // Load-independent: the node's own CPU per order (all its threads), and what one core of it would sustain.
      nodeCpuMsPerOrder: +(nodeCpuMs / total).toFixed(3),
      ordersPerNodeCpuSecond: Math.round(total / (nodeCpuMs / 1000)),
      // Share of one core each process used during the run: near 100% means that process was the limit.
      nodeCpuPctOfCore: Math.round((nodeCpuMs / 1000 / secs) * 100),
      loadGeneratorCpuPctOfCore: Math.round(((loadCpu.user + loadCpu.system) / 1e6 / secs) * 100),
      latencyMsP50: q(0.5),
      latencyMsP99: q(0.99),
      non200: failed,
      statuses: Object.fromEntries(statuses),
      blocks: (status as any).data.height,
      nodePeakRssMiB: Math.round(rssMiB),
      conditions: `node process + load process (undici Pool, 32 connections × 8 pipelined) on ${os.cpus().length} cores; fsync per block; orders pre-signed; load avg ${os.loadavg()[0].toFixed(1)}`,
    };
  } finally {
    await stop();
  }
}
