/**
 * Consensus messages: proposals, votes, status hints, commit certificates and vote
 * certificates (a collector's bundle of signed votes of one step, decision 174), with one
 * canonical encoding each (src/codec/binary.ts) and signing hashes domain-separated by
 * a versioned tag, the chain id and the message type.
 *
 * Signing hashes (keccak256 of the canonical encoding of):
 *   proposal:  "exchange-chain/proposal/v1"  | u32 chainId | u64 height | u32 round | u32 polRound+1 | blockHash
 *   prevote:   "exchange-chain/prevote/v1"   | u32 chainId | u64 height | u32 round | blockHash or 32 zero bytes (nil)
 *   precommit: precommitSigningHash(chainId, height, round, blockHash or 32 zero bytes) of src/codec/block.ts,
 *              so the precommits for a block are, unchanged, the signatures of its `Commit`.
 * Nil is the all-zero hash inside signing hashes only; on the wire nil is a flag, and a
 * "block hash" of 32 zero bytes is refused (keccak256 never yields it, and it would sign
 * like nil).
 */
import { CodecError, Reader, Writer } from '../codec/binary';
import { decodeCommit, encodeCommit, precommitSigningHash, ZERO_HASH, type Commit } from '../codec/block';
import { keccak256 } from '../crypto/keccak';
import type { Address } from '../util/bytes';
import { bytesToHex, equalBytes } from '../util/bytes';
import { BLOCK_BYTES_MAX_DEFAULT, commitBytesMax, VALIDATORS_MAX, VOTE_BYTES_MAX } from './limits';

export const MESSAGE_VERSION = 1;
export const HASH_BYTES = 32;
export const SIGNATURE_BYTES = 65;
/** Default bound on a proposal's block; the node passes genesis maxBlockBytes. */
export const DEFAULT_MAX_BLOCK_BYTES = BLOCK_BYTES_MAX_DEFAULT;
/** Bound on a status bitmap (validator sets are capped at 21 active; 1024 is generous). */
export const MAX_VALIDATORS = VALIDATORS_MAX;

export type VoteType = 'prevote' | 'precommit';

export interface Vote {
  type: VoteType;
  height: number;
  round: number;
  /** null: a vote for nil. */
  blockHash: Uint8Array | null;
  validator: Address;
  /** 65 bytes r‖s‖v over voteSigningHash. */
  signature: Uint8Array;
}

export type UnsignedVote = Omit<Vote, 'signature'>;

export interface Proposal {
  height: number;
  round: number;
  /** Round of the proof-of-lock (+2/3 prevotes) for this block; -1 when none. */
  polRound: number;
  blockHash: Uint8Array;
  /** The block's bytes as the application encodes them; validateBlock(block) must give blockHash. */
  block: Uint8Array;
  proposer: Address;
  /** 65 bytes r‖s‖v over proposalSigningHash (covers blockHash, not the bytes). */
  signature: Uint8Array;
}

export type UnsignedProposal = Omit<Proposal, 'signature'>;

/**
 * "Where I am": sent on timeouts, when behind, and when a committed block's bytes are
 * missing. Peers answer with what the sender lacks: a commit certificate when it is at
 * an older height, else the proposal and the votes its bitmaps say it misses. Unsigned:
 * it only asks for signed data, and the transport knows who sent it.
 */
export interface StatusMessage {
  height: number;
  round: number;
  hasProposal: boolean;
  /** Bit i (byte i>>3, bit i&7) set: we hold the prevote of validator index i at `round`. */
  prevotes: Uint8Array;
  precommits: Uint8Array;
  /** polRound of the proposal held for `round` (-1: none), and whose prevotes for its block at polRound we hold. */
  polRound: number;
  polPrevotes: Uint8Array;
}

/** A decided block with the +2/3 precommits that decided it: lets a lagging node catch up. */
export interface Certificate {
  height: number;
  block: Uint8Array;
  commit: Commit;
}

