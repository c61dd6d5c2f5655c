/**
 * The read-only face of the executed chain that consensus needs: the head it builds on
 * and validates against. `Chain` (LevelDB-backed) has exactly these getters; the
 * deterministic simulator gives each simulated node an in-memory one (sim/chain.ts).
 */
import { commitHash, merkleRoot, type Block, type BlockHeader, type Commit } from '../codec/block';
import { decodeTx, type Tx } from '../codec/tx';
import { ECVRF, proveProposer, type VrfScheme } from '../consensus/proposer-vrf';
import type { ValidatorSet } from '../consensus/validator-set';
import type { Genesis } from '../genesis/types';
import type { Address } from '../util/bytes';
import { validatorsHash } from './validator-sets';

export interface ChainView {
  readonly chainId: number;
  readonly genesis: Genesis;
  /** Height of the last committed block (0 before the first). */
  readonly height: number;
  /** Hash of the last committed block (the genesis hash at height 0). */
  readonly lastBlockHash: Uint8Array;
  readonly lastTimestampMs: number;
  /** State root after the head block: the next header's parentStateRoot. */
  readonly stateRoot: Uint8Array;
  /**
   * The VRF seed after the head block (src/consensus/proposer-vrf.ts): derived from the
   * head header's proof, or from the genesis hash at height 0. It seeds the next height's
   * proposer draw and is what the next proposer proves over.
   */
  readonly seed: Uint8Array;
  /**
   * The set that signs `height`: asked for the next height (height + 1), whose set the
   * state at the head fixes; a header carries its hash (validatorsHash, decision 128).
   */
  validatorsAt(height: number): ValidatorSet;
}

export interface BlockInput {
  txs: Uint8Array[];
  /** The same transactions decoded, when the caller has them (saves decoding twice). */
  decoded?: Tx[];
  timestampMs: number;
  proposer: Address;
  round?: number;
  lastCommit: Commit | null;
  /** The proposer's VRF secret key (a 32-byte seed): the block carries its proof over the head's seed. */
  vrfKey: Uint8Array;
  /** The VRF (default ECVRF; the simulator's `--crypto fast` passes its stand-in). */
  vrf?: VrfScheme;
}

/** The next block over the given transactions on top of `view`'s head; its time is after the head's, its VRF proof over the head's seed. */
export function buildNextBlock(view: ChainView, p: BlockInput): Block {
  const maxTx = view.genesis.consensus.maxTxBytes;
  const hashes = p.decoded ? p.decoded.map((t) => t.hash) : p.txs.map((t) => decodeTx(t, maxTx).hash);
  const header: BlockHeader = {
    chainId: view.chainId,
    height: view.height + 1,
    timestampMs: Math.max(p.timestampMs, view.lastTimestampMs + 1),
    round: p.round ?? 0,
    parentHash: view.lastBlockHash,
    parentStateRoot: view.stateRoot,
    validatorsHash: validatorsHash(view.validatorsAt(view.height + 1)),
    proposer: p.proposer,
    vrfProof: proveProposer(p.vrf ?? ECVRF, p.vrfKey, view.chainId, view.height + 1, view.seed),
    txRoot: merkleRoot(hashes),
    txCount: p.txs.length,
    lastCommitHash: commitHash(p.lastCommit),
  };
  return { header, lastCommit: p.lastCommit, txs: p.txs };
}
