/**
 * The indexer concern: keeps the read-side index (src/indexer/indexer.ts) in step with
 * the committed chain. On start it opens its own database and catches up to the chain
 * store's head; then each 'committed' message from the chain actor indexes one block.
 * A message that arrives past a gap (the mailbox dropped some, or a restart) first
 * catches up from the store; an already indexed height is skipped. The index is
 * derived data: one written for another schema or another chain, or one ahead of the
 * chain store (the chain was reset), is deleted and rebuilt from the store.
 *
 * A write that fails for lack of space (decision 121) is not a restart: the indexer
 * reports it (`noSpace`) and stops indexing; the storage probe's 'reopen' closes and
 * opens the index again once space is back and catches up from the chain store (the
 * blocks committed meanwhile included).
 *
 * Retention (decision 134): with `retention`, once an hour of block time the indexer
 * deletes what has aged out (src/indexer/retention.ts), between two blocks.
 */
import { Indexer, IndexerIncompatibleError, type ChainStoreLike } from '../../src/indexer/indexer';
import type { Logger } from '../../src/util/log';
import { INDEX_PRUNE_EVERY_MS, type IndexRetention } from '../../src/indexer/retention';
import type { ActorBehavior } from '../actor';
import type { IndexerCommittedMsg, IndexerMsg } from './messages';

export type { ChainStoreLike } from '../../src/indexer/indexer';

/** Where the API finds the open index; undefined while (re)starting. */
export interface IndexerHolder {
  current?: Indexer;
}

/** What the indexer uses of the node (built by src/node/node.ts). */
export interface IndexerDeps {
  /** The index's own folder (deletable: it is rebuilt from the chain store). */
  dir: string;
  /** The chain store, read-only (read when the behaviour starts, so it may open later). */
  store: () => ChainStoreLike;
  log: Logger;
  holder: IndexerHolder;
  /** The chain's identity (genesis hash hex): an index of another chain is rebuilt. */
  identity?: string;
  /**
   * A write failed: true when it failed for lack of space and was reported (the node's
   * storage guard retries with 'reopen'); false for any other fault (a restart, as before).
   */
  noSpace?: (err: unknown) => boolean;
  /** What the index keeps and for how long (absent: everything). */
  retention?: IndexRetention;
}

export function indexerBehavior(opts: IndexerDeps): ActorBehavior<IndexerMsg> {
  const { dir, holder, log } = opts;
  let indexer: Indexer | undefined;
  /** A write failed for lack of space: nothing is indexed until 'reopen' succeeds. */
  let stalled = false;
  /** Block time of the last retention run (0: none since start, so the first block runs one). */
  let prunedAtMs = 0;

  async function open(): Promise<Indexer> {
    const openOpts = opts.identity === undefined ? {} : { identity: opts.identity };
    try {
      return await Indexer.open(dir, openOpts);
    } catch (err) {
      if (!(err instanceof IndexerIncompatibleError)) throw err;
      log.warn({ err, dir }, 'indexer: incompatible index, rebuilding from the chain store');
      await Indexer.destroy(dir);
      return Indexer.open(dir, openOpts);
    }
  }

  async function catchUp(idx: Indexer, toHeight: number | undefined, signal: AbortSignal): Promise<void> {
    const from = idx.indexedHeight();
    const started = performance.now();
    const n = await idx.catchUp(opts.store(), toHeight, { signal });
    if (n > 0) {
      log.info({ from, to: idx.indexedHeight(), blocks: n, ms: Math.round(performance.now() - started) }, 'indexer caught up');
    }
  }

  return {
    async start(ctx) {
      let idx = await open();
      const head = (await opts.store().headHeight()) ?? 0;
      if (idx.indexedHeight() > head) {
        log.warn({ indexed: idx.indexedHeight(), head }, 'indexer: index is ahead of the chain store, rebuilding');
        await idx.close();
        await Indexer.destroy(dir);
        idx = await open();
      }
      indexer = idx;
      holder.current = idx; // queryable while it catches up; indexedHeight() tells how far it is
      await catchUp(idx, undefined, ctx.signal);
    },

    async handle(msg, ctx) {
      if (msg.type === 'reopen') {
        try {
          const old = indexer;
          indexer = undefined;
          if (holder.current === old) holder.current = undefined;
          await old?.close().catch(() => undefined);
          const idx = await open();
          indexer = idx;
          holder.current = idx;
          await catchUp(idx, undefined, ctx.signal);
          stalled = false;
          msg.reply.resolve();
        } catch (err) {
          msg.reply.reject(err);
        }
        return;
      }
      if (msg.type !== 'committed' || stalled) return;
      try {
        await index(msg, ctx.signal);
      } catch (err) {
        if (!opts.noSpace?.(err)) throw err;
        stalled = true;
      }
    },

    async stop() {
      const idx = indexer;
      indexer = undefined;
      if (holder.current === idx) holder.current = undefined;
      await idx?.close();
    },
  };

  /** Indexes one committed block (catching up first past a gap). */
  async function index(msg: IndexerCommittedMsg, signal: AbortSignal): Promise<void> {
    const idx = indexer!;
    const { height, timestampMs } = msg.block.header;
    if (height <= idx.indexedHeight()) return;
    if (height > idx.indexedHeight() + 1) await catchUp(idx, height - 1, signal);
    if (height !== idx.indexedHeight() + 1) {
      // The chain actor writes the store before it announces a block, so this is a broken store.
      throw new Error(`indexer: block ${height} committed but the chain store stops at ${idx.indexedHeight()}`);
    }
    const malformedBefore = idx.malformedEvents;
    await idx.indexBlock(height, timestampMs, msg.result.receipts, msg.result.blockEvents ?? []);
    if (idx.malformedEvents !== malformedBefore) {
      log.warn({ height, skipped: idx.malformedEvents - malformedBefore }, 'indexer: skipped malformed exchange events');
    }
    const retention = opts.retention;
    if (retention && timestampMs - prunedAtMs >= INDEX_PRUNE_EVERY_MS) {
      prunedAtMs = timestampMs;
      const deleted = await idx.pruneRetained(retention, timestampMs);
      if (deleted > 0) log.info({ height, deleted, lowestKept: idx.lowestKept() }, 'indexer: deleted what its retention no longer keeps');
    }
  }
}
