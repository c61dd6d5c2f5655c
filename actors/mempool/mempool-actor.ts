/** The mempool concern: admits checked transactions, hands batches to the proposer, forgets committed ones. */
import type { Block } from '../../src/codec/block';
import type { Tx } from '../../src/codec/tx';
import type { Address } from '../../src/util/bytes';
import type { BlockResult } from '../../src/state/apply';
import type { NodeContext } from '../../src/node/context';
import type { ActorBehavior, Reply } from '../actor';
import { TxPool, type PoolEntry } from './pool';
import { TxError } from '../../src/state/errors';

/** A proposer's batch: the encoded transactions, the same decoded, and the signers already recovered. */
export interface Batch {
  txs: Uint8Array[];
  decoded: Tx[];
  verified: Map<string, Address>;
}

export type MempoolMsg =
  /** `signer` only from this node's own API, which verified the signature already. */
  | { type: 'submit'; tx: Tx; signer?: Address; reply: Reply<PoolEntry> }
  | { type: 'submitBytes'; bytes: Uint8Array; reply: Reply<PoolEntry> }
  /** Transactions gossiped by a peer: each checked once; the tally decides the gossip verdict. */
  | { type: 'submitGossip'; txs: Uint8Array[]; reply: Reply<GossipTally> }
  | { type: 'batch'; maxTxs: number; maxBytes: number; reply: Reply<Batch> }
  /** The signers the pool recovered, by tx hash: a block of gossiped txs is applied without recovering again. */
  | { type: 'verifiedCache'; reply: Reply<Map<string, Address>> }
  | { type: 'committed'; block: Block; result: BlockResult };

export interface GossipTally {
  added: number;
  duplicate: number;
  /** Refused for being malformed or badly signed: the sender is at fault. */
  invalid: number;
  /** Refused for the state (nonce, funds, full pool): not the sender's fault. */
  refused: number;
}

export function mempoolBehavior(node: () => NodeContext, holder: { pool?: TxPool }): ActorBehavior<MempoolMsg> {
  return {
    start() {
      const { config } = node();
      // The pool survives a restart of the actor: its transactions were acknowledged.
      holder.pool ??= new TxPool(
        { maxTxs: config.mempool.maxTxs, maxBytes: config.mempool.maxBytes, maxTxBytes: config.genesis.consensus.maxTxBytes },
        () => node().chain().state,
      );
    },
    handle(msg) {
      const pool = holder.pool!;
      switch (msg.type) {
        case 'submit':
        case 'submitBytes':
          try {
            const entry = msg.type === 'submit' ? pool.add(msg.tx, msg.signer) : pool.addBytes(msg.bytes);
            msg.reply.resolve(entry);
            // Admitted here: every validator's mempool should have it (the proposer may be another node).
            node().actors.p2p?.send({ type: 'gossipTx', bytes: msg.type === 'submit' ? msg.tx.bytes : msg.bytes });
          } catch (err) {
            msg.reply.reject(err);
          }
          return;
        case 'submitGossip': {
          const tally: GossipTally = { added: 0, duplicate: 0, invalid: 0, refused: 0 };
          for (const bytes of msg.txs) {
            try {
              pool.addBytes(bytes);
              tally.added++;
            } catch (err) {
              const status = err instanceof TxError ? err.status : 500;
              if (err instanceof TxError && err.code === 'DUPLICATE_TX') tally.duplicate++;
              else if (status === 400 || status === 401) tally.invalid++;
              else tally.refused++;
            }
          }
          msg.reply.resolve(tally);
          return;
        }
        case 'verifiedCache':
          msg.reply.resolve(pool.verified);
          return;
        case 'batch':
          msg.reply.resolve({ ...pool.peekBatch(msg.maxTxs, msg.maxBytes), verified: pool.verified });
          return;
        case 'committed':
          pool.removeCommitted(msg.result.receipts.map((r) => r.txHash));
          return;
      }
    },
  };
}
