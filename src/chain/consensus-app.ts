/**
 * What BFT consensus asks of the executed chain (the ConsensusApp of src/consensus/core.ts):
 * is this block a valid next block, what seeds the proposer draw, which certificates can
 * we hand a lagging peer. Building a block needs the mempool, an actor, so proposeBlock
 * only asks for one; the consensus actor delivers it with `blockReady`.
 *
 * A block is valid as the next one when it is canonical, extends our head (height,
 * parent hash, parent state root), its proposer is the one drawn for its round from the
 * set of its height, its transactions decode and match txRoot, it carries a commit of its
 * parent verified against the parent's set (the sets differ across an epoch boundary or
 * a jailing), its VRF proof proves this height's alpha over our seed under the
 * proposer's VRF key (src/consensus/proposer-vrf.ts, decision 70), and its time is after
 * the parent's and not ahead of our clock by more than the drift bound. Whether its time
 * is recent enough is checked on a fresh proposal only
 * (`isTimely`), as in CometBFT's proposer-based timestamps: a block re-proposed from an
 * earlier round must stay valid, or a lock on it could never be released.
 *
 * The chain is read through `ChainView` (src/chain/view.ts): the node's `Chain`, or a
 * simulated node's in-memory chain (sim/chain.ts), so the simulator validates blocks
 * with this very code.
 */
import { blockHash, commitHash, decodeBlock, merkleRoot, type Block, type Commit } from '../codec/block';
import { decodeTx, type Tx } from '../codec/tx';
import { checkCommit } from '../consensus/commit';
import type { ConsensusApp } from '../consensus/core';
import type { Certificate, Proposal } from '../consensus/messages';
import { checkProposerProof, ECVRF, type VrfKeyOf, type VrfScheme } from '../consensus/proposer-vrf';
import type { SignatureVerifier } from '../consensus/signer';
import { validatorsAt, type ValidatorsByHeight } from '../consensus/validator-set';
import { bytesToHex, equalBytes } from '../util/bytes';
import type { ChainView } from './view';

export interface ValidatedBlock {
  block: Block;
  decoded: Tx[];
  hash: Uint8Array;
}

export interface ChainAppOptions {
  /**
   * The set that signs each height. Asked for the next height (the proposer draw) and for
   * the head's (the next block's lastCommit is the head's commit, signed by the head's set).
   */
  validators: ValidatorsByHeight;
  verifier: SignatureVerifier;
  /** The VRF public key of a proposer (genesis validators' and registered ones'). */
  vrfKeyOf: VrfKeyOf;
  /** The VRF (default ECVRF; the simulator's `--crypto fast` passes its stand-in). */
  vrf?: VrfScheme;
  /** Asked when this node must propose: build a block for (height, round) and deliver it later. */
  requestBlock(height: number, round: number): void;
  /** Wall clock, ms (injectable for tests). */
  now(): number;
  /** How many recent certificates to keep for lagging peers. */
  keepCertificates?: number;
}

export class ChainConsensusApp implements ConsensusApp {
  /** Blocks that passed validation (or that we built), by hex hash: applied without decoding twice. */
  private readonly validated = new Map<string, ValidatedBlock>();
  private readonly certificates = new Map<number, Certificate>();
  private readonly checkedCommits = new Set<string>();
  private readonly keep: number;
  /** The commit this node decided last, whose precommits the core verified: a proposer's lastCommit mostly repeats them. */
  private ownCommit: Commit | undefined;
  private readonly ownSignatures = new Map<string, string>();

  constructor(
    private readonly chain: () => ChainView,
    private readonly opts: ChainAppOptions,
  ) {
    this.keep = opts.keepCertificates ?? 1_024;
  }

  proposeBlock(height: number, round: number): null {
    this.opts.requestBlock(height, round);
    return null;
  }

  /** A block we built ourselves: remembered as validated. */
  built(v: ValidatedBlock): void {
    this.validated.set(bytesToHex(v.hash), v);
  }

  validateBlock(bytes: Uint8Array): Uint8Array | null {
    return this.validate(bytes)?.hash ?? null;
  }

