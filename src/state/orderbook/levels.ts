/**
 * One side's price levels, kept sorted worst → best by a numeric `key` (bids: price,
 * asks: −price, so "better" is always "larger key" and the best level is the last
 * element of the last chunk).
 *
 * Layout: a list of sorted chunks (at most CHUNK_MAX levels each) plus the last key of
 * every chunk, the "sorted list of lists" of Python's sortedcontainers. Compared with
 * one flat sorted array this bounds the cost of inserting or removing a level far from
 * the best one (a flat array would move up to L pointers; here at most CHUNK_MAX plus
 * a binary search over L / CHUNK_MAX chunk maxima), which matters because anyone can
 * open a level deep in the book. Compared with a balanced tree it allocates nothing per
 * level beyond the level itself and walks best-first through contiguous arrays.
 *
 * Keys are unique within a side (the caller keeps one level per price). Iteration order
 * is defined solely by the keys, never by insertion history.
 */

export interface Keyed {
  readonly key: number;
}

/** Default: a chunk is split in two when it grows beyond this many levels. */
export const CHUNK_MAX = 512;

export class SortedLevels<T extends Keyed> {
  /** Sorted chunks, ascending by key (worst → best). Read-only outside this class. */
  readonly chunks: T[][] = [];
  /** keys[i][j] === chunks[i][j].key: binary searches read packed doubles, not objects. */
  private readonly keys: number[][] = [];
  /** maxes[i] = key of the last (best) element of chunks[i]. */
  private readonly maxes: number[] = [];
  private count = 0;

  /** chunkMax: split threshold (≥ 2); small values only to exercise splits in tests. */
  constructor(private readonly chunkMax: number = CHUNK_MAX) {
    if (!Number.isInteger(chunkMax) || chunkMax < 2) throw new RangeError(`chunkMax must be an integer ≥ 2, got ${chunkMax}`);
  }

  get length(): number {
    return this.count;
  }

  best(): T | undefined {
    const n = this.chunks.length;
    if (n === 0) return undefined;
    const c = this.chunks[n - 1];
    return c[c.length - 1];
  }

  /** Removes the best level (O(1)). */
  popBest(): void {
    const n = this.chunks.length;
    if (n === 0) throw new Error('SortedLevels.popBest on an empty side');
    const c = this.chunks[n - 1];
    const k = this.keys[n - 1];
    c.pop();
    k.pop();
    this.count--;
    if (c.length === 0) {
      this.chunks.pop();
      this.keys.pop();
      this.maxes.pop();
    } else {
      this.maxes[n - 1] = k[k.length - 1];
    }
  }

  /** Index of the first chunk whose max ≥ key, or chunks.length if none. */
  private chunkFor(key: number): number {
    const maxes = this.maxes;
    let lo = 0;
    let hi = maxes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (maxes[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first key ≥ key in a sorted key list (length if none). */
  private static position(k: number[], key: number): number {
    let lo = 0;
    let hi = k.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (k[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts a level whose key is not present yet; throws if it is. */
  insert(x: T): void {
    const key = x.key;
    const chunks = this.chunks;
    if (chunks.length === 0) {
      chunks.push([x]);
      this.keys.push([key]);
      this.maxes.push(key);
      this.count++;
      return;
    }
    let ci = this.chunkFor(key);
    if (ci === chunks.length) ci--; // beyond every chunk: append to the last one
    const c = chunks[ci];
    const k = this.keys[ci];
    const at = SortedLevels.position(k, key);
    if (at < k.length && k[at] === key) throw new Error(`SortedLevels.insert: key ${key} already present`);
    this.count++;
    if (at === c.length) {
      c.push(x);
      k.push(key);
      this.maxes[ci] = key;
    } else {
      // shift by hand: cheaper than splice (no result array, no generic path)
      let j = c.length;
      c.push(x);
      k.push(key);
      for (; j > at; j--) {
        c[j] = c[j - 1];
        k[j] = k[j - 1];
      }
      c[at] = x;
      k[at] = key;
    }
    if (c.length > this.chunkMax) {
      const half = c.length >>> 1;
      const upper = c.splice(half);
      const upperKeys = k.splice(half);
      chunks.splice(ci + 1, 0, upper);
      this.keys.splice(ci + 1, 0, upperKeys);
      this.maxes[ci] = k[k.length - 1];
      this.maxes.splice(ci + 1, 0, upperKeys[upperKeys.length - 1]);
    }
  }

  /** Removes the level x (found by its key); throws if absent. */
  remove(x: T): void {
    const key = x.key;
    const chunks = this.chunks;
    const ci = this.chunkFor(key);
    const c = ci < chunks.length ? chunks[ci] : undefined;
    const k = ci < chunks.length ? this.keys[ci] : undefined;
    const at = k ? SortedLevels.position(k, key) : 0;
    if (!c || !k || at >= c.length || c[at] !== x) throw new Error(`SortedLevels.remove: key ${key} not present`);
    this.count--;
    if (at === c.length - 1) {
      c.pop();
      k.pop();
      if (c.length === 0) {
        chunks.splice(ci, 1);
        this.keys.splice(ci, 1);
        this.maxes.splice(ci, 1);
      } else {
        this.maxes[ci] = k[k.length - 1];
      }
    } else {
      const last = c.length - 1;
      for (let j = at; j < last; j++) {
        c[j] = c[j + 1];
        k[j] = k[j + 1];
      }
      c.pop();
      k.pop();
    }
  }
}
