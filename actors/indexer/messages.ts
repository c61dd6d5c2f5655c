/**
 * What the indexer actor (actors/indexer/indexer-actor.ts) accepts in its mailbox. A
 * leaf module: types only, no actor behaviour and nothing of src/node (see
 * actors/chain/messages.ts).
 */
import type { ChainEvent, Receipt } from '../../src/state/context';
import type { Reply } from '../actor';

export type IndexerMsg = IndexerCommittedMsg | IndexerReopenMsg;

/**
 * Close and open the index again and catch up from the chain store: the storage probe's
 * retry after a write failed for lack of space (decision 121). Rejects while it still fails.
 */
export type IndexerReopenMsg = { type: 'reopen'; reply: Reply<void> };

export type IndexerCommittedMsg = {
  type: 'committed';
  block: { header: { height: number; timestampMs: number } };
  /** The block's receipts and its own events (BlockResult), indexed in that order. */
  result: { receipts: Receipt[]; blockEvents?: ChainEvent[] };
};
