/**
 * `npm run bench -- startup` (issue 25, decision 105): how long the 6-validator devnet
 * takes to come up run through tsx (the old `npm start`) and run from the single-file
 * build (the new one), and what building costs.
 *
 * Each run starts the launcher as `npm start` starts it (`node --max-semi-space-size=64`
 * and either `--import tsx src/cli/main.ts` or a build of this tree), on free ports, a
 * fresh data folder and no onboarding service (the same for both), and records:
 *   - readyMs: from spawn until the launcher prints READY (all six serve their API);
 *   - blocksMs: until all six answer /health with status ok at height ≥ 2 (blocks made);
 *   - cpuS: CPU time (user + system) of the launcher, its six validators and anything
 *     they run (tsx's esbuild service) at that moment, from /proc: the figure the shared
 *     machine's load disturbs least.
 * Runs alternate (tsx first in odd rounds, the build first in even ones) so that a
 * change of load during the bench falls on both; medians and the build/tsx ratios.
 *
 * The build: `node src/build/run.mjs --out FILE` (what `npm run build` and a stale
 * `npm start` run) and `--if-stale` on a fresh build (what every `npm start` pays), wall
 * time and CPU time of the process and the children it waited for (esbuild's).
 *
 * STARTUP_ROUNDS (default 3) sets the rounds. Linux only (/proc).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir, waitFor } from '../test/helpers/devnet';

const TICKS_PER_S = 100;

/** Fields of /proc/<pid>/stat after the command name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14). */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** user + system CPU seconds of `pid` (Linux /proc; the join and node-start benches read it too). */
export function cpuSeconds(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) / TICKS_PER_S;
}

/** user + system CPU seconds of the children this process waited for (and theirs). */
function waitedChildrenCpuSeconds(): number {
  const f = statFields('self');
  return (Number(f[13]) + Number(f[14])) / TICKS_PER_S;
}

/** Every process's parent, from /proc. */
function parents(): Map<number, number> {
  const ppid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      ppid.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended while we looked
    }
  }
  return ppid;
}

/** `pid`'s children, and all their descendants (tsx's esbuild service processes, say). */
function family(pid: number): { children: number[]; descendants: number[] } {
  const ppid = parents();
  const children = [...ppid].filter(([, p]) => p === pid).map(([c]) => c);
  const descendants: number[] = [];
  for (let frontier = children; frontier.length > 0; ) {
    descendants.push(...frontier);
    frontier = [...ppid].filter(([, p]) => frontier.includes(p)).map(([c]) => c);
  }
  return { children, descendants };
}

interface Run {
  readyMs: number;
  blocksMs: number;
  cpuS: number;
}

async function startOnce(program: string[]): Promise<Run> {
  const data = tempDir('exchain-startup-');
  const t0 = performance.now();
  const proc = spawn(
    process.execPath,
    ['--max-semi-space-size=64', ...program, 'start', '--data-dir', data.path, '--port', '0', '--session-port', '0', '--p2p-port', '0', '--no-onboarding', '--log-level', 'warn', '--no-rate-limit'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const exited = new Promise((r) => proc.once('exit', r));
  try {
    const line = await waitFor(() => output.split('\n').find((l) => l.startsWith('READY ')) ?? (proc.exitCode !== null ? Promise.reject(new Error(output)) : undefined), 180_000, 'READY');
    const readyMs = performance.now() - t0;
    const nodes = /nodes=(\S+)/.exec(line)![1].split(',');
    const health = async (url: string) => {
      const h = (await (await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) })).json()) as { status: string; height: number };
      return h.status === 'ok' && h.height >= 2;
    };
    await waitFor(async () => ((await Promise.all(nodes.map((u) => health(u).catch(() => false)))).every(Boolean) ? true : undefined), 120_000, 'height 2 on all six');
    const blocksMs = performance.now() - t0;
    const { children, descendants } = family(proc.pid!);
    // The launcher's children: its six validators, and through tsx an esbuild service.
    const validators = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--validator-index'));
    if (validators.length !== 6) throw new Error(`expected the launcher's 6 validators, found ${validators.length}`);
    const cpuS = [proc.pid!, ...descendants].reduce((s, pid) => s + cpuSeconds(pid), 0);
    return { readyMs: Math.round(readyMs), blocksMs: Math.round(blocksMs), cpuS: +cpuS.toFixed(2) };
  } finally {
    proc.kill('SIGINT');
    const t = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(t);
    data.remove();
  }
}

/** Wall and CPU (this child and what it waited for) of `node src/build/run.mjs …args`. */
function timedBuild(args: string[]): { wallS: number; cpuS: number } {
  const cpu0 = waitedChildrenCpuSeconds();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['src/build/run.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`run.mjs ${args.join(' ')}: ${r.stderr}`);
  const wallS = (performance.now() - t0) / 1000;
  return { wallS: +wallS.toFixed(2), cpuS: +(waitedChildrenCpuSeconds() - cpu0).toFixed(2) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchStartup(): Promise<Record<string, unknown>> {
  const rounds = Number(process.env.STARTUP_ROUNDS ?? 3);
  const dir = tempDir('exchain-startup-build-');
  try {
    const binary = join(dir.path, 'exchange-node.mjs');
    const build = timedBuild(['--out', binary]);
    const check = timedBuild(['--if-stale', '--out', binary]);
    const modes = { tsx: ['--import', 'tsx', 'src/cli/main.ts'], build: [binary] } as const;
    const runs: Record<keyof typeof modes, Run[]> = { tsx: [], build: [] };
    for (let round = 1; round <= rounds; round++) {
      const order: (keyof typeof modes)[] = round % 2 ? ['tsx', 'build'] : ['build', 'tsx'];
      for (const mode of order) runs[mode].push(await startOnce([...modes[mode]]));
    }
    const summary = (rs: Run[]) => ({ readyMs: median(rs.map((r) => r.readyMs)), blocksMs: median(rs.map((r) => r.blocksMs)), cpuS: median(rs.map((r) => r.cpuS)) });
    const tsx = summary(runs.tsx);
    const built = summary(runs.build);
    return {
      conditions: `${rounds} rounds alternating, 6 validators + launcher on this machine, --no-onboarding, fresh data folders, free ports; medians`,
      'build (node src/build/run.mjs --out FILE)': build,
      'fresh check (run.mjs --if-stale, nothing to build)': check,
      'tsx: median to READY / to height 2 on all (ms), CPU of the 7 processes (s)': tsx,
      'build: median to READY / to height 2 on all (ms), CPU of the 7 processes (s)': built,
      'build / tsx (blocks wall, CPU)': { wall: +(built.blocksMs / tsx.blocksMs).toFixed(2), cpu: +(built.cpuS / tsx.cpuS).toFixed(2) },
      'runs tsx': runs.tsx,
      'runs build': runs.build,
    };
  } finally {
    dir.remove();
  }
}
