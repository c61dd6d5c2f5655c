/**
 * What the mempool actor (actors/mempool/mempool-actor.ts) accepts in its mailbox, and
 * the types its answers carry. A leaf module: types only, no actor behaviour and nothing
 * of src/node (see actors/chain/messages.ts).
 */
import type { Block } from '../../src/codec/block';
import type { Tx } from '../../src/codec/tx';
import type { BlockResult } from '../../src/state/apply';
import type { Address } from '../../src/util/bytes';
import type { SignerCache } from '../../src/state/signer-cache';
import type { Reply } from '../actor';

/** An admitted transaction as the pool holds it (actors/mempool/pool.ts). */
export interface PoolEntry {
  tx: Tx;
  hashHex: string;
  signer: Address;
  nonceKey?: string;
  /** Ethereum transfers: the sender whose pending count this entry holds. */
  ethSender?: Address;
}

/** A proposer's batch: the encoded transactions, the same decoded, and the signers already recovered. */
export interface Batch {
  txs: Uint8Array[];
  decoded: Tx[];
  verified: SignerCache;
}

/** What a batch of gossiped transactions came to: the p2p actor's gossip verdict follows from it. */
export interface GossipTally {
  added: number;
  duplicate: number;
  /** Refused for being malformed or badly signed: the sender is at fault. */
  invalid: number;
  /** Refused for the state (nonce, funds, full pool): not the sender's fault. */
  refused: number;
}

export type MempoolMsg =
  /** `signer` only from this node's own API, which verified the signature already. */
  | { type: 'submit'; tx: Tx; signer?: Address; reply: Reply<PoolEntry> }
  | { type: 'submitBytes'; bytes: Uint8Array; reply: Reply<PoolEntry> }
  /** Transactions gossiped by a peer: each checked once; the tally decides the gossip verdict. */
  | { type: 'submitGossip'; txs: Uint8Array[]; reply: Reply<GossipTally> }
  | { type: 'batch'; maxTxs: number; maxBytes: number; reply: Reply<Batch> }
  /** The signers this node recovered, by tx hash: a block of gossiped txs is applied without recovering again. */
  | { type: 'verifiedCache'; reply: Reply<SignerCache> }
  | { type: 'committed'; block: Block; result: BlockResult };
