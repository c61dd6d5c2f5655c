/**
 * The light client (issue 27, decisions 128-129): how a new node trusts the header of a
 * snapshot height H, and so the state root committed after H, without replaying the
 * chain. Pure: no I/O.
 *
 * A header names the set that signs its height (validatorsHash, decision 128). From a
 * trusted height, whose signing set is known, the set stays the same from header to
 * header until it changes; at each change the chain store keeps a LightAnchor (never
 * pruned), and a proof carries every anchor above the trusted height. Verifying costs one
 * step per set change, not per block (decision 129):
 *   - each anchor at h: header h − 1 names the current set (else a change was left out),
 *     is committed by 2/3 of it, header h follows it, and header h's own commit carries
 *     2/3 of the new set AND more than 1/3 of the current set's power: at least one
 *     honest member of the trusted set validated header h, so its validatorsHash is the
 *     one the chain's state fixes (consensus refuses any other, WRONG_VALIDATORS_HASH),
 *     and the new set becomes the current one. With deferred execution nothing signed by
 *     the old set alone can name the new one (decision 129), hence the overlap rule;
 *   - finally header H + 1 names the current set and is committed by 2/3 of it, and links
 *     to header H: its parentStateRoot is the state root after H.
 * Trust assumption: less than 1/3 of the voting power of each set the walk passes is
 * faulty while it signs (as for the chain itself), and the trusted height is on the
 * chain (the genesis, or a header hash an operator gives).
 */
import { Reader, Writer } from '../codec/binary';
import { blockHash, decodeCommit, decodeHeader, encodeCommit, encodeHeader, type BlockHeader, type Commit } from '../codec/block';
import { checkCommit } from '../consensus/commit';
import { VALIDATORS_MAX } from '../consensus/limits';
import { secp256k1Verifier, type SignatureVerifier } from '../consensus/signer';
import type { ValidatorSet } from '../consensus/validator-set';
import { bytesToHex, equalBytes } from '../util/bytes';
import { decodeValidatorSet, validatorsHash } from './validator-sets';

/** Stored at height h when the set signing h differs from h − 1's (chain store bucket LightAnchor). */
export interface LightAnchor {
  /** Header h − 1. */
  prevHeader: BlockHeader;
  /** Its commit (block h's lastCommit), signed by the set of h − 1. */
  prevCommit: Commit;
  /** Header h: parentHash = hash(prevHeader), validatorsHash = keccak(set). */
  header: BlockHeader;
  /**
   * The commit of header h, signed by the set of h (the new one). Beyond the brief's
   * shape: the old set signs nothing that names the new set (deferred execution), so
   * the members of both sets vouch for header h here (decision 129).
   */
  commit: Commit;
  /** encodeValidatorSet(set signing h). */
  set: Uint8Array;
}

/** From a trusted height to a snapshot at height H. */
export interface LightProof {
  /** Every anchor in (trustedHeight, H + 1], ascending. */
  anchors: LightAnchor[];
  /** Header H. */
  header: BlockHeader;
  /** Header H + 1: next.parentHash = hash(header), next.parentStateRoot = state root after H. */
  next: BlockHeader;
  /** Commit of H + 1, >= 2/3 of the set signing H + 1. */
  nextCommit: Commit;
}

export interface LightTrust {
  /** The chain the proof must be of (the genesis's chain id): commits are signed for it. */
  chainId: number;
  height: number;
  /** The set that signs `height` (height 0 = genesis: the genesis set, which signs height 1). */
  set: ValidatorSet;
  /** Header at `height` (absent for genesis, height 0). */
  header?: BlockHeader;
}

export interface VerifiedHeight {
  height: number;
  header: BlockHeader;
  /** The state root after `height` (next.parentStateRoot). */
  stateRoot: Uint8Array;
  /** The set that signs `height`. */
  setAt: ValidatorSet;
  /** The set that signs `height` + 1. */
  setNext: ValidatorSet;
  anchors: LightAnchor[];
}

export type LightVerifyCode = 'MALFORMED' | 'WRONG_CHAIN' | 'BAD_TRUST' | 'BAD_ORDER' | 'MISSING_SET_CHANGE' | 'BAD_COMMIT' | 'BROKEN_LINK' | 'WRONG_SET' | 'TOO_LITTLE_OVERLAP';

export class LightVerifyError extends Error {
  constructor(
    readonly code: LightVerifyCode,
    message: string,
  ) {
    super(message);
    this.name = 'LightVerifyError';
  }
}

