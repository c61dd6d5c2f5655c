/**
 * State snapshots (issue 27 deliver 3, decision 136): the state at a height cut into
 * chunks that each verify on their own against the state root committed in the chain.
 *
 * The state tree (src/state/tree.ts) has a fixed shape: 256 level-2 subtrees, one per
 * first byte of H(storage key), hash up to the root. A snapshot's manifest lists those
 * 256 hashes (verifyManifest: they hash to the committed root) and its chunks, each a
 * contiguous range [first, end) of subtrees with the sha256 and size of its bytes. A
 * chunk holds every record of its subtrees; verifyChunk checks its bytes' hash, rebuilds
 * each subtree's hash from the records and compares it with the manifest, so a chunk is
 * proven part of the committed state before anything of it is applied.
 *
 * Deterministic: records in a chunk are ordered by (subtree, key bytes), and subtrees are
 * grouped into chunks by a fixed byte target, so every node writes byte-identical chunks
 * and manifest for the same height (a fetcher may take chunks from several peers).
 *
 * Encodings (src/codec/binary.ts, every length bounded before allocation):
 *  manifest: u8 version 1 | u64 height | stateRoot 32 | 256 × subtree hash 32 |
 *            u16 chunk count | per chunk: u16 first, u16 end, hash 32, u32 bytes
 *  chunk:    u8 version 1 | u16 first | u16 end | u32 record count |
 *            per record: bytes key (u32 length), bytes value (u32 length)
 * Pure: no I/O.
 */
import { hash } from 'node:crypto';
import { Reader, Writer } from '../codec/binary';
import { DIGEST_BYTES, recordDigest, rootOfSubtrees, subtreeHash, subtreeHashOfDigests, subtreeOf, SUBTREES } from './tree';

const SNAPSHOT_VERSION = 1;
/** Chunks are grouped up to this many bytes (a single subtree may exceed it: it is never split). */
const CHUNK_TARGET_BYTES = 1 << 20;
/** The largest chunk a manifest may announce: a bound for whoever fetches it. */
const MAX_CHUNK_BYTES = 256 << 20;
/** Bounds of one record in a chunk (a state key is a table id and a short key; values are small records). */
const MAX_KEY_BYTES = 1 << 12;
const MAX_VALUE_BYTES = 1 << 24;
/** Bytes of a record's framing in a chunk (two u32 lengths), and of a chunk's header. */
const RECORD_FRAME_BYTES = 8;
const CHUNK_HEADER_BYTES = 9;

export type StateRecord = [key: Uint8Array, value: Uint8Array];

/** A chunk: subtree range [first, end) of the tree's 256 level-2 nodes, its bytes' sha256 and size. */
interface SnapshotChunkRef {
  first: number;
  end: number;
  hash: Uint8Array;
  bytes: number;
}

export interface SnapshotManifest {
  version: 1;
  height: number;
  stateRoot: Uint8Array;
  /** The 256 level-2 subtree hashes. */
  subtrees: Uint8Array[];
  chunks: SnapshotChunkRef[];
}

