/** Shared load generation for the REST benches: pre-signed order bodies, and a closed-loop sender. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Pool } from 'undici';
import { batchDigest, placeOrderDigest, restSigningHash } from '../src/signing/exchange-digest';
import { sign } from '../src/crypto/secp256k1';
import { bytesToHex, hexToBytes } from '../src/util/bytes';
import { DEVNET_KEYS, ROOT, tempDir, waitFor } from '../test/helpers/devnet';

/**
 * Order `i` of the bench streams: a limit order on BTC or ETH, up to 50 ticks off a
 * fixed price on its side, except every fourth, which crosses (so matching, settlement
 * and fees run).
 */
export function benchOrder(i: number, symbol: 'ETH' | 'BTC', sell: boolean): { symbol: string; side: string; price: string; amount: string } {
  const base = symbol === 'ETH' ? 2000 : 60000;
  const crossing = i % 4 === 3;
  const offset = (i % 50) + 1;
  const px = crossing ? (sell ? base - 100 : base + 100) : sell ? base + offset : base - offset;
  return { symbol, side: sell ? 'sell' : 'buy', price: String(px), amount: symbol === 'ETH' ? '0.01' : '0.001' };
}

/**
 * The next nonce of this process's bench streams: millisecond timestamps one apart from
 * two hours before the first call, one counter for every stream, so bodies signed by
 * several calls (the network bench signs a stream per level) never share a nonce. Inside
 * the window a timestamp nonce must lie in (block time − 2 days, block time + 1 day;
 * decision 97) for the first 46 hours' worth of orders (165 million).
 */
let nonceNext: bigint | undefined;
function nextNonce(): bigint {
  nonceNext ??= BigInt(Date.now()) - 2n * 3_600_000n;
  return nonceNext++;
}

/**
 * `total` signed POST /v1/order bodies: resting limit orders on both sides of ETH and BTC
 * from 16 accounts, every fourth order crossing (so matching, settlement and fees run),
 * no self-trades. Signing is the trader's cost, not the node's: done before timing.
 */
export function signedOrderBodies(total: number): string[] {
  const accounts = DEVNET_KEYS.accounts.slice(0, 16);
  const bodies: string[] = [];
  for (let i = 0; i < total; i++) {
    const acc = accounts[i % accounts.length];
    const { symbol, side, price, amount } = benchOrder(i, i % 2 ? 'ETH' : 'BTC', (i >> 1) % 2 === 1);
    const o = { symbol, side, type: 'limit', price, amount };
    const n = nextNonce();
    const sig = sign(restSigningHash(placeOrderDigest({ ...o, nonce: n })), hexToBytes(acc.privateKey));
    bodies.push(JSON.stringify({ ...o, trader: acc.address, nonce: n.toString(), signature: bytesToHex(sig) }));
  }
  return bodies;
}

/**
 * The same order stream as `signedOrderBodies`, `perBatch` orders to a signed
 * POST /v1/order/batch body (one signature and one request per batch, as a market
 * maker quotes). Returns the bodies; each carries `perBatch` orders.
 */
export function signedBatchBodies(totalOrders: number, perBatch: number): string[] {
  const accounts = DEVNET_KEYS.accounts.slice(0, 16);
  const bodies: string[] = [];
  for (let b = 0; b * perBatch < totalOrders; b++) {
    const acc = accounts[b % accounts.length];
    const orders: { symbol: string; side: string; price: string; amount: string }[] = [];
    // One account per batch: alternate sides across batches so crossing batches meet other accounts.
    for (let j = 0; j < perBatch; j++) orders.push(benchOrder(b * perBatch + j, j % 2 ? 'ETH' : 'BTC', b % 2 === 1));
    const n = nextNonce();
    const sig = sign(restSigningHash(batchDigest(orders, n)), hexToBytes(acc.privateKey));
    bodies.push(JSON.stringify({ orders, trader: acc.address, nonce: n.toString(), signature: bytesToHex(sig) }));
  }
  return bodies;
}

export interface LoadResult {
  seconds: number;
  /** Submit-to-answer latency of each request, ms. */
  latencies: number[];
  /** The same, of the requests answered 200 only (a refusal answers fast and says nothing of finality). */
  latenciesOk: number[];
  statuses: Map<number, number>;
  /** Requests an open loop did not send because the network had fallen behind (its `shed` option). */
  shed: number;
}

const emptyResult = (): LoadResult => ({ seconds: 0, latencies: [], latenciesOk: [], statuses: new Map(), shed: 0 });

