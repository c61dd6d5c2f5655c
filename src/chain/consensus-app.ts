/**
 * What BFT consensus asks of the executed chain (the ConsensusApp of src/consensus/core.ts):
 * is this block a valid next block, what seeds the proposer draw, which certificates can
 * we hand a lagging peer. Building a block needs the mempool, an actor, so proposeBlock
 * only asks for one; the consensus actor delivers it with `blockReady`.
 *
 * A block is valid as the next one when it is canonical, extends our head (height,
 * parent hash, parent state root), names the set that signs its height (validatorsHash,
 * decision 128), its proposer is the one drawn for its round from the
 * set of its height, its transactions decode and match txRoot, it carries a commit of its
 * parent verified against the parent's set (the sets differ across an epoch boundary or
 * a jailing), its VRF proof proves this height's alpha over our seed under the
 * proposer's VRF key (src/consensus/proposer-vrf.ts, decision 70), and its time is after
 * the parent's and not ahead of our clock by more than the drift bound. Whether its time
 * is recent enough is checked on a fresh proposal only
 * (`isTimely`), as in CometBFT's proposer-based timestamps: a block re-proposed from an
 * earlier round must stay valid, or a lock on it could never be released.
 *
 * A refused block is reported once to `onRefused` with the rule it broke (BlockRefusalCode)
 * and the values compared; the consensus actor logs it with logBlockRefusal.
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
import type { Logger } from '../util/log';
import { validatorsHash } from './validator-sets';
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
  /** Told once per block of each block refused, with the rule it broke (the consensus actor logs it). */
  onRefused?(r: BlockRefusal): void;
}

/** The rule a refused block broke, in the order validate checks them. */
export type BlockRefusalCode =
  | 'MALFORMED'
  | 'WRONG_CHAIN'
  | 'WRONG_HEIGHT'
  | 'WRONG_PARENT'
  | 'WRONG_STATE_ROOT'
  | 'WRONG_VALIDATORS_HASH'
  | 'TIME_NOT_AFTER_PARENT'
  | 'TIME_AHEAD'
  | 'TOO_MANY_TXS'
  | 'NOT_A_VALIDATOR'
  | 'WRONG_PROPOSER'
  | 'LAST_COMMIT_HASH'
  | 'LAST_COMMIT_INVALID'
  | 'MALFORMED_TX'
  | 'TX_ROOT'
  | 'VRF_PROOF';

/** A refused block: where it claims to be (absent when it does not decode), the code and the check that failed, in words. */
export interface BlockRefusal {
  height?: number;
  round?: number;
  proposer?: string;
  blockHash?: string;
  code: BlockRefusalCode;
  check: string;
}

/** What an operator can make of a refusal, by the rule broken. */
const ADVICE: Record<BlockRefusalCode, string> = {
  MALFORMED: 'the proposer sent bytes that are not a block; nothing to do here unless it repeats (then the proposer runs broken software)',
  WRONG_CHAIN: 'the proposer runs another chain: check its genesis',
  WRONG_HEIGHT: 'a block for another height than this node decides (late or early); nothing to do',
  WRONG_PARENT: 'the block builds on another head than this one: if this repeats for every proposer, this node has diverged; stop it and resync from a fresh data folder',
  WRONG_STATE_ROOT: "the proposer's state differs from this node's: if this repeats for every proposer, this node's state has diverged (another software version?); stop it, check the version and resync",
  WRONG_VALIDATORS_HASH: "the header names another validator set than the one this node's state fixes for the height: if this repeats for every proposer, this node's state has diverged (another software version?); stop it, check the version and resync",
  TIME_NOT_AFTER_PARENT: 'the proposer\'s clock is behind; its operator should check NTP',
  TIME_AHEAD: "one of the two clocks is wrong: check this machine's clock (NTP); if it is right, the proposer's operator should check theirs",
  TOO_MANY_TXS: 'the proposer ignores the genesis block limits (another software version?)',
  NOT_A_VALIDATOR: 'the block is signed by an address outside the validator set; nothing to do',
  WRONG_PROPOSER: 'not this round\'s drawn proposer: if this repeats for every proposer, this node\'s validator set or seed differs (another software version or genesis?)',
  LAST_COMMIT_HASH: 'the header does not match its own commit; the proposer runs broken software',
  LAST_COMMIT_INVALID: 'the block does not carry a valid commit of its parent; the proposer runs broken software, or this node has another parent (diverged)',
  MALFORMED_TX: 'the proposer included a transaction this node cannot decode (another software version?)',
  TX_ROOT: 'the header does not match the block\'s transactions; the proposer runs broken software',
  VRF_PROOF: "the proposer's VRF proof does not verify with its registered VRF key: its operator should check the node's key file",
};

/**
 * Logs a refused block once (the app reports each block once): what happened, the rule and
 * the check that failed, what to do; the block's height, round, proposer and hash as
 * fields. A block of another height is ordinary (late gossip) and goes to debug.
 */
export function logBlockRefusal(log: Logger, r: BlockRefusal): void {
  const fields = { ...r, advice: ADVICE[r.code] };
  if (r.code === 'WRONG_HEIGHT') log.debug(fields, 'block refused: not for the height being decided');
  else log.warn(fields, 'block refused: it breaks a validity rule, this node does not vote for it');
}

/** Refusals remembered so each is reported once (cleared at every commit). */
const REPORTED_KEPT_MAX = 256;

