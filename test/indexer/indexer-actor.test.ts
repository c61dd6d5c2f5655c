/**
 * The indexer actor under the real supervisor: catches up to the store's head on start,
 * indexes 'committed' blocks, fills gaps from the store, skips repeats, rebuilds an
 * index that is ahead of the store, and exposes the open Indexer through its holder.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { indexerBehavior, type IndexerHolder } from '../../actors/indexer/indexer-actor';
import type { IndexerMsg } from '../../actors/indexer/messages';
import { SupervisedActor } from '../../actors/actor';
import { Indexer } from '../../src/indexer/indexer';
import type { Receipt } from '../../src/state/context';
import { createLogger } from '../../src/util/log';
import { FakeStore, fixtureBlocks, snapshot, T0, tempDir } from './fixture';

const dir = tempDir('exchain-indexer-actor-');
afterAll(() => dir.remove());
const log = createLogger({ destination: 'silent' });

async function until(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function committed(height: number, timestampMs: number, receipts: Receipt[]): IndexerMsg {
  return { type: 'committed', block: { header: { height, timestampMs } }, result: { receipts } };
}

function start(path: string, store: FakeStore, holder: IndexerHolder): SupervisedActor<IndexerMsg> {
  return new SupervisedActor<IndexerMsg>('indexer', () => indexerBehavior({ dir: path, store: () => store, log, holder }), {
    capacity: 100,
    log,
    backoff: { initialMs: 5, maxMs: 20 },
  });
}

describe('indexer actor', () => {
  it('catches up on start, indexes committed blocks, fills gaps, and skips repeats', async () => {
    const blocks = fixtureBlocks();
    const store = new FakeStore(blocks.slice(0, 2), 2); // the chain has 2 blocks when the node starts
    const holder: IndexerHolder = {};
    const path = `${dir.path}/a`;
    const actor = start(path, store, holder);
    await actor.start();
    expect(holder.current?.indexedHeight()).toBe(2);

    // Block 3 committed and announced.
    store.append(blocks[2].timestampMs, blocks[2].receipts);
    actor.send(committed(3, blocks[2].timestampMs, blocks[2].receipts));
    await until(() => holder.current?.indexedHeight() === 3);

    // Blocks 4 and 5 committed but their messages lost (mailbox full): 6 arrives.
    for (const b of blocks.slice(3)) store.append(b.timestampMs, b.receipts);
    actor.send(committed(6, blocks[5].timestampMs, blocks[5].receipts));
    await until(() => holder.current?.indexedHeight() === 6);
    // A late duplicate is skipped.
    actor.send(committed(4, blocks[3].timestampMs, blocks[3].receipts));
    await until(() => actor.stats.processed === 3);
    expect(actor.stats.failed).toBe(0);

    const answers = await snapshot(holder.current!);
    await actor.stop();
    expect(holder.current).toBeUndefined();

    // Same answers as an index built directly from the whole chain.
    const ref = await Indexer.open(`${dir.path}/ref`);
    await ref.catchUp(new FakeStore(blocks, 6));
    expect(answers).toEqual(await snapshot(ref));
    await ref.close();
  });

  it('rebuilds an index that is ahead of the chain store (the chain was reset)', async () => {
    const blocks = fixtureBlocks();
    const path = `${dir.path}/b`;
    const old = await Indexer.open(path);
    await old.catchUp(new FakeStore(blocks, 6));
    await old.close();

    // A new chain of one block, with different content, in the same data folder.
    const store = new FakeStore([], 0);
    store.append(T0 + 5_000, blocks[0].receipts);
    const holder: IndexerHolder = {};
    const actor = start(path, store, holder);
    await actor.start();
    expect(holder.current!.indexedHeight()).toBe(1);
    expect(holder.current!.stats()).toEqual({ totalOrders: 2, totalTrades: 1, agentTrades: 1, humanTrades: 0, volumeUsdc: '1000.25' });
    await actor.stop();
  });
});
