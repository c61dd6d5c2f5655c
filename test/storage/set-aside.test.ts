/**
 * A damaged store set aside inside its own folder (issue 41, decisions 166 and 167), on a
 * store a real Chain wrote: a plain folder and a symlink to a folder elsewhere (the mount
 * point is the process tier's, test/storage/set-aside-mount.test.ts: mounting needs root);
 * an index to rebuild is emptied in place; a move a crash interrupted is finished, into the same copy, with nothing lost or doubled;
 * a volume without room for the copy beside a fresh store drops it and keeps its record.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkChainStore } from '../../src/chain/check';
import { Indexer } from '../../src/indexer/indexer';
import { storesMovedAside } from '../../src/storage/corruption';
import {
  DROPPED_RECORD,
  emptyStoreFolder,
  FRESH_STORE_HEADROOM_BYTES,
  resumeSetAside,
  roomLine,
  setAsideInterrupted,
  setStoreAside,
  storeEntries,
  storeFolderEmpty,
} from '../../src/storage/set-aside';
import { tempDir } from '../helpers/devnet';
import { writeChain } from './store-fixture';

const dirs: { remove(): void }[] = [];
afterAll(() => dirs.forEach((d) => d.remove()));
function temp(): string {
  const d = tempDir('exchain-aside-');
  dirs.push(d);
  return d.path;
}

/** A store a real chain wrote in `<temp>/chain`; its files, sorted. */
async function store(): Promise<{ dir: string; files: string[] }> {
  const dir = join(temp(), 'chain');
  await writeChain(dir, 5, 5);
  return { dir, files: readdirSync(dir).sort() };
}

const plenty = () => 1e12;

describe('setting a damaged store aside', () => {
  it('a plain folder: its files move into .corrupt-<time>/ inside it, the folder stays', async () => {
    const { dir, files } = await store();
    const r = setStoreAside(dir, { now: new Date('2026-11-29T06:13:26.130Z'), freeBytes: plenty });
    expect(r.to).toBe(join(dir, '.corrupt-2026-11-29T06-13-26-130Z'));
    expect(r.dropped).toBe(false);
    expect(readdirSync(r.to).sort()).toEqual(files);
    expect(readdirSync(dir)).toEqual(['.corrupt-2026-11-29T06-13-26-130Z']);
    expect(storeFolderEmpty(dir)).toBe(true);
    expect(storesMovedAside(dir)).toEqual([r.to]);
    expect(r.bytes).toBeGreaterThan(0);
    expect(roomLine(r)).toBeUndefined();
    // A second one the same instant gets its own folder.
    await writeChain(dir, 2, 2);
    const again = setStoreAside(dir, { now: new Date('2026-11-29T06:13:26.130Z'), freeBytes: plenty });
    expect(again.to).toBe(`${r.to}-1`);
    expect(readdirSync(r.to).sort()).toEqual(files);
    // The copy is the whole store: it reads sound where it is.
    expect((await checkChainStore(r.to)).sound).toBe(true);
  });

  it('a symlink to a folder on another disk: the files stay on that disk, the link stays a link', async () => {
    const { dir: target, files } = await store();
    const link = join(temp(), 'chain');
    symlinkSync(target, link);
    const r = setStoreAside(link, { freeBytes: plenty });
    expect(readdirSync(r.to).sort()).toEqual(files);
    // Through the link, into the target's own folder: nothing crossed disks.
    expect(readdirSync(target).filter((f) => f.startsWith('.corrupt-'))).toHaveLength(1);
    expect(storeFolderEmpty(target)).toBe(true);
  });

  it('the folder itself is never renamed: its parent holds nothing new', async () => {
    const { dir } = await store();
    const parent = join(dir, '..');
    const before = readdirSync(parent);
    setStoreAside(dir, { freeBytes: plenty });
    expect(readdirSync(parent)).toEqual(before);
  });

  it('leaves lost+found (an ext4 volume\'s root) and earlier copies where they are', async () => {
    const { dir, files } = await store();
    mkdirSync(join(dir, 'lost+found'));
    const first = setStoreAside(dir, { freeBytes: plenty });
    await writeChain(dir, 2, 2);
    const second = setStoreAside(dir, { freeBytes: plenty });
    expect(readdirSync(first.to).sort()).toEqual(files);
    expect(readdirSync(second.to)).not.toContain('lost+found');
    expect(readdirSync(second.to).some((f) => f.startsWith('.corrupt-'))).toBe(false);
    expect(existsSync(join(dir, 'lost+found'))).toBe(true);
    expect(storeEntries(dir)).toEqual([]);
  });

  it('a move a crash interrupted is finished into the same copy at the next start: nothing lost, nothing doubled', async () => {
    const { dir, files } = await store();
    // The state a crash leaves between two renames: the marker names the copy, some files are in it.
    const name = '.corrupt-2026-11-29T06-13-26-130Z';
    writeFileSync(join(dir, '.set-aside'), name);
    mkdirSync(join(dir, name));
    const moved = files.slice(0, Math.ceil(files.length / 2));
    for (const f of moved) renameSync(join(dir, f), join(dir, name, f));
    expect(setAsideInterrupted(dir)).toBe(join(dir, name));
    const r = resumeSetAside(dir, { freeBytes: plenty });
    expect(r?.resumed).toBe(true);
    expect(setAsideInterrupted(dir)).toBeUndefined();
    expect(r?.to).toBe(join(dir, name));
    expect(readdirSync(join(dir, name)).sort()).toEqual(files);
    expect(readdirSync(dir)).toEqual([name]);
    // Nothing left to finish.
    expect(resumeSetAside(dir, { freeBytes: plenty })).toBeUndefined();
  });

  it('a marker never written whole means no move had begun: the store is left as it is', async () => {
    const { dir, files } = await store();
    writeFileSync(join(dir, '.set-aside.tmp'), '.corrupt-2026');
    expect(resumeSetAside(dir)).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(files);
  });

  it('empties a folder in place (a derived index, a failed state sync), keeping the copies set aside', async () => {
    const { dir } = await store();
    const r = setStoreAside(dir, { freeBytes: plenty });
    await writeChain(dir, 1, 1);
    emptyStoreFolder(dir);
    expect(readdirSync(dir)).toEqual([r.to.slice(dir.length + 1)]);
  });

  it('an index to rebuild is emptied in place: its folder (a mount point, a symlink) and lost+found stay', async () => {
    const dir = join(temp(), 'index');
    const idx = await Indexer.open(dir);
    await idx.close();
    mkdirSync(join(dir, 'lost+found'));
    expect(storeEntries(dir).length).toBeGreaterThan(0);
    await Indexer.destroy(dir);
    expect(readdirSync(dir)).toEqual(['lost+found']);
  });

  it('privval files replaced are kept whatever the room (never dropped)', () => {
    const dir = join(temp(), 'privval');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a'), 'A');
    writeFileSync(join(dir, 'b'), 'B');
    const r = setStoreAside(dir, { prefix: '.replaced-', mayDrop: false, freeBytes: () => 0 });
    expect(r.dropped).toBe(false);
    expect(readdirSync(r.to).sort()).toEqual(['a', 'b']);
    expect(r.to).toContain('/privval/.replaced-');
  });
});

