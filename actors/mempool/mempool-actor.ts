/** The mempool concern: admits checked transactions, hands batches to the proposer, forgets committed ones. */
import type { NodeConfig } from '../../src/config/node-config';
import type { State } from '../../src/state/state';
import type { ActorBehavior, ActorRef } from '../actor';
import type { P2PMsg } from '../p2p/messages';
import { PendingDuplicate, TxPool } from './pool';
import type { GossipTally, MempoolMsg } from './messages';
import { TxError } from '../../src/state/errors';

/** What the mempool uses of the node (built by src/node/node.ts). */
export interface MempoolDeps {
  /** The pool's bounds (`mempool`) and the largest transaction (genesis `consensus.maxTxBytes`). */
  config: Pick<NodeConfig, 'mempool' | 'genesis'>;
  /** The executed state a transaction is checked against (the chain actor's, read-only). */
  state: () => State;
  /** Where the pool lives across restarts of the actor; the node reads its size and signature counters there. */
  holder: { pool?: TxPool };
  /** The p2p actor, which gossips each admitted transaction; absent on a node without p2p. */
  actors: { p2p?: ActorRef<P2PMsg> };
}

export function mempoolBehavior(deps: MempoolDeps): ActorBehavior<MempoolMsg> {
  const { config, holder } = deps;
  return {
    start() {
      // The pool survives a restart of the actor: its transactions were acknowledged.
      holder.pool ??= new TxPool({ maxTxs: config.mempool.maxTxs, maxBytes: config.mempool.maxBytes, maxTxBytes: config.genesis.consensus.maxTxBytes }, deps.state);
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
            deps.actors.p2p?.send({ type: 'gossipTx', bytes: msg.type === 'submit' ? msg.tx.bytes : msg.bytes });
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
