/**
 * The chain store's corruption detection and its end-to-end check (issue 26; decisions
 * 123, 124) on stores a real Chain wrote: a clean store is sound; random bytes in a
 * table file, a log file cut short and a deleted MANIFEST are each found by the check and
 * refused by Chain.open as a StoreCorruptionError naming the folder; a node with peers
 * moves such a store aside (kept) and starts from an empty one, and one without refuses.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Chain } from '../../src/chain/chain';
import { checkChainStore, StoreLockedError } from '../../src/chain/check';
import { checkLogFile, crc32c, StoreCorruptionError } from '../../src/storage/corruption';
import { openChainHealing } from '../../src/node/store-heal';
import { bytesToHex, utf8 } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { tempDir } from '../helpers/devnet';
import { corruptNewestTable, deleteManifest, flushToTable, genesis, hash, truncateLog, writeChain } from './store-fixture';

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
function storeDir(): string {
  const d = tempDir('exchain-check-');
  dirs.push(d);
  return join(d.path, 'chain');
}
const open = (dir: string) => Chain.open({ dataDir: dir, genesis, genesisHash: hash, syncWrites: false });

describe('CRC-32C', () => {
  it("is LevelDB's (the Castagnoli check value of '123456789')", () => {
    expect(crc32c(utf8.encode('123456789'))).toBe(0xe3069283);
  });
});

describe('checkChainStore', () => {
  it('finds a store a real Chain wrote sound, with the state root committed at its head', async () => {
    const dir = storeDir();
    const { height, stateRoot } = await writeChain(dir, 30);
    const r = await checkChainStore(dir, { genesisHash: hash });
    expect(r.findings).toEqual([]);
    expect(r.sound).toBe(true);
    expect(r.height).toBe(height);
    expect(r.blocks).toBe(height);
    expect(r.stateRoot).toBe(bytesToHex(stateRoot));
    expect(r.keys.Block).toBe(height);
    // And again once the log became a table file.
    await flushToTable(dir);
    expect((await checkChainStore(dir)).sound).toBe(true);
  });

  it('says a store of another genesis is not sound for this one', async () => {
    const dir = storeDir();
    await writeChain(dir, 2);
    const r = await checkChainStore(dir, { genesisHash: new Uint8Array(32) });
    expect(r.sound).toBe(false);
    expect(r.findings[0]).toMatch(/belongs to genesis/);
  });

  it('finds 4 KiB of random bytes in the newest table file', async () => {
    const dir = storeDir();
    await writeChain(dir, 60);
    await flushToTable(dir);
    corruptNewestTable(dir);
    const r = await checkChainStore(dir);
    expect(r.sound).toBe(false);
    expect(r.findings.join('\n')).toMatch(/Corruption|does not|not the|decode|stored/i);
    await expect(open(dir)).rejects.toThrow(StoreCorruptionError);
  });

  it('finds a log file cut short, before LevelDB opens the store and drops the tail', async () => {
    const dir = storeDir();
    await writeChain(dir, 30);
    const log = truncateLog(dir);
    expect(checkLogFile(log)).toMatch(/truncated or torn/);
    const r = await checkChainStore(dir);
    expect(r.sound).toBe(false);
    expect(r.findings[0]).toMatch(/\.log: ends in the middle of a record/);
    // The check did not open the store: the log is still there for the operator to look at.
    expect(existsSync(log)).toBe(true);
    const err = await open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreCorruptionError);
    expect((err as StoreCorruptionError).folder).toBe(dir);
  });

  it('finds a deleted MANIFEST', async () => {
    const dir = storeDir();
    await writeChain(dir, 5);
    await flushToTable(dir);
    deleteManifest(dir);
    const r = await checkChainStore(dir);
    expect(r.sound).toBe(false);
    expect(r.findings[0]).toMatch(/MANIFEST-\d+ \(named by CURRENT\) is missing/);
    await expect(open(dir)).rejects.toThrow(/MANIFEST-\d+ \(named by CURRENT\) is missing/);
  });

  it('refuses to read a store a running node holds', async () => {
    const dir = storeDir();
    await writeChain(dir, 2);
    const chain = await open(dir);
    try {
      await expect(checkChainStore(dir)).rejects.toThrow(StoreLockedError);
    } finally {
      await chain.close();
    }
  });
});

describe('openChainHealing', () => {
  const log = createLogger({ destination: 'silent' });

  it('with peers: sets the corrupted store aside in its folder (kept whole) and opens an empty one at genesis', async () => {
    const dir = storeDir();
    await writeChain(dir, 30);
    truncateLog(dir);
    const before = readdirSync(dir).sort();
    const chain = await openChainHealing({ dataDir: dir, genesis, genesisHash: hash, syncWrites: false }, true, log);
    try {
      expect(chain.height).toBe(0);
    } finally {
      await chain.close();
    }
    // Set aside inside the folder (decision 166: the folder may be a mount point), kept whole.
    const aside = readdirSync(dir).filter((f) => f.startsWith('.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readdirSync(join(dir, aside[0])).sort()).toEqual(before);
    expect((await checkChainStore(dir)).sound).toBe(true);
  });

  it('without peers: refuses to start and leaves the store where it is', async () => {
    const dir = storeDir();
    await writeChain(dir, 5);
    await flushToTable(dir);
    deleteManifest(dir);
    await expect(openChainHealing({ dataDir: dir, genesis, genesisHash: hash, syncWrites: false }, false, log)).rejects.toThrow(StoreCorruptionError);
    expect(readdirSync(dirname(dir))).toEqual([basename(dir)]);
  });
});