export type ConsensusMessage =
  | { kind: 'proposal'; proposal: Proposal }
  | { kind: 'vote'; vote: Vote }
  | { kind: 'status'; status: StatusMessage }
  | { kind: 'certificate'; certificate: Certificate }
  | { kind: 'votes'; votes: Vote[] };

const enum Kind {
  Proposal = 1,
  Vote = 2,
  Status = 3,
  Certificate = 4,
  /**
   * A vote certificate (linear votes, decision 174): `u16 n | n × vote`, one to
   * VALIDATORS_MAX votes of one (height, round, type), each in the vote encoding. The
   * receiver checks each vote as a single one: the message adds no trust.
   */
  Votes = 5,
}

const VOTE_TYPE_CODE: Record<VoteType, number> = { prevote: 1, precommit: 2 };

// ---------------------------------------------------------------- signing hashes

const PROPOSAL_DOMAIN = 'exchange-chain/proposal/v1';
const PREVOTE_DOMAIN = 'exchange-chain/prevote/v1';

export function proposalSigningHash(chainId: number, p: Pick<Proposal, 'height' | 'round' | 'polRound' | 'blockHash'>): Uint8Array {
  assertPolRound(p.polRound, p.round);
  return keccak256(
    new Writer(96).string(PROPOSAL_DOMAIN).u32(chainId).u64(p.height).u32(p.round).u32(p.polRound + 1).fixed(p.blockHash, HASH_BYTES).finish(),
  );
}

export function voteSigningHash(chainId: number, v: Pick<Vote, 'type' | 'height' | 'round' | 'blockHash'>): Uint8Array {
  const hash = v.blockHash ?? ZERO_HASH;
  if (v.type === 'precommit') return precommitSigningHash(chainId, v.height, v.round, hash);
  if (v.type !== 'prevote') throw new CodecError('VOTE_TYPE', `unknown vote type ${String(v.type)}`);
  return keccak256(new Writer(96).string(PREVOTE_DOMAIN).u32(chainId).u64(v.height).u32(v.round).fixed(hash, HASH_BYTES).finish());
}

function assertPolRound(polRound: number, round: number): void {
  const ok = Number.isInteger(polRound) && (polRound === -1 || (polRound >= 0 && polRound < round));
  if (!ok) {
    throw new CodecError('POL_ROUND', `polRound ${polRound} must be -1 or in [0, round ${round})`);
  }
}

function assertBlockHash(hash: Uint8Array): void {
  if (hash.length !== HASH_BYTES) throw new CodecError('LENGTH', 'block hash must be 32 bytes');
  if (equalBytes(hash, ZERO_HASH)) throw new CodecError('NON_CANONICAL', 'the zero hash is not a block hash (it signs like nil)');
}

// ---------------------------------------------------------------- votes

function writeVote(w: Writer, v: Vote): void {
  const code = VOTE_TYPE_CODE[v.type];
  if (code === undefined) throw new CodecError('VOTE_TYPE', `unknown vote type ${String(v.type)}`);
  w.u8(code).u64(v.height).u32(v.round).bool(v.blockHash !== null);
  if (v.blockHash !== null) {
    assertBlockHash(v.blockHash);
    w.fixed(v.blockHash, HASH_BYTES);
  }
  w.address(v.validator).fixed(v.signature, SIGNATURE_BYTES);
}

function readVote(r: Reader): Vote {
  const code = r.u8();
  const type: VoteType | undefined = code === 1 ? 'prevote' : code === 2 ? 'precommit' : undefined;
  if (type === undefined) throw new CodecError('VOTE_TYPE', `unknown vote type ${code}`);
  const height = r.u64();
  const round = r.u32();
  let blockHash: Uint8Array | null = null;
  if (r.bool()) {
    blockHash = r.fixed(HASH_BYTES);
    assertBlockHash(blockHash);
  }
  return { type, height, round, blockHash, validator: r.address(), signature: r.fixed(SIGNATURE_BYTES) };
}