/** One POST; its latency counted from `since` and its status tallied into `into`. */
async function post(pool: Pool, path: string, body: string, since: number, into: LoadResult, inspect?: (status: number, body: string) => void): Promise<void> {
  const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body });
  if (inspect) inspect(res.statusCode, await res.body.text());
  else await res.body.arrayBuffer();
  const ms = performance.now() - since;
  into.latencies.push(ms);
  if (res.statusCode === 200) into.latenciesOk.push(ms);
  into.statuses.set(res.statusCode, (into.statuses.get(res.statusCode) ?? 0) + 1);
}

/** Sends every body as a POST to `path` with `concurrency` requests in flight, spread over `pools`. */
export async function closedLoop(pools: Pool[], path: string, bodies: string[], concurrency: number, inspect?: (status: number, body: string) => void): Promise<LoadResult> {
  const result = emptyResult();
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      const pool = pools[w % pools.length];
      while (next < bodies.length) await post(pool, path, bodies[next++], performance.now(), result, inspect);
    }),
  );
  result.seconds = (performance.now() - start) / 1000;
  return result;
}

/**
 * Sends the bodies as POSTs to `path` at a fixed rate (requests per second), round robin
 * over `pools`, whatever the answers do: an open loop, as independent traders load an
 * exchange. Each latency counts from the request's scheduled time, so a request that
 * waited behind slow ones in the client counts that wait too (no coordinated omission).
 * `seconds` runs from the first scheduled send to the last answer.
 *
 * With `shed`, a request is not sent (counted in `shed`) while the oldest unanswered one
 * has waited over `afterMs`, or while more are unanswered than were answered in the last
 * `afterMs` (at least `minInFlight`): past the network's capacity, about `afterMs` of
 * work waits, so the latency of what is sent and the level's length stay bounded
 * instead of growing for as long as the level runs. Below capacity nothing is shed.
 */
export async function openLoop(
  pools: Pool[],
  path: string,
  bodies: string[],
  requestsPerSec: number,
  inspect?: (status: number, body: string) => void,
  shed?: { afterMs: number; minInFlight: number },
): Promise<LoadResult> {
  const result = emptyResult();
  const intervalMs = 1000 / requestsPerSec;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  // Due times of the requests sent, in sending order, and which are answered (the oldest
  // unanswered is the first not answered: the cursor only moves forward); answer times,
  // in order, for the count of the last `afterMs`.
  const sentDue: number[] = [];
  const answered: boolean[] = [];
  const answerTimes: number[] = [];
  let oldest = 0;
  let recent = 0;
  for (let i = 0; i < bodies.length; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (shed) {
      const now = performance.now();
      while (oldest < sentDue.length && answered[oldest]) oldest++;
      while (recent < answerTimes.length && answerTimes[recent] < now - shed.afterMs) recent++;
      const unanswered = sentDue.length - answerTimes.length;
      const stale = oldest < sentDue.length && now - sentDue[oldest] > shed.afterMs;
      if (stale || unanswered >= Math.max(shed.minInFlight, answerTimes.length - recent)) {
        result.shed++;
        continue;
      }
    }
    const k = sentDue.push(due) - 1;
    answered.push(false);
    inFlight.push(
      post(pools[i % pools.length], path, bodies[i], due, result, inspect).finally(() => {
        answered[k] = true;
        answerTimes.push(performance.now());
      }),
    );
  }
  await Promise.all(inFlight);
  result.seconds = (performance.now() - start) / 1000;
  return result;
}

/**
 * A single-validator devnet node as its own process (as in production), on a random
 * port and a temporary folder. BENCH_NODE_PROFILE=<dir> CPU-profiles it; BENCH_NODE_FLAGS
 * adds flags. `stop()` ends it and removes the folder.
 */
export async function singleNode(prefix: string): Promise<{ proc: ChildProcess; base: string; port: number; stop(): Promise<void> }> {
  const dir = tempDir(prefix);
  const port = 30000 + Math.floor(Math.random() * 10000);
  const profile = process.env.BENCH_NODE_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_NODE_PROFILE}`] : [];
  const extra = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const args = [...profile, '--max-semi-space-size=64', '--import', 'tsx', 'src/cli/main.ts', 'start', '--validators', '1', '--data-dir', dir.path, '--port', String(port), '--session-port', '0', '--log-level', 'error', '--no-rate-limit', ...extra];
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  const stop = async () => {
    if (proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    dir.remove();
  };
  try {
    await waitFor(() => out.includes('READY') || undefined, 30_000, 'node ready');
  } catch (err) {
    await stop();
    throw err;
  }
  return { proc, base: `http://127.0.0.1:${port}`, port, stop };
}
