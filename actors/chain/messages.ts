/**
 * What the chain actor (executor and store, actors/chain/chain-actor.ts) accepts in its
 * mailbox. A leaf module: types only, no actor behaviour and nothing of src/node, so
 * another actor's dependency bundle (ConsensusDeps, ProducerDeps, …) can name this
 * mailbox without an import circle.
 */
import type { Block, Commit } from '../../src/codec/block';
import type { Tx } from '../../src/codec/tx';
import type { BlockResult, VerifiedCache } from '../../src/state/apply';
import type { Reply } from '../actor';

export type ChainMsg = ChainCommitMsg | ChainRetryMsg;

/**
 * Write again the block kept unwritten when the disk was full (decision 121); sent by the
 * node's storage probe once space is back. Resolves once it is on disk and announced
 * (nothing to write resolves at once); rejects while the write still fails.
 */
export type ChainRetryMsg = { type: 'retryWrite'; reply: Reply<void> };

export type ChainCommitMsg = {
  type: 'commit';
  block: Block;
  commit: Commit;
  verified?: VerifiedCache;
  /** The block's transactions already decoded (this node proposed it), aligned with block.txs. */
  decoded?: Tx[];
  /**
   * Answer the API's waiting requests once the block is applied in memory, before it is
   * on this node's disk (decision 63). Only for a block decided by BFT consensus: every
   * validator that precommitted it wrote the block with its lock to its privval file
   * before that precommit left, and keeps it there until the block is in its own store,
   * so a decided block outlives any crash of any number of nodes. The solo producer has
   * no such copy: its blocks are answered once on disk.
   */
  ackAtApply?: boolean;
  reply: Reply<BlockResult>;
};
