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

  it('starts empty, and a reopened file holds the last state written', async () => {
    const d = dir();
    const f = await PrivValFile.open(d);
    expect(f.latest).toBeUndefined();
    await f.write(bytes('first'));
    await f.write(bytes('second, longer than the first'));
    await f.write(bytes('third'));
    f.close();
    const g = await PrivValFile.open(d);
    expect(text(g.latest)).toBe('third');
    g.close();
  });

  it('alternates slots: tearing the newest write falls back to the state before it', async () => {
    const d = dir();
    const f = await PrivValFile.open(d);
    await f.write(bytes('one')); // sequence 1: slot b
    await f.write(bytes('two')); // sequence 2: slot a
    await f.write(bytes('three, the newest')); // sequence 3: slot b
    f.close();
    expect(decodeSlot(fs.readFileSync(join(d, 'a')))?.seq).toBe(2n);
    expect(decodeSlot(fs.readFileSync(join(d, 'b')))?.seq).toBe(3n);
    // A crash in the middle of writing slot b: its tail never reached the disk.
    const b = fs.readFileSync(join(d, 'b'));
    fs.writeFileSync(join(d, 'b'), b.subarray(0, b.length - 4));
    const g = await PrivValFile.open(d);
    expect(text(g.latest)).toBe('two');
    // The next write goes on from the intact state and wins again after a reopen.
    await g.write(bytes('four'));
    g.close();
    const h = await PrivValFile.open(d);
    expect(text(h.latest)).toBe('four');
    h.close();
  });

  it('a flipped byte in the newest slot fails its checksum', async () => {
    const d = dir();
    const f = await PrivValFile.open(d);
    await f.write(bytes('old state'));
    await f.write(bytes('new state'));
    f.close();
    const a = fs.readFileSync(join(d, 'a'));
    a[a.length - 1] ^= 1;
    fs.writeFileSync(join(d, 'a'), a);
    const g = await PrivValFile.open(d);
    expect(text(g.latest)).toBe('old state');
    g.close();
  });

  it('refuses to start when no slot is intact after writes completed', async () => {
    const d = dir();
    const f = await PrivValFile.open(d);
    await f.write(bytes('one'));
    await f.write(bytes('two'));
    f.close();
    for (const s of ['a', 'b']) {
      const buf = fs.readFileSync(join(d, s));
      buf[21] ^= 0xff;
      fs.writeFileSync(join(d, s), buf);
    }
    await expect(PrivValFile.open(d)).rejects.toThrow(PrivValFileError);
  });

  it('a torn first write leaves a fresh validator (nothing it wrote was ever released)', async () => {
    const d = dir();
    const f = await PrivValFile.open(d);
    await f.write(bytes('the very first state'));
    f.close();
    const b = fs.readFileSync(join(d, 'b'));
    fs.writeFileSync(join(d, 'b'), b.subarray(0, 10));
    const g = await PrivValFile.open(d);
    expect(g.latest).toBeUndefined();
    g.close();
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
