/**
 * What the parts of a simulation run share (sim/cluster.ts builds it): the options,
 * the one seeded PRNG, the nodes, the genesis validator set (each height's comes from a
 * node's executed chain) and verifier, the VRF, the run's genesis, the
 * clock, queue and network, the checker, and the counters the result reports. Also
 * what the parts ask of a node: the time on its (skewed) clock, and the Byzantine
 * proposer's second block; and what the scenarios ask of the run: the highest honest chain.
 */
import type { ValidatedBlock } from '../src/chain/consensus-app';
import { blockHash, encodeBlock, type Block } from '../src/codec/block';
import type { TimeoutConfig } from '../src/consensus/params';
import type { Tx } from '../src/codec/tx';
import type { VrfScheme } from '../src/consensus/proposer-vrf';
import type { SignatureVerifier } from '../src/consensus/signer';
import type { ValidatorSet } from '../src/consensus/validator-set';
import type { Genesis } from '../src/genesis/types';
import type { Address } from '../src/util/bytes';
import type { Chain } from '../src/chain/chain';
import type { SetsOf } from './chain';
import type { Checker } from './checks';
import type { LiveNode, SimNode } from './model';
import type { SimNetwork } from './network';
import type { FaultCounts, SimOptions, SyncCounts, TxCounts } from './options';
import type { Prng } from './prng';

export interface SimWorld {
  readonly opts: SimOptions;
  readonly prng: Prng;
  readonly nodes: SimNode[];
  readonly byAddress: ReadonlyMap<Address, number>;
  /** The consensus set of each executed set (with the run's quorum rule); the genesis set. */
  readonly sets: SetsOf;
  readonly genesisSet: ValidatorSet;
  readonly verifier: SignatureVerifier;
  /** The VRF of every node's proposer proofs (sim/fast-vrf.ts); the keys are in the validators' records. */
  readonly vrf: VrfScheme;
  /** The run's genesis (sim/chain.ts worldGenesis): its validators are the run's. */
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  readonly timeouts: TimeoutConfig;
  readonly net: SimNetwork;
  readonly check: Checker;
  readonly faults: FaultCounts;
  readonly txs: TxCounts;
  readonly sync: SyncCounts;
  /** The storage faults' own random stream (so runs without them draw exactly as before). */
  readonly storagePrng: Prng;
  /** Counters of the result that no part owns alone. */
  readonly tally: { messagesDelivered: number; proposalsUntimely: number; fromNonValidators: number };
  /** A transaction sent to `node` by a client: its pool checks it and gossips it when admitted; false when refused. */
  submitTx(node: SimNode, tx: Tx): boolean;
}

/** The simulated clocks start this long after the genesis time. */
const CLOCK_START_MS = 1_000;

/** The time on `node`'s clock (off by its constant skew), in ms since the epoch as the genesis counts it. */
export function clockMs(w: SimWorld, node: SimNode): number {
  return w.genesis.genesisTimeMs + CLOCK_START_MS + Math.round(w.net.nowMs + node.clockSkewMs);
}

/**
 * A Byzantine proposer's second block for (height, round): the pool's batch cut short,
 * on top of the head, timed a little after its clock. (Honest blocks are built by the
 * consensus driver, src/consensus/driver.ts.)
 */
export function buildBlock(w: SimWorld, node: SimNode, live: LiveNode, height: number, round: number): { validated: ValidatedBlock; bytes: Uint8Array } | null {
  if (height !== live.chain.height + 1) return null;
  const { consensus } = w.genesis;
  let { txs, decoded } = live.pool.peekBatch(consensus.maxBlockTxs, consensus.maxBlockBytes);
  const timestampMs = clockMs(w, node) + w.prng.range(1, 50);
  const keep = w.prng.int(txs.length + 1);
  txs = txs.slice(0, keep);
  decoded = decoded.slice(0, keep);
  const block: Block = live.chain.buildBlock({ txs, decoded, timestampMs, proposer: node.address, round, lastCommit: live.driver.lastCommitFor(height - 1), vrfKey: node.vrfSecret });
  return { validated: { block, decoded, hash: blockHash(block.header) }, bytes: encodeBlock(block, consensus.maxBlockBytes) };
}

/** The chain of the highest live honest node (the lowest index among equals): where a scenario reads the state it acts on. */
export function highestHonestChain(w: SimWorld): Chain | null {
  let best: Chain | null = null;
  for (const x of w.nodes) {
    if (x.byzantine || x.live === null) continue;
    if (best === null || x.live.chain.height > best.height) best = x.live.chain;
  }
  return best;
}
