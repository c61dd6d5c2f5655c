/**
 * State snapshots, the pure part (src/state/snapshot.ts, decision 136): a snapshot's
 * manifest hashes to the state tree's root, every chunk verifies on its own against
 * it, and each kind of bad input is refused with its code: a wrong hash, truncated
 * bytes, a record outside the chunk's range or out of order, a changed record, a
 * tampered subtree list. The node's writer's incremental builder makes the same bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/codec/binary';
import {
  buildSnapshot,
  decodeManifest,
  encodeManifest,
  frameRecord,
  manifestHash,
  sha256,
  SnapshotBuilder,
  SnapshotError,
  subtreeOf,
  verifyChunk,
  verifyManifest,
  type SnapshotManifest,
  type StateRecord,
} from '../../src/state/snapshot';
import { StateTree } from '../../src/state/tree';

/** `n` distinct records: keys like the state's (a table id byte and a short key), values of varied length. */
function records(n: number, seed = 1): StateRecord[] {
  const out: StateRecord[] = [];
  for (let i = 0; i < n; i++) {
    const key = Buffer.concat([Uint8Array.of(1 + (i % 7)), Buffer.from(`0x${(seed * 1_000_003 + i).toString(16).padStart(40, '0')}`)]);
    const value = Buffer.alloc(8 + ((i * 37) % 90), (i * 13 + seed) & 0xff);
    out.push([key, value]);
  }
  return out;
}

function rootOf(recs: StateRecord[]): Uint8Array {
  const t = new StateTree();
  for (const [k, v] of recs) t.update(k, v);
  return t.root();
}

function key(r: StateRecord): string {
  return Buffer.from(r[0]).toString('hex');
}

/** Chunk bytes made by hand: version, range, then the records as given. */
function chunkBytes(first: number, end: number, recs: StateRecord[]): Uint8Array {
  const w = new Writer();
  w.u8(1).u16(first).u16(end).u32(recs.length);
  for (const [k, v] of recs) w.bytes(k).bytes(v);
  return w.finish();
}

/** The manifest with chunk `i`'s ref made to name `bytes` (so only the check under test can refuse them). */
function withRef(m: SnapshotManifest, i: number, bytes: Uint8Array): SnapshotManifest {
  const chunks = m.chunks.map((c, j) => (j === i ? { ...c, hash: sha256(bytes), bytes: bytes.length } : c));
  return { ...m, chunks };
}

function code(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof SnapshotError) return err.code;
    throw err;
  }
  return 'accepted';
}

