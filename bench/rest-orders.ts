/**
 * Signed orders per second through REST to final on a single node, with submit-to-final
 * latency p50/p99. The node runs as its own process (as in production); this process
 * only sends pre-signed orders (signing is the trader's cost, not the node's).
 * Stream: resting limit orders on both sides of ETH and BTC from 16 accounts, every
 * fourth order crossing (so matching, settlement and fees run), no self-trades.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Pool } from 'undici';
import { placeOrderDigest, restSigningHash } from '../src/crypto/exchange-digest';
import { sign } from '../src/crypto/secp256k1';
import { bytesToHex, hexToBytes } from '../src/util/bytes';
import { DEVNET_KEYS, ROOT, tempDir, waitFor } from '../test/helpers/devnet';

interface Opts {
  orders?: number;
  concurrency?: number;
}

export async function benchRestOrders(opts: Opts = {}): Promise<Record<string, unknown>> {
  const total = opts.orders ?? 6000;
  const concurrency = opts.concurrency ?? 256;
  const dir = tempDir('bench-rest-');
  const port = 30000 + Math.floor(Math.random() * 10000);
  const profile = process.env.BENCH_NODE_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_NODE_PROFILE}`] : [];
  const proc = spawn(process.execPath, [...profile, '--max-semi-space-size=64', '--import', 'tsx', 'src/cli/main.ts', 'start', '--validators', '1', '--data-dir', dir.path, '--port', String(port), '--session-port', '0', '--log-level', 'error', ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  try {
    await waitFor(() => out.includes('READY') || undefined, 30_000, 'node ready');
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32, pipelining: 8 });
    const accounts = DEVNET_KEYS.accounts.slice(0, 16);
    let nonce = BigInt(Date.now()) * 1000n;
    const bodies: string[] = [];
    for (let i = 0; i < total; i++) {
      const acc = accounts[i % accounts.length];
      const symbol = i % 2 ? 'ETH' : 'BTC';
      const base = symbol === 'ETH' ? 2000 : 60000;
      const sell = (i >> 1) % 2 === 1;
      const crossing = i % 4 === 3;
      const offset = (i % 50) + 1;
      const px = crossing ? (sell ? base - 100 : base + 100) : sell ? base + offset : base - offset;
      const o = { symbol, side: sell ? 'sell' : 'buy', type: 'limit', price: String(px), amount: symbol === 'ETH' ? '0.01' : '0.001' };
      const n = nonce++;
      const sig = sign(restSigningHash(placeOrderDigest({ ...o, nonce: n })), hexToBytes(acc.privateKey));
      bodies.push(JSON.stringify({ ...o, trader: acc.address, nonce: n.toString(), signature: bytesToHex(sig) }));
    }
    /** The node's CPU time (user + system, all threads) from /proc, in ms. */
    const cpuMs = () => {
      const f = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks, USER_HZ = 100
    };
    const cpuBefore = cpuMs();
    const loadCpuBefore = process.cpuUsage();
    const latencies: number[] = [];
    let next = 0;
    let failed = 0;
    const statuses = new Map<number, number>();
    const start = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const t = performance.now();
          const res = await pool.request({ method: 'POST', path: '/v1/order', headers: { 'content-type': 'application/json' }, body });
          await res.body.arrayBuffer();
          latencies.push(performance.now() - t);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          if (res.statusCode !== 200) failed++;
        }
      }),
    );
    const secs = (performance.now() - start) / 1000;
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
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    dir.remove();
  }
}