describe('no room for the copy beside a fresh store (decision 167)', () => {
  it('drops the copy, keeping its record (what was found, each file and its size), and says so in one line', async () => {
    const { dir, files } = await store();
    const free = 1024 * 1024;
    const r = setStoreAside(dir, { found: 'Corruption: bad block type', freeBytes: () => free });
    expect(r.dropped).toBe(true);
    expect(r.needBytes).toBe(r.bytes + FRESH_STORE_HEADROOM_BYTES);
    expect(readdirSync(r.to)).toEqual([DROPPED_RECORD]);
    const record = readFileSync(join(r.to, DROPPED_RECORD), 'utf8');
    expect(record).toContain('Found: Corruption: bad block type');
    for (const f of files) expect(record).toMatch(new RegExp(`^${f.replace(/[.+]/g, '\\$&')} \\d+$`, 'm'));
    const line = roomLine(r)!;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(new RegExp(`^STORAGE: no room to keep the damaged store beside a fresh one in ${dir}: that needs [\\d.]+ MiB free .*, 1\\.0 MiB is free; the copy was dropped \\(its file list kept in .*DROPPED\\.txt\\) and the heal goes on`));
    expect(line).toMatch(/give the volume at least twice the store's size plus 16\.0 MiB$/);
    // The copy still counts as a store moved aside (a healed validator without privval files does not sign).
    expect(storesMovedAside(dir)).toEqual([r.to]);
  });

  it('keeps the copy when the room is exactly the copy again plus the headroom', async () => {
    const { dir, files } = await store();
    const probe = setStoreAside(dir, { freeBytes: plenty });
    renameSync(probe.to, join(dir, '..', 'back'));
    for (const f of files) renameSync(join(dir, '..', 'back', f), join(dir, f));
    const r = setStoreAside(dir, { freeBytes: () => probe.bytes + FRESH_STORE_HEADROOM_BYTES });
    expect(r.dropped).toBe(false);
    expect(readdirSync(r.to).sort()).toEqual(files);
  });

  it('a drop a crash interrupted is finished as decided', async () => {
    const { dir, files } = await store();
    const name = '.corrupt-2026-11-29T06-13-26-130Z';
    mkdirSync(join(dir, name));
    for (const f of files) renameSync(join(dir, f), join(dir, name, f));
    writeFileSync(join(dir, name, DROPPED_RECORD), 'record\n');
    writeFileSync(join(dir, '.set-aside'), name);
    // Room now (half the files may already be gone): the drop decided before the crash stands.
    const r = resumeSetAside(dir, { freeBytes: plenty });
    expect(r?.dropped).toBe(true);
    expect(readdirSync(join(dir, name))).toEqual([DROPPED_RECORD]);
  });
});
