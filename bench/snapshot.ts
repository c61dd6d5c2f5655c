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
 * the process spent meanwhile, its size and chunks. Wall times on this shared machine
 * are noisy: read the two columns side by side, from the same run.
 */
import { readdirSync, statSync } from 'node:fs';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
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

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function summary(xs: number[]): string {
  return `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} blocks)`;
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
    const writes: { height: number; ms: number; cpuMs: number; info: SnapshotInfo | undefined }[] = [];
    let inFlight: Promise<unknown> | undefined;
    // The event loop's delay (what CPU slices that run too long would show), per run.
    const loopBase = monitorEventLoopDelay({ resolution: 5 });
    const loopDuring = monitorEventLoopDelay({ resolution: 5 });
    const loopOf = (h: number): IntervalHistogram => (h <= BLOCKS ? loopBase : loopDuring);
    let loopOn: IntervalHistogram | undefined;
    let lastEnd = 0;
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
          into?.latency.push(now - slotStart);
          into?.interval.push(now - lastEnd);
        }
        lastEnd = now;
        const wanted = h > WARMUP_BLOCKS && (h <= BLOCKS || inFlight) ? loopOf(h) : undefined;
        if (wanted !== loopOn) {
          loopOn?.disable();
          wanted?.enable();
          loopOn = wanted;
        }
        // The second run: a snapshot every EVERY blocks, taken here as the chain actor takes it.
        if (h > BLOCKS && (h - BLOCKS) % EVERY === 0 && !inFlight) {
          const cpu = process.cpuUsage();
          const started = performance.now();
          inFlight = snaps.afterCommit(chain.store, h)!.then((info) => {
            const c = process.cpuUsage(cpu);
            writes.push({ height: h, ms: performance.now() - started, cpuMs: (c.user + c.system) / 1000, info });
            inFlight = undefined;
          });
        }
        // The steady pace: the next block starts at the next slot.
        await sleep(Math.max(0, PACE_MS - (performance.now() - slotStart)));
        slotStart = performance.now();
      },
    });
    await inFlight;
    loopOn?.disable();
    const loop = (x: IntervalHistogram) => `p50 ${(x.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(x.percentile(99) / 1e6).toFixed(1)} ms, max ${(x.max / 1e6).toFixed(1)} ms`;
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
      'snapshots written': writes.map((w) => `height ${w.height}: ${(w.ms / 1000).toFixed(2)} s wall, ${(w.cpuMs / 1000).toFixed(2)} s process CPU meanwhile (blocks included)`).join('; '),
      'snapshot size': last ? `${(last.bytes / 2 ** 20).toFixed(1)} MiB in ${last.chunks} chunks (${(last.bytes / records).toFixed(0)} bytes a record); the snapshots folder holds ${(dirBytes(join(tmp.path, 'snapshots')) / 2 ** 20).toFixed(1)} MiB (${snaps.list().length} kept)` : 'none written',
      'chain store (LevelDB folder)': `${(dirBytes(join(tmp.path, 'chain')) / 2 ** 20).toFixed(1)} MiB`,
    };
  } finally {
    tmp.remove();
  }
}
