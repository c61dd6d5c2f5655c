/**
 * `npm run bench -- idle` (issue 25): what an idle block costs each validator. Starts the
 * 6-validator devnet as six node processes (LocalNetwork: libp2p over TCP on loopback,
 * LevelDB with fsync), waits a warm-up, then over a window reads each process's CPU time
 * (/proc/<pid>/stat, all threads) and the blocks made, and prints the CPU per block per
 * validator (median and max over the six), blocks/s, and the cores the whole network
 * used. The goal is ≤ 1.5 ms per block per validator (under 0.4 of a core for the six
 * at about 45 blocks/s). One validator's CPU per block is also split by thread (the main
 * thread, V8's helpers, libuv's pool), user and system time apart (issue 38's budget).
 *
 * Environment:
 *  - BENCH_IDLE_WARMUP_S (40): idle seconds before the window (V8 compiles the hot paths
 *    in the first tens of seconds; see the network bench);
 *  - BENCH_IDLE_WINDOW_S (30): the measured window;
 *  - BENCH_IDLE_BINARY=FILE: run the six from a build of the node (`npm run build -- --out
 *    FILE`) instead of the source tree through tsx: the processes `npm start` runs, and a
 *    start that does not time out on a busy machine;
 *  - BENCH_IDLE_PROFILE=DIR: validator 1 is restarted after start with `--cpu-prof
 *    --cpu-prof-dir=DIR`; its profile is written when it stops, and the window's start
 *    and end (CLOCK_MONOTONIC µs, the clock of the profile's timestamps) are printed so
 *    the profile can be cut to the window (scripts/idle-profile.ts). The profiled
 *    validator is left out of the median and max (the profiler costs CPU) and printed apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { LocalNetwork } from '../test/helpers/network';
import { procStat, quantile, relaunchProfiled } from './network';

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** This process's child processes (Linux /proc). */
function childPids(): number[] {
  const pids: number[] = [];
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    for (const p of readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (p) pids.push(Number(p));
  }
  return pids;
}

/**
 * Six processes compiling the source tree (tsx) at once on a machine shared with other
 * work can take longer than LocalNetwork's 60 s to say READY: try again (a fresh network) up to
 * three times.
 */
async function startNetwork(): Promise<LocalNetwork> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await LocalNetwork.start(6, undefined, process.env.BENCH_IDLE_BINARY ? { binary: process.env.BENCH_IDLE_BINARY } : {});
    } catch (err) {
      // The processes of the failed start are this process's children: end them, by id.
      for (const pid of childPids()) process.kill(pid, 'SIGKILL');
      if (attempt >= 3) throw err;
      console.log(`start attempt ${attempt} failed (${(err as Error).message}); trying again`);
    }
  }
}

/**
 * One process's CPU ticks by thread kind, user and system apart (/proc/<pid>/task/*\/stat):
 * the main thread (the event loop: JavaScript, socket syscalls), V8's helper threads
 * (concurrent marking, compilation: named "node" or "V8 …"), libuv's pool (fsync, LevelDB's
 * writes, the privval flush), the rest.
 */
function threadTicks(pid: number): Record<string, { user: number; system: number }> {
  const out: Record<string, { user: number; system: number }> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let raw: string;
    try {
      raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
    const kind = tid === String(pid) ? 'main' : name.startsWith('libuv') ? 'libuv pool' : name === 'node' || name.startsWith('V8') ? 'V8 helpers' : 'other';
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    const t = (out[kind] ??= { user: 0, system: 0 });
    t.user += Number(f[11]);
    t.system += Number(f[12]);
  }
  return out;
}

/** ms per block of each thread kind, user and system, between two threadTicks readings (10 ms ticks). */
function threadMsPerBlock(a: ReturnType<typeof threadTicks>, b: ReturnType<typeof threadTicks>, blocks: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [kind, t] of Object.entries(b)) {
    const o = a[kind] ?? { user: 0, system: 0 };
    out[kind] = `user ${(((t.user - o.user) * 10) / blocks).toFixed(2)}, system ${(((t.system - o.system) * 10) / blocks).toFixed(2)}`;
  }
  return out;
}

type Status = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The /status counters of one validator over the window, per height (issue 25 round two):
 * bundles and items sent and received, consensus messages received by lane, what the
 * core counted of them, and the copies the p2p actor did not send (decision 117).
 */
