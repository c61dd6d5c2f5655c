/**
 * Block pruning (issue 27 deliver 2, decision 132): keeps the newest `retainBlocks`
 * blocks (with their commits, receipts, block events, tx index entries and state roots)
 * and deletes the older ones, off the block path: the chain actor kicks the pruner after
 * each commit and does not wait for it; one run at a time deletes at most
 * PRUNE_RUN_HEIGHTS heights, in atomic batches of PRUNE_BATCH_HEIGHTS (the store's
 * pruneBelow), then yields until the next kick.
 *
 * How far (pruneTarget, pure): the new base is head − retainBlocks + 1, but never past
 * `floor() + 1`: the floor is the highest height whose successors must stay (the newest
 * state snapshot a peer may still need, whose blocks from its height + 1 on a joining node
 * fetches; and the indexer's indexed height, whose successors it has yet to read). An
 * undefined floor is no limit. Every COMPACT_EVERY_HEIGHTS heights pruned, the range is
 * compacted, so LevelDB gives the disk back rather than keeping the deleted values.
 */
import { PRUNE_BATCH_HEIGHTS, type KvChainStore } from '../storage/chain-store';
import type { Logger } from '../util/log';

/** The fewest blocks a node may keep (flag and genesis): peers a little behind still sync from it, and the API serves recent blocks. */
export const RETAIN_BLOCKS_MIN = 100;
/** Heights one pruner run deletes at most before it yields to the next kick (bounds one run's time). */
const PRUNE_RUN_HEIGHTS = 4_096;
/** Heights pruned between two compactions of the pruned range. */
const COMPACT_EVERY_HEIGHTS = 10_000;

/** The base to prune up to (exclusive of what stays): the lowest height to keep, at least the current base. Pure. */
export function pruneTarget(head: number, retainBlocks: number, floor: number | undefined, base: number): number {
  let target = head - retainBlocks + 1;
  if (floor !== undefined) target = Math.min(target, floor + 1);
  return Math.max(base, target, 1);
}

export interface PrunerOptions {
  retainBlocks: number;
  /** The highest height whose successors must be kept (undefined: no limit). */
  floor?: () => number | undefined;
  log?: Pick<Logger, 'info' | 'warn'>;
  runHeights?: number;
  batchHeights?: number;
  compactEveryHeights?: number;
}

export interface PruneRun {
  base: number;
  pruned: number;
  compacted: boolean;
}

export class Pruner {
  #running: Promise<PruneRun> | undefined;
  #again = false;
  #stopped = false;
  #sinceCompact = 0;
  #compactFrom: number | undefined;
  /** Heights deleted since the pruner started, and compactions run. */
  prunedHeights = 0;
  compactions = 0;

  constructor(
    readonly store: KvChainStore,
    private readonly opts: PrunerOptions,
  ) {
    if (!Number.isSafeInteger(opts.retainBlocks) || opts.retainBlocks < 1) throw new RangeError(`retainBlocks must be a positive integer, got ${opts.retainBlocks}`);
  }

  /** After a commit: starts a run unless one is going (then one more follows it). Never throws; a failed run is logged. */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.run()
      .catch((err) => {
        this.opts.log?.warn({ err }, 'pruning: a run failed; the next block tries again');
        return { base: 0, pruned: 0, compacted: false };
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /** One run: prunes up to the target (at most runHeights heights), compacting when enough was deleted. */
  async run(): Promise<PruneRun> {
    const head = (await this.store.headHeight()) ?? 0;
    const before = await this.store.base();
    const target = pruneTarget(head, this.opts.retainBlocks, this.opts.floor?.(), before);
    if (target <= before) return { base: before, pruned: 0, compacted: false };
    const { base, pruned } = await this.store.pruneBelow(target, { batchHeights: this.opts.batchHeights ?? PRUNE_BATCH_HEIGHTS, maxHeights: this.opts.runHeights ?? PRUNE_RUN_HEIGHTS });
    this.prunedHeights += pruned;
    this.#compactFrom ??= before;
    this.#sinceCompact += pruned;
    let compacted = false;
    if (this.#sinceCompact >= (this.opts.compactEveryHeights ?? COMPACT_EVERY_HEIGHTS)) {
      await this.store.compactPruned(this.#compactFrom, base);
      this.opts.log?.info({ from: this.#compactFrom, to: base, heights: this.#sinceCompact }, 'pruning: compacted the pruned blocks');
      this.#compactFrom = undefined;
      this.#sinceCompact = 0;
      this.compactions++;
      compacted = true;
    }
    return { base, pruned, compacted };
  }

  /** Resolves when no run is going (tests; the chain actor's stop). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** No run starts after this; resolves once the current one ended (before the store closes). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.idle();
  }
}
