import fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeSlot, openPrivValState, PrivValFile, PrivValFileError } from '../../src/storage/privval-file';
import { ChainStore } from '../../src/storage/db';
import { tempDir } from '../helpers/devnet';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

describe('PrivValFile: the privval state in two alternating slots', () => {
  const dirs: { path: string; remove(): void }[] = [];
  const dir = () => {
    const d = tempDir('privval-');
    dirs.push(d);
    return join(d.path, 'privval');
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });
  /** A fresh folder holding the given states, written in order. */
  const written = async (...states: string[]) => {
    const d = dir();
    const f = await PrivValFile.open(d);
    for (const st of states) await f.write(bytes(st));
    f.close();
    return d;
  };
  /** What a reopened file holds. */
  const reopened = async (d: string) => {
    const g = await PrivValFile.open(d);
    const latest = text(g.latest);
    g.close();
    return latest;
  };
  /** Rewrites one slot's bytes on disk (what a crash or a bad disk leaves). */
  const damage = (d: string, slot: 'a' | 'b', change: (b: Buffer) => Buffer) => fs.writeFileSync(join(d, slot), change(fs.readFileSync(join(d, slot))));

  it('starts empty, and a reopened file holds the last state written', async () => {
    expect(await reopened(dir())).toBeUndefined();
    const d = await written('first', 'second, longer than the first', 'third');
    expect(await reopened(d)).toBe('third');
  });

  it('alternates slots: tearing the newest write falls back to the state before it', async () => {
    // Sequence 1 goes to slot b, 2 to a, 3 to b.
    const d = await written('one', 'two', 'three, the newest');
    expect(decodeSlot(fs.readFileSync(join(d, 'a')))?.seq).toBe(2n);
    expect(decodeSlot(fs.readFileSync(join(d, 'b')))?.seq).toBe(3n);
    // A crash in the middle of writing slot b: its tail never reached the disk.
    damage(d, 'b', (b) => b.subarray(0, b.length - 4));
    const g = await PrivValFile.open(d);
    expect(text(g.latest)).toBe('two');
    // The next write goes on from the intact state and wins again after a reopen.
    await g.write(bytes('four'));
    g.close();
    expect(await reopened(d)).toBe('four');
  });

  it('a flipped byte in the newest slot fails its checksum', async () => {
    const d = await written('old state', 'new state');
    damage(d, 'a', (a) => ((a[a.length - 1] ^= 1), a));
    expect(await reopened(d)).toBe('old state');
  });

  it('refuses to start when no slot is intact after writes completed', async () => {
    const d = await written('one', 'two');
    for (const slot of ['a', 'b'] as const) damage(d, slot, (buf) => ((buf[21] ^= 0xff), buf));
    await expect(PrivValFile.open(d)).rejects.toThrow(PrivValFileError);
  });

  it('a torn first write leaves a fresh validator (nothing it wrote was ever released)', async () => {
    const d = await written('the very first state');
    damage(d, 'b', (b) => b.subarray(0, 10));
    expect(await reopened(d)).toBeUndefined();
  });

  it('writes issued without waiting land in order', async () => {
    const d = dir();
    const f = await PrivValFile.open(d);
    await Promise.all(Array.from({ length: 9 }, (_, i) => f.write(bytes(`state ${i}`))));
    f.close();
    const g = await PrivValFile.open(d);
    expect(text(g.latest)).toBe('state 8');
    expect(decodeSlot(fs.readFileSync(join(d, 'a')))?.seq).toBe(8n);
    expect(decodeSlot(fs.readFileSync(join(d, 'b')))?.seq).toBe(9n);
    g.close();
  });

  it('a closed file refuses writes', async () => {
    const f = await PrivValFile.open(dir());
    f.close();
    await expect(f.write(bytes('late'))).rejects.toThrow(PrivValFileError);
  });

  it('carries a state from the chain store of an older data folder over, then deletes it there', async () => {
    const root = tempDir('privval-legacy-');
    dirs.push(root);
    const store = new ChainStore(join(root.path, 'chain'), true);
    await store.open();
    try {
      await store.putLegacyPrivValState(bytes('signed before the upgrade'));
      const first = await openPrivValState(join(root.path, 'privval'), store);
      expect(text(first.saved)).toBe('signed before the upgrade');
      expect(await store.getLegacyPrivValState()).toBeUndefined();
      first.file.close();
      // Reopened: the files hold it now.
      const second = await openPrivValState(join(root.path, 'privval'), store);
      expect(text(second.saved)).toBe('signed before the upgrade');
      await second.file.write(bytes('signed after'));
      second.file.close();
      // A crash between the copy and the delete leaves the record in both places: the files win.
      await store.putLegacyPrivValState(bytes('signed before the upgrade'));
      const third = await openPrivValState(join(root.path, 'privval'), store);
      expect(text(third.saved)).toBe('signed after');
      expect(await store.getLegacyPrivValState()).toBeUndefined();
      third.file.close();
    } finally {
      await store.close();
    }
  });
});
