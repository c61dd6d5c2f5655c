/**
 * The node's state snapshots on disk (src/storage/snapshot-store.ts, decision 136): the
 * writer reads a consistent view (writes after it was taken never show in the snapshot,
 * on LevelDB and on the simulator's memory store), checks the root against the one
 * stored for the height, keeps the newest K, removes what a crash left; and a store
 * restored from a real chain's snapshot rebuilds the same state root.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { State } from '../../src/state/state';
import { buildSnapshot, decodeManifest, manifestHash, verifyChunk, verifyManifest, type StateRecord } from '../../src/state/snapshot';
import { StateTree } from '../../src/state/tree';
import { ChainStore, KvChainStore } from '../../src/storage/db';
import { MemoryKv } from '../../src/storage/memory-kv';
import { restoreStateRecords, SnapshotStore } from '../../src/storage/snapshot-store';
import { tempDir } from '../helpers/devnet';
import { buildSignedChain } from '../helpers/signed-chain';

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
function temp(): string {
  const d = tempDir('snap-');
  dirs.push(d);
  return d.path;
}

function records(n: number, tag: string): StateRecord[] {
  return Array.from({ length: n }, (_, i): StateRecord => [Buffer.from(`\x01${tag}-${i}`), Buffer.from(`value ${tag} ${i}`)]);
}

function rootOf(recs: Iterable<StateRecord>): Uint8Array {
  const t = new StateTree();
  for (const [k, v] of recs) t.update(k, v);
  return t.root();
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Every record of snapshot `height` in `snaps`, each chunk verified against `root`. */
async function readSnapshot(snaps: SnapshotStore, height: number, root: Uint8Array): Promise<Map<string, string>> {
  const m = decodeManifest((await snaps.manifest(height))!);
  verifyManifest(m, root);
  const out = new Map<string, string>();
  for (let i = 0; i < m.chunks.length; i++) for (const [k, v] of verifyChunk(m, i, (await snaps.chunk(height, i))!)) out.set(hex(k), hex(v));
  return out;
}

const STORES: [string, (dir: string) => KvChainStore][] = [
  ['LevelDB', (dir) => new ChainStore(join(dir, 'chain'), false)],
  ['memory', (dir) => new KvChainStore(join(dir, 'chain'), new MemoryKv(join(dir, 'chain')), false)],
];

describe.each(STORES)('snapshot writer over %s', (_name, makeStore) => {
  it('reads the state as it was when the view was taken: later writes, deletes and overwrites do not leak in', async () => {
    const dir = temp();
    const store = makeStore(dir);
    await store.open();
    const before = records(2_000, 'a');
    const root10 = rootOf(before);
    await store.writeGenesis(new Uint8Array(32), [], new Uint8Array(32));
    await store.putStateRecords(before);
    await store.putStateRoot(10, root10);
    const view = store.stateView();
    // The next "block": new keys, a deletion, an overwrite, its own root.
    const after = new Map(before.map((r) => [hex(r[0]), r] as const));
    const added = records(500, 'b');
    await store.putStateRecords([...added, [before[0][0], Buffer.from('changed')]]);
    await store.db.del(Buffer.concat([Uint8Array.of(6), before[1][0]]), { sync: false });
    for (const r of added) after.set(hex(r[0]), r);
    after.set(hex(before[0][0]), [before[0][0], Buffer.from('changed')]);
    after.delete(hex(before[1][0]));
    await store.putStateRoot(11, rootOf(after.values()));
    const snaps = await SnapshotStore.open({ dir: join(dir, 'snapshots'), intervalBlocks: 10 });
    const info = await snaps.writeFrom(view, 10);
    await view.close();
    expect(hex(info.stateRoot)).toBe(hex(root10));
    // Byte-identical to the pure builder's: every node serves the same chunks.
    expect(hex(info.manifestHash)).toBe(hex(manifestHash(buildSnapshot(10, before).manifest)));
    const got = await readSnapshot(snaps, 10, root10);
    expect(got.size).toBe(before.length);
    for (const [k, v] of before) expect(got.get(hex(k))).toBe(hex(v));
    await store.close();
  });

  it('refuses to list a snapshot whose root differs from the one stored for its height', async () => {
    const dir = temp();
    const store = makeStore(dir);
    await store.open();
    await store.putStateRecords(records(100, 'a'));
    await store.putStateRoot(10, rootOf(records(99, 'a')));
    const snaps = await SnapshotStore.open({ dir: join(dir, 'snapshots'), intervalBlocks: 10 });
    const view = store.stateView();
    await expect(snaps.writeFrom(view, 10)).rejects.toThrow(/root stored for it/);
    await view.close();
    expect(snaps.list()).toEqual([]);
    expect(readdirSync(join(dir, 'snapshots'))).toEqual([]);
    await store.close();
  });
});

