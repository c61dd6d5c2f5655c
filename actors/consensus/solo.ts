/**
 * Single-validator consensus: when this node holds more than 2/3 of the voting power
 * on its own (a one-validator devnet), each block is final as soon as it signs the
 * precommit. Every blockTimeMs it takes a batch from the mempool, builds the block,
 * signs, and hands it to the chain actor. Its blocks carry its VRF proof like any
 * proposer's (decision 70), so a node that later syncs them checks them as it checks
 * any block. The BFT engine replaces this when the
 * validator set has more than one member.
 *
 * A full disk (decision 121): while the chain actor holds a block it could not write, the
 * producer builds and signs nothing; it produces again once the block is on disk.
 */
import { StorageUnavailableError } from '../../src/storage/no-space';
import { canonicalCommit, precommitSigningHash, blockHash, type Commit } from '../../src/codec/block';
import { privateKeyToAddress, sign } from '../../src/crypto/secp256k1';
import type { NodeConfig } from '../../src/config/node-config';
import type { Chain } from '../../src/chain/chain';
import type { StorageGuard } from '../../src/storage/storage-guard';
import type { ActorBehavior, ActorRef } from '../actor';
import type { ChainMsg } from '../chain/messages';
import type { Batch, MempoolMsg } from '../mempool/messages';
import type { ProducerMsg } from './messages';

/** What the solo producer uses of the node (built by src/node/node.ts). */
export interface ProducerDeps {
  /** Its keys (checked at start) and the block time; the block limits of genesis; the clock its blocks' times come from. */
  config: Pick<NodeConfig, 'validatorKey' | 'vrfKey' | 'blockTimeMs' | 'genesis' | 'clock'>;
  /** The executed chain, read-only (the chain actor's; open before the actors start). */
  chain: () => Chain;
  /** Set once a scheduled upgrade names a newer version (decision 77): it produces nothing more. */
  upgradeRequired: () => string | undefined;
  /** Whether the chain's folder takes writes (decision 121); absent in tests without one. */
  storage?: Pick<StorageGuard, 'writable'>;
  /** The mailboxes it asks: the mempool for batches, the chain actor to commit its blocks. */
  actors: { mempool: ActorRef<MempoolMsg>; chain: ActorRef<ChainMsg> };
  /** Its own mailbox, for its ticks. */
  self: () => { send(m: ProducerMsg): boolean };
}

export function hasSoloMajority(config: Pick<NodeConfig, 'validatorKey' | 'genesis'>): boolean {
  const key = config.validatorKey;
  if (!key) return false;
  const me = privateKeyToAddress(key);
  const vals = config.genesis.validators;
  const total = vals.reduce((s, v) => s + v.bondWei, 0n);
  const mine = vals.find((v) => v.address === me)?.bondWei ?? 0n;
  return mine * 3n > total * 2n;
}

export function soloProducerBehavior(deps: ProducerDeps): ActorBehavior<ProducerMsg> {
  const { config, self } = deps;
  let timer: NodeJS.Timeout | undefined;
  let lastCommit: Commit | null = null;
  let nextAt = 0;

  const schedule = () => {
    const wait = Math.max(0, nextAt - performance.now());
    timer = setTimeout(() => self().send({ type: 'tick' }), wait);
  };

  return {
    async start() {
      if (!config.vrfKey) throw new Error('the block producer needs a VRF key (each block carries its proof)');
      const chain = deps.chain();
      lastCommit = chain.height > 0 ? ((await chain.store.getCommit(chain.height)) ?? null) : null;
      nextAt = performance.now() + config.blockTimeMs;
      schedule();
    },
    async handle() {
      // A software upgrade this node is too old for (decision 77): it produces nothing more.
      if (deps.upgradeRequired()) return;
      const { consensus } = config.genesis;
      const key = config.validatorKey!;
      const vrfKey = config.vrfKey!;
      // A fixed cadence: the next slot is one block time after this one's, not after the work.
      nextAt = Math.max(nextAt + config.blockTimeMs, performance.now());
      try {
        // The disk is full: sign nothing until the block held in memory is written.
        if (deps.storage && !deps.storage.writable('chain')) return;
        const { txs, decoded, verified } = await deps.actors.mempool.ask<Batch>((reply) => ({
          type: 'batch',
          maxTxs: consensus.maxBlockTxs,
          maxBytes: consensus.maxBlockBytes,
          reply,
        }));
        const chain = deps.chain();
        const proposer = privateKeyToAddress(key);
        // The proposer's clock sets the time (contract [D-time-proposer]); it must move forward.
        const block = chain.buildBlock({ txs, decoded, timestampMs: (deps.config.clock ?? Date.now)(), proposer, lastCommit, vrfKey });
        const hash = blockHash(block.header);
        const signature = sign(precommitSigningHash(chain.chainId, block.header.height, 0, hash), key);
        const commit = canonicalCommit({ height: block.header.height, round: 0, blockHash: hash, signatures: [{ validator: proposer, signature }] });
        try {
          await deps.actors.chain.ask((reply) => ({ type: 'commit', block, commit, verified, decoded, reply }));
        } catch (err) {
          if (!(err instanceof StorageUnavailableError)) throw err;
          // Applied in memory, written by the storage probe's retry: the next block builds on it.
          if (deps.chain().height === block.header.height) lastCommit = commit;
          return;
        }
        lastCommit = commit;
      } finally {
        schedule();
      }
    },
    stop() {
      clearTimeout(timer);
    },
  };
}
