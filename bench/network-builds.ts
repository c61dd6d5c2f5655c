/**
 * `BENCH_BASE=<rev> npm run bench -- network` (issue 38): the network bench of this
 * tree's build and of revision <rev>'s, alternately, in one run (bench/two-builds.ts
 * makes them). Each round runs the network once from each build (base first in odd rounds,
 * this tree's first in even ones, so a change of the machine's load falls on both), with
 * the settings of the plain network bench (BENCH_LEVEL_S, BENCH_RATES, BENCH_SHAPES, ...;
 * the sweep off unless BENCH_SWEEP=1). It prints one line per run: idle B, each loaded
 * level's final rate, shed, c and latency, with the load average before and after.
 *
 * BENCH_ROUNDS (2): rounds. BENCH_PROFILE=1: validator 1 of every run is restarted under
 * `--cpu-prof` (and left out of B and c); its profile is split by subsystem
 * (bench/cpu-profile.ts) and printed as µs per final order beyond what the window's blocks
 * cost idle (the same subtraction as c), for both builds side by side, with the functions
 * whose self time per order differs most between them. Every run also reports validator
 * 2's /status counters per order (bench/network.ts, CounterRun). BENCH_KEEP=1 keeps the
 * run's folder (the builds, the profiles and their windows.json) and prints its path.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../test/helpers/devnet';
import type { BudgetRow } from './budget';
import { profileBreakdown, type ProfileBreakdown } from './cpu-profile';
import { runNetwork, type CounterRun, type ProfiledRun } from './network';
import { checkoutRevision, headBuild, programOf } from './two-builds';

const load = () => os.loadavg()[0].toFixed(1);

/** µs per final order of each key of `load` beyond `blocks` × its idle cost per block. */
export function perOrder(idle: Record<string, number>, idleBlocks: number, loaded: Record<string, number>, blocks: number, orders: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of new Set([...Object.keys(idle), ...Object.keys(loaded)])) {
    out[k] = Math.round((((loaded[k] ?? 0) - ((idle[k] ?? 0) * blocks) / idleBlocks) * 1000) / orders);
  }
  return out;
}

