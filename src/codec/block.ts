/**
 * Blocks, headers and commits. The block hash is keccak256 of the encoded header;
 * the header commits to the transactions (txRoot) and to the state reached after the
 * parent block (parentStateRoot), so a node whose state diverged stops at the next
 * block instead of serving wrong balances, and carries the proposer's VRF proof, whose
 * output seeds the next height's proposer draw (src/consensus/proposer-vrf.ts).
 *
 * Version 2 added `vrfProof` (decision 70): a data folder written by a version-1 node
 * does not open (its blocks do not decode). Version 3 added `validatorsHash` (decision
 * 128: a light client follows the signing set from header to header): likewise, a data
 * folder written by a version-2 node does not open; the decoder reads version 3 only.
 */
import { keccak256 } from '../crypto/keccak';
import type { Address } from '../util/bytes';
import { concatBytes } from '../util/bytes';
import { CodecError, Reader, Writer } from './binary';

export const BLOCK_VERSION = 3;
/** ECVRF-EDWARDS25519-SHA512-TAI proof length (RFC 9381 §5.5: Gamma 32, c 16, s 32). */
export const VRF_PROOF_LENGTH = 80;
export const ZERO_HASH = new Uint8Array(32);

export interface BlockHeader {
  chainId: number;
  height: number;
  /** Unix milliseconds, set by the proposer; strictly above the parent's. */
  timestampMs: number;
  /** Consensus round in which the block was proposed. */
  round: number;
  parentHash: Uint8Array;
  /** State root after the parent block was applied. */
  parentStateRoot: Uint8Array;
  /**
   * keccak256 of encodeValidatorSet (src/chain/validator-sets.ts) of the set that signs
   * this height, known from the state after the parent block like parentStateRoot
   * (decision 128): a light client learns from a signed header which set signs it.
   */
  validatorsHash: Uint8Array;
  proposer: Address;
  /**
   * The proposer's ECVRF proof (80 bytes) over this height's alpha, which binds the chain
   * id, the height and the previous block's seed; its output is this block's seed.
   */
  vrfProof: Uint8Array;
  txRoot: Uint8Array;
  txCount: number;
  /** Hash of the commit for the parent block carried in this block (zero for height 1). */
  lastCommitHash: Uint8Array;
}

export interface CommitSignature {
  validator: Address;
  /** 65-byte r‖s‖v over the precommit signing hash. */
  signature: Uint8Array;
}

/** ≥ 2/3 of voting power precommitted blockHash at (height, round). */
export interface Commit {
  height: number;
  round: number;
  blockHash: Uint8Array;
  signatures: CommitSignature[];
}

export interface Block {
  header: BlockHeader;
  /** The commit of the parent block (null for height 1): on-chain record of who signed. */
  lastCommit: Commit | null;
  /** Encoded transaction envelopes, in execution order. */
  txs: Uint8Array[];
}

export function encodeHeader(h: BlockHeader): Uint8Array {
  return new Writer(384)
    .u8(BLOCK_VERSION)
    .u32(h.chainId)
    .u64(h.height)
    .u64(h.timestampMs)
    .u32(h.round)
    .fixed(h.parentHash, 32)
    .fixed(h.parentStateRoot, 32)
    .fixed(h.validatorsHash, 32)
    .address(h.proposer)
    .fixed(h.vrfProof, VRF_PROOF_LENGTH)
    .fixed(h.txRoot, 32)
    .u32(h.txCount)
    .fixed(h.lastCommitHash, 32)
    .finish();
}

function readHeader(r: Reader): BlockHeader {
  const version = r.u8();
  if (version !== BLOCK_VERSION) throw new CodecError('VERSION', `unknown block version ${version}`);
  return {
    chainId: r.u32(),
    height: r.u64(),
    timestampMs: r.u64(),
    round: r.u32(),
    parentHash: r.fixed(32),
    parentStateRoot: r.fixed(32),
    validatorsHash: r.fixed(32),
    proposer: r.address(),
    vrfProof: r.fixed(VRF_PROOF_LENGTH),
    txRoot: r.fixed(32),
    txCount: r.u32(),
    lastCommitHash: r.fixed(32),
  };
}

