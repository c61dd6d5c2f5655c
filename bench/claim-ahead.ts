/**
 * The pace of the 6-validator network (six node processes, libp2p over TCP on loopback,
 * LevelDB with fsync each) while validator 4 claims heights far ahead (`--claim-ahead`:
 * a status message 1,000 heights ahead after each of its votes), beside the same network
 * without the fault, measured in the same run: A (validator 4 restarted without flags),
 * B (restarted with --claim-ahead), A again, so a drift of the machine over the run shows
 * as two different baselines. For each window: blocks per second of wall time, the
 * median block interval (proposer timestamps), CPU per block per node, the block syncs
 * the honest validators started and the claims they ignored. Then the ratio of B's pace
 * to the mean of the two baselines.
 *
 * test/node/network.test.ts asserts what the fault must not cause (no sync started,
 * heights keep advancing on every honest validator); how fast is this figure, which
 * depends on the machine and its load.
 * Before measuring: BENCH_WARMUP_S (40) seconds idle; each window lasts BENCH_WINDOW_S (20) s.
 */
import os from 'node:os';
import { procStat, quantile } from './network';
import { LocalNetwork } from '../test/helpers/network';
import { waitFor } from '../test/helpers/devnet';

const HONEST = [1, 2, 3, 5, 6];
const FAULTY = 4;

interface Window {
  fault: 'none' | 'claim-ahead';
  seconds: number;
  blocks: number;
  blocksPerSec: number;
  blockIntervalMsMedian: number;
  cpuMsPerBlockPerNode: number;
  /** Summed over the five honest validators. */
  syncsStarted: number;
  claimsIgnored: number;
}

async function measure(net: LocalNetwork, fault: Window['fault'], windowSeconds: number): Promise<Window> {
  const before = await Promise.all(HONEST.map((i) => net.status(i)));
  const cpu0 = net.nodes.map((n) => procStat(n.proc!.pid!).cpuMs);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowSeconds * 1000));
  const after = await Promise.all(HONEST.map((i) => net.status(i)));
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = net.nodes.reduce((sum, n, i) => sum + procStat(n.proc!.pid!).cpuMs - cpu0[i], 0);
  const [h0, h1] = [before[0].height as number, after[0].height as number];
  const stamps: number[] = [];
  for (let h = h0; h <= h1; h++) stamps.push((await net.block(HONEST[0], h)).timestampMs);
  const intervals = stamps.slice(1).map((t, i) => t - stamps[i]);
  const sum = (f: (s: any) => number) => after.reduce((n, s, k) => n + f(s) - f(before[k]), 0);
  return {
    fault,
    seconds: +seconds.toFixed(1),
    blocks: h1 - h0,
    blocksPerSec: +((h1 - h0) / seconds).toFixed(1),
    blockIntervalMsMedian: intervals.length ? quantile(intervals, 0.5) : NaN,
    cpuMsPerBlockPerNode: +(cpuMs / Math.max(1, h1 - h0) / net.nodes.length).toFixed(2),
    syncsStarted: sum((s) => s.consensus.syncsStarted),
    claimsIgnored: sum((s) => s.consensus.messagesAheadIgnored),
  };
}

/** Restarts validator 4 with `flags` and waits until the chain has moved on with it (and, faulty, until its claims arrive). */
async function restartFaulty(net: LocalNetwork, flags: string[]): Promise<void> {
  await net.kill(FAULTY);
  await net.launch(FAULTY, flags);
  const ignored0 = (await net.status(1)).consensus.messagesAheadIgnored as number;
  await net.waitHeight((await net.height(1)) + 20, undefined, 60_000);
  if (flags.includes('--claim-ahead')) {
    await waitFor(async () => ((await net.status(1)).consensus.messagesAheadIgnored > ignored0 + 20 ? true : undefined), 30_000, 'claims from validator 4');
  }
}

export async function benchClaimAhead(opts: { warmupSeconds?: number; windowSeconds?: number } = {}): Promise<Record<string, unknown>> {
  const warmupSeconds = opts.warmupSeconds ?? Number(process.env.BENCH_WARMUP_S ?? 40);
  const windowSeconds = opts.windowSeconds ?? Number(process.env.BENCH_WINDOW_S ?? 20);
  const net = await LocalNetwork.start(6);
  try {
    await net.waitHeight(20);
    await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
    const windows: Window[] = [];
    for (const flags of [[], ['--claim-ahead'], []]) {
      await restartFaulty(net, flags);
      windows.push(await measure(net, flags.length ? 'claim-ahead' : 'none', windowSeconds));
    }
    const [a1, b, a2] = windows;
    const baseline = (a1.blocksPerSec + a2.blocksPerSec) / 2;
    const cpuBaseline = (a1.cpuMsPerBlockPerNode + a2.cpuMsPerBlockPerNode) / 2;
    return {
      'baseline (validator 4 restarted, no fault)': a1,
      'claim-ahead (validator 4 restarted with --claim-ahead)': b,
      'baseline again (validator 4 restarted, no fault)': a2,
      claimAheadBlocksPerSec: b.blocksPerSec,
      baselineBlocksPerSecMean: +baseline.toFixed(1),
      claimAheadPaceRatio: +(b.blocksPerSec / baseline).toFixed(2),
      claimAheadCpuPerBlockRatio: +(b.cpuMsPerBlockPerNode / cpuBaseline).toFixed(2),
      conditions: `6 validator processes on ${os.cpus().length} cores; ${warmupSeconds} s idle warm-up, then windows of ${windowSeconds} s, each after validator 4 restarted and 20 heights; libp2p TCP loopback; fsync per block and per signed vote; no load; load avg ${os.loadavg()[0].toFixed(1)}`,
    };
  } finally {
    await net.stop();
  }
}
