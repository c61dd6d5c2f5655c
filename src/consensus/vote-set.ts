/**
 * The votes of one (height, round, type): at most one counted vote per validator,
 * power tallied per block hash and for nil, quorum reports.
 *
 * Cost: a vote costs one map lookup, one signature verification (only for a vote not
 * seen before: an identical duplicate is recognised by content and dropped unverified),
 * and O(1) bigint additions; reports are O(1) (the leading value is tracked as votes
 * arrive). A second, different vote from one validator is verified (so nobody can
 * forge evidence against someone else), becomes DuplicateVoteEvidence, and is never
 * counted: the first vote stays.
 */
import { type Commit, type CommitSignature, canonicalCommit } from '../codec/block';
import type { Address } from '../util/bytes';
import { equalBytes } from '../util/bytes';
import { duplicateVoteEvidence, type DuplicateVoteEvidence } from './evidence';
import { hashKey, sameVoteContent, voteSigningHash, type HashKey, type Vote, type VoteType } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';

export type AddVoteResult =
  | { status: 'added' }
  /** Same content as the counted vote (or the validator is already proven to double-sign). */
  | { status: 'duplicate' }
  | { status: 'conflict'; evidence: DuplicateVoteEvidence }
  | { status: 'invalid'; reason: string };

interface Tally {
  blockHash: Uint8Array | null;
  power: bigint;
}

export class VoteSet {
  readonly #votes: (Vote | undefined)[];
  readonly #tally = new Map<HashKey, Tally>();
  /** Validators already caught: further votes from them are ignored unverified. */
  readonly #equivocators = new Set<Address>();
  #power = 0n;
  #count = 0;
  /** The value holding a quorum, once one does (the first to reach it, under any rule). */
  #majority: Tally | undefined;

  constructor(
    readonly chainId: number,
    readonly height: number,
    readonly round: number,
    readonly type: VoteType,
    readonly validators: ValidatorSet,
    private readonly verifier: SignatureVerifier,
  ) {
    this.#votes = new Array(validators.size);
  }

  /**
   * Adds a vote. `trusted`: the signature was made by this node's own privval (not
   * verified again). Never throws for bad input: answers `invalid`.
   */
  add(vote: Vote, trusted = false): AddVoteResult {
    if (vote.type !== this.type || vote.height !== this.height || vote.round !== this.round) {
      return { status: 'invalid', reason: `vote for ${vote.type} ${vote.height}/${vote.round} in set ${this.type} ${this.height}/${this.round}` };
    }
    const index = this.validators.indexOf(vote.validator);
    if (index < 0) return { status: 'invalid', reason: `${vote.validator} is not a validator` };
    if (vote.signature.length !== 65) return { status: 'invalid', reason: 'signature must be 65 bytes' };
    const existing = this.#votes[index];
    if (existing !== undefined) {
      if (sameVoteContent(existing, vote) || this.#equivocators.has(vote.validator)) return { status: 'duplicate' };
      if (!this.#verify(vote, trusted)) return { status: 'invalid', reason: 'bad signature' };
      this.#equivocators.add(vote.validator);
      return { status: 'conflict', evidence: duplicateVoteEvidence(existing, vote) };
    }
    if (!this.#verify(vote, trusted)) return { status: 'invalid', reason: 'bad signature' };
    this.#votes[index] = vote;
    this.#count++;
    const power = this.validators.validators[index].power;
    this.#power += power;
    const key = hashKey(vote.blockHash);
    let t = this.#tally.get(key);
    if (t === undefined) {
      t = { blockHash: vote.blockHash, power: 0n };
      this.#tally.set(key, t);
    }
    t.power += power;
    if (this.#majority === undefined && this.validators.hasQuorum(t.power)) this.#majority = t;
    return { status: 'added' };
  }

  #verify(vote: Vote, trusted: boolean): boolean {
    if (trusted) return true;
    return this.verifier.verify(voteSigningHash(this.chainId, vote), vote.signature, vote.validator);
  }

  get count(): number {
    return this.#count;
  }

  /** Power of every counted vote. */
  get power(): bigint {
    return this.#power;
  }

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

  get(validator: Address): Vote | undefined {
    const i = this.validators.indexOf(validator);
    return i < 0 ? undefined : this.#votes[i];
  }

  getByIndex(index: number): Vote | undefined {
    return this.#votes[index];
  }

  votes(): Vote[] {
    return this.#votes.filter((v): v is Vote => v !== undefined);
  }

  /** The precommits for `blockHash` as a canonical Commit, when they are a quorum. */
  makeCommit(blockHash: Uint8Array): Commit | undefined {
    if (this.type !== 'precommit' || !this.hasTwoThirdsFor(blockHash)) return undefined;
    const signatures: CommitSignature[] = [];
    for (const v of this.#votes) {
      if (v !== undefined && v.blockHash !== null && equalBytes(v.blockHash, blockHash)) {
        signatures.push({ validator: v.validator, signature: v.signature });
      }
    }
    return canonicalCommit({ height: this.height, round: this.round, blockHash, signatures });
  }
}


