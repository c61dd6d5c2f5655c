/**
 * The state-sync protocol's wire format (issue 27, decision 140): what a joining node
 * asks a peer for over `/exchange/<chainId>/snapshot/1` (request-response on the
 * libp2p transport, like block sync), and the bounds of each answer. The server side is
 * actors/p2p/snapshot-serve.ts, the asking side src/node/state-sync-join.ts; what to do
 * with the answers is src/chain/state-sync.ts.
 *
 *   request:  u8 version | u8 kind | fields
 *     OFFERS       (1)  —                                the peer's snapshots (SnapshotInfo list)
 *     MANIFEST     (2)  u64 height                       the manifest of its snapshot at height
 *     CHUNK        (3)  u64 height | u32 index           one chunk of it
 *     LIGHT_PROOF  (4)  u64 trustedHeight | u64 height   a light proof (src/chain/light.ts) from trustedHeight to height
 *     TRUSTED      (5)  u64 height                       header `height` and the set signing it (an operator's --trust-height)
 *   answer:   u8 version | u8 status | payload
 *     OK (0): OFFERS  u64 base | u64 head | u32 n | n × (u64 height | root(32) | manifestHash(32) | u32 chunks | u64 bytes)
 *             others  bytes (length-prefixed: the manifest, the chunk, the encoded proof, or header ‖ set)
 *     NOT_FOUND (1), REFUSED (2): string reason
 *
 * Every length is read before anything is allocated for it (src/codec/binary.ts Reader)
 * and bounded per kind here; the largest answer must fit the transport's frame
 * (actors/limits.ts checks it).
 */
import { Reader, Writer } from '../codec/binary';
import type { SnapshotInfo } from '../storage/snapshot-store';

const SNAPSHOT_WIRE_VERSION = 1;

export function snapshotProtocol(chainId: number): string {
  return `/exchange/${chainId}/snapshot/1`;
}

export enum SnapshotRequestKind {
  Offers = 1,
  Manifest = 2,
  Chunk = 3,
  LightProof = 4,
  Trusted = 5,
}

export type SnapshotRequest =
  | { kind: SnapshotRequestKind.Offers }
  | { kind: SnapshotRequestKind.Manifest; height: number }
  | { kind: SnapshotRequestKind.Chunk; height: number; index: number }
  | { kind: SnapshotRequestKind.LightProof; trustedHeight: number; height: number }
  | { kind: SnapshotRequestKind.Trusted; height: number };

export enum SnapshotStatus {
  Ok = 0,
  NotFound = 1,
  Refused = 2,
}

/** Snapshots one offers answer lists at most (a node keeps the last K; S's snapshotKeep is far below). */
export const SNAPSHOT_OFFERS_MAX = 64;
/** Bytes of one manifest: 256 subtree hashes and up to 256 chunk references (48 B each) are about 21 KiB. */
export const SNAPSHOT_MANIFEST_BYTES_MAX = 1024 * 1024;
/**
 * Bytes of one chunk: a chunk holds at least one of the tree's 256 level-2 subtrees, so
 * a state of G bytes has chunks of G/256 and more; 48 MiB bounds a state of about
 * 12 GiB. The whole answer must fit NET_FRAME_BYTES_MAX (64 MiB).
 */
export const SNAPSHOT_CHUNK_BYTES_MAX = 48 * 1024 * 1024;
/**
 * Bytes of one light proof: each anchor is two headers, a commit and a set (about
 * 40 B per validator in the set and 100 B per commit signature): 16 MiB holds thousands
 * of set changes. A chain with more between the trusted height and the snapshot is
 * joined from a later trusted height (--trust-height).
 */
