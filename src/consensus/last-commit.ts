/**
 * The commit a proposer records for the previous height (its block's lastCommit): every
 * precommit for the decided block it holds when it builds, not only the quorum it
 * decided on. Execution counts a validator's downtime from the lastCommit of each block
 * (src/state/validators/downtime.ts, decision 72), so a commit cut at the quorum would
 * count the slowest honest validators as absent at nearly every height and jail them.
 * CometBFT's LastCommit holds the precommits gathered until the next proposal for the
 * same reason.
 *
 * Precommits that come after the quorum are kept unchecked (the VoteSet's "late votes",
 * and those that arrive once the core has moved to the next height); they are checked
 * only when the proposer builds, once each, so a node that never proposes pays nothing
 * and a forged one is dropped there. At most one per validator of the height's set.
 */
import { canonicalCommit, type Commit, type CommitSignature } from '../codec/block';
import type { Address } from '../util/bytes';
import { equalBytes } from '../util/bytes';
import { voteSigningHash, type Vote } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';

export class LastCommitCollector {
  /** Precommits not in the decided commit, unchecked, by validator. */
  readonly #pending = new Map<Address, Vote>();
  /** Checked precommits added to the commit, by validator. */
  readonly #added = new Map<Address, CommitSignature>();
  #checked: Commit;

  constructor(
    readonly chainId: number,
    readonly validators: ValidatorSet,
    readonly decided: Commit,
    private readonly verifier: SignatureVerifier,
  ) {
    this.#checked = decided;
  }

  get height(): number {
    return this.decided.height;
  }

  /** A precommit of the decided height: kept (unchecked) when it is for the decided block and round and not already in. */
  offer(v: Vote): boolean {
    const c = this.decided;
    if (v.type !== 'precommit' || v.height !== c.height || v.round !== c.round || v.blockHash === null || !equalBytes(v.blockHash, c.blockHash)) return false;
    if (!this.validators.has(v.validator) || this.#pending.has(v.validator) || this.#added.has(v.validator)) return false;
    if (c.signatures.some((s) => s.validator === v.validator)) return false;
    this.#pending.set(v.validator, v);
    return true;
  }

  /** The decided commit with every kept precommit whose signature checks; checks each once. */
  commit(): Commit {
    if (this.#pending.size === 0) return this.#checked;
    for (const [validator, v] of this.#pending) {
      if (this.verifier.verify(voteSigningHash(this.chainId, v), v.signature, validator)) this.#added.set(validator, { validator, signature: v.signature });
    }
    this.#pending.clear();
    const c = this.decided;
    this.#checked = canonicalCommit({ height: c.height, round: c.round, blockHash: c.blockHash, signatures: [...c.signatures, ...this.#added.values()] });
    return this.#checked;
  }
}