export class SnapshotError extends Error {
  constructor(
    readonly code: 'MANIFEST' | 'ROOT' | 'CHUNK_INDEX' | 'CHUNK_SIZE' | 'CHUNK_HASH' | 'CHUNK_DECODE' | 'CHUNK_RANGE' | 'CHUNK_ORDER' | 'SUBTREE',
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

export function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(hash('sha256', bytes, 'buffer'));
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export function encodeManifest(m: SnapshotManifest): Uint8Array {
  const w = new Writer(64 + SUBTREES * 32 + m.chunks.length * 40);
  w.u8(m.version).u64(m.height).fixed(m.stateRoot, 32);
  for (const s of m.subtrees) w.fixed(s, 32);
  w.u16(m.chunks.length);
  for (const c of m.chunks) w.u16(c.first).u16(c.end).fixed(c.hash, 32).u32(c.bytes);
  return w.finish();
}

/** Decodes a manifest and checks its shape: 256 subtrees, chunks contiguous over [0, 256), each bounded. */
export function decodeManifest(bytes: Uint8Array): SnapshotManifest {
  try {
    const r = new Reader(bytes);
    const version = r.u8();
    if (version !== SNAPSHOT_VERSION) throw new SnapshotError('MANIFEST', `manifest version ${version}, not ${SNAPSHOT_VERSION}`);
    const height = r.u64();
    const stateRoot = r.fixed(32);
    const subtrees: Uint8Array[] = [];
    for (let i = 0; i < SUBTREES; i++) subtrees.push(r.fixed(32));
    const count = r.u16();
    if (count < 1 || count > SUBTREES) throw new SnapshotError('MANIFEST', `${count} chunks (1..${SUBTREES})`);
    // Bounded before the loop: each chunk ref is 40 bytes.
    if (r.remaining !== count * 40) throw new SnapshotError('MANIFEST', `${r.remaining} bytes left for ${count} chunk refs`);
    const chunks: SnapshotChunkRef[] = [];
    let next = 0;
    for (let i = 0; i < count; i++) {
      const first = r.u16();
      const end = r.u16();
      const hash = r.fixed(32);
      const size = r.u32();
      if (first !== next || end <= first || end > SUBTREES) throw new SnapshotError('MANIFEST', `chunk ${i} covers [${first}, ${end}): chunks must cover [0, ${SUBTREES}) in order`);
      if (size < CHUNK_HEADER_BYTES || size > MAX_CHUNK_BYTES) throw new SnapshotError('MANIFEST', `chunk ${i} of ${size} bytes (${CHUNK_HEADER_BYTES}..${MAX_CHUNK_BYTES})`);
      chunks.push({ first, end, hash, bytes: size });
      next = end;
    }
    if (next !== SUBTREES) throw new SnapshotError('MANIFEST', `chunks end at subtree ${next}, not ${SUBTREES}`);
    r.end();
    return { version: SNAPSHOT_VERSION, height, stateRoot, subtrees, chunks };
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError('MANIFEST', `manifest does not decode: ${(err as Error).message}`);
  }
}

export function manifestHash(m: SnapshotManifest): Uint8Array {
  return sha256(encodeManifest(m));
}

/** The manifest's subtrees hash to its root, and that root is `stateRoot` (the one committed in the chain). */
export function verifyManifest(m: SnapshotManifest, stateRoot: Uint8Array): void {
  if (!equal(m.stateRoot, stateRoot)) throw new SnapshotError('ROOT', `manifest root ${hex(m.stateRoot)} is not the committed root ${hex(stateRoot)}`);
  const root = rootOfSubtrees(m.subtrees);
  if (!equal(root, stateRoot)) throw new SnapshotError('ROOT', `the manifest's subtrees hash to ${hex(root)}, not the committed root ${hex(stateRoot)}`);
}

/** The bytes one record takes in a chunk. */
function recordBytes(r: StateRecord): number {
  return RECORD_FRAME_BYTES + r[0].length + r[1].length;
}

/** Encodes the records of subtrees [first, end), `records[i]` those of subtree first + i, each in key order. */
function encodeChunk(first: number, end: number, records: readonly (readonly StateRecord[])[]): Uint8Array {
  let size = CHUNK_HEADER_BYTES;
  let count = 0;
  for (const list of records) {
    count += list.length;
    for (const r of list) size += recordBytes(r);
  }
  const w = new Writer(size);
  w.u8(SNAPSHOT_VERSION).u16(first).u16(end).u32(count);
  for (const list of records) for (const [k, v] of list) w.bytes(k).bytes(v);
  return w.finish();
}

/**
 * A chunk from its subtrees' records already framed as the chunk frames them (a writer
 * that builds them outside the JS heap): `count` records in `parts`, in order.
 */
function encodeChunkParts(first: number, end: number, count: number, parts: readonly Uint8Array[]): Uint8Array {
  let size = CHUNK_HEADER_BYTES;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = SNAPSHOT_VERSION;
  view.setUint16(1, first);
  view.setUint16(3, end);
  view.setUint32(5, count);
  let at = CHUNK_HEADER_BYTES;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Appends one record framed as a chunk holds it (u32 length, key, u32 length, value) at `at` of `out`; returns the end. */
export function frameRecord(key: Uint8Array, value: Uint8Array, out: Uint8Array, at: number): number {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(at, key.length);
  out.set(key, at + 4);
  at += 4 + key.length;
  view.setUint32(at, value.length);
  out.set(value, at + 4);
  return at + 4 + value.length;
}

/**
 * Groups the 256 subtrees into chunk ranges: consecutive subtrees while the chunk stays
 * within `targetBytes`, at least one subtree each. `sizes[i]`: subtree i's record bytes.
 */
function groupChunks(sizes: readonly number[], targetBytes = CHUNK_TARGET_BYTES): Array<[first: number, end: number]> {
  const out: Array<[number, number]> = [];
  let first = 0;
  let bytes = CHUNK_HEADER_BYTES;
  for (let i = 0; i < SUBTREES; i++) {
    if (i > first && bytes + sizes[i] > targetBytes) {
      out.push([first, i]);
      first = i;
      bytes = CHUNK_HEADER_BYTES;
    }
    bytes += sizes[i];
  }
  out.push([first, SUBTREES]);
  return out;
}

/**
 * The whole snapshot of `records` (the state at `height`) in one synchronous call: the
 * manifest and the chunks' bytes. The node's writer takes its records in key order, a
 * batch at a time (SnapshotBuilder, in a worker thread); this is for tests and tools, and
 * the reference the writer's bytes are compared with. Records in any order, no key twice.
 */
export function buildSnapshot(height: number, records: Iterable<StateRecord>, targetBytes = CHUNK_TARGET_BYTES): { manifest: SnapshotManifest; chunks: Uint8Array[] } {
  const lists: StateRecord[][] = Array.from({ length: SUBTREES }, () => []);
  const sizes = new Array<number>(SUBTREES).fill(0);
  for (const r of records) {
    const s = subtreeOf(r[0]);
    lists[s].push(r);
    sizes[s] += recordBytes(r);
  }
  for (const list of lists) list.sort((a, b) => compareBytes(a[0], b[0]));
  const subtrees = lists.map((list, i) => subtreeHash(i, list));
  const manifest: SnapshotManifest = { version: SNAPSHOT_VERSION, height, stateRoot: rootOfSubtrees(subtrees), subtrees, chunks: [] };
  const chunks: Uint8Array[] = [];
  for (const [first, end] of groupChunks(sizes, targetBytes)) {
    const chunk = encodeChunk(first, end, lists.slice(first, end));
    manifest.chunks.push({ first, end, hash: sha256(chunk), bytes: chunk.length });
    chunks.push(chunk);
  }
  return { manifest, chunks };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** A byte buffer that doubles as it fills (its bytes live outside the JS heap). */
class Grow {
  bytes = new Uint8Array(0);
  length = 0;

  reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let cap = Math.max(4096, this.bytes.length * 2);
    while (cap < this.length + extra) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  append(b: Uint8Array): void {
    this.reserve(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  release(): void {
    this.bytes = new Uint8Array(0);
    this.length = 0;
  }
}

/**
 * The node's writer's way to a snapshot (src/storage/snapshot-worker.ts): records fed in
 * key order a batch at a time, already framed as a chunk frames them, then the subtree
 * hashes, then the chunks one by one. The same bytes as buildSnapshot, which takes them in
 * any order: key order within a subtree is the order they come in.
 *
 * Each subtree's framed records and digests are held in growing byte buffers, off the
 * JS heap: held as arrays of records, 200k of them made young-generation collections
 * copy them (measured: 100-400 ms pauses).
 */
export class SnapshotBuilder {
  private readonly framed = Array.from({ length: SUBTREES }, () => new Grow());
  private readonly digests = Array.from({ length: SUBTREES }, () => new Grow());
  private readonly counts = new Array<number>(SUBTREES).fill(0);
  private readonly digest = new Uint8Array(DIGEST_BYTES);
  private subtrees: Uint8Array[] | undefined;
  private refs: SnapshotChunkRef[] | undefined;
  /** Records fed so far. */
  records = 0;

  constructor(
    readonly height: number,
    private readonly targetBytes = CHUNK_TARGET_BYTES,
  ) {}

  /**
   * `count` records framed as frameRecord frames them, back to back in `bytes`, each
   * after every record fed before it in key order (a key twice is not checked here: the
   * root check against the committed root catches it).
   */
  addFramed(bytes: Uint8Array, count: number): void {
    if (this.subtrees) throw new Error('records fed after the subtrees were hashed');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const start = at;
      const keyLength = view.getUint32(at);
      const key = bytes.subarray(at + 4, at + 4 + keyLength);
      at += 4 + keyLength;
      const valueLength = view.getUint32(at);
      const value = bytes.subarray(at + 4, at + 4 + valueLength);
      at += 4 + valueLength;
      if (at > bytes.length) throw new RangeError(`record ${i} of ${count} runs past the ${bytes.length} bytes given`);
      const s = recordDigest(key, value, this.digest, 0);
      this.digests[s].append(this.digest);
      this.framed[s].append(bytes.subarray(start, at));
      this.counts[s]++;
    }
    if (at !== bytes.length) throw new RangeError(`${bytes.length - at} bytes left after ${count} records`);
    this.records += count;
  }

  /** The 256 subtree hashes and the root they make (the digests are released). */
  hashSubtrees(): { subtrees: Uint8Array[]; stateRoot: Uint8Array } {
    this.subtrees ??= this.digests.map((d, i) => {
      const h = subtreeHashOfDigests(i, d.bytes, this.counts[i]);
      d.release();
      return h;
    });
    return { subtrees: this.subtrees, stateRoot: rootOfSubtrees(this.subtrees) };
  }

  /**
   * The chunks in order, each encoded when asked for and its subtrees' records released
   * then, with the manifest's ref of each; after the last, `manifest()` lists them all.
   */
  *chunks(): Generator<{ ref: SnapshotChunkRef; bytes: Uint8Array }> {
    this.hashSubtrees();
    this.refs = [];
    for (const [first, end] of groupChunks(this.framed.map((f) => f.length), this.targetBytes)) {
      let count = 0;
      for (let i = first; i < end; i++) count += this.counts[i];
      const bytes = encodeChunkParts(first, end, count, this.framed.slice(first, end).map((f) => f.view()));
      for (let i = first; i < end; i++) this.framed[i].release();
      const ref = { first, end, hash: sha256(bytes), bytes: bytes.length };
      this.refs.push(ref);
      yield { ref, bytes };
    }
  }

  /** The manifest, once every chunk was taken from `chunks()`. */
  manifest(): SnapshotManifest {
    if (!this.refs || this.refs.length === 0 || this.refs.at(-1)!.end !== SUBTREES) throw new Error('the manifest is known once every chunk was encoded');
    const { subtrees, stateRoot } = this.hashSubtrees();
    return { version: SNAPSHOT_VERSION, height: this.height, stateRoot, subtrees, chunks: this.refs };
  }
}

/**
 * Checks chunk `index` of `m` and returns its state records (storage key, value): the
 * bytes are the size and hash the manifest names, they decode (bounded), each record
 * falls in the chunk's range in (subtree, key) order with no key twice, and each
 * subtree rebuilt from them hashes to the manifest's. Verify the manifest first.
 */
export function verifyChunk(m: SnapshotManifest, index: number, bytes: Uint8Array): StateRecord[] {
  const ref = m.chunks[index];
  if (!Number.isInteger(index) || ref === undefined) throw new SnapshotError('CHUNK_INDEX', `chunk ${index} of ${m.chunks.length}`);
  if (bytes.length !== ref.bytes) throw new SnapshotError('CHUNK_SIZE', `chunk ${index} has ${bytes.length} bytes, the manifest says ${ref.bytes}`);
  if (!equal(sha256(bytes), ref.hash)) throw new SnapshotError('CHUNK_HASH', `chunk ${index} does not hash to ${hex(ref.hash)}`);
  const lists: StateRecord[][] = [];
  for (let i = ref.first; i < ref.end; i++) lists.push([]);
  const records: StateRecord[] = [];
  try {
    const r = new Reader(bytes);
    if (r.u8() !== SNAPSHOT_VERSION) throw new SnapshotError('CHUNK_DECODE', `chunk ${index}: unknown version`);
    const first = r.u16();
    const end = r.u16();
    if (first !== ref.first || end !== ref.end) throw new SnapshotError('CHUNK_RANGE', `chunk ${index} says [${first}, ${end}), the manifest [${ref.first}, ${ref.end})`);
    const count = r.u32();
    // Each record is at least its two lengths: bounds the count before anything is allocated for it.
    if (count * RECORD_FRAME_BYTES > r.remaining) throw new SnapshotError('CHUNK_DECODE', `chunk ${index}: ${count} records cannot fit in ${r.remaining} bytes`);
    let prevSubtree = -1;
    let prevKey: Uint8Array | undefined;
    for (let i = 0; i < count; i++) {
      const key = r.bytes(MAX_KEY_BYTES);
      const value = r.bytes(MAX_VALUE_BYTES);
      const s = subtreeOf(key);
      if (s < ref.first || s >= ref.end) throw new SnapshotError('CHUNK_RANGE', `chunk ${index}: record ${i} falls in subtree ${s}, outside [${ref.first}, ${ref.end})`);
      if (s < prevSubtree || (s === prevSubtree && compareBytes(prevKey!, key) >= 0)) {
        throw new SnapshotError('CHUNK_ORDER', `chunk ${index}: record ${i} is out of (subtree, key) order or repeats a key`);
      }
      prevSubtree = s;
      prevKey = key;
      const rec: StateRecord = [key, value];
      lists[s - ref.first].push(rec);
      records.push(rec);
    }
    r.end();
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError('CHUNK_DECODE', `chunk ${index} does not decode: ${(err as Error).message}`);
  }
  for (let i = ref.first; i < ref.end; i++) {
    if (!equal(subtreeHash(i, lists[i - ref.first]), m.subtrees[i])) throw new SnapshotError('SUBTREE', `chunk ${index}: subtree ${i} does not hash to the manifest's`);
  }
  return records;
}

/** Re-exported for the writer: which subtree a key falls in. */
export { subtreeOf } from './tree';
