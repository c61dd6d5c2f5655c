/**
 * HeightState: everything one validator's consensus core knows about the height it is
 * deciding (vote sets per round, proposals, validated blocks, who was heard in which
 * round, its own signed messages, a certificate's commit), dropped when the next height
 * begins. With it the reads of that record the core answers peers with: the status of a
 * round, the commit a certificate proved, the certificate of a decided height.
 *
 * Separate from the core (./core.ts) because it is the data of one height and nothing
 * else: no signing, no machine, no outputs. The core decides what to do; this holds what
 * it learned.
 */
import type { Commit } from '../codec/block';
import type { Address } from '../util/bytes';
import { equalBytes, hexToBytes } from '../util/bytes';
import { bitmapSet, type Certificate, type HashKey, type Proposal, type StatusMessage, type Vote, type VoteType } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';
import { VoteSet } from './vote-set';

export interface ProposalRecord {
  proposal: Proposal;
  key: HashKey;
}

export interface OwnMessages {
  proposal?: Proposal;
  prevote?: Vote;
  precommit?: Vote;
}

/** What the round machine's context says of the decision (ConsensusRoundSnapshot['context']). */
export interface DecisionView {
  height: number;
  decided: boolean;
  commitValue: HashKey | null;
  commitRound: number;
}

/** Everything known about one height; dropped when the next begins. */
export class HeightState {
  readonly prevotes = new Map<number, VoteSet>();
  readonly precommits = new Map<number, VoteSet>();
  /** First correctly signed proposal of the round's proposer. */
  readonly proposals = new Map<number, ProposalRecord>();
  /** Blocks whose bytes passed validateBlock (or that we built), by hash. */
  readonly blocks = new Map<HashKey, Uint8Array>();
  /** Per round: which validators sent a signed message, and their power (round skipping). */
  readonly roundSenders = new Map<number, { seen: Uint8Array; power: bigint }>();
  /** Highest round in which more than 1/3 of the power has been heard. */
  oneThirdRound = -1;
  /** First (round, block) with +2/3 precommits: the decision. */
  commitCandidate: { round: number; key: HashKey } | undefined;
  readonly own = new Map<number, OwnMessages>();
  readonly proposalEvidenceRounds = new Set<number>();
  /**
   * Linear votes (decision 174): the steps ("prevote/3") whose vote certificate we
   * broadcast as the round's collector, once each.
   */
  readonly certifiedSteps = new Set<string>();
  /** Peers we already asked for help at this height. */
  readonly askedFor = new Set<Address>();
  /** A certificate was applied here: we are catching up, announce the next height. */
  caughtUp = false;
  /** The commit of a verified certificate for this height. */
  certified: Commit | undefined;
  awaitingBlock: number | undefined;

  constructor(
    readonly height: number,
    readonly seed: Uint8Array,
    /** The set that signs this height: its vote sets, proposer draw, round skipping, bitmaps and certificates. */
    readonly validators: ValidatorSet,
    readonly chainId: number,
    /** Checks the signatures of the votes counted in this height's vote sets. */
    readonly verifier: SignatureVerifier,
  ) {}

  ownAt(round: number): OwnMessages {
    let o = this.own.get(round);
    if (o === undefined) {
      o = {};
      this.own.set(round, o);
    }
    return o;
  }

  /** The vote set of (type, round), created empty on first use. */
  voteSet(type: VoteType, round: number): VoteSet {
    const sets = type === 'prevote' ? this.prevotes : this.precommits;
    let set = sets.get(round);
    if (set === undefined) {
      set = new VoteSet(this.chainId, this.height, round, type, this.validators, this.verifier);
      sets.set(round, set);
    }
    return set;
  }

  /** A signed message of `index` at `round`: more than 1/3 of the power there lets us skip to it. */
  heard(round: number, index: number): void {
    if (index < 0) return;
    let r = this.roundSenders.get(round);
    if (r === undefined) {
      r = { seen: new Uint8Array(this.validators.size), power: 0n };
      this.roundSenders.set(round, r);
    }
    if (r.seen[index] === 1) return;
    r.seen[index] = 1;
    r.power += this.validators.validators[index].power;
    if (round > this.oneThirdRound && this.validators.hasOneThird(r.power)) this.oneThirdRound = round;
  }

  /** Where we are in `round`: what we hold, as bitmaps, so a peer sends only what we lack. */
  status(round: number): StatusMessage {
    const bytes = Math.ceil(this.validators.size / 8);
    const prevotes = new Uint8Array(bytes);
    const precommits = new Uint8Array(bytes);
    for (const [set, bitmap] of [
      [this.prevotes.get(round), prevotes],
      [this.precommits.get(round), precommits],
    ] as const) {
      if (set === undefined) continue;
      for (let i = 0; i < this.validators.size; i++) if (set.getByIndex(i) !== undefined) bitmapSet(bitmap, i);
    }
    const proposal = this.proposals.get(round)?.proposal;
    const polRound = proposal?.polRound ?? -1;
    const polPrevotes = new Uint8Array(bytes);
    const polSet = polRound >= 0 ? this.prevotes.get(polRound) : undefined;
    if (polSet !== undefined && proposal !== undefined) {
      for (let i = 0; i < this.validators.size; i++) if (polSet.hasVoteFor(i, proposal.blockHash)) bitmapSet(polPrevotes, i);
    }
    return { height: this.height, round, hasProposal: this.proposals.has(round), prevotes, precommits, polRound, polPrevotes };
  }

  /** The commit of a verified certificate, when it is for this (round, block). */
  certifiedCommit(round: number, blockHash: Uint8Array): Commit | undefined {
    const c = this.certified;
    return c !== undefined && c.round === round && equalBytes(c.blockHash, blockHash) ? c : undefined;
  }

  /** Once decided here: the block and its commit, for peers still deciding. */
  decidedCertificate(ctx: DecisionView): Certificate | undefined {
    if (!ctx.decided || ctx.commitValue === null) return undefined;
    const block = this.blocks.get(ctx.commitValue);
    const hash = hexToBytes(ctx.commitValue);
    const commit = this.precommits.get(ctx.commitRound)?.makeCommit(hash) ?? this.certifiedCommit(ctx.commitRound, hash);
    if (block === undefined || commit === undefined) return undefined;
    return { height: ctx.height, block, commit };
  }
}
