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
import type { NodeContext } from '../../src/node/context';
import type { ActorBehavior } from '../actor';
import type { Batch } from '../mempool/messages';
import type { ProducerMsg } from './messages';

export function hasSoloMajority(node: NodeContext): boolean {
  const key = node.config.validatorKey;
  if (!key) return false;
  const me = privateKeyToAddress(key);
  const vals = node.config.genesis.validators;
  const total = vals.reduce((s, v) => s + v.bondWei, 0n);
  const mine = vals.find((v) => v.address === me)?.bondWei ?? 0n;
  return mine * 3n > total * 2n;
}

export function soloProducerBehavior(node: () => NodeContext, self: () => { send(m: ProducerMsg): boolean }): ActorBehavior<ProducerMsg> {
  let timer: NodeJS.Timeout | undefined;
  let lastCommit: Commit | null = null;
  let nextAt = 0;

  const schedule = () => {
    const wait = Math.max(0, nextAt - performance.now());
    timer = setTimeout(() => self().send({ type: 'tick' }), wait);
  };

  return {
    async start() {
      const n = node();
      if (!n.config.vrfKey) throw new Error('the block producer needs a VRF key (each block carries its proof)');
      const chain = n.chain();
      lastCommit = chain.height > 0 ? ((await chain.store.getCommit(chain.height)) ?? null) : null;
      nextAt = performance.now() + n.config.blockTimeMs;
      schedule();
    },
    async handle() {
      const n = node();
      // A software upgrade this node is too old for (decision 77): it produces nothing more.
      if (n.upgradeRequired) return;
      const { consensus } = n.config.genesis;
      const key = n.config.validatorKey!;
      const vrfKey = n.config.vrfKey!;
      // A fixed cadence: the next slot is one block time after this one's, not after the work.
      nextAt = Math.max(nextAt + n.config.blockTimeMs, performance.now());
      try {
        // The disk is full: sign nothing until the block held in memory is written.
        if (n.storage && !n.storage.writable('chain')) return;
        const { txs, decoded, verified } = await n.actors.mempool.ask<Batch>((reply) => ({
          type: 'batch',
          maxTxs: consensus.maxBlockTxs,
          maxBytes: consensus.maxBlockBytes,
          reply,
        }));
        const chain = n.chain();
        const proposer = privateKeyToAddress(key);
        // The proposer's clock sets the time (contract [D-time-proposer]); it must move forward.
        const block = chain.buildBlock({ txs, decoded, timestampMs: Date.now(), proposer, lastCommit, vrfKey });
        const hash = blockHash(block.header);
        const signature = sign(precommitSigningHash(chain.chainId, block.header.height, 0, hash), key);
        const commit = canonicalCommit({ height: block.header.height, round: 0, blockHash: hash, signatures: [{ validator: proposer, signature }] });
        try {
          await n.actors.chain.ask((reply) => ({ type: 'commit', block, commit, verified, decoded, reply }));
        } catch (err) {
          if (!(err instanceof StorageUnavailableError)) throw err;
          // Applied in memory, written by the storage probe's retry: the next block builds on it.
          if (n.chain().height === block.header.height) lastCommit = commit;
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