const ANCHOR_VERSION = 1;
const PROOF_VERSION = 1;
/** An encoded header (384 B today) is at most this long. */
const HEADER_BYTES_MAX = 512;
/** An encoded commit: 64 B of fields plus 85 B per signature of at most VALIDATORS_MAX. */
const COMMIT_BYTES_MAX = 128 + 85 * VALIDATORS_MAX;
/** An encoded set: 5 B of fields plus 20 B of address and at most 34 B of power per member. */
const SET_BYTES_MAX = 8 + 54 * VALIDATORS_MAX;
/** The fewest bytes an anchor encodes to (two headers, two empty commits, an empty set, the length prefixes). */
const ANCHOR_BYTES_MIN = 1 + 4 * 5 + 2 * 300 + 2 * 48 + 5;
/** A proof is refused past this size before it is read (a set change per block over 20,000 blocks of 6 validators fits). */
const LIGHT_PROOF_BYTES_MAX = 64 << 20;
/** Anchors one proof carries at most. */
export const LIGHT_PROOF_ANCHORS_MAX = 100_000;

function writeAnchor(w: Writer, a: LightAnchor): void {
  w.u8(ANCHOR_VERSION).bytes(encodeHeader(a.prevHeader)).bytes(encodeCommit(a.prevCommit)).bytes(encodeHeader(a.header)).bytes(encodeCommit(a.commit)).bytes(a.set);
}

function readAnchor(r: Reader): LightAnchor {
  const version = r.u8();
  if (version !== ANCHOR_VERSION) throw new LightVerifyError('MALFORMED', `unknown light anchor version ${version}`);
  return {
    prevHeader: decodeHeader(r.bytes(HEADER_BYTES_MAX)),
    prevCommit: decodeCommit(r.bytes(COMMIT_BYTES_MAX)),
    header: decodeHeader(r.bytes(HEADER_BYTES_MAX)),
    commit: decodeCommit(r.bytes(COMMIT_BYTES_MAX)),
    set: r.bytes(SET_BYTES_MAX),
  };
}

/**   u8 version | bytes prevHeader | bytes prevCommit | bytes header | bytes commit | bytes set */
export function encodeLightAnchor(a: LightAnchor): Uint8Array {
  const w = new Writer(1024);
  writeAnchor(w, a);
  return w.finish();
}

export function decodeLightAnchor(bytes: Uint8Array): LightAnchor {
  const r = new Reader(bytes);
  const a = readAnchor(r);
  r.end();
  return a;
}

/**   u8 version | u32 n | n × anchor | bytes header | bytes next | bytes nextCommit */
export function encodeLightProof(p: LightProof): Uint8Array {
  const w = new Writer(2048 * (p.anchors.length + 1));
  w.u8(PROOF_VERSION).u32(p.anchors.length);
  for (const a of p.anchors) writeAnchor(w, a);
  w.bytes(encodeHeader(p.header)).bytes(encodeHeader(p.next)).bytes(encodeCommit(p.nextCommit));
  return w.finish();
}

/** Throws LightVerifyError('MALFORMED') on anything but one canonical proof within the bounds. */
export function decodeLightProof(bytes: Uint8Array): LightProof {
  if (bytes.length > LIGHT_PROOF_BYTES_MAX) throw new LightVerifyError('MALFORMED', `light proof of ${bytes.length} bytes exceeds ${LIGHT_PROOF_BYTES_MAX}`);
  try {
    const r = new Reader(bytes);
    const version = r.u8();
    if (version !== PROOF_VERSION) throw new LightVerifyError('MALFORMED', `unknown light proof version ${version}`);
    const n = r.u32();
    // Refused before anything is allocated: a count the bytes cannot hold.
    if (n > LIGHT_PROOF_ANCHORS_MAX || n * ANCHOR_BYTES_MIN > bytes.length) throw new LightVerifyError('MALFORMED', `light proof claims ${n} anchors in ${bytes.length} bytes`);
    const anchors: LightAnchor[] = [];
    for (let i = 0; i < n; i++) anchors.push(readAnchor(r));
    const header = decodeHeader(r.bytes(HEADER_BYTES_MAX));
    const next = decodeHeader(r.bytes(HEADER_BYTES_MAX));
    const nextCommit = decodeCommit(r.bytes(COMMIT_BYTES_MAX));
    r.end();
    return { anchors, header, next, nextCommit };
  } catch (err) {
    if (err instanceof LightVerifyError) throw err;
    throw new LightVerifyError('MALFORMED', `light proof does not decode: ${(err as Error).message}`);
  }
}

const hex = bytesToHex;

/** The voting power of `set` among the commit's signers (signatures verified by the caller's checkCommit). */
function powerIn(set: ValidatorSet, commit: Commit): bigint {
  let power = 0n;
  for (const s of commit.signatures) if (set.has(s.validator)) power += set.powerOf(s.validator);
  return power;
}

/**
 * Verifies `proof` from `trust` (see the file's header for the rules) and returns the
 * header of the proven height, the state root after it and its sets. Throws
 * LightVerifyError with the rule broken.
 */
