/**
 * A running node writes state snapshots (decisions 136, 137): an in-process
 * single-validator devnet node with `--snapshot-interval 10 --snapshot-keep 2` lists,
 * while it keeps producing blocks, snapshots whose manifests verify against the state
 * roots its chain store committed, and the newest K only; a restart finds them again.
 * The same from the single-file build run as a process (test/helpers/node-program.ts),
 * whose writer's worker thread runs the code the build carries, not the source tree's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/launcher';
import { decodeManifest, verifyChunk, verifyManifest } from '../../src/state/snapshot';
import { ChainStore } from '../../src/storage/db';
import { SnapshotStore } from '../../src/storage/snapshot-store';
import { ROOT, startNode, tempDir, waitFor } from '../helpers/devnet';
import { NODE_PROGRAM } from '../helpers/node-program';

const dir = tempDir('node-snapshots-');
const built = tempDir('node-snapshots-build-');
const procs: ChildProcess[] = [];
afterAll(() => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  dir.remove();
  built.remove();
});

/** Each listed snapshot's manifest verifies against the root committed for its height (`stateRoot`), and so does every chunk. */
async function verifyAll(snaps: SnapshotStore, stateRoot: (height: number) => Promise<Uint8Array | undefined>): Promise<void> {
  for (const s of snaps.list()) {
    expect(s.height % 10).toBe(0);
    const m = decodeManifest((await snaps.manifest(s.height))!);
    verifyManifest(m, (await stateRoot(s.height))!);
    for (let i = 0; i < m.chunks.length; i++) verifyChunk(m, i, (await snaps.chunk(s.height, i))!);
  }
}

describe('node state snapshots', () => {
  it('writes a snapshot every N blocks after the commit, keeps the newest K, each verifying against the committed root', async () => {
    const { node } = await startNode(dir.path, { snapshots: { intervalBlocks: 10, keep: 2 } });
    try {
      const snaps = node.snapshots!;
      await waitFor(() => ((snaps.newestHeight() ?? 0) >= 30 ? true : undefined), 60_000, 'a snapshot at height 30 or above');
      await snaps.inFlight;
      expect(snaps.list().length).toBe(2);
      await verifyAll(snaps, (h) => node.chain().store.getStateRoot(h));
    } finally {
      await node.stop();
    }
    const again = await SnapshotStore.open({ dir: join(dir.path, 'snapshots'), intervalBlocks: 10, keep: 2 });
    expect(again.list().length).toBe(2);
  }, 90_000);

  it('the single-file build, run as a process, writes them too: its worker thread runs the code the build carries', async () => {
    const port = await freePort();
    const args = ['start', '--validators', '1', '--data-dir', built.path, '--port', String(port), '--session-port', '0', '--log-level', 'warn', '--no-rate-limit', '--snapshot-interval', '10', '--snapshot-keep', '2'];
    const proc = spawn(process.execPath, [...NODE_PROGRAM, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    procs.push(proc);
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const snapshotsDir = join(built.path, 'snapshots');
    const heights = () => (existsSync(snapshotsDir) ? readdirSync(snapshotsDir) : []).filter((n) => /^\d+$/.test(n)).map(Number);
    await waitFor(() => (proc.exitCode !== null ? Promise.reject(new Error(out)) : heights().some((h) => h >= 30) ? true : undefined), 60_000, 'a snapshot at height 30 or above');
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    expect(out).not.toMatch(/writing the state snapshot failed/);
    const snaps = await SnapshotStore.open({ dir: snapshotsDir, intervalBlocks: 10, keep: 2 });
    expect(snaps.list().length).toBe(2);
    const store = new ChainStore(join(built.path, 'chain'), false);
    await store.open({ createIfMissing: false });
    try {
      await verifyAll(snaps, (h) => store.getStateRoot(h));
    } finally {
      await store.close();
    }
  }, 90_000);
});
