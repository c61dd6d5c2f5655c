/**
 * The state root: a fixed-shape hexary Merkle tree over (keccak(key), keccak(value))
 * pairs, kept incrementally so a block pays only for what it changed.
 *
 * Shape: keys fall into 65,536 buckets by the first two bytes of keccak(key). A
 * bucket's hash is keccak of its entries (keyHash‖valueHash, sorted by keyHash), or
 * the zero hash when empty. Above the buckets sit four levels of 16-ary nodes
 * (4096, 256, 16, 1), each keccak of its 16 children. Updating k keys rehashes at
 * most k buckets plus 4·k inner nodes (fewer when they share ancestors), whatever the
 * size of the state; a full rebuild is needed only at startup.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';

const BUCKET_BITS = 16;
const BUCKETS = 1 << BUCKET_BITS;
const FANOUT = 16;
const LEVELS = 4; // 16^4 = 65536
const ZERO = new Uint8Array(32);
/** EMPTY[l]: the hash of an empty subtree at level l (computed once; all equal per level). */
const EMPTY: Uint8Array[] = [ZERO];
for (let l = 1; l <= LEVELS; l++) EMPTY.push(keccak_256(new Uint8Array(32 * FANOUT).map((_, i) => EMPTY[l - 1][i % 32])));

type Bucket = Map<string, { keyHash: Uint8Array; valueHash: Uint8Array }>;

export class StateTree {
  private readonly buckets: (Bucket | undefined)[] = new Array(BUCKETS);
  /** levels[0] holds bucket hashes (65536), levels[LEVELS] the root. */
  private readonly levels: Uint8Array[][] = [];
  private readonly dirty: Set<number>[] = [];
  private entries = 0;

  constructor() {
    let size = BUCKETS;
    for (let l = 0; l <= LEVELS; l++) {
      this.levels.push(new Array<Uint8Array>(size).fill(EMPTY[l]));
      this.dirty.push(new Set());
      size /= FANOUT;
    }
  }

  get size(): number {
    return this.entries;
  }

  /** Sets or (value null) removes a key. */
  update(key: Uint8Array, value: Uint8Array | null): void {
    const keyHash = keccak_256(key);
    const idx = (keyHash[0] << 8) | keyHash[1];
    const id = Buffer.from(keyHash.buffer, keyHash.byteOffset, 32).toString('latin1');
    let bucket = this.buckets[idx];
    if (value === null) {
      if (!bucket || !bucket.delete(id)) return;
      this.entries--;
    } else {
      if (!bucket) this.buckets[idx] = bucket = new Map();
      if (!bucket.has(id)) this.entries++;
      bucket.set(id, { keyHash, valueHash: keccak_256(value) });
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
    const scratch = new Uint8Array(32 * FANOUT);
    for (let l = 1; l <= LEVELS; l++) {
      const below = this.levels[l - 1];
      for (const idx of this.dirty[l]) {
        for (let c = 0; c < FANOUT; c++) scratch.set(below[idx * FANOUT + c], c * 32);
        this.levels[l][idx] = keccak_256(scratch);
        if (l < LEVELS) this.dirty[l + 1].add(idx >>> 4);
      }
      this.dirty[l].clear();
    }
    return this.levels[LEVELS][0];
  }

  private hashBucket(bucket: Bucket | undefined): Uint8Array {
    if (!bucket || bucket.size === 0) return ZERO;
    const ids = [...bucket.keys()].sort();
    const buf = new Uint8Array(ids.length * 64);
    let off = 0;
    for (const id of ids) {
      const e = bucket.get(id)!;
      buf.set(e.keyHash, off);
      buf.set(e.valueHash, off + 32);
      off += 64;
    }
    return keccak_256(buf);
  }
}
