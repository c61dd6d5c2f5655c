/**
 * The votes of one (height, round, type): power tallied per block hash and for nil,
 * quorum reports.
 *
 * Counting. "+2/3 any" counts each validator once, with its first vote. "+2/3 for B"
 * counts every validator that validly signed B, even one that also signed something
 * else: a quorum of signatures for B is a proof of B whatever else the equivocators
 * signed (CometBFT's votesByBlock does the same), and otherwise a node that happened to
 * receive a Byzantine validator's other vote first could never assemble the commit the
 * rest of the network decided with. Two values can both reach a quorum only if 1/3 of
 * the power or more double-signs, which is outside the fault model (less than 1/3).
 *
 * Cost: an identical duplicate is recognised by content and dropped unverified; any new
 * vote costs one signature verification and O(1) bigint additions; reports are O(1)
 * (the first value to reach a quorum is remembered). A validator's second, different
 * vote becomes DuplicateVoteEvidence (once per validator per set).
 *
 * Late votes. Once a value holds a quorum, a validator's first vote arriving after it
 * changes nothing the node acts on: the majority is the first value to reach a quorum
 * and stays, "+2/3 any" already holds, and another value can reach a quorum only if 1/3
 * of the power or more double-signs. Such a vote is kept unchecked and uncounted (at
 * most one per validator) instead of costing a signature check: in a healthy round of
 * six a node's quorum is its own vote and three others, so the last two prevotes are
 * late. It never counts, never goes into a commit and is never relayed (but by a
 * round's collector, a precommit for its certified block: ./core.ts, decision 174). It is
 * checked only if the same validator sends a different vote, so that double signing
 * still becomes evidence: then the kept vote is checked and, if good, counted first.
 *
 * Bounds. A Byzantine validator can sign any number of values. Beyond MAX_VARIANTS
 * votes from one validator, a further vote is kept only if its value matters: another
 * validator voted for it, or a proposal's proof-of-lock claims a quorum for it
 * (`claim`, at most MAX_CLAIMS per set; CometBFT's VoteSetMaj23 does the same). Without
 * that, an equivocator that first sprays junk values could keep its real vote out of
 * some nodes' sets for good, and those nodes could never check a proof-of-lock that
 * other nodes locked on. Junk beyond the bound is ignored unverified.
 */
import { type Commit, type CommitSignature, canonicalCommit } from '../codec/block';
import type { Address } from '../util/bytes';
import { duplicateVoteEvidence, type DuplicateVoteEvidence } from './evidence';
import { hashKey, sameVoteContent, voteSigningHash, type HashKey, type Vote, type VoteType } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';
import { VOTE_CLAIMS_MAX, VOTE_VARIANTS_MAX } from './limits';

export type AddVoteResult =
  | { status: 'added' }
  /** Kept unchecked and uncounted: the set already holds a quorum (see "Late votes"). */
  | { status: 'late' }
  /** Nothing new: same content as a vote held, or too many variants from an equivocator. */
  | { status: 'duplicate' }
  /** A validly signed second vote: counted for its own value only, and evidence (first conflict only). */
  | { status: 'conflict'; evidence: DuplicateVoteEvidence | undefined }
  | { status: 'invalid'; reason: string };

/** Votes kept per validator for values nobody else voted for (its first plus conflicting ones). */
export const MAX_VARIANTS = VOTE_VARIANTS_MAX;
/** Values a set accepts claims of a quorum for. */
export const MAX_CLAIMS = VOTE_CLAIMS_MAX;

interface Tally {
  blockHash: Uint8Array | null;
  power: bigint;
  /** Per validator index: its vote for this value. */
  votes: (Vote | undefined)[];
}

export class VoteSet {
  /** Per validator index: every distinct vote held, the first one first. */
  readonly #byValidator: Vote[][];
  readonly #tally = new Map<HashKey, Tally>();
  readonly #claimed = new Set<HashKey>();
  /** Per validator index: its first vote when it came after the quorum, unchecked (see "Late votes"). */
  readonly #late: (Vote | undefined)[];
  #power = 0n;
  #count = 0;
  /** The first value to hold a quorum. */
  #majority: Tally | undefined;

  constructor(
    readonly chainId: number,
    readonly height: number,
    readonly round: number,
    readonly type: VoteType,
    readonly validators: ValidatorSet,
    private readonly verifier: SignatureVerifier,
  ) {
    this.#byValidator = Array.from({ length: validators.size }, () => []);
    this.#late = new Array(validators.size);
  }

  /**
   * Adds a vote. `trusted`: the signature is already known good (our own privval, or a
   * verified certificate). Never throws for bad input: answers `invalid`.
   */
  add(vote: Vote, trusted = false): AddVoteResult {
    if (vote.type !== this.type || vote.height !== this.height || vote.round !== this.round) {
      return { status: 'invalid', reason: `vote for ${vote.type} ${vote.height}/${vote.round} in set ${this.type} ${this.height}/${this.round}` };
    }
    const index = this.validators.indexOf(vote.validator);
    if (index < 0) return { status: 'invalid', reason: `${vote.validator} is not a validator` };
    if (vote.signature.length !== 65) return { status: 'invalid', reason: 'signature must be 65 bytes' };
    const held = this.#byValidator[index];
    for (const h of held) if (sameVoteContent(h, vote)) return { status: 'duplicate' };
    if (!trusted && held.length === 0 && this.#majority !== undefined) {
      const late = this.#late[index];
      if (late === undefined) {
        this.#late[index] = vote;
        return { status: 'late' };
      }
      if (sameVoteContent(late, vote)) return { status: 'duplicate' };
      // A second, different vote: check the kept one now and count it if good, so the
      // new one meets it as a conflict (evidence) on the regular path below.
      this.#late[index] = undefined;
      if (this.#addChecked(late, index, false).status === 'invalid') {
        this.#late[index] = vote;
        return { status: 'late' };
      }
    }
    return this.#addChecked(vote, index, trusted);
  }

