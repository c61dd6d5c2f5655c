/**
 * Verifying a commit on its own: 2/3 of the voting power or more precommitted this
 * block hash at (height, round). Used wherever a block arrives with its proof rather
 * than through our own vote counting: block sync, the last commit a block carries.
 */
import { ZERO_HASH, type Commit } from '../codec/block';
import { equalBytes } from '../util/bytes';
import { voteSigningHash } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';

/** null when the commit proves `blockHash` final at `height`; otherwise why not. */
export function checkCommit(
  chainId: number,
  validators: ValidatorSet,
  verifier: SignatureVerifier,
  height: number,
  blockHash: Uint8Array,
  commit: Commit,
  /** Signatures already verified (e.g. the precommits this node counted itself): not verified again. */
  known?: (validator: string, signature: Uint8Array) => boolean,
): string | null {
  if (commit.height !== height) return `commit is for height ${commit.height}, not ${height}`;
  if (!Number.isSafeInteger(commit.round) || commit.round < 0) return `commit round ${commit.round} is invalid`;
  // Nil precommits sign the zero hash: they must never count as a commit of it.
  if (equalBytes(commit.blockHash, ZERO_HASH)) return 'commit of the nil (zero) hash';
  if (!equalBytes(commit.blockHash, blockHash)) return 'commit is for another block';
  const digest = voteSigningHash(chainId, { type: 'precommit', height, round: commit.round, blockHash });
  let power = 0n;
  let previous = '';
  for (const s of commit.signatures) {
    if (s.validator <= previous) return 'commit signatures are not sorted and unique';
    previous = s.validator;
    if (!validators.has(s.validator)) return `commit signed by ${s.validator}, not a validator`;
    if (s.signature.length !== 65) return `bad commit signature of ${s.validator}`;
    if (!known?.(s.validator, s.signature) && !verifier.verify(digest, s.signature, s.validator)) return `bad commit signature of ${s.validator}`;
    power += validators.powerOf(s.validator);
  }
  if (!validators.hasQuorum(power)) return `commit carries ${power} of ${validators.totalPower} voting power, less than 2/3`;
  return null;
}