export function verifyLightProof(trust: LightTrust, proof: LightProof, verifier: SignatureVerifier = secp256k1Verifier): VerifiedHeight {
  const { chainId } = trust;
  const fail = (code: LightVerifyCode, message: string): never => {
    throw new LightVerifyError(code, message);
  };
  const H = proof.header.height;
  if (trust.height > 0) {
    const t = trust.header ?? fail('BAD_TRUST', `a trusted height ${trust.height} needs its header`);
    if (t.height !== trust.height) fail('BAD_TRUST', `the trusted header is of height ${t.height}, not ${trust.height}`);
    if (t.chainId !== chainId) fail('WRONG_CHAIN', `the trusted header is of chain ${t.chainId}, not ${chainId}`);
    if (!equalBytes(t.validatorsHash, validatorsHash(trust.set))) fail('BAD_TRUST', `the trusted header names the set ${hex(t.validatorsHash)}, the trusted set hashes to ${hex(validatorsHash(trust.set))}`);
  }
  if (H < trust.height) fail('BAD_ORDER', `the proof is for height ${H}, below the trusted height ${trust.height}`);
  let current = trust.set;
  let setAt: ValidatorSet | undefined;
  let last = trust.height;
  for (const a of proof.anchors) {
    const h = a.header.height;
    if (h <= last || h < 2 || h > H + 1) fail('BAD_ORDER', `an anchor at height ${h}: anchors must be ascending in (${trust.height}, ${H + 1}], above height 1`);
    last = h;
    if (a.header.chainId !== chainId || a.prevHeader.chainId !== chainId) fail('WRONG_CHAIN', `the anchor at ${h} holds headers of chain ${a.prevHeader.chainId}/${a.header.chainId}, not ${chainId}`);
    if (!equalBytes(a.prevHeader.validatorsHash, validatorsHash(current))) {
      fail('MISSING_SET_CHANGE', `header ${h - 1} names the set ${hex(a.prevHeader.validatorsHash)}, not the current one ${hex(validatorsHash(current))}: a set change before ${h} is missing`);
    }
    const prevHash = blockHash(a.prevHeader);
    if (a.prevHeader.height !== h - 1 || !equalBytes(a.header.parentHash, prevHash)) fail('BROKEN_LINK', `the anchor's header ${h} does not follow its header ${a.prevHeader.height}`);
    const badPrev = checkCommit(chainId, current, verifier, h - 1, prevHash, a.prevCommit);
    if (badPrev !== null) fail('BAD_COMMIT', `the commit of header ${h - 1}: ${badPrev}`);
    const next = decodeSet(a.set, h);
    if (!equalBytes(validatorsHash(next), a.header.validatorsHash)) fail('WRONG_SET', `the anchor's set at ${h} does not hash to its header's validatorsHash ${hex(a.header.validatorsHash)}`);
    const badOwn = checkCommit(chainId, next, verifier, h, blockHash(a.header), a.commit);
    if (badOwn !== null) fail('BAD_COMMIT', `the commit of header ${h} by its own set: ${badOwn}`);
    const overlap = powerIn(current, a.commit);
    if (overlap * 3n <= current.totalPower) {
      fail('TOO_LITTLE_OVERLAP', `header ${h} is signed by ${overlap} of the previous set's ${current.totalPower} voting power, not more than 1/3: nothing the trusted set signed vouches for the new set (trust a height after ${h})`);
    }
    if (h === H + 1) setAt = current;
    current = next;
  }
  const { header, next, nextCommit } = proof;
  if (header.chainId !== chainId || next.chainId !== chainId) fail('WRONG_CHAIN', `headers of chain ${header.chainId}/${next.chainId}, not ${chainId}`);
  if (!equalBytes(next.validatorsHash, validatorsHash(current))) {
    fail('MISSING_SET_CHANGE', `header ${next.height} names the set ${hex(next.validatorsHash)}, not the current one ${hex(validatorsHash(current))}: a set change is missing`);
  }
  const headerHash = blockHash(header);
  if (next.height !== H + 1 || !equalBytes(next.parentHash, headerHash)) fail('BROKEN_LINK', `header ${next.height} does not follow header ${H}`);
  if (trust.height === H && trust.header && !equalBytes(blockHash(trust.header), headerHash)) fail('BROKEN_LINK', `header ${H} is not the trusted header`);
  const lastAnchor = proof.anchors.at(-1);
  if (lastAnchor?.header.height === H + 1 && !equalBytes(blockHash(lastAnchor.header), blockHash(next))) fail('BROKEN_LINK', `the anchor at ${H + 1} holds another header ${H + 1} than the proof's`);
  const bad = checkCommit(chainId, current, verifier, H + 1, blockHash(next), nextCommit);
  if (bad !== null) fail('BAD_COMMIT', `the commit of header ${H + 1}: ${bad}`);
  return { height: H, header, stateRoot: next.parentStateRoot, setAt: setAt ?? current, setNext: current, anchors: proof.anchors };
}

function decodeSet(bytes: Uint8Array, height: number): ValidatorSet {
  try {
    return decodeValidatorSet(bytes);
  } catch (err) {
    throw new LightVerifyError('WRONG_SET', `the anchor's set at ${height} does not decode: ${(err as Error).message}`);
  }
}
