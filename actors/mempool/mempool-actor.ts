/** The mempool concern: admits checked transactions, hands batches to the proposer, forgets committed ones. */
import type { NodeContext } from '../../src/node/context';
import type { ActorBehavior } from '../actor';
import { PendingDuplicate, TxPool } from './pool';
import type { GossipTally, MempoolMsg } from './messages';
import { TxError } from '../../src/state/errors';

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
              if (err instanceof PendingDuplicate) tally.duplicate++;
              else if (status === 400 || status === 401) tally.invalid++;
              else tally.refused++;
            }
          }
          msg.reply.resolve(tally);
          return;
        }
        case 'verifiedCache':
          msg.reply.resolve(pool.signers);
          return;
        case 'batch':
          msg.reply.resolve({ ...pool.peekBatch(msg.maxTxs, msg.maxBytes), verified: pool.signers });
          return;
        case 'committed':
          pool.removeCommitted(msg.result.receipts.map((r) => r.txHash));
          return;
      }
    },
  };
}