export const SNAPSHOT_LIGHT_PROOF_BYTES_MAX = 16 * 1024 * 1024;
/** Bytes of a TRUSTED answer: one header and one encoded set. */
const SNAPSHOT_TRUSTED_BYTES_MAX = 1024 * 1024;
/** Characters of a NOT_FOUND or REFUSED reason. */
const SNAPSHOT_REASON_CHARS_MAX = 512;
/** Bytes of an answer besides its payload: version, status, the payload's length. */
const SNAPSHOT_ANSWER_HEADER_BYTES = 6;
/** The largest answer a server sends (a chunk): what the transport's frame must hold. */
export const SNAPSHOT_ANSWER_BYTES_MAX = SNAPSHOT_CHUNK_BYTES_MAX + SNAPSHOT_ANSWER_HEADER_BYTES;

/** How long one peer has for each kind of request (a chunk of 48 MiB at a few MB/s, a proof of thousands of anchors). */
export const SNAPSHOT_TIMEOUT_MS: Record<SnapshotRequestKind, number> = {
  [SnapshotRequestKind.Offers]: 5_000,
  [SnapshotRequestKind.Manifest]: 10_000,
  [SnapshotRequestKind.Chunk]: 30_000,
  [SnapshotRequestKind.LightProof]: 20_000,
  [SnapshotRequestKind.Trusted]: 10_000,
};

/** The bound of an OK answer's payload, by the request it answers. */
function payloadBytesMax(kind: SnapshotRequestKind): number {
  switch (kind) {
    case SnapshotRequestKind.Offers:
      return 20 + SNAPSHOT_OFFERS_MAX * 88;
    case SnapshotRequestKind.Manifest:
      return SNAPSHOT_MANIFEST_BYTES_MAX;
    case SnapshotRequestKind.Chunk:
      return SNAPSHOT_CHUNK_BYTES_MAX;
    case SnapshotRequestKind.LightProof:
      return SNAPSHOT_LIGHT_PROOF_BYTES_MAX;
    case SnapshotRequestKind.Trusted:
      return SNAPSHOT_TRUSTED_BYTES_MAX;
  }
}

export function encodeSnapshotRequest(r: SnapshotRequest): Uint8Array {
  const w = new Writer(24).u8(SNAPSHOT_WIRE_VERSION).u8(r.kind);
  switch (r.kind) {
    case SnapshotRequestKind.Offers:
      break;
    case SnapshotRequestKind.Manifest:
    case SnapshotRequestKind.Trusted:
      w.u64(r.height);
      break;
    case SnapshotRequestKind.Chunk:
      w.u64(r.height).u32(r.index);
      break;
    case SnapshotRequestKind.LightProof:
      w.u64(r.trustedHeight).u64(r.height);
      break;
  }
  return w.finish();
}

/** @throws on anything but one well-formed request of a known version and kind. */
export function decodeSnapshotRequest(bytes: Uint8Array): SnapshotRequest {
  if (bytes.length > 32) throw new Error(`snapshot request of ${bytes.length} bytes`);
  const r = new Reader(bytes);
  const version = r.u8();
  if (version !== SNAPSHOT_WIRE_VERSION) throw new Error(`snapshot request version ${version}, this node speaks ${SNAPSHOT_WIRE_VERSION}`);
  const kind = r.u8();
  let req: SnapshotRequest;
  switch (kind) {
    case SnapshotRequestKind.Offers:
      req = { kind };
      break;
    case SnapshotRequestKind.Manifest:
    case SnapshotRequestKind.Trusted:
      req = { kind, height: r.u64() };
      break;
    case SnapshotRequestKind.Chunk:
      req = { kind, height: r.u64(), index: r.u32() };
      break;
    case SnapshotRequestKind.LightProof:
      req = { kind, trustedHeight: r.u64(), height: r.u64() };
      break;
    default:
      throw new Error(`unknown snapshot request kind ${kind}`);
  }
  r.end();
  return req;
}

/** What a server reads of its node's snapshots (src/storage/snapshot-store.ts SnapshotStore). */
export interface SnapshotSource {
  list(): SnapshotInfo[];
  manifest(height: number): Promise<Uint8Array | undefined>;
  chunk(height: number, index: number): Promise<Uint8Array | undefined>;
}

