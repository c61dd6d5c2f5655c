/**
 * `npm run bench -- snapshot` (issue 27 deliver 3, decision 136): writing a state snapshot
 * never stalls block production. A real Chain on LevelDB (fsync on) with a large state
 * (BENCH_SNAPSHOT_ACCOUNTS funded accounts at genesis, default 200,000, plus the
 * genesis records) commits blocks at a steady pace (one every BENCH_SNAPSHOT_PACE_MS,
 * default 50 ms, each with 10 signed faucet credits: test/helpers/signed-chain.ts), first
 * BENCH_SNAPSHOT_BLOCKS blocks (default 300) with no snapshot, then as many with a
 * snapshot started every BENCH_SNAPSHOT_EVERY blocks (default 100) through the node's own
 * SnapshotStore, taken right after the commit as the chain actor takes it.
 *
 * Per block: the commit latency (build, apply and the fsynced write of one block: what a
 * snapshot's CPU slices could delay) and the interval between consecutive commits (the
 * pace plus any lateness of the timer, which is what a stalled event loop shows). Both
 * printed as p50/p99/max for the blocks of the first run (baseline) and for the blocks
 * committed while a snapshot was being written, with the snapshot's wall time, the CPU
 * the process spent meanwhile and the main thread's share of it (the writer's work runs
 * in a worker thread, decision 137), its size and chunks; also the event loop's delay
 * and the main thread's garbage collections in both runs. Wall times on this shared machine
 * are noisy: read the two columns side by side, from the same run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { join } from 'node:path';
import type { Address } from '../src/util/bytes';
import { SnapshotStore, type SnapshotInfo } from '../src/storage/snapshot-store';
import { tempDir } from '../test/helpers/devnet';
import { buildSignedChain } from '../test/helpers/signed-chain';

const ACCOUNTS = Number(process.env.BENCH_SNAPSHOT_ACCOUNTS ?? 200_000);
const PACE_MS = Number(process.env.BENCH_SNAPSHOT_PACE_MS ?? 50);
const BLOCKS = Number(process.env.BENCH_SNAPSHOT_BLOCKS ?? 300);
const EVERY = Number(process.env.BENCH_SNAPSHOT_EVERY ?? 100);
const WARMUP_BLOCKS = 20;
const LOOP_TICK_MS = 5;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function summary(xs: number[]): string {
  return `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} blocks)`;
}

/** CPU seconds the main thread (not the worker threads) has used: /proc/self/task/<pid>/stat, utime + stime at 100 ticks a second. */
function mainThreadCpuS(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const s = statSync(join(dir, name));
    n += s.isDirectory() ? dirBytes(join(dir, name)) : s.size;
  }
  return n;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function benchSnapshot(): Promise<Record<string, unknown>> {
  const tmp = tempDir('bench-snapshot-');
  try {
    const snaps = await SnapshotStore.open({ dir: join(tmp.path, 'snapshots'), intervalBlocks: 1, keep: 2 });
    const base = { latency: [] as number[], interval: [] as number[] };
    const during = { latency: [] as number[], interval: [] as number[] };
    const writes: { height: number; ms: number; cpuMs: number; mainCpuMs: number; blocks: number; info: SnapshotInfo | undefined }[] = [];
    let blocksDuring = 0;
    let inFlight: Promise<unknown> | undefined;
    // The event loop's delay (what the main thread's long stretches of work and its
    // collections show): how late a 5 ms timer fires, per run. (monitorEventLoopDelay
    // was used first: enabled again after a pause, its first sample spans the pause.)
    const loopBase: number[] = [];
    const loopDuring: number[] = [];
    let loopInto: number[] | undefined;
    let tickAt = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      loopInto?.push(Math.max(0, now - tickAt - LOOP_TICK_MS));
      tickAt = now;
    }, LOOP_TICK_MS);
    // The main thread's garbage collections, per run (a worker's heap is its own: not seen here).
    const gcBase: { ms: number; major: boolean }[] = [];
    const gcDuring: { ms: number; major: boolean }[] = [];
    let gcInto: { ms: number; major: boolean }[] | undefined;
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) gcInto?.push({ ms: e.duration, major: e.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR });
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    let lastEnd = 0;
    let baseCpuFrom = 0;
    let baseCpuS = 0;
    let slotStart = 0;
    const t0 = performance.now();
    const built = await buildSignedChain({
      dataDir: join(tmp.path, 'chain'),
      blocks: 2 * BLOCKS,
      validators: 6,
      syncWrites: true,
      recipients: 5_000,
      genesisOf: (g) => ({
        ...g,
        accounts: [
          ...g.accounts,
          ...Array.from({ length: ACCOUNTS }, (_, i) => ({ address: `0x${(0xa0000000 + i).toString(16).padStart(40, '0')}` as Address, usdc: 1_000_000n, nativeWei: 10n ** 15n })),
        ],
      }),
      afterCommit: async (block, _result, chain) => {
        const h = block.header.height;
        const now = performance.now();
        if (h === 1) console.log(`  genesis of ${ACCOUNTS} accounts made and block 1 committed in ${((now - t0) / 1000).toFixed(1)} s`);
        if (h > WARMUP_BLOCKS && h !== BLOCKS + 1) {
          const into = h <= BLOCKS ? base : inFlight ? during : undefined;
          if (into === during) blocksDuring++;
          into?.latency.push(now - slotStart);
          into?.interval.push(now - lastEnd);
        }
        lastEnd = now;
        if (h === WARMUP_BLOCKS) baseCpuFrom = mainThreadCpuS();
        if (h === BLOCKS) baseCpuS = mainThreadCpuS() - baseCpuFrom;
        const counted = h > WARMUP_BLOCKS && (h <= BLOCKS || inFlight);
        loopInto = counted ? (h <= BLOCKS ? loopBase : loopDuring) : undefined;
        gcInto = counted ? (h <= BLOCKS ? gcBase : gcDuring) : undefined;
        // The second run: a snapshot every EVERY blocks, taken here as the chain actor takes it.
        if (h > BLOCKS && (h - BLOCKS) % EVERY === 0 && !inFlight) {
          const cpu = process.cpuUsage();
          const mainCpu = mainThreadCpuS();
          const started = performance.now();
          blocksDuring = 0;
          loopInto = loopDuring;
          gcInto = gcDuring;
          inFlight = snaps.afterCommit(chain.store, h)!.then((info) => {
            const c = process.cpuUsage(cpu);
            writes.push({ height: h, ms: performance.now() - started, cpuMs: (c.user + c.system) / 1000, mainCpuMs: (mainThreadCpuS() - mainCpu) * 1000, blocks: blocksDuring, info });
            inFlight = undefined;
          });
        }
        // The steady pace: the next block starts at the next slot.
        await sleep(Math.max(0, PACE_MS - (performance.now() - slotStart)));
        slotStart = performance.now();
      },
    });
    await inFlight;
    clearInterval(ticker);
    gcObserver.disconnect();
    const loop = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} samples)`;
    const gcs = (xs: { ms: number; major: boolean }[]) => {
      const major = xs.filter((x) => x.major);
      const minor = xs.filter((x) => !x.major);
      const max = (ys: { ms: number }[]) => (ys.length ? Math.max(...ys.map((y) => y.ms)).toFixed(1) : '0');
      return `${major.length} full (longest ${max(major)} ms), ${minor.length} other (longest ${max(minor)} ms)`;
    };
    const records = await (async () => {
      let n = 0;
      for await (const _ of built.chain.store.stateRecords()) n++;
      return n;
    })();
    await built.chain.close();
    const last = writes.at(-1)?.info;
    return {
      'conditions': `${records} state records at the end, a block every ${PACE_MS} ms with 10 faucet credits, fsync on; ${BLOCKS} blocks without snapshots, then ${BLOCKS} with one every ${EVERY} (the first ${WARMUP_BLOCKS} blocks not counted)`,
      'commit latency, no snapshot': summary(base.latency),
      'commit latency, while a snapshot is written': summary(during.latency),
      'block interval, no snapshot': summary(base.interval),
      'block interval, while a snapshot is written': summary(during.interval),
      'event-loop delay, no snapshot': loop(loopBase),
      'event-loop delay, while a snapshot is written': loop(loopDuring),
      'main-thread collections, no snapshot': gcs(gcBase),
      'main-thread collections, while a snapshot is written': gcs(gcDuring),
      'main-thread CPU per block, no snapshot': `${((baseCpuS * 1000) / (BLOCKS - WARMUP_BLOCKS)).toFixed(1)} ms`,
      'snapshots written': writes
        .map(
          (w) =>
            `height ${w.height}: ${(w.ms / 1000).toFixed(2)} s wall, ${(w.cpuMs / 1000).toFixed(2)} s process CPU meanwhile, of which the main thread's ${(w.mainCpuMs / 1000).toFixed(2)} s ` +
            `(its ${w.blocks} blocks at the rate of the run without snapshots: ${((w.blocks * baseCpuS) / (BLOCKS - WARMUP_BLOCKS)).toFixed(2)} s)`,
        )
        .join('; '),
      'snapshot size': last ? `${(last.bytes / 2 ** 20).toFixed(1)} MiB in ${last.chunks} chunks (${(last.bytes / records).toFixed(0)} bytes a record); the snapshots folder holds ${(dirBytes(join(tmp.path, 'snapshots')) / 2 ** 20).toFixed(1)} MiB (${snaps.list().length} kept)` : 'none written',
      'chain store (LevelDB folder)': `${(dirBytes(join(tmp.path, 'chain')) / 2 ** 20).toFixed(1)} MiB`,
    };
  } finally {
    tmp.remove();
  }
}
