/**
 * The consensus core's bounds in one place: what each one bounds, its unit, and what
 * it costs at most. Every buffer of src/consensus is bounded by one of these; nothing
 * here depends on I/O, so the simulator and the node share them. The relations between
 * them and the genesis (validator count, block size) are checked when a node is built
 * (checkConsensusLimits, called from actors/limits.ts) and by test/actors/limits.test.ts.
 *
 * Sizes of one message, for the prices below (src/consensus/messages.ts):
 *   vote          ~ 160 B encoded, ~ 0.5 KiB held as an object
 *   status        ~ 40 B + 3 bitmaps of ⌈validators / 8⌉ B
 *   proposal      block bytes + ~ 256 B
 *   certificate   block bytes + commit (64 + 85 B per validator) + ~ 512 B
 *   votes         (a collector's vote certificate, decision 174) 4 B + 131 B per vote, one per validator at most
 */

/**
 * Validators a set may hold (ValidatorSet), and so the bound on every bitmap of a status
 * message (VALIDATORS_MAX / 8 = 128 B each) and on a commit's size when decoded
 * (64 + 85 B × VALIDATORS_MAX ≈ 85 KiB). The genesis caps the active set far lower
 * (activeSetMax, 21 on the devnet); this is the wire format's bound.
 */
export const VALIDATORS_MAX = 1024;

/** Block size a decoder accepts when the caller gives none (the genesis sets the real one, maxBlockBytes). */
export const BLOCK_BYTES_MAX_DEFAULT = 4 * 1024 * 1024;

/**
 * Bytes a consensus message may carry beyond its block: the proposal's or certificate's
 * header, signatures and the certificate's commit. The transport's message limit is
 * maxBlockBytes + this. A certificate's commit is 64 + 85 B per validator, so this
 * bounds the validator count a certificate can carry (see certificateFits).
 */
export const CONSENSUS_MESSAGE_OVERHEAD_BYTES = 64 * 1024;

/** Bytes of a certificate besides its block and commit (heights, lengths, kind). */
export const CERTIFICATE_HEADER_BYTES = 512;

/** Bytes of a commit: fixed part plus one signature entry (address 20 B + signature 65 B) per validator. */
export const COMMIT_FIXED_BYTES = 64;
export const COMMIT_BYTES_PER_VALIDATOR = 85;

/** Bytes of one vote in the vote encoding (type, height, round, nil flag, hash, address, signature). */
export const VOTE_BYTES_MAX = 1 + 8 + 4 + 1 + 32 + 20 + 65;

/** Bytes of a vote certificate of `validators` votes (version, kind, count, votes): the largest a collector sends. */
export function voteCertificateBytesMax(validators: number): number {
  return 4 + VOTE_BYTES_MAX * validators;
}

/** Bytes one piece of evidence (two conflicting signed messages, blocks stripped) may take when decoded. */
export const EVIDENCE_BYTES_MAX = 1024;

/**
 * Messages of the next height (height + 1) the core holds until it gets there, then
 * replays (ConsensusCore #future). Costs up to this many votes or proposals: ~ 256 KiB of
 * votes, more if proposals with blocks are among them. Must hold the next height's
 * round 0 from every validator: a prevote and a precommit each and the proposal
 * (2 × validators + 1), else a node that finishes a height late loses the next one's
 * votes and waits for the status exchange to get them back.
 */
export const NEXT_HEIGHT_BUFFER_MSGS = 512;

/**
 * Rounds ahead of ours whose messages the core keeps (vote sets, proposals); further
 * ones are invalid. Bounds the vote sets of a height at (ROUNDS_AHEAD_MAX + 1) × 2, each
 * holding at most one vote per validator × VOTE_VARIANTS_MAX.
 */
export const ROUNDS_AHEAD_MAX = 1_000;

/** Machine events one input may cause before the core declares itself stuck (a height needs far fewer). */
export const SETTLE_STEPS_MAX = 256;

/**
 * Different values one validator's votes of one (round, type) are kept for (VoteSet): a
 * Byzantine validator can sign any number; beyond this its votes are dropped unchecked,
 * except for values a proof-of-lock claims.
 */
export const VOTE_VARIANTS_MAX = 4;

/** Values a vote set keeps every vote for because a proposal's proof-of-lock named them (VoteSet.claim). */
export const VOTE_CLAIMS_MAX = 8;

/** Vote types of one round: prevote and precommit. */
export const VOTES_PER_ROUND = 2;

/**
 * Messages the core sends in answer to one status message (#onStatus), at most: the
 * proposal and every prevote and precommit of the peer's round, the proof-of-lock
 * prevotes, and, when the peer is behind in rounds, the proposal and votes of ours.
 */
export function statusAnswerMsgsMax(validators: number): number {
  return 2 + 5 * validators;
}

/** Bytes of a commit signed by `validators` validators. */
export function commitBytesMax(validators: number): number {
  return COMMIT_FIXED_BYTES + COMMIT_BYTES_PER_VALIDATOR * validators;
}

/** A relation between two limits that does not hold: names both, and their values. */
export class LimitError extends Error {
  override readonly name = 'LimitError';
}

/** Throws a LimitError saying `what` unless `holds`. */
export function assertLimit(holds: boolean, what: string): void {
  if (!holds) throw new LimitError(`limits do not fit: ${what}`);
}

/**
 * The relations between the core's bounds and a genesis: its validator count and block
 * size (the block size's relation to the transport is checked in actors/limits.ts). Throws a LimitError naming both limits of the first that fails.
 */
export function checkConsensusLimits(g: { validators: number }): void {
  const n = g.validators;
  assertLimit(n >= 1 && n <= VALIDATORS_MAX, `the genesis has ${n} validators, VALIDATORS_MAX is ${VALIDATORS_MAX}`);
  assertLimit(
    NEXT_HEIGHT_BUFFER_MSGS >= VOTES_PER_ROUND * n + 1,
    `NEXT_HEIGHT_BUFFER_MSGS (${NEXT_HEIGHT_BUFFER_MSGS}) must hold the next height's round 0 from every validator: ${VOTES_PER_ROUND} votes × ${n} validators + 1 proposal`,
  );
  assertLimit(
    CONSENSUS_MESSAGE_OVERHEAD_BYTES >= CERTIFICATE_HEADER_BYTES + commitBytesMax(n),
    `CONSENSUS_MESSAGE_OVERHEAD_BYTES (${CONSENSUS_MESSAGE_OVERHEAD_BYTES}) must hold a certificate's header and commit of ${n} validators (${CERTIFICATE_HEADER_BYTES + commitBytesMax(n)} B)`,
  );
  // A vote certificate carries no block: it fits the overhead alone, whatever maxBlockBytes is.
  assertLimit(
    CONSENSUS_MESSAGE_OVERHEAD_BYTES >= voteCertificateBytesMax(n),
    `CONSENSUS_MESSAGE_OVERHEAD_BYTES (${CONSENSUS_MESSAGE_OVERHEAD_BYTES}) must hold a vote certificate of ${n} validators (${voteCertificateBytesMax(n)} B)`,
  );
}
