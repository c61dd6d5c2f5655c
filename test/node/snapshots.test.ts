/**
 * A running node writes state snapshots (decision 136): an in-process single-validator
 * devnet node with `--snapshot-interval 10 --snapshot-keep 2` lists, while it keeps
 * producing blocks, snapshots whose manifests verify against the state roots its chain
 * store committed, and the newest K only; a restart finds them again.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeManifest, verifyChunk, verifyManifest } from '../../src/state/snapshot';
import { SnapshotStore } from '../../src/storage/snapshot-store';
import { startNode, tempDir, waitFor } from '../helpers/devnet';

const dir = tempDir('node-snapshots-');
afterAll(() => dir.remove());

describe('node state snapshots', () => {
  it('writes a snapshot every N blocks after the commit, keeps the newest K, each verifying against the committed root', async () => {
    const { node } = await startNode(dir.path, { snapshots: { intervalBlocks: 10, keep: 2 } });
    try {
      const snaps = node.snapshots!;
      await waitFor(() => ((snaps.newestHeight() ?? 0) >= 30 ? true : undefined), 60_000, 'a snapshot at height 30 or above');
      await snaps.inFlight;
      const list = snaps.list();
      expect(list.length).toBe(2);
      for (const s of list) {
        expect(s.height % 10).toBe(0);
        const root = (await node.chain().store.getStateRoot(s.height))!;
        const m = decodeManifest((await snaps.manifest(s.height))!);
        verifyManifest(m, root);
        for (let i = 0; i < m.chunks.length; i++) verifyChunk(m, i, (await snaps.chunk(s.height, i))!);
      }
    } finally {
      await node.stop();
    }
    const again = await SnapshotStore.open({ dir: join(dir.path, 'snapshots'), intervalBlocks: 10, keep: 2 });
    expect(again.list().length).toBe(2);
  }, 90_000);
});
