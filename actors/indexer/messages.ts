/**
 * What the indexer actor (actors/indexer/indexer-actor.ts) accepts in its mailbox. A
 * leaf module: types only, no actor behaviour and nothing of src/node (see
 * actors/chain/messages.ts).
 */
import type { ChainEvent, Receipt } from '../../src/state/context';

export type IndexerMsg = {
  type: 'committed';
  block: { header: { height: number; timestampMs: number } };
  /** The block's receipts and its own events (BlockResult), indexed in that order. */
  result: { receipts: Receipt[]; blockEvents?: ChainEvent[] };
};
