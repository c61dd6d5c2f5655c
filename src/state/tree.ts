/**
 * The state root: a fixed-shape hexary Merkle tree over (H(key), H(value)) pairs,
 * kept incrementally so a block pays only for what it changed.
 *
 * H is SHA-256 (OpenSSL, native): the root is internal to this chain, so it need not
 * be keccak, and pure-JS keccak costs ~20 µs a hash here, which would make the root
 * dominate a 22 ms block (measured: 17 ms for 100 changed keys at 1M keys).
 *
 * Shape: keys fall into 65,536 buckets by the first two bytes of H(key). A bucket's
 * hash is H of its entries (keyHash‖valueHash, sorted by keyHash), or the zero hash
 * when empty. Above the buckets sit four levels of 16-ary nodes (4096, 256, 16, 1),
 * each H of its 16 children. Updating k keys rehashes at
 * most k buckets plus 4·k inner nodes (fewer when they share ancestors), whatever the
 * size of the state; a full rebuild is needed only at startup.
 */
import { hash } from 'node:crypto';

/** A 32-byte digest held as a 32-character latin1 string: far cheaper for V8 than a Uint8Array. */
type Digest = string;

function H(data: Uint8Array | string): Digest {
  return hash('sha256', typeof data === 'string' ? Buffer.from(data, 'latin1') : data, 'binary'); // 'binary' is latin1
}

const BUCKET_BITS = 16;
const BUCKETS = 1 << BUCKET_BITS;
const FANOUT = 16;
const LEVELS = 4; // 16^4 = 65536
const ZERO: Digest = '\0'.repeat(32);
/** EMPTY[l]: the hash of an empty subtree at level l (computed once; all equal per level). */
const EMPTY: Digest[] = [ZERO];
for (let l = 1; l <= LEVELS; l++) EMPTY.push(H(EMPTY[l - 1].repeat(FANOUT)));

/** keyHash -> valueHash */
type Bucket = Map<Digest, Digest>;

export class StateTree {
  private readonly buckets: (Bucket | undefined)[] = new Array(BUCKETS);
  /** levels[0] holds bucket hashes (65536), levels[LEVELS] the root. */
  private readonly levels: Digest[][] = [];
  private readonly dirty: Set<number>[] = [];
  private entries = 0;

  constructor() {
    let size = BUCKETS;
    for (let l = 0; l <= LEVELS; l++) {
      this.levels.push(new Array<Digest>(size).fill(EMPTY[l]));
      this.dirty.push(new Set());
      size /= FANOUT;
    }
  }

  get size(): number {
    return this.entries;
  }

  /** Sets or (value null) removes a key. */
  update(key: Uint8Array, value: Uint8Array | null): void {
    const keyHash = H(key);
    const idx = (keyHash.charCodeAt(0) << 8) | keyHash.charCodeAt(1);
    let bucket = this.buckets[idx];
    if (value === null) {
      if (!bucket || !bucket.delete(keyHash)) return;
      this.entries--;
    } else {
      if (!bucket) this.buckets[idx] = bucket = new Map();
      if (!bucket.has(keyHash)) this.entries++;
      bucket.set(keyHash, H(value));
    }
    this.dirty[0].add(idx);
  }

  /** Recomputes what changed since the last call and returns the root. */
  root(): Uint8Array {
    for (const idx of this.dirty[0]) {
      this.levels[0][idx] = this.hashBucket(this.buckets[idx]);
      this.dirty[1].add(idx >>> 4);
    }
    this.dirty[0].clear();
    for (let l = 1; l <= LEVELS; l++) {
      const below = this.levels[l - 1];
      for (const idx of this.dirty[l]) {
        let children = '';
        for (let c = 0; c < FANOUT; c++) children += below[idx * FANOUT + c];
        this.levels[l][idx] = H(children);
        if (l < LEVELS) this.dirty[l + 1].add(idx >>> 4);
      }
      this.dirty[l].clear();
    }
    return Uint8Array.from(Buffer.from(this.levels[LEVELS][0], 'latin1'));
  }