/** A peer's offers: its snapshots and the range of blocks it keeps. */
export interface SnapshotOffers {
  /** Lowest height whose block the peer keeps (1: it has not pruned). */
  base: number;
  head: number;
  snapshots: SnapshotInfo[];
}

export function encodeOffersAnswer(o: SnapshotOffers): Uint8Array {
  const list = o.snapshots.slice(-SNAPSHOT_OFFERS_MAX);
  const body = new Writer(20 + list.length * 88).u64(o.base).u64(o.head).u32(list.length);
  for (const s of list) body.u64(s.height).fixed(s.stateRoot, 32).fixed(s.manifestHash, 32).u32(s.chunks).u64(s.bytes);
  return okAnswer(body.finish());
}

export function okAnswer(payload: Uint8Array): Uint8Array {
  return new Writer(payload.length + SNAPSHOT_ANSWER_HEADER_BYTES).u8(SNAPSHOT_WIRE_VERSION).u8(SnapshotStatus.Ok).bytes(payload).finish();
}

export function failAnswer(status: SnapshotStatus.NotFound | SnapshotStatus.Refused, reason: string): Uint8Array {
  return new Writer(reason.length * 3 + 8).u8(SNAPSHOT_WIRE_VERSION).u8(status).string(reason.slice(0, SNAPSHOT_REASON_CHARS_MAX)).finish();
}

/** A peer that had nothing to give (NOT_FOUND) or would not (REFUSED): not a fault of the asker's, and not a lie. */
export class SnapshotAnswerError extends Error {
  constructor(
    readonly status: SnapshotStatus,
    reason: string,
  ) {
    super(reason);
    this.name = 'SnapshotAnswerError';
  }
}

/** The payload of an OK answer to a request of `kind`; throws SnapshotAnswerError for NOT_FOUND/REFUSED, Error for a malformed answer. */
export function decodeAnswer(kind: SnapshotRequestKind, bytes: Uint8Array): Uint8Array {
  const max = payloadBytesMax(kind);
  if (bytes.length > max + SNAPSHOT_ANSWER_HEADER_BYTES) throw new Error(`snapshot answer of ${bytes.length} bytes, over ${max}`);
  const r = new Reader(bytes, max);
  const version = r.u8();
  if (version !== SNAPSHOT_WIRE_VERSION) throw new Error(`snapshot answer version ${version}`);
  const status = r.u8();
  if (status === SnapshotStatus.Ok) {
    const payload = r.bytes(max);
    r.end();
    return payload;
  }
  if (status !== SnapshotStatus.NotFound && status !== SnapshotStatus.Refused) throw new Error(`snapshot answer status ${status}`);
  const reason = r.string(SNAPSHOT_REASON_CHARS_MAX * 3);
  r.end();
  throw new SnapshotAnswerError(status, reason);
}

export function decodeOffers(payload: Uint8Array): SnapshotOffers {
  const r = new Reader(payload);
  const base = r.u64();
  const head = r.u64();
  const n = r.u32();
  if (n > SNAPSHOT_OFFERS_MAX) throw new Error(`offers answer of ${n} snapshots, over ${SNAPSHOT_OFFERS_MAX}`);
  const snapshots: SnapshotInfo[] = [];
  for (let i = 0; i < n; i++) snapshots.push({ height: r.u64(), stateRoot: r.fixed(32), manifestHash: r.fixed(32), chunks: r.u32(), bytes: r.u64() });
  r.end();
  return { base, head, snapshots };
}

/** The TRUSTED answer: header h (encodeHeader) and the set signing h (encodeValidatorSet). */
export function encodeTrustedPayload(header: Uint8Array, set: Uint8Array): Uint8Array {
  return new Writer(header.length + set.length + 8).bytes(header).bytes(set).finish();
}

export function decodeTrustedPayload(payload: Uint8Array): { header: Uint8Array; set: Uint8Array } {
  const r = new Reader(payload, SNAPSHOT_TRUSTED_BYTES_MAX);
  const out = { header: r.bytes(), set: r.bytes() };
  r.end();
  return out;
}
