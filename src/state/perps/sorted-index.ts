/**
 * A sorted multiset of (key, id) pairs, ordered by key then id: the per-market indexes
 * of liquidation prices and TP/SL triggers (src/state/perps/book.ts).
 *
 * Layout: a list of sorted chunks (at most CHUNK_MAX entries each) with the last entry
 * of every chunk kept aside for the binary search, the "sorted list of lists" the
 * orderbook's price levels use (src/state/orderbook/levels.ts). Insert and remove cost a
 * binary search over chunk maxima plus a splice of at most CHUNK_MAX entries; scanning
 * from either end costs only the entries returned, so a block whose prices trigger
 * nothing reads one entry per index, whatever the number of positions.
 *
 * Keys are numbers (prices ×1e6 fit 2^53); ids are position ids (< 2^53). The order
 * depends only on (key, id), never on insertion history.
 */

export const CHUNK_MAX = 512;

interface Chunk {
  keys: number[];
  ids: number[];
}

function cmp(k1: number, i1: number, k2: number, i2: number): number {
  return k1 < k2 ? -1 : k1 > k2 ? 1 : i1 - i2;
}

export class SortedIndex {
  private readonly chunks: Chunk[] = [];
  private count = 0;

  constructor(private readonly chunkMax = CHUNK_MAX) {
    if (!Number.isInteger(chunkMax) || chunkMax < 2) throw new RangeError(`chunkMax must be an integer ≥ 2, got ${chunkMax}`);
  }

  get size(): number {
    return this.count;
  }

  /** Index of the first chunk whose last entry is ≥ (key, id); chunks.length if none. */
  private chunkFor(key: number, id: number): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.chunks[mid];
      const last = c.keys.length - 1;
      if (cmp(c.keys[last], c.ids[last], key, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Position of the first entry ≥ (key, id) inside a chunk. */
  private static within(c: Chunk, key: number, id: number): number {
    let lo = 0;
    let hi = c.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(c.keys[mid], c.ids[mid], key, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(key: number, id: number): void {
    if (!Number.isSafeInteger(key) || !Number.isSafeInteger(id)) throw new RangeError(`sorted index: key ${key} and id ${id} must be safe integers`);
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [key], ids: [id] });
      this.count = 1;
      return;
    }
    let ci = this.chunkFor(key, id);
    if (ci === this.chunks.length) ci--;
    const c = this.chunks[ci];
    const at = SortedIndex.within(c, key, id);
    if (at < c.keys.length && c.keys[at] === key && c.ids[at] === id) throw new Error(`sorted index: (${key}, ${id}) inserted twice`);
    c.keys.splice(at, 0, key);
    c.ids.splice(at, 0, id);
    this.count++;
    if (c.keys.length > this.chunkMax) {
      const half = c.keys.length >>> 1;
      this.chunks.splice(ci + 1, 0, { keys: c.keys.splice(half), ids: c.ids.splice(half) });
    }
  }

  /** Removes (key, id); false if absent. */
  remove(key: number, id: number): boolean {
    const ci = this.chunkFor(key, id);
    if (ci === this.chunks.length) return false;
    const c = this.chunks[ci];
    const at = SortedIndex.within(c, key, id);
    if (at >= c.keys.length || c.keys[at] !== key || c.ids[at] !== id) return false;
    c.keys.splice(at, 1);
    c.ids.splice(at, 1);
    this.count--;
    if (c.keys.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** Ids of the entries with key ≤ maxKey, ascending, at most `limit`. */
  ascendingTo(maxKey: number, limit = Infinity): number[] {
    const out: number[] = [];
    for (const c of this.chunks) {
      for (let i = 0; i < c.keys.length; i++) {
        if (c.keys[i] > maxKey || out.length >= limit) return out;
        out.push(c.ids[i]);
      }
    }
    return out;
  }

  /** Ids of the entries with key ≥ minKey, descending, at most `limit`. */
  descendingTo(minKey: number, limit = Infinity): number[] {
    const out: number[] = [];
    for (let ci = this.chunks.length - 1; ci >= 0; ci--) {
      const c = this.chunks[ci];
      for (let i = c.keys.length - 1; i >= 0; i--) {
        if (c.keys[i] < minKey || out.length >= limit) return out;
        out.push(c.ids[i]);
      }
    }
    return out;
  }

  /** Every (key, id) ascending (tests). */
  entries(): [number, number][] {
    const out: [number, number][] = [];
    for (const c of this.chunks) for (let i = 0; i < c.keys.length; i++) out.push([c.keys[i], c.ids[i]]);
    return out;
  }
}
