/**
 * The production path without tsx (decision 104): `src/build/run.mjs --if-stale` (what
 * `npm start` runs first) builds with plain Node, builds again only when an input it
 * recorded changed; the file it builds (the run's own, made that way by
 * test/global-setup.ts), alone in a folder with no node_modules up the tree, starts the
 * 6-validator devnet: the launcher and its six validator processes all
 * run that file, every validator answers /health and the chain makes blocks, the audit
 * view's drawings are laid out (elkjs, carried in the build as text), and Ctrl-C stops
 * them all.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir, waitFor } from '../helpers/devnet';
import { NODE_BUILD } from '../helpers/node-program';

const dir = tempDir('exchain-compiled-');
afterAll(() => dir.remove());

/** `node src/build/run.mjs --if-stale --out FILE`, a plain Node process (no --import tsx). */
function ifStale(out: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['src/build/run.mjs', '--if-stale', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, stderr: r.stderr };
}

/** The command lines of `pid`'s child processes (Linux /proc). */
function childCommandLines(pid: number): string[][] {
  const lines: string[][] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, in parentheses): state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) lines.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      // a process that ended while we looked
    }
  }
  return lines;
}

describe('the compiled build', () => {
  const out = join(dir.path, 'dist', 'exchange-node.mjs');

  it('is built by plain Node when missing or stale, and left alone when fresh', () => {
    const first = ifStale(out);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain('is missing');
    const built = statSync(out).mtimeMs;

    const again = ifStale(out);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect(statSync(out).mtimeMs).toBe(built);

    // An input that differs from what was recorded (as an edited source would): built again, named.
    const stampFile = `${out}.inputs.json`;
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
    expect(Object.keys(stamp.inputs)).toEqual(expect.arrayContaining(['src/cli/main.ts', 'src/cli/launcher.ts', 'package.json', 'genesis/devnet.json']));
    stamp.inputs['src/cli/main.ts'] = { sha256: '0'.repeat(64), bytes: 0, mtimeMs: 0 };
    writeFileSync(stampFile, JSON.stringify(stamp));
    const stale = ifStale(out);
    expect(stale.status, stale.stderr).toBe(0);
    expect(stale.stderr).toContain('src/cli/main.ts changed');
    expect(JSON.parse(readFileSync(stampFile, 'utf8')).inputs['src/cli/main.ts'].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(readFileSync(stampFile, 'utf8')).inputs['src/cli/main.ts'].sha256).not.toBe('0'.repeat(64));
  }, 400_000);

  it('starts the 6-validator devnet, launcher and validators all running the build, each answering /health', async () => {
    // Alone: the build, the devnet genesis and its public keys; no node_modules up the tree from the temp folder.
    const alone = join(dir.path, 'alone');
    mkdirSync(join(alone, 'genesis'), { recursive: true });
    const binary = join(alone, 'exchange-node.mjs');
    // The run's build (test/global-setup.ts made it fresh), not the test above's: this test stands alone.
    copyFileSync(NODE_BUILD, binary);
    for (const f of ['devnet.json', 'devnet-keys.json']) copyFileSync(join(ROOT, 'genesis', f), join(alone, 'genesis', f));
    const proc = spawn(
      process.execPath,
      ['--max-semi-space-size=64', binary, 'start', '--data-dir', join(alone, 'data'), '--port', '0', '--session-port', '0', '--p2p-port', '0', '--onboarding-port', '0', '--log-level', 'warn', '--no-rate-limit'],
      { cwd: alone, env: { ...process.env, EXCHANGE_NODE_CACHE: join(alone, 'cache'), NODE_PATH: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    try {
      const line = await waitFor(() => output.split('\n').find((l) => l.startsWith('READY ')), 120_000, `READY (output so far: ${output})`);
      const nodes = /nodes=(\S+)/.exec(line)![1].split(',');
      expect(nodes).toHaveLength(6);
      // The onboarding service serves the build the launcher runs (no dist/ here to build into).
      expect(line).toMatch(/onboarding=http:\/\/127\.0\.0\.1:[0-9]+ /);

      const children = childCommandLines(proc.pid!);
      expect(children).toHaveLength(6);
      for (const argv of children) {
        expect(argv.slice(1, 4)).toEqual(['--max-semi-space-size=64', binary, 'start']);
        expect(argv.join(' ')).not.toContain('tsx');
      }

      const health = async (url: string) => (await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) })).json() as Promise<{ status: string; chain: string; height: number }>;
      await waitFor(async () => ((await Promise.all(nodes.map(health))).every((h) => h.status === 'ok' && h.chain === 'devnet' && h.height >= 2) ? true : undefined), 60_000, 'height 2 on all six');

      // The audit view's drawings: the build carries elkjs as text, evaluated at this first use.
      const audit = (await (await fetch(`${nodes[0]}/v1/audit/machines`, { signal: AbortSignal.timeout(30_000) })).json()) as { data: { machines: Array<{ name: string; svg: string }> } };
      expect(audit.data.machines.length).toBeGreaterThanOrEqual(8);
      for (const m of audit.data.machines) expect(m.svg, m.name).toMatch(/^<svg[^>]*viewBox="0 0 [1-9]/);

      proc.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toContain('stopped');
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  }, 240_000);
});