/** The profile of a run cut to its windows: µs per order by subsystem and by function, for its first loaded level. */
function profileOf(p: ProfiledRun): { level: string; busy: number; bySubsystem: Record<string, number>; byFunction: Record<string, number> } {
  const file = readdirSync(p.dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${p.dir}`);
  const at = (w: [number, number]): ProfileBreakdown => profileBreakdown(join(p.dir, file), w[0], w[1], 400, true);
  const idle = at(p.idleWindowUs);
  const l = p.loadWindows[0];
  const loaded = at(l.windowUs);
  return {
    level: l.level,
    busy: perOrder({ busy: idle.busyMs }, p.idleBlocks, { busy: loaded.busyMs }, l.blocks, l.ordersFinal).busy,
    bySubsystem: perOrder(idle.bySubsystem, p.idleBlocks, loaded.bySubsystem, l.blocks, l.ordersFinal),
    byFunction: perOrder(byFunctionKey(idle.topFunctions), p.idleBlocks, byFunctionKey(loaded.topFunctions), l.blocks, l.ordersFinal),
  };
}

/**
 * A function's name and module, the same in a bundle and in a source tree: the profile's
 * keys carry the build's own path and line (`bundle:/src/x.ts:1234`, `file:///…/base-tree/src/x.ts:1`).
 */
export const functionKey = (k: string) => k.replace(/\((?:bundle:\/|file:\/\/\/\S*?\/(?=(?:src|actors|machines)\/))/, '(').replace(/:\d+\)$/, ')');

/** `byFunction` with the keys of functionKey, summed. */
function byFunctionKey(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(o)) out[functionKey(k)] = (out[functionKey(k)] ?? 0) + v;
  return out;
}

/** A run's counters per final order beyond its blocks' idle counts, ×100 (rounded by meanOf). */
function perOrderCounts(c: CounterRun): Record<string, number> {
  return Object.fromEntries(Object.entries(perOrder(c.idle, c.idleBlocks, c.load, c.blocks, c.ordersFinal / 100)).map(([k, v]) => [k, v / 1000]));
}

/** The mean of each key over `runs`. */
function meanOf(runs: Record<string, number>[]): Record<string, number> {
  const keys = new Set(runs.flatMap((r) => Object.keys(r)));
  return Object.fromEntries([...keys].map((k) => [k, Math.round(runs.reduce((a, r) => a + (r[k] ?? 0), 0) / runs.length)]));
}

/** Two columns (base, head) of µs per order, largest first, rows whose both values are under `min` left out. */
function sideBySide(base: Record<string, number>, head: Record<string, number>, min: number, limit = 40): string {
  const keys = [...new Set([...Object.keys(base), ...Object.keys(head)])].filter((k) => Math.abs(base[k] ?? 0) >= min || Math.abs(head[k] ?? 0) >= min);
  keys.sort((a, b) => Math.max(head[b] ?? 0, base[b] ?? 0) - Math.max(head[a] ?? 0, base[a] ?? 0));
  const w = Math.min(90, Math.max(...keys.map((k) => k.length), 4));
  return keys
    .slice(0, limit)
    .map((k) => `  ${k.slice(0, 90).padEnd(w)}  ${String(base[k] ?? 0).padStart(6)}  ${String(head[k] ?? 0).padStart(6)}`)
    .join('\n');
}

const rowLine = (r: BudgetRow) =>
  r.offeredOrdersPerSec === 0
    ? `idle B ${r.cpuMsPerBlockPerValidator} ms, interval p50 ${r.intervalMsMedian} ms`
    : `${r.level}: ${r.ordersPerSecFinal}/s final (${r.ordersShed} shed), c ${r.cpuUsPerOrderPerValidator} µs, p50/p99 ${r.latencyMsP50}/${r.latencyMsP99} ms, interval p50 ${r.intervalMsMedian} ms`;

export async function benchNetworkBuilds(rev: string): Promise<Record<string, unknown>> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const profile = process.env.BENCH_PROFILE === '1';
  process.env.BENCH_SWEEP ??= '0';
  const dir = tempDir('bench-network-builds-');
  const base = checkoutRevision(rev, join(dir.path, 'base-tree'));
  try {
    const programs = {
      base: programOf(base.tree, join(dir.path, 'base.mjs')),
      head: { file: headBuild(join(dir.path, 'head.mjs')), kind: 'build' as const },
    };
    const lines: string[] = [];
    const profiles: Record<'base' | 'head', ReturnType<typeof profileOf>[]> = { base: [], head: [] };
    const counts: Record<'base' | 'head', Record<string, number>[]> = { base: [], head: [] };
    for (let i = 0; i < rounds; i++) {
      for (const k of i % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const)) {
        const before = load();
        const profileDir = profile ? join(dir.path, `profile-${k}-${i}`) : undefined;
        if (profileDir) mkdirSync(profileDir);
        const r = await runNetwork(programs[k].file, profileDir);
        const sweep = Object.entries(r)
          .filter(([key]) => key.includes('inFlight'))
          .map(([key, l]) => {
            const v = l as { ordersPerSecToFinal: number; latencyMsP50: number; latencyMsP99: number };
            return `${key.trim()}: ${v.ordersPerSecToFinal}/s p50/p99 ${v.latencyMsP50}/${v.latencyMsP99} ms`;
          });
        const line = `round ${i + 1} ${k.padEnd(4)} (load ${before}→${load()}): ${[...(r.budgetRows as BudgetRow[]).map(rowLine), ...sweep].join('; ')}`;
        console.log(line);
        lines.push(line);
        if (r.counted) {
          const c = r.counted;
          counts[k].push(perOrderCounts(c));
        }
        if (r.profiled) {
          profiles[k].push(profileOf(r.profiled));
          writeFileSync(join(r.profiled.dir, 'windows.json'), JSON.stringify(r.profiled));
        }
      }
    }
    const out: Record<string, unknown> = {
      conditions: `base = ${rev} (${base.sha.slice(0, 10)}, ${programs.base.kind}), head = this tree (build); ${rounds} rounds alternating which goes first; each run as the network bench (${['BENCH_LEVEL_S', 'BENCH_RATES', 'BENCH_SHAPES', 'BENCH_WARMUP_S', 'BENCH_WARM_ORDERS'].map((n) => `${n}=${process.env[n] ?? 'default'}`).join(' ')})${profile ? '; validator 1 under --cpu-prof, left out of B and c' : ''}`,
      runs: '\n' + lines.join('\n'),
    };
    // Counters per order (×100, so that a fraction shows): both builds' keys where either moved.
    const cb = meanOf(counts.base);
    const ch = meanOf(counts.head);
    out.countersPerOrder = `\n  validator 2's /status counters per final order of the first loaded level beyond its blocks' idle counts, ×100 (mean of ${counts.base.length} and ${counts.head.length} runs)\n  counter  base  head\n${sideBySide(cb, ch, 1, 60)}`;
    if (profile) {
      const b = profiles.base;
      const h = profiles.head;
      out.profileLevel = `validator 1's CPU per final order of the level ${b[0]?.level}, beyond what the window's blocks cost idle (µs; mean of ${b.length} and ${h.length} runs): busy ${meanOf(b.map((p) => ({ busy: p.busy }))).busy} (base) / ${meanOf(h.map((p) => ({ busy: p.busy }))).busy} (head)`;
      out.bySubsystem = '\n  subsystem  base  head\n' + sideBySide(meanOf(b.map((p) => p.bySubsystem)), meanOf(h.map((p) => p.bySubsystem)), 1);
      const fb = meanOf(b.map((p) => p.byFunction));
      const fh = meanOf(h.map((p) => p.byFunction));
      const diff = Object.fromEntries([...new Set([...Object.keys(fb), ...Object.keys(fh)])].map((k) => [k, (fh[k] ?? 0) - (fb[k] ?? 0)]));
      const top = Object.keys(diff).sort((x, y) => Math.abs(diff[y]) - Math.abs(diff[x])).slice(0, 30);
      out.byFunctionLargestDifferences = '\n  function (self)  base  head\n' + sideBySide(Object.fromEntries(top.map((k) => [k, fb[k] ?? 0])), Object.fromEntries(top.map((k) => [k, fh[k] ?? 0])), 0, 30);
    }
    return out;
  } finally {
    base.remove();
    if (!process.env.BENCH_KEEP) dir.remove();
    else console.log(`kept ${dir.path}`);
  }
}