  private hashBucket(bucket: Bucket | undefined): Digest {
    if (!bucket || bucket.size === 0) return ZERO;
    // latin1 strings compare by code unit = by byte: the sort is byte order.
    const keys = [...bucket.keys()].sort();
    let entries = '';
    for (const k of keys) entries += k + bucket.get(k)!;
    return H(entries);
  }
}

/**
 * The level-2 subtrees (256, one per first byte of H(key), each over 256 buckets): the
 * unit of a state snapshot's chunks (src/state/snapshot.ts), hashed here with the tree's
 * own hashing so a chunk verifies against the same root the chain commits to.
 */
export const SUBTREES = BUCKETS >>> 8;

/** The level-2 subtree a storage key falls in: the first byte of H(key). */
export function subtreeOf(key: Uint8Array): number {
  return H(key).charCodeAt(0);
}

/** Bytes of a record's digest: H(key) ‖ H(value), its entry in its bucket. */
export const DIGEST_BYTES = 64;

/** Writes the record's digest at `at` of `out` and returns its subtree (the first byte of H(key)). */
export function recordDigest(key: Uint8Array, value: Uint8Array, out: Uint8Array, at: number): number {
  const k = hash('sha256', key, 'buffer');
  out.set(k, at);
  out.set(hash('sha256', value, 'buffer'), at + 32);
  return k[0];
}

/**
 * The hash of level-2 subtree `index` from its records' digests (`count` of them,
 * DIGEST_BYTES each, in `digests`): the same as the tree's. Held as bytes, not strings,
 * so a writer can keep a whole state's digests outside the JS heap (decision 136).
 * Throws a RangeError naming the record when one falls in another subtree.
 */
export function subtreeHashOfDigests(index: number, digests: Uint8Array, count: number): Uint8Array {
  const d = Buffer.from(digests.buffer, digests.byteOffset, count * DIGEST_BYTES);
  const buckets: number[][] = [];
  for (let i = 0; i < count; i++) {
    const at = i * DIGEST_BYTES;
    if (d[at] !== index) throw new RangeError(`record ${i} falls in subtree ${d[at]}, not ${index}`);
    (buckets[d[at + 1]] ??= []).push(at);
  }
  let level1 = '';
  for (let n = 0; n < FANOUT; n++) {
    let children = '';
    for (let c = 0; c < FANOUT; c++) {
      const entries = buckets[n * FANOUT + c];
      if (!entries) {
        children += ZERO;
        continue;
      }
      // Byte order of the key hashes, as the tree sorts them (a key twice: the last value, as a Map keeps it).
      entries.sort((a, b) => d.compare(d, b, b + 32, a, a + 32));
      let bytes = '';
      for (let e = 0; e < entries.length; e++) {
        if (e + 1 < entries.length && d.compare(d, entries[e + 1], entries[e + 1] + 32, entries[e], entries[e] + 32) === 0) continue;
        bytes += d.toString('latin1', entries[e], entries[e] + DIGEST_BYTES);
      }
      children += H(bytes);
    }
    level1 += H(children);
  }
  return Uint8Array.from(Buffer.from(H(level1), 'latin1'));
}

/**
 * The hash of level-2 subtree `index` over `records` (storage key, value), as the tree
 * computes it; throws a RangeError naming the record when one falls in another subtree.
 */
export function subtreeHash(index: number, records: readonly (readonly [Uint8Array, Uint8Array])[]): Uint8Array {
  const digests = new Uint8Array(records.length * DIGEST_BYTES);
  for (let i = 0; i < records.length; i++) recordDigest(records[i][0], records[i][1], digests, i * DIGEST_BYTES);
  return subtreeHashOfDigests(index, digests, records.length);
}

/** The root over the 256 level-2 subtree hashes (the two levels above them). */
export function rootOfSubtrees(subtrees: readonly Uint8Array[]): Uint8Array {
  if (subtrees.length !== SUBTREES) throw new RangeError(`${subtrees.length} subtree hashes, not ${SUBTREES}`);
  let level3 = '';
  for (let n = 0; n < FANOUT; n++) {
    let children = '';
    for (let c = 0; c < FANOUT; c++) children += Buffer.from(subtrees[n * FANOUT + c]).toString('latin1');
    level3 += H(children);
  }
  return Uint8Array.from(Buffer.from(H(level3), 'latin1'));
}