describe('snapshot store', () => {
  it('keeps the newest K, skips a height due while one is still being written, and lists what it finds at open', async () => {
    const dir = temp();
    const store = new KvChainStore('mem', new MemoryKv('mem'), false);
    await store.open();
    const snaps = await SnapshotStore.open({ dir: join(dir, 'snapshots'), intervalBlocks: 10, keep: 2 });
    let recs: StateRecord[] = [];
    for (let h = 1; h <= 40; h++) {
      recs = records(h * 10, 'r');
      await store.putStateRecords(recs);
      await store.putStateRoot(h, rootOf(recs));
      expect(snaps.due(h)).toBe(h % 10 === 0);
      const w = snaps.afterCommit(store, h);
      if (h % 10 !== 0) expect(w).toBeUndefined();
      else {
        expect(w).toBeDefined();
        expect(snaps.afterCommit(store, h)).toBeUndefined(); // one at a time
        expect((await w)?.height).toBe(h);
      }
    }
    expect(snaps.list().map((s) => s.height)).toEqual([30, 40]);
    expect(snaps.newestHeight()).toBe(40);
    expect(readdirSync(join(dir, 'snapshots')).sort()).toEqual(['30', '40']);
    const again = await SnapshotStore.open({ dir: join(dir, 'snapshots'), intervalBlocks: 10, keep: 2 });
    expect(again.list().map((s) => [s.height, hex(s.manifestHash)])).toEqual(snaps.list().map((s) => [s.height, hex(s.manifestHash)]));
    expect((await readSnapshot(again, 40, rootOf(recs))).size).toBe(400);
    expect(await again.chunk(40, 99)).toBeUndefined();
    expect(await again.manifest(10)).toBeUndefined();
  });

  it('removes at open what a crash left: an unfinished temp folder, a folder without a readable manifest', async () => {
    const dir = join(temp(), 'snapshots');
    mkdirSync(join(dir, '40.tmp'), { recursive: true });
    writeFileSync(join(dir, '40.tmp', 'chunk-0000'), 'half');
    mkdirSync(join(dir, '50'));
    writeFileSync(join(dir, '50', 'manifest'), 'garbage');
    const snaps = await SnapshotStore.open({ dir, intervalBlocks: 10 });
    expect(snaps.list()).toEqual([]);
    expect(existsSync(join(dir, '40.tmp'))).toBe(false);
    expect(existsSync(join(dir, '50'))).toBe(false);
  });

  it("a real chain's snapshots, taken while blocks go on, verify against its stored roots, and restore into an empty store that rebuilds the root", async () => {
    const dir = temp();
    const snaps = await SnapshotStore.open({ dir: join(dir, 'snapshots'), intervalBlocks: 10, keep: 2 });
    const writes = new Map<number, Promise<unknown>>();
    const built = await buildSignedChain({
      dataDir: join(dir, 'chain'),
      blocks: 43,
      validators: 4,
      recipients: 200,
      afterCommit: async (block, _result, c) => {
        const h = block.header.height;
        // Taken right after the commit, as the chain actor does; the write runs on while
        // three more blocks are committed, then is awaited (keeping the test's K deterministic).
        const w = snaps.afterCommit(c.store, h);
        if (w) writes.set(h, w);
        await writes.get(h - 3);
      },
    });
    const chain = built.chain;
    expect(snaps.list().map((s) => s.height)).toEqual([30, 40]);
    for (const s of snaps.list()) expect(hex(s.stateRoot)).toBe(hex((await chain.store.getStateRoot(s.height))!));

    // Restore the newest into a fresh store and load it as Chain.open does.
    const m = decodeManifest((await snaps.manifest(40))!);
    verifyManifest(m, (await chain.store.getStateRoot(40))!);
    const fresh = new ChainStore(join(dir, 'restored'), false);
    await fresh.open();
    const chunks = async function* () {
      for (let i = 0; i < m.chunks.length; i++) yield verifyChunk(m, i, (await snaps.chunk(40, i))!);
    };
    const n = await restoreStateRecords(fresh, 40, m.stateRoot, chunks());
    const state = new State();
    let loaded = 0;
    for await (const [k, v] of fresh.stateRecords()) {
      state.loadRecord(k, v);
      loaded++;
    }
    expect(loaded).toBe(n);
    state.rebuildIndexes();
    state.checkInvariants();
    expect(hex(state.root())).toBe(hex((await chain.store.getStateRoot(40))!));
    expect(hex((await fresh.getStateRoot(40))!)).toBe(hex(m.stateRoot));
    expect(state.head().height).toBe(40);
    await expect(restoreStateRecords(fresh, 40, m.stateRoot, [])).rejects.toThrow(/already holds state/);
    await fresh.close();
    await chain.close();
  }, 120_000);
});
