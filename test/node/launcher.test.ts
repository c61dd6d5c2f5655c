/**
 * `npm start` (the local-network launcher): six validator processes come up, one READY
 * line names every API address, blocks are produced by the network, and SIGINT (Ctrl-C)
 * stops every validator process cleanly before the launcher exits 0. Validator 2's log
 * file is on a full disk (a symbolic link into a filled tmpfs; root only): the launcher
 * says so once and goes on supervising all six (issue 26 deliver 1; it used to die on the
 * log stream's unhandled ENOSPC, taking every validator with it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir, waitFor } from '../helpers/devnet';
import { showFileOnFailure } from '../helpers/failure-output';
import { mountSmallDisk } from '../helpers/full-disk';
import { NODE_PROGRAM } from '../helpers/node-program';

const dir = tempDir('exchain-launch-');
// The launcher's validators log to files, not to the test's pipes: shown when a test fails.
for (let i = 1; i <= 6; i++) showFileOnFailure(`validator ${i} node.log`, join(dir.path, `validator-${i}`, 'node.log'));
const logDisk = tempDir('exchain-launch-disk-');
const disk = mountSmallDisk(logDisk.path);
afterAll(() => {
  disk.remove();
  logDisk.remove();
  dir.remove();
});

describe('the local network launcher', () => {
  it('starts six validators and the onboarding service, announces them once ready, survives a log on a full disk, and stops them all on Ctrl-C', async () => {
    // Validator 2's log goes to a file on a disk with no space left.
    writeFileSync(join(disk.path, 'node.log'), '');
    disk.fill();
    mkdirSync(join(dir.path, 'validator-2'), { recursive: true });
    symlinkSync(join(disk.path, 'node.log'), join(dir.path, 'validator-2', 'node.log'));
    const proc = spawn(
      process.execPath,
      [...NODE_PROGRAM, 'start', '--data-dir', dir.path, '--port', '0', '--session-port', '0', '--p2p-port', '0', '--onboarding-port', '0', '--log-level', 'warn', '--no-rate-limit'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    try {
      const line = await waitFor(() => out.split('\n').find((l) => l.startsWith('READY ')), 120_000, 'READY');
      expect(line).toContain('validators=6');
      const nodes = /nodes=(\S+)/.exec(line)![1].split(',');
      expect(nodes).toHaveLength(6);
      // Every validator serves, and they produce blocks together.
      const status = async (url: string) => ((await (await fetch(`${url}/status`)).json()) as any).data;
      await waitFor(async () => ((await Promise.all(nodes.map(status))).every((s) => s.height >= 5) ? true : undefined), 60_000, 'height 5 on all');
      for (let i = 1; i <= 6; i++) expect(existsSync(join(dir.path, `validator-${i}`, 'node.log'))).toBe(true);
      for (const url of nodes) expect((await status(url)).consensus).not.toBeNull();
      // The failed log was said once, and validator 2 kept serving.
      expect(out.match(/validator 2's log \S+ cannot be written \(ENOSPC\)/g)).toHaveLength(1);
      expect(out).not.toMatch(/validator 2 exited/);
      // The onboarding service beside them publishes the three artifacts (the binary built if absent).
      const onboarding = /onboarding=(\S+)/.exec(line)![1];
      expect(onboarding).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
      const sums = ((await (await fetch(`${onboarding}/api/validators/checksums`)).json()) as any).data;
      for (const kind of ['binary', 'genesis', 'boot_bundle']) expect(sums[kind]?.sha256, kind).toMatch(/^[0-9a-f]{64}$/);
      proc.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('stopped');
      // No validator still serves.
      for (const url of [...nodes, onboarding]) await expect(fetch(url + '/health', { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  }, 240_000);
});
