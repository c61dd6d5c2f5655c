/**
 * id → value index for order ids (non-negative integers < 2^53), an open-addressing
 * hash table with linear probing and backward-shift deletion (no tombstones).
 *
 * Why not a Map: on the matching engine's pattern (ids from a monotonic counter,
 * inserted once, looked up and deleted at random) this is ~3× faster than
 * Map<number, V> and smaller (a Float64Array of keys plus one array of values).
 *
 * The hash is Fibonacci hashing of the id's two 32-bit halves: sequential ids spread
 * evenly. The load factor stays in [1/8, 1/2] (grows at 1/2, shrinks at 1/8 above the
 * minimum capacity). Nothing iterates the table, so its layout never reaches any
 * outcome; it only has to answer get/set/delete exactly.
 */

const EMPTY = -1;
const MIN_BITS = 10;

export class IdIndex<V> {
  private bits = 0;
  private mask = 0;
  private keys: Float64Array = new Float64Array(0);
  private vals: (V | null)[] = [];
  private count = 0;

  constructor() {
    this.alloc(MIN_BITS);
  }

  get size(): number {
    return this.count;
  }

  private alloc(bits: number): void {
    const cap = 1 << bits;
    this.bits = bits;
    this.mask = cap - 1;
    this.keys = new Float64Array(cap).fill(EMPTY);
    const vals: (V | null)[] = [];
    for (let i = 0; i < cap; i++) vals.push(null); // packed, not holey, elements
    this.vals = vals;
  }

  private home(k: number): number {
    return Math.imul((k | 0) ^ ((k / 4294967296) | 0), 0x9e3779b1) >>> (32 - this.bits);
  }

  get(k: number): V | undefined {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.home(k);
    for (;;) {
      const x = keys[i];
      if (x === k) return this.vals[i] as V;
      if (x === EMPTY) return undefined;
      i = (i + 1) & mask;
    }
  }

  has(k: number): boolean {
    return this.get(k) !== undefined;
  }

  /** Inserts or replaces. */
  set(k: number, v: V): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.rehash(this.bits + 1);
    const keys = this.keys;
    const mask = this.mask;
    let i = this.home(k);
    for (;;) {
      const x = keys[i];
      if (x === EMPTY) {
        keys[i] = k;
        this.vals[i] = v;
        this.count++;
        return;
      }
      if (x === k) {
        this.vals[i] = v;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  delete(k: number): boolean {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = this.home(k);
    for (;;) {
      const x = keys[i];
      if (x === EMPTY) return false;
      if (x === k) break;
      i = (i + 1) & mask;
    }
    // Backward shift: move later members of the probe run into the hole when their
    // home slot does not lie strictly between the hole and their current slot.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const kj = keys[j];
      if (kj === EMPTY) break;
      const h = this.home(kj);
      if (((j - h) & mask) >= ((j - i) & mask)) {
        keys[i] = kj;
        vals[i] = vals[j];
        i = j;
      }
    }
    keys[i] = EMPTY;
    vals[i] = null;
    this.count--;
    if (this.bits > MIN_BITS && this.count * 8 < this.mask + 1) this.rehash(this.bits - 1);
    return true;
  }

  private rehash(bits: number): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    this.alloc(bits);
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    for (let s = 0; s < oldKeys.length; s++) {
      const k = oldKeys[s];
      if (k === EMPTY) continue;
      let i = this.home(k);
      while (keys[i] !== EMPTY) i = (i + 1) & mask;
      keys[i] = k;
      vals[i] = oldVals[s];
    }
  }
}
