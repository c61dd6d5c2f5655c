/**
 * The admission of a proposal at the height being decided: its proof-of-lock round
 * before its own, signed by the round's proposer, and at most one per round: a second,
 * different one correctly signed is the proposer's equivocation, answered with evidence
 * once per round.
 *
 * Separate from the core (./core.ts) as VoteSet is for votes: a verdict from the
 * height's record and the message, nothing stored. An invalid verdict names the rule and
 * the check that failed, for the operator's log (the core's onProposalRefused). The core counts the verdict, keeps an
 * accepted proposal and its block, and emits the evidence.
 */
import { equalBytes } from '../util/bytes';
import { duplicateProposalEvidence, stripBlock, type Evidence } from './evidence';
import type { HeightState } from './height-state';
import { proposalSigningHash, type Proposal } from './messages';
import type { SignatureVerifier } from './signer';

/** Why a proposal was refused (the core reports it to its `onProposalRefused`). */
export type ProposalRefusalCode = 'ROUND_OUT_OF_WINDOW' | 'POL_ROUND' | 'WRONG_PROPOSER' | 'BAD_SIGNATURE';

export type ProposalVerdict =
  | { status: 'accepted' }
  | { status: 'invalid'; code: ProposalRefusalCode; check: string }
  | { status: 'duplicate' }
  /** A second proposal of the round, correctly signed: the first one stays. */
  | { status: 'conflict'; evidence: Evidence };

const BAD_SIGNATURE: ProposalVerdict = { status: 'invalid', code: 'BAD_SIGNATURE', check: "the signature is not the proposer's over this proposal" };

/** The verdict on `p`, of the height of `hs` and a round the core takes messages for. */
export function checkProposal(chainId: number, verifier: SignatureVerifier, hs: HeightState, p: Proposal): ProposalVerdict {
  if (!(p.polRound === -1 || (p.polRound >= 0 && p.polRound < p.round))) {
    return { status: 'invalid', code: 'POL_ROUND', check: `proof-of-lock round ${p.polRound} is neither -1 nor before round ${p.round}` };
  }
  const drawn = hs.validators.proposer(hs.height, p.round, hs.seed).address;
  if (p.proposer !== drawn) return { status: 'invalid', code: 'WRONG_PROPOSER', check: `round ${p.round} of height ${hs.height} is ${drawn}'s to propose, not ${p.proposer}'s` };
  const existing = hs.proposals.get(p.round);
  if (existing !== undefined) {
    const a = existing.proposal;
    const same = equalBytes(a.blockHash, p.blockHash) && a.polRound === p.polRound;
    if (same || hs.proposalEvidenceRounds.has(p.round)) return { status: 'duplicate' };
    if (!verifyProposal(chainId, verifier, p)) return BAD_SIGNATURE;
    return { status: 'conflict', evidence: duplicateProposalEvidence(chainId, stripBlock(a), stripBlock(p)) };
  }
  return verifyProposal(chainId, verifier, p) ? { status: 'accepted' } : BAD_SIGNATURE;
}

function verifyProposal(chainId: number, verifier: SignatureVerifier, p: Proposal): boolean {
  return p.signature.length === 65 && p.blockHash.length === 32 && verifier.verify(proposalSigningHash(chainId, p), p.signature, p.proposer);
}
