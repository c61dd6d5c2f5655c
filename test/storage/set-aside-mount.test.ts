/**
 * A damaged store set aside on a mount point (issue 41, decisions 166 and 167), on real
 * tmpfs volumes (root only, as the disk-full tests: without root this fails, it does not
 * skip): the chain's `chain` folder is the mount point, the heal sets its store aside
 * inside the mount and opens a fresh one there, the folder staying the mount point; a
 * volume with no room for the copy beside a fresh store drops the copy (its record kept),
 * one already full deletes the store in place and then writes the record, and one with
 * room keeps the copy, read from the volume's real free space.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openChainHealing } from '../../src/node/store-heal';
import { DROPPED_RECORD, FRESH_STORE_HEADROOM_BYTES, setStoreAside, storeFolderEmpty } from '../../src/storage/set-aside';
import { freeBytesOf } from '../../src/storage/storage-guard';
import { createLogger } from '../../src/util/log';
import { mountSmallDisk, type SmallDisk } from '../helpers/full-disk';
import { tempDir } from '../helpers/devnet';
import { corruptNewestTable, flushToTable, genesis, hash, writeChain } from './store-fixture';

const dir = tempDir('exchain-aside-mount-');
const disks: SmallDisk[] = [];
afterAll(() => {
  try {
    for (const d of disks) d.remove();
  } finally {
    dir.remove();
  }
});

/** A tmpfs of `size` mounted on `<temp>/<name>/chain`. */
function mountedChain(name: string, size: string): string {
  const disk = mountSmallDisk(join(dir.path, name, 'chain'), size);
  disks.push(disk);
  return disk.path;
}

const mountPoint = (d: string) => statSync(d).dev !== statSync(dirname(d)).dev;

describe('a store on its own volume', () => {
  it('heals on a mount point: set aside inside it, a fresh store opened there, the folder still the mount', async () => {
    const store = mountedChain('heal', '64m');
    await writeChain(store, 10, 5);
    await flushToTable(store);
    corruptNewestTable(store);
    const lines: string[] = [];
    const log = createLogger({ destination: { write: (l: string) => void lines.push(l) } });
    const chain = await openChainHealing({ dataDir: store, genesis, genesisHash: hash, syncWrites: false }, true, log);
    try {
      expect(chain.height).toBe(0);
    } finally {
      await chain.close();
    }
    expect(mountPoint(store)).toBe(true);
    const aside = readdirSync(store).filter((f) => f.startsWith('.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readdirSync(join(store, aside[0])).some((f) => f.endsWith('.ldb'))).toBe(true);
    expect(lines.join('')).toMatch(/STORE CORRUPTED: .*moved aside to .*chain\/\.corrupt-.*\(kept, not deleted\)/);
    expect(lines.join('')).not.toMatch(/EBUSY/);
  });

  it('with no room for the copy beside a fresh store: drops it, keeps its record, and a fresh store opens', async () => {
    const store = mountedChain('small', '8m');
    await writeChain(store, 10, 5);
    const r = setStoreAside(store, { found: 'bad block' });
    // 8 MiB holds less than the copy again plus 16 MiB: the copy goes.
    expect(r.freeBytes).not.toBeNull();
    expect(r.freeBytes!).toBeLessThan(r.bytes + FRESH_STORE_HEADROOM_BYTES);
    expect(r.dropped).toBe(true);
    expect(readdirSync(r.to)).toEqual([DROPPED_RECORD]);
    expect(freeBytesOf(store)!).toBeGreaterThan(r.freeBytes!);
    expect(storeFolderEmpty(store)).toBe(true);
    await writeChain(store, 3, 5);
    expect(mountPoint(store)).toBe(true);
  });

  it('on a volume already full (no room even for the marker): deletes the store in place, then writes its record', async () => {
    const store = mountedChain('full', '8m');
    await writeChain(store, 10, 5);
    const files = readdirSync(store).sort();
    // The filler file sits in the store's folder (the mount's root): part of what is deleted.
    disks[disks.length - 1].fill();
    // Not even a marker's few bytes fit.
    expect(() => writeFileSync(join(store, '.probe'), 'x')).toThrow(/ENOSPC/);
    rmSync(join(store, '.probe'), { force: true });
    const r = setStoreAside(store, { found: 'bad block' });
    expect(r.dropped).toBe(true);
    expect(readdirSync(r.to)).toEqual([DROPPED_RECORD]);
    const record = readFileSync(join(r.to, DROPPED_RECORD), 'utf8');
    for (const f of files) expect(record).toContain(`\n${f} `);
    expect(storeFolderEmpty(store)).toBe(true);
    expect(readdirSync(store).filter((f) => f.startsWith('.set-aside'))).toEqual([]);
  });

  it('with room: keeps the copy whole', async () => {
    const store = mountedChain('roomy', '64m');
    await writeChain(store, 10, 5);
    const files = readdirSync(store).sort();
    const r = setStoreAside(store);
    expect(r.dropped).toBe(false);
    expect(readdirSync(r.to).sort()).toEqual(files);
  });
});