  #addChecked(vote: Vote, index: number, trusted: boolean): AddVoteResult {
    const held = this.#byValidator[index];
    if (held.length >= MAX_VARIANTS) {
      const key = hashKey(vote.blockHash);
      if (!this.#tally.has(key) && !this.#claimed.has(key)) return { status: 'duplicate' };
    }
    if (!trusted && !this.verifier.verify(voteSigningHash(this.chainId, vote), vote.signature, vote.validator)) {
      return { status: 'invalid', reason: 'bad signature' };
    }
    held.push(vote);
    const power = this.validators.validators[index].power;
    const t = this.#tallyOf(vote.blockHash);
    t.votes[index] = vote;
    t.power += power;
    if (this.#majority === undefined && this.validators.hasQuorum(t.power)) this.#majority = t;
    if (held.length === 1) {
      this.#count++;
      this.#power += power;
      return { status: 'added' };
    }
    return { status: 'conflict', evidence: held.length === 2 ? duplicateVoteEvidence(held[0], vote) : undefined };
  }

  #tallyOf(blockHash: Uint8Array | null): Tally {
    const key = hashKey(blockHash);
    let t = this.#tally.get(key);
    if (t === undefined) {
      t = { blockHash, power: 0n, votes: new Array(this.validators.size) };
      this.#tally.set(key, t);
    }
    return t;
  }

  /**
   * Someone claims a quorum voted for this value (a proposal's proof-of-lock): its votes
   * are kept even from validators past MAX_VARIANTS. False when the set holds enough claims.
   */
  claim(blockHash: Uint8Array | null): boolean {
    const key = hashKey(blockHash);
    if (this.#claimed.has(key)) return true;
    if (this.#claimed.size >= MAX_CLAIMS) return false;
    this.#claimed.add(key);
    return true;
  }

  /** Holds validator `index`'s vote for this value. */
  hasVoteFor(index: number, blockHash: Uint8Array | null): boolean {
    return this.#tally.get(hashKey(blockHash))?.votes[index] !== undefined;
  }

  /** Validators that voted. */
  get count(): number {
    return this.#count;
  }

  /** Power of the validators that voted, each counted once. */
  get power(): bigint {
    return this.#power;
  }

  /** Power of the validators that signed this value. */
  powerFor(blockHash: Uint8Array | null): bigint {
    return this.#tally.get(hashKey(blockHash))?.power ?? 0n;
  }

  /** A quorum voted, for whatever values. */
  hasTwoThirdsAny(): boolean {
    return this.validators.hasQuorum(this.#power);
  }

  hasOneThirdAny(): boolean {
    return this.validators.hasOneThird(this.#power);
  }

  hasTwoThirdsFor(blockHash: Uint8Array | null): boolean {
    return this.validators.hasQuorum(this.powerFor(blockHash));
  }

  /** The value a quorum voted for (`blockHash` null: nil), or undefined. */
  twoThirdsMajority(): { blockHash: Uint8Array | null } | undefined {
    return this.#majority === undefined ? undefined : { blockHash: this.#majority.blockHash };
  }

  /** The validator's first vote. */
  get(validator: Address): Vote | undefined {
    const i = this.validators.indexOf(validator);
    return i < 0 ? undefined : this.#byValidator[i][0];
  }

  getByIndex(index: number): Vote | undefined {
    return this.#byValidator[index]?.[0];
  }

  /** The late votes kept, unchecked (LastCommitCollector checks those it uses). */
  lateVotes(): Vote[] {
    return this.#late.filter((v): v is Vote => v !== undefined);
  }

  /** Validators whose late vote is kept unchecked. */
  get lateCount(): number {
    let n = 0;
    for (const v of this.#late) if (v !== undefined) n++;
    return n;
  }

  /** Every vote held (checked), first votes and conflicting ones; not the late ones. */
  votes(): Vote[] {
    return this.#byValidator.flat();
  }

  /** Every validator's vote for this value. */
  votesFor(blockHash: Uint8Array | null): Vote[] {
    const t = this.#tally.get(hashKey(blockHash));
    return t === undefined ? [] : t.votes.filter((v): v is Vote => v !== undefined);
  }

  /** The precommits for `blockHash` as a canonical Commit, when they are a quorum. */
  makeCommit(blockHash: Uint8Array): Commit | undefined {
    if (this.type !== 'precommit' || !this.hasTwoThirdsFor(blockHash)) return undefined;
    const t = this.#tally.get(hashKey(blockHash));
    if (t === undefined) return undefined;
    const signatures: CommitSignature[] = [];
    for (const v of t.votes) if (v !== undefined) signatures.push({ validator: v.validator, signature: v.signature });
    return canonicalCommit({ height: this.height, round: this.round, blockHash, signatures });
  }
}