export function encodeVote(v: Vote): Uint8Array {
  const w = new Writer(160);
  writeVote(w, v);
  return w.finish();
}

export function decodeVote(bytes: Uint8Array): Vote {
  const r = new Reader(bytes);
  const v = readVote(r);
  r.end();
  return v;
}

// ---------------------------------------------------------------- proposals

function writeProposal(w: Writer, p: Proposal): void {
  assertPolRound(p.polRound, p.round);
  assertBlockHash(p.blockHash);
  w.u64(p.height).u32(p.round).u32(p.polRound + 1).fixed(p.blockHash, HASH_BYTES).address(p.proposer).fixed(p.signature, SIGNATURE_BYTES).bytes(p.block);
}

function readProposal(r: Reader, maxBlockBytes: number): Proposal {
  const height = r.u64();
  const round = r.u32();
  const polRound = r.u32() - 1;
  assertPolRound(polRound, round);
  const blockHash = r.fixed(HASH_BYTES);
  assertBlockHash(blockHash);
  const proposer = r.address();
  const signature = r.fixed(SIGNATURE_BYTES);
  const block = r.bytes(maxBlockBytes);
  return { height, round, polRound, blockHash, block, proposer, signature };
}

export function encodeProposal(p: Proposal): Uint8Array {
  const w = new Writer(256 + p.block.length);
  writeProposal(w, p);
  return w.finish();
}

export function decodeProposal(bytes: Uint8Array, maxBlockBytes = DEFAULT_MAX_BLOCK_BYTES): Proposal {
  const r = new Reader(bytes);
  const p = readProposal(r, maxBlockBytes);
  r.end();
  return p;
}

// ---------------------------------------------------------------- envelope

export interface DecodeLimits {
  maxBlockBytes: number;
}

/** The height a consensus message is about. */
export function messageHeight(m: ConsensusMessage): number {
  switch (m.kind) {
    case 'proposal':
      return m.proposal.height;
    case 'vote':
      return m.vote.height;
    case 'status':
      return m.status.height;
    case 'certificate':
      return m.certificate.height;
    case 'votes':
      return m.votes[0].height;
  }
}

/** `u8 version | u8 kind | body`; one encoding per message. */
export function encodeMessage(m: ConsensusMessage): Uint8Array {
  const w = new Writer(
    m.kind === 'proposal' ? 256 + m.proposal.block.length : m.kind === 'certificate' ? 512 + m.certificate.block.length : m.kind === 'votes' ? 8 + VOTE_BYTES_MAX * m.votes.length : 160,
  );
  w.u8(MESSAGE_VERSION);
  switch (m.kind) {
    case 'proposal':
      w.u8(Kind.Proposal);
      writeProposal(w, m.proposal);
      break;
    case 'vote':
      w.u8(Kind.Vote);
      writeVote(w, m.vote);
      break;
    case 'status': {
      const s = m.status;
      if (!Number.isInteger(s.polRound) || s.polRound < -1) throw new CodecError('POL_ROUND', `polRound ${s.polRound}`);
      w.u8(Kind.Status).u64(s.height).u32(s.round).bool(s.hasProposal).bytes(s.prevotes).bytes(s.precommits).u32(s.polRound + 1).bytes(s.polPrevotes);
      break;
    }
    case 'certificate': {
      const c = m.certificate;
      if (c.commit.height !== c.height) throw new CodecError('MISMATCH', 'certificate height differs from its commit');
      w.u8(Kind.Certificate).u64(c.height).bytes(c.block).bytes(encodeCommit(c.commit));
      break;
    }
    case 'votes':
      assertOneStep(m.votes);
      w.u8(Kind.Votes).u16(m.votes.length);
      for (const v of m.votes) writeVote(w, v);
      break;
    default:
      throw new CodecError('KIND', `unknown message kind ${(m as { kind: string }).kind}`);
  }
  return w.finish();
}

