/**
 * The in-memory key-value store of the simulator (src/storage/memory-kv.ts, decision 126):
 * LevelDB's order and iteration, the same bytes as the LevelDB chain store for the same
 * chain, and the disk's faults as the real chain meets them: a flipped value found by its
 * checksum (StoreCorruptionError at open), the unsynced tail lost at a crash, a full disk
 * (StorageUnavailableError, then Chain.retryUnwritten once it takes writes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simGenesis } from '../../sim/chain';
import { Prng } from '../../sim/prng';
import { Workload } from '../../sim/workload';
import { Chain } from '../../src/chain/chain';
import { blockHash, canonicalCommit, type Commit } from '../../src/codec/block';
import { KvChainStore } from '../../src/storage/chain-store';
import { isStoreCorruption, StoreCorruptionError } from '../../src/storage/corruption';
import { MemoryKv } from '../../src/storage/memory-kv';
import { isNoSpace, StorageUnavailableError } from '../../src/storage/no-space';
const bytesToHex = (x: Uint8Array) => Buffer.from(x).toString('hex');

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const b = (...xs: number[]) => Uint8Array.from(xs);

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Commits `n` blocks of three workload transactions each on `chain`. */
async function grow(chain: Chain, n: number, seed = 5): Promise<void> {
  const { genesis } = simGenesis();
  const workload = new Workload(new Prng(seed), genesis);
  const proposer = genesis.validators[0].address;
  let lastCommit: Commit | null = null;
  for (let i = 1; i <= n; i++) {
    const txs = [workload.next().tx, workload.next().tx, workload.next().tx];
    const block = chain.buildBlock({ txs: txs.map((t) => t.bytes), decoded: txs, timestampMs: genesis.genesisTimeMs + i * 25, proposer, lastCommit, vrfKey: new Uint8Array(32).fill(7) });
    const commit: Commit = canonicalCommit({ height: chain.height + 1, round: 0, blockHash: blockHash(block.header), signatures: [] });
    await chain.commit(block, commit);
    lastCommit = commit;
  }
}

function openMemory(kv: MemoryKv, syncWrites = false): Promise<Chain> {
  const { genesis, hash } = simGenesis();
  return Chain.open({ dataDir: kv.path, genesis, genesisHash: hash, store: new KvChainStore(kv.path, kv, syncWrites) });
}