export class ChainConsensusApp implements ConsensusApp {
  /** Blocks that passed validation (or that we built), by hex hash: applied without decoding twice. */
  private readonly validated = new Map<string, ValidatedBlock>();
  private readonly certificates = new Map<number, Certificate>();
  private readonly checkedCommits = new Set<string>();
  private readonly keep: number;
  /** The commit this node decided last, whose precommits the core verified: a proposer's lastCommit mostly repeats them. */
  private ownCommit: Commit | undefined;
  private readonly ownSignatures = new Map<string, string>();
  private readonly reported = new Set<string>();

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
    const cachedOrVerdict = this.check(bytes);
    if ('refused' in cachedOrVerdict) {
      this.report(cachedOrVerdict.refused);
      return null;
    }
    return cachedOrVerdict;
  }

  /** The validated block, or the first rule it breaks (named: the log says which check failed). */
  private check(bytes: Uint8Array): ValidatedBlock | { refused: BlockRefusal } {
    const chain = this.chain();
    const { consensus } = chain.genesis;
    let block: Block;
    try {
      block = decodeBlock(bytes, consensus.maxBlockBytes);
    } catch (err) {
      return { refused: { code: 'MALFORMED', check: `the block does not decode: ${(err as Error).message}` } };
    }
    const h = block.header;
    const hash = blockHash(h);
    const cached = this.validated.get(bytesToHex(hash));
    if (cached !== undefined) return cached;
    const at = { height: h.height, round: h.round, proposer: h.proposer, blockHash: bytesToHex(hash) };
    const refuse = (code: BlockRefusalCode, check: string) => ({ refused: { ...at, code, check } });
    if (h.chainId !== chain.chainId) return refuse('WRONG_CHAIN', `chain id ${h.chainId}, this chain is ${chain.chainId}`);
    if (h.height !== chain.height + 1) return refuse('WRONG_HEIGHT', `height ${h.height}, the next block here is ${chain.height + 1}`);
    if (!equalBytes(h.parentHash, chain.lastBlockHash)) return refuse('WRONG_PARENT', `parent hash ${bytesToHex(h.parentHash)}, this node's head is ${bytesToHex(chain.lastBlockHash)}`);
    if (!equalBytes(h.parentStateRoot, chain.stateRoot)) return refuse('WRONG_STATE_ROOT', `parent state root ${bytesToHex(h.parentStateRoot)}, this node's is ${bytesToHex(chain.stateRoot)}`);
    // The set this node's state fixes for the height (as parentStateRoot is checked against
    // the state): the header must name it (decision 128).
    const expected = validatorsHash(chain.validatorsAt(h.height));
    if (!equalBytes(h.validatorsHash, expected)) {
      return refuse('WRONG_VALIDATORS_HASH', `validators hash ${bytesToHex(h.validatorsHash)}, the set of height ${h.height} here hashes to ${bytesToHex(expected)}`);
    }
    if (h.timestampMs <= chain.lastTimestampMs) return refuse('TIME_NOT_AFTER_PARENT', `block time ${h.timestampMs} is not after its parent's ${chain.lastTimestampMs}`);
    if (h.timestampMs > this.opts.now() + consensus.maxClockDriftMs) {
      return refuse('TIME_AHEAD', `block time ${h.timestampMs} is more than ${consensus.maxClockDriftMs} ms ahead of this node's clock (${this.opts.now()}): check both clocks (NTP)`);
    }
    if (h.txCount > consensus.maxBlockTxs) return refuse('TOO_MANY_TXS', `${h.txCount} transactions, the limit is ${consensus.maxBlockTxs}`);
    const validators = validatorsAt(this.opts.validators, h.height);
    if (!validators.has(h.proposer)) return refuse('NOT_A_VALIDATOR', `proposer ${h.proposer} is not in the set of height ${h.height}`);
    const drawn = validators.proposer(h.height, h.round, this.proposerSeed(h.height)).address;
    if (drawn !== h.proposer) return refuse('WRONG_PROPOSER', `round ${h.round} of height ${h.height} is ${drawn}'s to propose, not ${h.proposer}'s`);
    if (!equalBytes(h.lastCommitHash, commitHash(block.lastCommit))) return refuse('LAST_COMMIT_HASH', "the header's lastCommitHash is not the hash of the block's lastCommit");
    if (!this.lastCommitValid(h.height, block.lastCommit, h.parentHash)) return refuse('LAST_COMMIT_INVALID', `the lastCommit does not prove block ${h.height - 1} (2/3 of the power, valid signatures)`);
    const decoded: Tx[] = [];
    try {
      for (const t of block.txs) decoded.push(decodeTx(t, consensus.maxTxBytes));
    } catch (err) {
      return refuse('MALFORMED_TX', `transaction ${decoded.length} does not decode: ${(err as Error).message}`);
    }
    if (!equalBytes(merkleRoot(decoded.map((t) => t.hash)), h.txRoot)) return refuse('TX_ROOT', 'the transactions do not hash to the header\'s txRoot');
    // Last: the costliest check (an ECVRF verify is ~5 ms).
    const vrf = checkProposerProof(this.opts.vrf ?? ECVRF, this.opts.vrfKeyOf, h, chain.seed);
    if (vrf !== null) return refuse('VRF_PROOF', `the proposer's VRF proof: ${vrf}`);
    const v = { block, decoded, hash };
    this.validated.set(bytesToHex(hash), v);
    return v;
  }

  /** A refusal goes to `onRefused` once per block (a proposal is delivered by several peers). */
  private report(r: BlockRefusal): void {
    const key = r.blockHash ?? r.check;
    if (this.reported.has(key)) return;
    if (this.reported.size >= REPORTED_KEPT_MAX) this.reported.delete(this.reported.values().next().value!);
    this.reported.add(key);
    this.opts.onRefused?.(r);
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
    this.reported.clear();
  }

  /** The validated block of `hash`, if any (the decided block, ready to apply). */
  take(hash: Uint8Array): ValidatedBlock | undefined {
    return this.validated.get(bytesToHex(hash));
  }
}
