/**
 * Pruning (issue 27 deliver 2, decisions 132-135): the chain store deletes whole heights
 * below a moving base, in bounded batches, on LevelDB and in memory alike; LevelDB gives
 * the bytes back once the pruned range is compacted; the pruner keeps the window and
 * never passes its floor; Chain.open and the store check accept a pruned store; block
 * sync answers a request below the base with no block and the base.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHash, canonicalCommit, type Block, type Commit } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import { checkChainStore } from '../../src/chain/check';
import { Pruner, pruneTarget } from '../../src/chain/prune';
import { decodeSyncResponse, serveSync } from '../../src/chain/sync';
import { Bucket, KvChainStore } from '../../src/storage/chain-store';
import { MemoryKv } from '../../src/storage/memory-kv';
import { bytesToHex } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetVrfKey, tempDir } from '../helpers/devnet';
import { faucetTxs, genesis, hash } from './fixture';

const proposer = DEVNET_KEYS.validators[0].address;
const HEIGHTS = 120;
const TXS_PER_BLOCK = 4;
/** A commit naming its block (no signatures: Chain.commit and the store check read its height and hash, not its power). */
const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: blockHash(b.header), signatures: [] });

/** Commits HEIGHTS blocks of faucet transactions (receipts and tx index entries in every one); returns their tx hashes by height. */
async function fill(chain: Chain): Promise<Map<number, string[]>> {
  const hashes = new Map<number, string[]>();
  let last: Commit | null = null;
  let nonce = 1n;
  for (let h = 1; h <= HEIGHTS; h++) {
    const txs = faucetTxs(Array.from({ length: TXS_PER_BLOCK }, () => nonce++));
    const b = chain.buildBlock({ txs: txs.map((t) => t.bytes), timestampMs: genesis.genesisTimeMs + h * 1_000, proposer, lastCommit: last, vrfKey: devnetVrfKey(0) });
    last = commitOf(b);
    await chain.commit(b, last);
    hashes.set(h, txs.map((t) => bytesToHex(t.hash)));
  }
  return hashes;
}

function folderBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function expectPrunedBelow(store: KvChainStore, base: number, hashes: Map<number, string[]>): Promise<void> {
  expect(await store.base()).toBe(base);
  for (const h of [1, base - 1]) {
    expect(await store.getBlock(h)).toBeUndefined();
    expect(await store.getCommit(h)).toBeUndefined();
    expect(await store.getReceipts(h)).toBeUndefined();
    expect(await store.getTxLocation(hashes.get(h)![0])).toBeUndefined();
  }
  expect(await store.getStateRoot(base - 2)).toBeUndefined();
  // Kept: the base block and on, the root it builds on, the genesis root.
  expect((await store.getBlock(base))!.header.height).toBe(base);
  expect(await store.getTxLocation(hashes.get(base)![0])).toEqual({ height: base, index: 0 });
  expect(await store.getStateRoot(base - 1)).toBeDefined();
  expect(await store.getStateRoot(0)).toBeDefined();
  const counts = await store.countKeys();
  const head = (await store.headHeight())!;
  expect(counts.get(Bucket.Block)).toBe(head - base + 1);
  expect(counts.get(Bucket.Commit)).toBe(head - base + 1);
  expect(counts.get(Bucket.BlockHash)).toBe(head - base + 1);
  expect(counts.get(Bucket.TxIndex)).toBe((head - base + 1) * TXS_PER_BLOCK);
}

describe('pruneTarget', () => {
  it('keeps the newest retainBlocks, never past floor + 1, never below the base', () => {
    expect(pruneTarget(1_000, 100, undefined, 1)).toBe(901);
    expect(pruneTarget(1_000, 100, 500, 1)).toBe(501);
    expect(pruneTarget(1_000, 100, 950, 1)).toBe(901);
    expect(pruneTarget(50, 100, undefined, 1)).toBe(1);
    expect(pruneTarget(1_000, 100, 0, 300)).toBe(300);
  });
});

