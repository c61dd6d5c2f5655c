/**
 * Catching up, both sides: what a peer at our height lacks, read from its status (the
 * proposal, the votes its bitmaps do not mark, the proof-of-lock of its proposal, our
 * round when it is behind), and the check of a certificate a peer sent us (the
 * precommits of a commit, each signature verified, +2/3 of the power).
 *
 * Separate from the core (./core.ts) because neither side steps the round machine: one
 * reads the height's record to answer a peer, the other verifies a certificate before
 * anything of it is stored. The core decides when to answer and what to do with the
 * verified votes.
 */
import { ZERO_HASH } from '../codec/block';
import type { Address } from '../util/bytes';
import { equalBytes } from '../util/bytes';
import type { HeightState } from './height-state';
import { bitmapGet, voteSigningHash, type Certificate, type ConsensusMessage, type StatusMessage, type Vote } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';

/**
 * Sends a peer at our height what its status says it lacks: the round's proposal, the
 * votes its bitmaps do not mark, the prevotes of its proposal's proof-of-lock, and when
 * it is in an earlier round everything of ours (so it can skip here on f+1 and take part).
 */
export function sendWhatPeerLacks(hs: HeightState, s: StatusMessage, ourRound: number, send: (message: ConsensusMessage) => void): void {
  const validators = hs.validators;
  if (!s.hasProposal) {
    const rec = hs.proposals.get(s.round);
    if (rec) send({ kind: 'proposal', proposal: rec.proposal });
  }
  for (const [sets, bitmap] of [
    [hs.prevotes, s.prevotes],
    [hs.precommits, s.precommits],
  ] as const) {
    const set = sets.get(s.round);
    if (set === undefined) continue;
    for (let i = 0; i < validators.size; i++) {
      const v = set.getByIndex(i);
      if (v !== undefined && !bitmapGet(bitmap, i)) send({ kind: 'vote', vote: v });
    }
  }
  if (s.polRound >= 0) {
    // Its bitmap marks the votes it holds for the proposal's block at polRound.
    const ours = hs.proposals.get(s.round);
    const pol = hs.prevotes.get(s.polRound);
    const votes = ours !== undefined && ours.proposal.polRound === s.polRound ? pol?.votesFor(ours.proposal.blockHash) : pol?.votes();
    for (const v of votes ?? []) {
      if (!bitmapGet(s.polPrevotes, validators.indexOf(v.validator))) send({ kind: 'vote', vote: v });
    }
  }
  // Behind in rounds: everything of our round lets it skip here (f+1) and take part.
  if (ourRound > s.round) {
    const rec = hs.proposals.get(ourRound);
    if (rec) send({ kind: 'proposal', proposal: rec.proposal });
    for (const set of [hs.prevotes.get(ourRound), hs.precommits.get(ourRound)]) {
      for (const v of set?.votes() ?? []) send({ kind: 'vote', vote: v });
    }
  }
}

/**
 * The precommits of a certificate's commit whose signatures verify, one per member of
 * `validators`, when they carry +2/3 of its power; undefined for a malformed commit or
 * one short of a quorum. The caller has checked the heights.
 */
export function certificateVotes(chainId: number, validators: ValidatorSet, verifier: SignatureVerifier, c: Certificate): Vote[] | undefined {
  const commit = c.commit;
  // The zero hash is nil: nil precommits would "verify" as a commit of it.
  if (commit.blockHash.length !== 32 || equalBytes(commit.blockHash, ZERO_HASH) || !Number.isSafeInteger(commit.round) || commit.round < 0) {
    return undefined;
  }
  // Verify before anything is stored: a forged certificate must cost us nothing.
  const votes: Vote[] = [];
  const seen = new Set<Address>();
  let power = 0n;
  for (const s of commit.signatures) {
    if (seen.has(s.validator) || !validators.has(s.validator)) continue;
    const vote: Vote = { type: 'precommit', height: c.height, round: commit.round, blockHash: commit.blockHash, validator: s.validator, signature: s.signature };
    if (s.signature.length !== 65 || !verifier.verify(voteSigningHash(chainId, vote), s.signature, s.validator)) continue;
    seen.add(s.validator);
    power += validators.powerOf(s.validator);
    votes.push(vote);
  }
  return validators.hasQuorum(power) ? votes : undefined;
}
