/**
 * Double-sign evidence (contract [D-validators-evidence]: two conflicting signed votes for the
 * same height, round and step). A conflicting pair of proposals for one (height, round)
 * is evidence too. Both members are held in a canonical order so one offence has one
 * encoding and one hash.
 */
import { CodecError, Reader, Writer } from '../codec/binary';
import { keccak256 } from '../crypto/keccak';
import type { Address } from '../util/bytes';
import { compareBytes, equalBytes } from '../util/bytes';
import { decodeVote, encodeVote, proposalSigningHash, voteSigningHash, type Proposal, type Vote } from './messages';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';
import { EVIDENCE_BYTES_MAX } from './limits';

/** A proposal without its block bytes: the signature covers the hash, not the bytes. */
export type SignedProposal = Omit<Proposal, 'block'>;

export interface DuplicateVoteEvidence {
  kind: 'duplicateVote';
  /** voteA's block hash sorts before voteB's; nil sorts first. */
  voteA: Vote;
  voteB: Vote;
}

export interface DuplicateProposalEvidence {
  kind: 'duplicateProposal';
  /** Ordered by proposal signing hash. */
  proposalA: SignedProposal;
  proposalB: SignedProposal;
}

export type Evidence = DuplicateVoteEvidence | DuplicateProposalEvidence;

export function evidenceOffender(e: Evidence): Address {
  return e.kind === 'duplicateVote' ? e.voteA.validator : e.proposalA.proposer;
}

export function evidenceHeight(e: Evidence): number {
  return e.kind === 'duplicateVote' ? e.voteA.height : e.proposalA.height;
}

function compareHash(a: Uint8Array | null, b: Uint8Array | null): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return compareBytes(a, b);
}

export function duplicateVoteEvidence(a: Vote, b: Vote): DuplicateVoteEvidence {
  return compareHash(a.blockHash, b.blockHash) <= 0 ? { kind: 'duplicateVote', voteA: a, voteB: b } : { kind: 'duplicateVote', voteA: b, voteB: a };
}

export function stripBlock(p: Proposal): SignedProposal {
  return { height: p.height, round: p.round, polRound: p.polRound, blockHash: p.blockHash, proposer: p.proposer, signature: p.signature };
}

export function duplicateProposalEvidence(chainId: number, a: SignedProposal, b: SignedProposal): DuplicateProposalEvidence {
  const first = compareBytes(proposalSigningHash(chainId, a), proposalSigningHash(chainId, b)) <= 0;
  return { kind: 'duplicateProposal', proposalA: first ? a : b, proposalB: first ? b : a };
}

/**
 * Why the evidence is not valid, or null when it proves a double sign by a member of
 * `validators`: same signer, same (height, round, type), different content, both
 * signatures valid, canonical order.
 */
export function checkEvidence(chainId: number, validators: ValidatorSet, verifier: SignatureVerifier, e: Evidence): string | null {
  if (e.kind === 'duplicateVote') {
    const { voteA: a, voteB: b } = e;
    if (a.validator !== b.validator) return 'votes from different validators';
    if (!validators.has(a.validator)) return 'not a validator';
    const problem = voteEvidenceShapeProblem(e);
    if (problem) return problem;
    if (!verifier.verify(voteSigningHash(chainId, a), a.signature, a.validator)) return 'first signature invalid';
    if (!verifier.verify(voteSigningHash(chainId, b), b.signature, b.validator)) return 'second signature invalid';
    return null;
  }
  const { proposalA: a, proposalB: b } = e;
  if (a.proposer !== b.proposer) return 'proposals from different proposers';
  if (!validators.has(a.proposer)) return 'not a validator';
  if (a.height !== b.height || a.round !== b.round) return 'proposals for different (height, round)';
  const ha = proposalSigningHash(chainId, a);
  const hb = proposalSigningHash(chainId, b);
  const order = compareBytes(ha, hb);
  if (order === 0) return 'proposals do not conflict';
  if (order > 0) return 'proposals not in canonical order';
  if (!verifier.verify(ha, a.signature, a.proposer)) return 'first signature invalid';
  if (!verifier.verify(hb, b.signature, b.proposer)) return 'second signature invalid';
  return null;
}

/**
 * Why two votes do not form double-sign evidence by their content alone (signatures
 * and membership aside), or null: one signer, one (height, round, type), different
 * block hashes (nil counts as one), in canonical order. Execution's shape check of
 * the evidence transaction (src/state/ops/double-sign-evidence.ts) is this one.
 */
export function voteEvidenceShapeProblem(e: DuplicateVoteEvidence): string | null {
  const { voteA: a, voteB: b } = e;
  if (a.validator !== b.validator) return 'votes from different validators';
  if (a.type !== b.type || a.height !== b.height || a.round !== b.round) return 'votes for different (height, round, type)';
  const order = compareHash(a.blockHash, b.blockHash);
  if (order === 0) return 'votes do not conflict';
  if (order > 0) return 'votes not in canonical order';
  return null;
}

function writeSignedProposal(w: Writer, p: SignedProposal): void {
  w.u64(p.height).u32(p.round).u32(p.polRound + 1).fixed(p.blockHash, 32).address(p.proposer).fixed(p.signature, 65);
}

function readSignedProposal(r: Reader): SignedProposal {
  const height = r.u64();
  const round = r.u32();
  const polRound = r.u32() - 1;
  return { height, round, polRound, blockHash: r.fixed(32), proposer: r.address(), signature: r.fixed(65) };
}

/** `u8 kind (1 votes, 2 proposals) | the two members`. */
export function encodeEvidence(e: Evidence): Uint8Array {
  const w = new Writer(320);
  if (e.kind === 'duplicateVote') {
    w.u8(1).bytes(encodeVote(e.voteA)).bytes(encodeVote(e.voteB));
  } else {
    w.u8(2);
    writeSignedProposal(w, e.proposalA);
    writeSignedProposal(w, e.proposalB);
  }
  return w.finish();
}

export function decodeEvidence(bytes: Uint8Array): Evidence {
  const r = new Reader(bytes, EVIDENCE_BYTES_MAX);
  const kind = r.u8();
  let e: Evidence;
  if (kind === 1) {
    e = { kind: 'duplicateVote', voteA: decodeVote(r.bytes(256)), voteB: decodeVote(r.bytes(256)) };
  } else if (kind === 2) {
    e = { kind: 'duplicateProposal', proposalA: readSignedProposal(r), proposalB: readSignedProposal(r) };
  } else {
    throw new CodecError('KIND', `unknown evidence kind ${kind}`);
  }
  r.end();
  return e;
}

export function evidenceHash(e: Evidence): Uint8Array {
  return keccak256(encodeEvidence(e));
}

export function sameEvidence(a: Evidence, b: Evidence): boolean {
  return equalBytes(encodeEvidence(a), encodeEvidence(b));
}