describe('the chain store on LevelDB', () => {
  const dir = tempDir('exchain-prune-');
  let chain: Chain;
  let hashes: Map<number, string[]>;
  beforeAll(async () => {
    chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
    hashes = await fill(chain);
  });
  afterAll(async () => {
    await chain?.close().catch(() => undefined);
    dir.remove();
  });

  it('deletes whole heights below the base in bounded batches, and the disk shrinks once compacted', async () => {
    const store = chain.store;
    expect(await store.base()).toBe(1);
    // The baseline: everything in tables (a compaction of all of it), so both sides are measured alike.
    await store.db.compactRange({ gte: Uint8Array.of(0), lt: Uint8Array.of(0xff) });
    const before = folderBytes(dir.path);
    const writes: number[] = [];
    const write = store.db.write.bind(store.db);
    store.db.write = async (ops, opts) => {
      writes.push(ops.length);
      return write(ops, opts);
    };
    const { base, pruned } = await store.pruneBelow(101, { batchHeights: 16 });
    store.db.write = write;
    expect({ base, pruned }).toEqual({ base: 101, pruned: 100 });
    expect(writes.length).toBe(7); // 100 heights, 16 a batch
    for (const n of writes) expect(n).toBeLessThanOrEqual(16 * (6 + TXS_PER_BLOCK) + 1);
    await expectPrunedBelow(store, 101, hashes);
    await store.compactPruned(1, 101);
    const after = folderBytes(dir.path);
    // 100 of 120 blocks gone: the folder holds well under half of its blocks' bytes (state records stay).
    expect(after).toBeLessThan(before * 0.6);
  });

  it('opens again, checks sound from its base, and serves no block below the base', async () => {
    await chain.close();
    chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
    expect(chain.height).toBe(HEIGHTS);
    expect(await chain.store.base()).toBe(101);
    const below = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 50, maxBlocks: 10 }), genesis.consensus.maxBlockBytes);
    expect(below).toMatchObject({ peerHead: HEIGHTS, peerBase: 101, blocks: [] });
    const kept = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 101, maxBlocks: 3 }), genesis.consensus.maxBlockBytes);
    expect(kept.blocks.map((b) => b.block.header.height)).toEqual([101, 102, 103]);
    expect(blockHash(kept.blocks[2].block.header)).toEqual(blockHash((await chain.store.getBlock(103))!.header));
    await chain.close();
    const r = await checkChainStore(dir.path, { genesisHash: hash });
    expect(r.findings).toEqual([]);
    expect(r).toMatchObject({ sound: true, height: HEIGHTS, base: 101, blocks: 20 });
    chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
  });
});

describe('the pruner over the in-memory store', () => {
  it('keeps the window, stops at the floor, and deletes what LevelDB deletes', async () => {
    const kv = new MemoryKv('memory');
    const store = new KvChainStore('memory', kv, false);
    const chain = await Chain.open({ dataDir: 'memory', genesis, genesisHash: hash, store });
    const hashes = await fill(chain);
    let floor: number | undefined = 30;
    const pruner = new Pruner(store, { retainBlocks: 50, floor: () => floor, runHeights: 1_000, batchHeights: 8, compactEveryHeights: 10 });
    pruner.kick();
    await pruner.idle();
    // The floor (a snapshot at 30 a peer may still need): blocks from 31 on stay.
    expect(await store.base()).toBe(31);
    floor = undefined;
    pruner.kick();
    pruner.kick(); // a kick during a run: one more run after it, not two at once
    await pruner.idle();
    expect(await store.base()).toBe(HEIGHTS - 50 + 1);
    await expectPrunedBelow(store, HEIGHTS - 50 + 1, hashes);
    expect(pruner.compactions).toBeGreaterThan(0);
    const keysBefore = kv.size;
    await pruner.run();
    expect(kv.size).toBe(keysBefore); // nothing more to do at the same head
    await pruner.stop();
    pruner.kick();
    await pruner.idle();
    await chain.close();
    const reopened = await Chain.open({ dataDir: 'memory', genesis, genesisHash: hash, store: new KvChainStore('memory', kv, false) });
    expect(reopened.height).toBe(HEIGHTS);
    await reopened.close();
  });
});