function messagesPerHeight(s0: Status, s1: Status, heights: number): Record<string, number> {
  const per = (a: number | undefined, b: number | undefined) => +(((b ?? 0) - (a ?? 0)) / heights).toFixed(2);
  const b0 = s0.p2p?.stats?.bundles ?? {};
  const b1 = s1.p2p?.stats?.bundles ?? {};
  const c0 = s0.consensus?.counters ?? {};
  const c1 = s1.consensus?.counters ?? {};
  const l0 = s0.consensus?.lanes ?? {};
  const l1 = s1.consensus?.lanes ?? {};
  const out: Record<string, number> = {
    bundlesSent: per(b0.bundlesSent, b1.bundlesSent),
    itemsSent: per(b0.itemsSent, b1.itemsSent),
    bundlesReceived: per(b0.bundlesReceived, b1.bundlesReceived),
    consensusReceived: per(b0.consensusReceived, b1.consensusReceived),
    resendsSuppressed: per(b0.resendsSuppressed, b1.resendsSuppressed),
  };
  for (const lane of ['proposal', 'vote', 'status', 'certificate']) out[`${lane}Received`] = per(l0[lane]?.enqueued, l1[lane]?.enqueued);
  for (const c of ['votesAdded', 'votesLate', 'votesDuplicate', 'proposalsAccepted', 'proposalsDuplicate', 'staleDropped', 'certificatesSent']) out[c] = per(c0[c], c1[c]);
  return out;
}

export async function benchIdle(): Promise<Record<string, unknown>> {
  const warmupSeconds = Number(process.env.BENCH_IDLE_WARMUP_S ?? 40);
  const windowSeconds = Number(process.env.BENCH_IDLE_WINDOW_S ?? 30);
  const profileDir = process.env.BENCH_IDLE_PROFILE;
  const net = await startNetwork();
  try {
    if (profileDir) await relaunchProfiled(net, 1, profileDir);
    await net.waitHeight(20);
    await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
    const via = profileDir ? 2 : 1;
    const status0 = await net.status(via);
    const h0 = status0.height as number;
    const t0 = performance.now();
    const windowStartUs = monotonicUs();
    const cpu0 = net.nodes.map((n) => procStat(n.proc!.pid!).cpuMs);
    const threads0 = threadTicks(net.nodes[via - 1].proc!.pid!);
    await new Promise((r) => setTimeout(r, windowSeconds * 1000));
    const cpu1 = net.nodes.map((n) => procStat(n.proc!.pid!).cpuMs);
    const threads1 = threadTicks(net.nodes[via - 1].proc!.pid!);
    const windowEndUs = monotonicUs();
    const wallS = (performance.now() - t0) / 1000;
    const status1 = await net.status(via);
    const h1 = status1.height as number;
    const blocks = Math.max(1, h1 - h0);
    const cpuMs = cpu1.map((c, i) => c - cpu0[i]);
    const perBlock = cpuMs.map((ms) => +(ms / blocks).toFixed(2));
    const measured = profileDir ? perBlock.slice(1) : perBlock;
    const rss = net.nodes.map((n) => procStat(n.proc!.pid!).rssMiB);
    return {
      blocks,
      windowSeconds: +wallS.toFixed(1),
      blocksPerSec: +(blocks / wallS).toFixed(1),
      cpuMsPerBlockPerValidator: perBlock,
      cpuMsPerBlockPerValidatorMedian: +quantile(measured, 0.5).toFixed(2),
      cpuMsPerBlockPerValidatorMax: Math.max(...measured),
      networkCoresUsed: +(cpuMs.reduce((a, b) => a + b, 0) / 1000 / wallS).toFixed(2),
      ...(profileDir ? { profiledValidator: 1, profileDir, profileWindowUs: [windowStartUs, windowEndUs], profiledHeights: [h0, h1] } : {}),
      [`threadsMsPerBlockOfValidator${via}`]: threadMsPerBlock(threads0, threads1, blocks),
      messagesPerHeight: messagesPerHeight(status0, status1, blocks),
      statusP2pStats: { before: status0.p2p?.stats, after: status1.p2p?.stats },
      statusConsensus: { before: status0.consensus, after: status1.consensus },
      nodeRssMiB: rss,
      conditions: `6 validator processes (${process.env.BENCH_IDLE_BINARY ? 'compiled build' : 'tsx'}) on ${os.cpus().length} cores shared with other work; ${warmupSeconds} s idle warm-up, then a ${windowSeconds} s window; CPU of all threads from /proc/<pid>/stat (10 ms ticks); libp2p TCP loopback; fsync per block and per signed vote${profileDir ? '; validator 1 under --cpu-prof, left out of median and max' : ''}; load avg ${os.loadavg()[0].toFixed(1)}`,
    };
  } finally {
    await net.stop();
  }
}