export function decodeHeader(bytes: Uint8Array): BlockHeader {
  const r = new Reader(bytes);
  const h = readHeader(r);
  r.end();
  return h;
}

export function blockHash(h: BlockHeader): Uint8Array {
  return keccak256(encodeHeader(h));
}

function writeCommit(w: Writer, c: Commit): void {
  w.u64(c.height).u32(c.round).fixed(c.blockHash, 32).u32(c.signatures.length);
  for (const s of c.signatures) w.address(s.validator).fixed(s.signature, 65);
}

function readCommit(r: Reader): Commit {
  const height = r.u64();
  const round = r.u32();
  const blockHash = r.fixed(32);
  const n = r.u32();
  if (n > 1024) throw new CodecError('TOO_LARGE', 'commit has too many signatures');
  const signatures: CommitSignature[] = [];
  let prev = '';
  for (let i = 0; i < n; i++) {
    const validator = r.address();
    // Sorted by validator address, no duplicates: one canonical commit encoding.
    if (validator <= prev) throw new CodecError('NON_CANONICAL', 'commit signatures must be sorted by validator, no duplicates');
    prev = validator;
    signatures.push({ validator, signature: r.fixed(65) });
  }
  return { height, round, blockHash, signatures };
}

export function encodeCommit(c: Commit): Uint8Array {
  const w = new Writer(128 + c.signatures.length * 85);
  writeCommit(w, c);
  return w.finish();
}

export function decodeCommit(bytes: Uint8Array): Commit {
  const r = new Reader(bytes);
  const c = readCommit(r);
  r.end();
  return c;
}

export function commitHash(c: Commit | null): Uint8Array {
  return c ? keccak256(encodeCommit(c)) : ZERO_HASH;
}

/** Sorts signatures into the canonical order the decoder demands. */
export function canonicalCommit(c: Commit): Commit {
  const signatures = [...c.signatures].sort((a, b) => (a.validator < b.validator ? -1 : a.validator > b.validator ? 1 : 0));
  return { ...c, signatures };
}

export function encodeBlock(b: Block, maxBlockBytes = 1 << 26): Uint8Array {
  const header = encodeHeader(b.header);
  const w = new Writer(header.length + 64 + b.txs.reduce((n, t) => n + t.length + 4, 0));
  w.bytes(header);
  w.bool(b.lastCommit !== null);
  if (b.lastCommit) writeCommit(w, b.lastCommit);
  w.u32(b.txs.length);
  for (const tx of b.txs) w.bytes(tx);
  const out = w.finish();
  if (out.length > maxBlockBytes) throw new CodecError('TOO_LARGE', `block of ${out.length} bytes exceeds ${maxBlockBytes}`);
  return out;
}

export function decodeBlock(bytes: Uint8Array, maxBlockBytes = 1 << 26): Block {
  if (bytes.length > maxBlockBytes) throw new CodecError('TOO_LARGE', `block of ${bytes.length} bytes exceeds ${maxBlockBytes}`);
  const r = new Reader(bytes);
  const header = decodeHeader(r.bytes());
  const lastCommit = r.bool() ? readCommit(r) : null;
  const n = r.u32();
  if (n !== header.txCount) throw new CodecError('MISMATCH', `header says ${header.txCount} txs, body has ${n}`);
  const txs: Uint8Array[] = [];
  for (let i = 0; i < n; i++) txs.push(r.bytes());
  r.end();
  return { header, lastCommit, txs };
}

/**
 * Binary Merkle root over transaction hashes (keccak256(0x01‖left‖right), the tag
 * keeping inner nodes apart from leaves; an odd node is carried up unchanged, never
 * duplicated); the empty list has the zero root.
 */
const NODE_TAG = Uint8Array.of(1);
export function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return ZERO_HASH;
  let level = leaves;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? keccak256(concatBytes(NODE_TAG, level[i], level[i + 1])) : level[i]);
    }
    level = next;
  }
  return level[0];
}

/** Precommit signing hash: what a validator signs to commit a block at (height, round). */
export function precommitSigningHash(chainId: number, height: number, round: number, hash: Uint8Array): Uint8Array {
  return keccak256(new Writer(96).string('exchange-chain/precommit/v1').u32(chainId).u64(height).u32(round).fixed(hash, 32).finish());
}