  validate(bytes: Uint8Array): ValidatedBlock | null {
    const chain = this.chain();
    const { consensus } = chain.genesis;
    let block: Block;
    try {
      block = decodeBlock(bytes, consensus.maxBlockBytes);
    } catch {
      return null;
    }
    const h = block.header;
    const hash = blockHash(h);
    const cached = this.validated.get(bytesToHex(hash));
    if (cached !== undefined) return cached;
    if (h.chainId !== chain.chainId || h.height !== chain.height + 1) return null;
    if (!equalBytes(h.parentHash, chain.lastBlockHash) || !equalBytes(h.parentStateRoot, chain.stateRoot)) return null;
    if (h.timestampMs <= chain.lastTimestampMs || h.timestampMs > this.opts.now() + consensus.maxClockDriftMs) return null;
    if (h.txCount > consensus.maxBlockTxs) return null;
    const validators = validatorsAt(this.opts.validators, h.height);
    if (!validators.has(h.proposer) || validators.proposer(h.height, h.round, this.proposerSeed(h.height)).address !== h.proposer) return null;
    if (!equalBytes(h.lastCommitHash, commitHash(block.lastCommit))) return null;
    if (!this.lastCommitValid(h.height, block.lastCommit, h.parentHash)) return null;
    const decoded: Tx[] = [];
    try {
      for (const t of block.txs) decoded.push(decodeTx(t, consensus.maxTxBytes));
    } catch {
      return null;
    }
    if (!equalBytes(merkleRoot(decoded.map((t) => t.hash)), h.txRoot)) return null;
    // Last: the costliest check (an ECVRF verify is ~5 ms).
    if (checkProposerProof(this.opts.vrf ?? ECVRF, this.opts.vrfKeyOf, h, chain.seed) !== null) return null;
    const v = { block, decoded, hash };
    this.validated.set(bytesToHex(hash), v);
    return v;
  }

  /** A fresh proposal (no proof-of-lock) must carry a recent time, within the drift bound of our clock. */
  isTimely(p: Proposal): boolean {
    if (p.polRound !== -1) return true;
    const v = this.validate(p.block);
    if (v === null) return true; // invalid anyway: the core refuses it and counts why
    // A block built in an earlier round is a re-proposal (a validator locked on it that
    // lost the prevotes proving the lock re-proposes it without them): it must stay
    // acceptable however old, or the height can stall until the lock is released. Only
    // the proposer drawn for that earlier round can have built it (validate checks).
    if (v.block.header.round < p.round) return true;
    return v.block.header.timestampMs >= this.opts.now() - this.chain().genesis.consensus.maxClockDriftMs;
  }

  private lastCommitValid(height: number, lastCommit: Commit | null, parentHash: Uint8Array): boolean {
    if (height === 1) return lastCommit === null;
    if (lastCommit === null) return false;
    const key = bytesToHex(commitHash(lastCommit));
    if (this.checkedCommits.has(key)) return true;
    const chain = this.chain();
    const known = this.ownCommit?.height === height - 1 && equalBytes(this.ownCommit.blockHash, parentHash) ? this.ownSignatures : undefined;
    const isKnown = known && ((v: string, sig: Uint8Array) => known.get(v) === bytesToHex(sig));
    if (checkCommit(chain.chainId, validatorsAt(this.opts.validators, height - 1), this.opts.verifier, height - 1, parentHash, lastCommit, isKnown || undefined) !== null) return false;
    this.checkedCommits.add(key);
    return true;
  }

  /** The draw of `height` is seeded by the VRF seed after `height - 1` (decision 70). */
  proposerSeed(height: number): Uint8Array {
    const chain = this.chain();
    if (height !== chain.height + 1) throw new Error(`proposer seed of ${height} asked at head ${chain.height}`);
    return chain.seed;
  }

  certificate(height: number): Certificate | null {
    return this.certificates.get(height) ?? null;
  }

  /** A block became final here: keep its certificate for peers, drop what the height no longer needs. */
  committed(height: number, block: Uint8Array, commit: Commit): void {
    this.certificates.set(height, { height, block, commit });
    this.certificates.delete(height - this.keep);
    this.ownCommit = commit;
    this.ownSignatures.clear();
    for (const sig of commit.signatures) this.ownSignatures.set(sig.validator, bytesToHex(sig.signature));
    this.validated.clear();
    this.checkedCommits.clear();
  }

  /** The validated block of `hash`, if any (the decided block, ready to apply). */
  take(hash: Uint8Array): ValidatedBlock | undefined {
    return this.validated.get(bytesToHex(hash));
  }
}