export function decodeMessage(bytes: Uint8Array, limits: DecodeLimits = { maxBlockBytes: DEFAULT_MAX_BLOCK_BYTES }): ConsensusMessage {
  const r = new Reader(bytes, limits.maxBlockBytes + 1024);
  const version = r.u8();
  if (version !== MESSAGE_VERSION) throw new CodecError('VERSION', `unknown consensus message version ${version}`);
  const kind = r.u8();
  let m: ConsensusMessage;
  switch (kind) {
    case Kind.Proposal:
      m = { kind: 'proposal', proposal: readProposal(r, limits.maxBlockBytes) };
      break;
    case Kind.Vote:
      m = { kind: 'vote', vote: readVote(r) };
      break;
    case Kind.Status: {
      const height = r.u64();
      const round = r.u32();
      const hasProposal = r.bool();
      const prevotes = r.bytes(MAX_VALIDATORS / 8);
      const precommits = r.bytes(MAX_VALIDATORS / 8);
      const polRound = r.u32() - 1;
      const polPrevotes = r.bytes(MAX_VALIDATORS / 8);
      m = { kind: 'status', status: { height, round, hasProposal, prevotes, precommits, polRound, polPrevotes } };
      break;
    }
    case Kind.Certificate: {
      const height = r.u64();
      const block = r.bytes(limits.maxBlockBytes);
      const commit = decodeCommit(r.bytes(commitBytesMax(MAX_VALIDATORS)));
      if (commit.height !== height) throw new CodecError('MISMATCH', 'certificate height differs from its commit');
      m = { kind: 'certificate', certificate: { height, block, commit } };
      break;
    }
    case Kind.Votes: {
      const n = r.u16();
      if (n === 0 || n > MAX_VALIDATORS) throw new CodecError('LENGTH', `a vote certificate holds 1 to ${MAX_VALIDATORS} votes, got ${n}`);
      const votes: Vote[] = [];
      for (let i = 0; i < n; i++) votes.push(readVote(r));
      assertOneStep(votes);
      m = { kind: 'votes', votes };
      break;
    }
    default:
      throw new CodecError('KIND', `unknown consensus message kind ${kind}`);
  }
  r.end();
  return m;
}

/** A vote certificate holds 1..VALIDATORS_MAX votes of one (height, round, type). */
function assertOneStep(votes: readonly Vote[]): void {
  if (votes.length === 0 || votes.length > MAX_VALIDATORS) throw new CodecError('LENGTH', `a vote certificate holds 1 to ${MAX_VALIDATORS} votes, got ${votes.length}`);
  const [first] = votes;
  for (const v of votes) {
    if (v.height !== first.height || v.round !== first.round || v.type !== first.type) throw new CodecError('MISMATCH', 'the votes of a vote certificate differ in height, round or type');
  }
}

// ---------------------------------------------------------------- helpers

/** Map key of a block hash or nil. */
export type HashKey = string;
export const NIL_KEY: HashKey = 'nil';

export function hashKey(hash: Uint8Array | null): HashKey {
  return hash === null ? NIL_KEY : bytesToHex(hash);
}

export function sameVoteContent(a: UnsignedVote, b: UnsignedVote): boolean {
  return (
    a.type === b.type &&
    a.height === b.height &&
    a.round === b.round &&
    a.validator === b.validator &&
    (a.blockHash === null ? b.blockHash === null : b.blockHash !== null && equalBytes(a.blockHash, b.blockHash))
  );
}

export function bitmapGet(bitmap: Uint8Array, index: number): boolean {
  const byte = index >> 3;
  return byte < bitmap.length && (bitmap[byte] & (1 << (index & 7))) !== 0;
}

export function bitmapSet(bitmap: Uint8Array, index: number): void {
  bitmap[index >> 3] |= 1 << (index & 7);
}
