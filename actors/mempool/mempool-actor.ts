/** The mempool concern: admits checked transactions, hands batches to the proposer, forgets committed ones. */
import type { Block } from '../../src/codec/block';
import type { Tx } from '../../src/codec/tx';
import type { Address } from '../../src/util/bytes';
import type { BlockResult } from '../../src/state/apply';
import type { NodeContext } from '../../src/node/context';
import type { ActorBehavior, Reply } from '../actor';
import { TxPool, type PoolEntry } from './pool';

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
  | { type: 'batch'; maxTxs: number; maxBytes: number; reply: Reply<Batch> }
  | { type: 'committed'; block: Block; result: BlockResult };

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
            msg.reply.resolve(msg.type === 'submit' ? pool.add(msg.tx, msg.signer) : pool.addBytes(msg.bytes));
          } catch (err) {
            msg.reply.reject(err);
          }
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