describe('state snapshot: manifest and chunks', () => {
  const recs = records(3_000);
  const root = rootOf(recs);
  const snap = buildSnapshot(77, recs, 16 * 1024);

  it("the manifest's subtrees hash to the state tree's root; every chunk verifies and together they hold every record once", () => {
    expect(snap.manifest.stateRoot).toEqual(root);
    expect(() => verifyManifest(snap.manifest, root)).not.toThrow();
    expect(snap.chunks.length).toBeGreaterThan(5); // the small target makes many chunks
    const seen = new Map<string, Uint8Array>();
    snap.chunks.forEach((bytes, i) => {
      for (const r of verifyChunk(snap.manifest, i, bytes)) {
        expect(seen.has(key(r))).toBe(false);
        seen.set(key(r), r[1]);
      }
    });
    expect(seen.size).toBe(recs.length);
    for (const r of recs) expect(Buffer.from(seen.get(key(r))!).equals(r[1])).toBe(true);
  });

  it('the manifest round-trips through its encoding, and chunks stay within the target unless one subtree alone exceeds it', () => {
    const decoded = decodeManifest(encodeManifest(snap.manifest));
    expect(decoded).toEqual(snap.manifest);
    expect(manifestHash(decoded)).toEqual(manifestHash(snap.manifest));
    for (const c of snap.manifest.chunks) expect(c.bytes <= 16 * 1024 || c.end - c.first === 1).toBe(true);
  });

  it('is deterministic: the same state in any order gives byte-identical chunks and manifest (peers serve the same chunks)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
        const shuffled = recs.map((r, i) => ({ r, at: (i * 7919 + seed) % 10_007 })).sort((a, b) => a.at - b.at).map((x) => x.r);
        const again = buildSnapshot(77, shuffled, 16 * 1024);
        const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
        expect(hex(encodeManifest(again.manifest))).toBe(hex(encodeManifest(snap.manifest)));
        expect(again.chunks.map(hex)).toEqual(snap.chunks.map(hex));
      }),
      { numRuns: 5 },
    );
  });

  it("the writer's builder, fed the records in key order in batches of any size, makes the same bytes", () => {
    const sorted = [...recs].sort((a, b) => Buffer.compare(a[0], b[0]));
    const frame = (rs: StateRecord[]) => {
      const out = new Uint8Array(rs.reduce((n, [k, v]) => n + 8 + k.length + v.length, 0));
      let at = 0;
      for (const [k, v] of rs) at = frameRecord(k, v, out, at);
      return out;
    };
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 20 }), (sizes) => {
        const b = new SnapshotBuilder(77, 16 * 1024);
        for (let at = 0, i = 0; at < sorted.length; i++) {
          const n = sizes[i % sizes.length];
          b.addFramed(frame(sorted.slice(at, at + n)), Math.min(n, sorted.length - at));
          at += n;
        }
        expect(b.records).toBe(recs.length);
        expect(hex(b.hashSubtrees().stateRoot)).toBe(hex(root));
        expect(() => b.manifest()).toThrow(/every chunk/);
        const chunks = [...b.chunks()].map((c) => hex(c.bytes));
        expect(chunks).toEqual(snap.chunks.map(hex));
        expect(hex(encodeManifest(b.manifest()))).toBe(hex(encodeManifest(snap.manifest)));
      }),
      { numRuns: 5 },
    );
    // Framing that does not hold the count it says is refused, not half read.
    const bytes = frame(sorted.slice(0, 3));
    expect(() => new SnapshotBuilder(1).addFramed(bytes, 2)).toThrow(/bytes left after 2 records/);
    expect(() => new SnapshotBuilder(1).addFramed(bytes.subarray(0, bytes.length - 1), 3)).toThrow(RangeError);
  });

  it('matches the tree for any small state, empty subtrees included', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 12 }), { maxLength: 60, selector: (k) => Buffer.from(k).toString('hex') }), (keys) => {
        const rs: StateRecord[] = keys.map((k, i) => [k, Uint8Array.of(i & 0xff, 7)]);
        const s = buildSnapshot(1, rs);
        verifyManifest(s.manifest, rootOf(rs));
        let n = 0;
        s.chunks.forEach((b, i) => (n += verifyChunk(s.manifest, i, b).length));
        expect(n).toBe(rs.length);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses a chunk whose bytes do not hash to the ref (one byte changed)', () => {
    const bad = snap.chunks[1].slice();
    bad[bad.length - 1] ^= 1;
    expect(code(() => verifyChunk(snap.manifest, 1, bad))).toBe('CHUNK_HASH');
  });

  it('refuses truncated bytes: against the ref by size, and (ref made to match) by decoding', () => {
    const cut = snap.chunks[2].subarray(0, snap.chunks[2].length - 5);
    expect(code(() => verifyChunk(snap.manifest, 2, cut))).toBe('CHUNK_SIZE');
    expect(code(() => verifyChunk(withRef(snap.manifest, 2, cut), 2, cut))).toBe('CHUNK_DECODE');
    const header = snap.chunks[2].subarray(0, 7);
    expect(code(() => verifyChunk(withRef(snap.manifest, 2, header), 2, header))).toBe('CHUNK_DECODE');
  });

  it('refuses a record outside the chunk range, even with every hash made to match', () => {
    const ref = snap.manifest.chunks[0];
    const own = verifyChunk(snap.manifest, 0, snap.chunks[0]);
    const stranger = recs.find((r) => subtreeOf(r[0]) >= ref.end)!;
    const bytes = chunkBytes(ref.first, ref.end, [...own, stranger]);
    expect(code(() => verifyChunk(withRef(snap.manifest, 0, bytes), 0, bytes))).toBe('CHUNK_RANGE');
  });

  it('refuses records out of (subtree, key) order or a key twice', () => {
    const own = verifyChunk(snap.manifest, 0, snap.chunks[0]);
    const swapped = [own[1], own[0], ...own.slice(2)];
    const b1 = chunkBytes(snap.manifest.chunks[0].first, snap.manifest.chunks[0].end, swapped);
    expect(code(() => verifyChunk(withRef(snap.manifest, 0, b1), 0, b1))).toBe('CHUNK_ORDER');
    const twice = [...own.slice(0, 1), own[0], ...own.slice(1)];
    const b2 = chunkBytes(snap.manifest.chunks[0].first, snap.manifest.chunks[0].end, twice);
    expect(code(() => verifyChunk(withRef(snap.manifest, 0, b2), 0, b2))).toBe('CHUNK_ORDER');
  });

  it('refuses a changed or missing record by its subtree hash (the ref made to match the bytes)', () => {
    const own = verifyChunk(snap.manifest, 3, snap.chunks[3]);
    const ref = snap.manifest.chunks[3];
    const changed = own.map((r, i): StateRecord => (i === 4 ? [r[0], Uint8Array.of(9, 9, 9)] : r));
    const b1 = chunkBytes(ref.first, ref.end, changed);
    expect(code(() => verifyChunk(withRef(snap.manifest, 3, b1), 3, b1))).toBe('SUBTREE');
    const b2 = chunkBytes(ref.first, ref.end, own.slice(1));
    expect(code(() => verifyChunk(withRef(snap.manifest, 3, b2), 3, b2))).toBe('SUBTREE');
  });

  it('refuses a tampered subtree list (the root no longer matches), and a manifest naming another root', () => {
    const subtrees = snap.manifest.subtrees.slice();
    subtrees[200] = sha256(Uint8Array.of(1));
    expect(code(() => verifyManifest({ ...snap.manifest, subtrees }, root))).toBe('ROOT');
    const other = rootOf(records(10, 2));
    expect(code(() => verifyManifest({ ...snap.manifest, stateRoot: other }, other))).toBe('ROOT');
    expect(code(() => verifyManifest(snap.manifest, other))).toBe('ROOT');
  });

  it('refuses a manifest that is truncated, has trailing bytes, or chunks that do not tile [0, 256)', () => {
    const enc = encodeManifest(snap.manifest);
    expect(code(() => decodeManifest(enc.subarray(0, enc.length - 1)))).toBe('MANIFEST');
    expect(code(() => decodeManifest(enc.subarray(0, 100)))).toBe('MANIFEST');
    expect(code(() => decodeManifest(Buffer.concat([enc, Uint8Array.of(0)])))).toBe('MANIFEST');
    const gap = { ...snap.manifest, chunks: snap.manifest.chunks.filter((_, i) => i !== 1) };
    expect(code(() => decodeManifest(encodeManifest(gap)))).toBe('MANIFEST');
    const huge = { ...snap.manifest, chunks: snap.manifest.chunks.map((c, i) => (i === 0 ? { ...c, bytes: 0xffffffff } : c)) };
    expect(code(() => decodeManifest(encodeManifest(huge)))).toBe('MANIFEST');
  });

  it('bounds a record count before allocating for it', () => {
    const ref = snap.manifest.chunks[0];
    const w = new Writer();
    w.u8(1).u16(ref.first).u16(ref.end).u32(0xffffffff);
    const bytes = w.finish();
    expect(code(() => verifyChunk(withRef(snap.manifest, 0, bytes), 0, bytes))).toBe('CHUNK_DECODE');
    expect(code(() => verifyChunk(snap.manifest, snap.manifest.chunks.length, snap.chunks[0]))).toBe('CHUNK_INDEX');
  });
});