describe('MemoryKv', () => {
  it('orders keys bytewise and iterates a range over the store as it was when the iteration started', async () => {
    const kv = new MemoryKv('mem');
    await kv.open();
    await kv.write(
      [b(2, 0), b(1, 255), b(1), b(1, 0, 0), b(0, 9), b(3)].map((key) => ({ type: 'put' as const, key, value: key })),
      { sync: true },
    );
    const keys = (await all(kv.keys())).map((k) => bytesToHex(k));
    expect(keys).toEqual(['0009', '01', '010000', '01ff', '0200', '03']);
    const ranged = await all(kv.entries({ gte: b(1), lt: b(2) }));
    expect(ranged.map(([k]) => bytesToHex(k))).toEqual(['01', '010000', '01ff']);
    // Writes made during an iteration are not seen by it.
    const seen: string[] = [];
    for await (const k of kv.keys({ gte: b(2) })) {
      seen.push(bytesToHex(k));
      await kv.put(b(2, 1), b(7), { sync: true });
      await kv.del(b(3), { sync: true });
    }
    expect(seen).toEqual(['0200', '03']);
    expect((await all(kv.keys({ gte: b(2) }))).map((k) => bytesToHex(k))).toEqual(['0200', '0201']);
    // Values are copied in and out.
    const v = b(1, 2, 3);
    await kv.put(b(9), v, { sync: true });
    v[0] = 99;
    const got = (await kv.get(b(9))) as Uint8Array;
    expect([...got]).toEqual([1, 2, 3]);
    got[1] = 99;
    expect([...((await kv.get(b(9))) as Uint8Array)]).toEqual([1, 2, 3]);
  });

  it('holds the same keys and bytes as LevelDB for the same chain', async () => {
    const { genesis, hash } = simGenesis();
    const dir = mkdtempSync(join(tmpdir(), 'memkv-'));
    dirs.push(dir);
    const level = await Chain.open({ dataDir: dir, genesis, genesisHash: hash, syncWrites: false });
    await grow(level, 4);
    const kv = new MemoryKv('mem');
    const memory = await openMemory(kv);
    await grow(memory, 4);
    expect(memory.stateRoot).toEqual(level.stateRoot);
    const fromLevel = (await all(level.store.db.entries())).map(([k, v]) => `${bytesToHex(k)}=${bytesToHex(v)}`);
    const fromMemory = (await all(kv.entries())).map(([k, v]) => `${bytesToHex(k)}=${bytesToHex(v)}`);
    expect(fromMemory.length).toBeGreaterThan(40);
    expect(fromMemory).toEqual(fromLevel);
    await level.close();
  });

  it('finds a flipped value by its checksum: the read throws LevelDB corruption, and Chain.open a StoreCorruptionError naming the folder', async () => {
    const kv = new MemoryKv('sim/node-1/chain');
    const chain = await openMemory(kv);
    await grow(chain, 3);
    await chain.close();
    const prng = new Prng(3);
    expect(kv.corrupt((n) => prng.int(n))).toBe(true);
    expect(kv.corruptionsInjected).toBe(1);
    // Every value read, as Chain.open's scan does: the damaged one throws LevelDB's corruption.
    await kv.open();
    const reads = await all(kv.entries()).catch((err: unknown) => err);
    expect(isStoreCorruption(reads)).toBe(true);
    expect(kv.corruptionsDetected).toBe(1);
    await kv.close();
    const refused = await openMemory(kv).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StoreCorruptionError);
    expect((refused as StoreCorruptionError).folder).toBe('sim/node-1/chain');
    expect((refused as StoreCorruptionError).found).toMatch(/checksum mismatch/);
    // Counted once per damaged value.
    expect(kv.corruptionsDetected).toBe(1);
  });

  it('a crash loses the newest unsynced batches only; a synced write makes the earlier ones durable', async () => {
    const kv = new MemoryKv('mem', 8);
    const chain = await openMemory(kv);
    await grow(chain, 5);
    expect(kv.unsyncedBatches).toBe(5);
    expect(kv.crash(2)).toBe(2);
    const reopened = await openMemory(kv);
    expect(reopened.height).toBe(3);
    await reopened.close();
    // The batches a crash left are on disk: the next crash has nothing to lose.
    expect(kv.crash(5)).toBe(0);
    expect((await openMemory(kv)).height).toBe(3);
    await kv.put(b(200), b(1), { sync: false });
    await kv.put(b(201), b(1), { sync: true });
    expect(kv.crash(5)).toBe(0);
    await kv.open();
    expect(await kv.get(b(200))).toBeDefined();
    // No more than `unsyncedKept` batches are ever at risk.
    const small = new MemoryKv('mem', 2);
    await small.open();
    for (let i = 0; i < 5; i++) await small.put(b(i), b(i), { sync: false });
    expect(small.crash(5)).toBe(2);
    await small.open();
    expect((await all(small.keys())).length).toBe(3);
  });

  it('a full disk refuses every write and changes nothing; the chain keeps the block in memory and writes it once the disk takes writes', async () => {
    const kv = new MemoryKv('mem');
    const chain = await openMemory(kv, true);
    await grow(chain, 2);
    kv.full = true;
    const refused = await kv.put(b(1), b(1), { sync: true }).catch((err: unknown) => err);
    expect(isNoSpace(refused)).toBe(true);
    expect(await kv.get(b(1))).toBeUndefined();
    const failed = await grow(chain, 1, 9).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(StorageUnavailableError);
    expect(chain.height).toBe(3);
    expect(chain.unwrittenHeight).toBe(3);
    kv.full = false;
    const written = await chain.retryUnwritten();
    expect(written?.block.header.height).toBe(3);
    await chain.close();
    const reopened = await openMemory(kv);
    expect(reopened.height).toBe(3);
    expect(reopened.stateRoot).toEqual(chain.stateRoot);
  });
});
