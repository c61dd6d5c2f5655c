/**
 * `npm run bench -- node-start` (decision 145): one node's start, from spawn to its READY
 * line, of the build of this tree beside the build of an earlier revision in the same run.
 *
 * The earlier revision (BENCH_BASE_REV, default `HEAD~1`) is checked out into a temporary
 * git worktree sharing this tree's node_modules and built there with its own
 * `src/build/run.mjs` (bench/two-builds.ts); this tree's build is `--if-stale`. Both files are copied into one
 * folder. Each round starts each (alternating which goes first, so a change of load falls
 * on both) as a single-validator devnet (`start --validators 1` on the repository's devnet
 * genesis and keys, a fresh data folder, free ports, `--log-level warn`) and records:
 *   - ms from spawn until the READY line (the API serves);
 *   - the process's CPU (user + system, /proc) at that moment.
 * Medians over NODE_START_ROUNDS (default 6) and new / base ratios. Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../src/cli/launcher';
import { ROOT, tempDir } from '../test/helpers/devnet';
import { cpuSeconds } from './startup';
import { checkoutRevision, headBuild, run } from './two-builds';

/** One start of `file` to READY: ms and CPU seconds. */
async function startOnce(file: string, dir: string): Promise<{ ms: number; cpuS: number }> {
  const data = mkdtempSync(join(dir, 'data-'));
  const args = ['--max-semi-space-size=64', file, 'start', '--genesis', join(ROOT, 'genesis/devnet.json'), '--keys', join(ROOT, 'genesis/devnet-keys.json'), '--validators', '1'];
  args.push('--data-dir', data, '--port', String(await freePort()), '--p2p-port', '0', '--session-port', '0', '--log-level', 'warn');
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  try {
    return await new Promise((resolve, reject) => {
      proc.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('READY')) resolve({ ms: performance.now() - t0, cpuS: cpuSeconds(proc.pid!) });
      });
      proc.stderr!.on('data', (d) => (out += d));
      void exited.then(() => reject(new Error(`${file} exited before READY: ${out.slice(-2_000)}`)));
    });
  } finally {
    proc.kill('SIGKILL');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchNodeStart(): Promise<Record<string, unknown>> {
  const rev = process.env.BENCH_BASE_REV ?? 'HEAD~1';
  const rounds = Number(process.env.NODE_START_ROUNDS ?? 6);
  const dir = tempDir('bench-node-start-');
  const tree = checkoutRevision(rev, join(dir.path, 'base-tree'));
  const sha = tree.sha;
  try {
    const base = join(dir.path, 'base.mjs');
    run(process.execPath, ['src/build/run.mjs', '--out', base], tree.tree);
    const head = headBuild(join(dir.path, 'head.mjs'));
    const res: Record<'base' | 'head', Array<{ ms: number; cpuS: number }>> = { base: [], head: [] };
    for (let i = 0; i < rounds; i++) {
      for (const k of i % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const)) res[k].push(await startOnce(k === 'base' ? base : head, dir.path));
    }
    const summary = (k: 'base' | 'head') => ({
      readyMs: Math.round(median(res[k].map((r) => r.ms))),
      cpuS: +median(res[k].map((r) => r.cpuS)).toFixed(2),
      runs: res[k].map((r) => `${Math.round(r.ms)} ms / ${r.cpuS.toFixed(2)} s`).join(', '),
    });
    const b = summary('base');
    const h = summary('head');
    return {
      conditions: `a single-validator devnet (start --validators 1), spawn to READY, ${rounds} rounds alternating; base = ${rev} (${sha.slice(0, 10)}), head = this tree; medians`,
      base: b,
      head: h,
      readyRatio: +(h.readyMs / b.readyMs).toFixed(2),
      cpuRatio: +(h.cpuS / b.cpuS).toFixed(2),
    };
  } finally {
    tree.remove();
    dir.remove();
  }
}
