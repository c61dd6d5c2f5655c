/**
 * What the p2p actor (actors/p2p/p2p-actor.ts) accepts in its mailbox. A leaf module:
 * types only, no actor behaviour and nothing of src/node (see actors/chain/messages.ts).
 */
import type { SyncAttempt } from '../../src/chain/sync';
import type { Certificate } from '../../src/consensus/messages';
import type { Topic } from '../../src/net/transport';
import type { Address } from '../../src/util/bytes';
import type { Reply } from '../actor';

export type P2PMsg =
  /** A transaction this node admitted: batched and gossiped to every validator's mempool. */
  | { type: 'gossipTx'; bytes: Uint8Array }
  | { type: 'publish'; topic: Topic; data: Uint8Array }
  /**
   * A consensus message (encoded) for every validator, and for subscribers of its gossip
   * topic. `key` (sent-ledger.ts): a validator that was sent the same key within
   * RESEND_AFTER_MS on its current connection is not sent it again; none: always sent.
   */
  | { type: 'consensus'; topic: Topic.Proposals | Topic.Votes; data: Uint8Array; key?: string }
  /** One consensus message to one validator (`key` as above). */
  | { type: 'direct'; to: Address; data: Uint8Array; key?: string }
  /** A block this node decided and its commit: published on the votes topic for the nodes that follow the mesh (decision 185). */
  | { type: 'certificate'; certificate: Certificate }
  /** End of the turn: what was queued this turn leaves, one bundle per peer. */
  | { type: 'flush' }
  /**
   * Committed blocks from `fromHeight` on from some validator peer not in `exclude` (or
   * from `only`, the peer whose probed head showed the node behind, a full node too), and
   * who sent them (answer null: no such peer had any), and the peers that did not answer.
   */
  | { type: 'sync'; fromHeight: number; exclude?: ReadonlySet<string>; only?: string; reply: Reply<SyncAttempt> };

/** What /status shows of the p2p transport: identity, peers, listen addresses, counters. */
export interface P2PInfo {
  peerId: string;
  peers: string[];
  listen: string[];
  stats: unknown;
}

/** GET /v1/network/peers: a connected peer, the listen addresses it announced, its last known head. */
export interface P2PPeer {
  peerId: string;
  listen: string[];
  /** Null until it answered a height probe (actors/p2p/peer-heights.ts). */
  height: number | null;
  /** Wall-clock ms of that answer; null with it. */
  heightAtMs: number | null;
}
