/** The mempool concern: admits checked transactions, hands batches to the proposer, forgets committed ones. */
import type { Block } from '../../src/codec/block';
import type { BlockResult } from '../../src/state/apply';
import type { NodeContext } from '../../src/node/context';
import type { ActorBehavior, Reply } from '../actor';
import { TxPool, type PoolEntry } from './pool';

export type MempoolMsg =
  | { type: 'submit'; bytes: Uint8Array; reply: Reply<PoolEntry> }
  | { type: 'batch'; maxTxs: number; maxBytes: number; reply: Reply<{ txs: Uint8Array[]; verified: Map<string, `0x${string}`> }> }
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
          try {
            msg.reply.resolve(pool.addBytes(msg.bytes));
          } catch (err) {
            msg.reply.reject(err);
          }
          return;
        case 'batch':
          msg.reply.resolve({ txs: pool.peekBatch(msg.maxTxs, msg.maxBytes), verified: pool.verified });
          return;
        case 'committed':
          pool.removeCommitted(msg.result.receipts.map((r) => r.txHash));
          return;
      }
    },
  };
}
