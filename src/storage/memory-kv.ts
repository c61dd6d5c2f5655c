/**
 * An in-memory key-value store with the faults of a real disk (issue 26 deliver 6,
 * decision 126): the chain store of the simulator's nodes (sim/storage.ts), behind the
 * same interface as LevelDB (src/storage/kv.ts), so the simulator runs the real Chain.
 *
 * As LevelDB: keys ordered bytewise (latin1 strings compare by byte), a batch atomic, an
 * iteration over the store as it was when it started, values copied in and out. Each
 * value is kept with its CRC-32C, checked on every read and every iteration (LevelDB
 * checks each block it reads the same way): a value whose bytes changed throws an error
 * coded LEVEL_CORRUPTION, as classic-level does, so the chain's corruption path
 * (src/chain/chain.ts, src/storage/corruption.ts) is the one the node takes.
 *
 * The faults, set by whoever holds the store (the simulator draws them from its seed):
 *  - writes lost at a crash: a batch written without sync is "in the page cache" until a
 *    synced write follows (which makes every earlier one durable, as LevelDB's fsync of
 *    its log does) or `unsyncedKept` newer ones have been written (the OS wrote it back);
 *    crash(n) drops the newest n such batches, newest first;
 *  - a corrupted value: corrupt() flips bits of one stored value (its checksum kept);
 *  - a full disk: while `full`, every write fails with "No space left on device" and
 *    changes nothing.
 * Pure: no I/O module is imported (Buffer is node's global).
 */
import { crc32c } from './crc32c';
import type { KeyRange, KvSnapshot, KvStatus, KvStore, Op } from './kv';

interface Entry {
  value: Uint8Array;
  crc: number;
  /** Set by corrupt(), for the count only (the check is the checksum's): counted once when a read finds it. */
  damaged?: 'injected' | 'detected';
}

/** What a batch overwrote: the key and its entry before (undefined: absent). */
type Undo = [key: string, prev: Entry | undefined];

function str(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

function bytes(key: string): Uint8Array {
  return Buffer.from(key, 'latin1');
}

export class MemoryKv implements KvStore {
  #status: KvStatus = 'closed';
  readonly #map = new Map<string, Entry>();
  /** The keys in order, rebuilt at the first iteration after a key was added or removed. */
  #sorted: string[] | null = null;
  /** Batches written without sync and not yet written back, oldest first. */
  #unsynced: Undo[][] = [];
  /** While true, every write fails for lack of space. */
  full = false;
  /** Corruptions injected, and of them those a read found. */
  corruptionsInjected = 0;
  corruptionsDetected = 0;

  constructor(
    readonly path: string,
    private readonly unsyncedKept = 8,
  ) {}

  get status(): KvStatus {
    return this.#status;
  }

  get size(): number {
    return this.#map.size;
  }

  async open(opts: { createIfMissing?: boolean } = {}): Promise<void> {
    if (this.#map.size === 0 && opts.createIfMissing === false) throw new Error(`cannot open the chain database ${this.path}: it does not exist`);
    this.#status = 'open';
  }

  async close(): Promise<void> {
    this.#status = 'closed';
  }

  filesDamaged(): string | null {
    return null;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.#readable();
    return this.getSync(key);
  }

  getSync(key: Uint8Array): Uint8Array | undefined {
    const k = str(key);
    const e = this.#map.get(k);
    return e === undefined ? undefined : this.#checked(k, e).slice();
  }

  /**
   * A read by an onlooker (the simulator's checker), open or closed: checked, but a
   * damaged value it meets is not counted as found (only the node's own reads count).
   */
  peek(key: Uint8Array): Uint8Array | undefined {
    const e = this.#map.get(str(key));
    if (e === undefined) return undefined;
    if (crc32c(e.value) !== e.crc) throw Object.assign(new Error(`Corruption: checksum mismatch (${this.path})`), { code: 'LEVEL_CORRUPTION' });
    return e.value.slice();
  }

  async put(key: Uint8Array, value: Uint8Array, opts: { sync: boolean }): Promise<void> {
    await this.write([{ type: 'put', key, value }], opts);
  }

  async del(key: Uint8Array, opts: { sync: boolean }): Promise<void> {
    await this.write([{ type: 'del', key }], opts);
  }

  async write(ops: readonly Op[], opts: { sync: boolean }): Promise<void> {
    this.#readable();
    if (this.full) throw Object.assign(new Error(`IO error: ${this.path}/000001.log: No space left on device`), { code: 'LEVEL_IO_ERROR' });
    const undo: Undo[] = [];
    for (const op of ops) {
      const k = str(op.key);
      const prev = this.#map.get(k);
      undo.push([k, prev]);
      if (op.type === 'put') {
        const value = op.value.slice();
        this.#map.set(k, { value, crc: crc32c(value) });
        if (prev === undefined) this.#sorted = null;
      } else if (prev !== undefined) {
        this.#map.delete(k);
        this.#sorted = null;
      }
    }
    if (opts.sync) this.#unsynced = [];
    else {
      this.#unsynced.push(undo);
      if (this.#unsynced.length > this.unsyncedKept) this.#unsynced.shift();
    }
  }

  async *keys(range: KeyRange = {}): AsyncIterable<Uint8Array> {
    for (const [k] of this.#snapshot(range)) yield bytes(k);
  }

  async *entries(range: KeyRange = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    for (const [k, v] of this.#snapshot(range)) yield [bytes(k), v];
  }

  /**
   * The store as it is now: a copy of the key -> entry map (a write replaces an entry,
   * never changes one, so the copy keeps the values of this moment), read with the
   * same checks. Its iterations are in key order, as the store's.
   */
  snapshot(): KvSnapshot {
    this.#readable();
    const map = new Map(this.#map);
    let sorted: string[] | undefined;
    const checked = (k: string, e: Entry) => this.#checked(k, e).slice();
    const entries = async function* (range: KeyRange = {}) {
      sorted ??= [...map.keys()].sort();
      const gte = range.gte === undefined ? undefined : str(range.gte);
      const lt = range.lt === undefined ? undefined : str(range.lt);
      for (let i = gte === undefined ? 0 : lowerBound(sorted, gte); i < sorted.length && (lt === undefined || sorted[i] < lt); i++) {
        yield [bytes(sorted[i]), checked(sorted[i], map.get(sorted[i]) as Entry)] as [Uint8Array, Uint8Array];
      }
    };
    return {
      get: async (key) => {
        const k = str(key);
        const e = map.get(k);
        return e === undefined ? undefined : checked(k, e);
      },
      entries,
      entryBatches: async function* (range: KeyRange, maxEntries: number) {
        let batch: Array<[Uint8Array, Uint8Array]> = [];
        for await (const e of entries(range)) {
          batch.push(e);
          if (batch.length >= maxEntries) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      },
      close: async () => undefined,
    };
  }

  /** Memory is given back as keys are deleted: nothing to compact. */
  async compactRange(_range: Required<KeyRange>): Promise<void> {
    this.#readable();
  }

  /** The batches a crash now would lose at most (written without sync, not yet written back). */
  get unsyncedBatches(): number {
    return this.#unsynced.length;
  }

  /** A crash: the store closes, and the newest `lose` unsynced batches are lost (undone newest first). Returns how many were. */
  crash(lose: number): number {
    this.#status = 'closed';
    const n = Math.min(lose, this.#unsynced.length);
    for (let i = 0; i < n; i++) {
      const undo = this.#unsynced.pop() as Undo[];
      for (let j = undo.length - 1; j >= 0; j--) {
        const [k, prev] = undo[j];
        if (prev === undefined) this.#map.delete(k);
        else this.#map.set(k, prev);
      }
    }
    if (n > 0) this.#sorted = null;
    // What survived the crash is on disk now.
    this.#unsynced = [];
    return n;
  }

  /**
   * Flips one to three bits of one stored value, chosen by `draw` (n => an integer in
   * [0, n)); its checksum is kept, so the next read of it fails. False on an empty store.
   */
  corrupt(draw: (n: number) => number): boolean {
    if (this.#map.size === 0) return false;
    const k = this.#sortedKeys()[draw(this.#map.size)];
    const e = this.#map.get(k) as Entry;
    const value = e.value.slice();
    if (value.length === 0) {
      // Nothing to flip in the value: its checksum's bits then.
      this.#map.set(k, { value, crc: (e.crc ^ (1 << draw(32))) >>> 0, damaged: 'injected' });
    } else {
      const flips = 1 + draw(3);
      for (let i = 0; i < flips; i++) value[draw(value.length)] ^= 1 << draw(8);
      // Flipping one bit back and forth leaves it whole: then one bit more that does not.
      if (crc32c(value) === e.crc) value[0] ^= 1;
      this.#map.set(k, { value, crc: e.crc, damaged: 'injected' });
    }
    this.corruptionsInjected++;
    return true;
  }

  #readable(): void {
    if (this.#status !== 'open') throw Object.assign(new Error(`Database ${this.path} is not open`), { code: 'LEVEL_DATABASE_NOT_OPEN' });
  }

  #checked(k: string, e: Entry): Uint8Array {
    if (crc32c(e.value) !== e.crc) {
      if (e.damaged === 'injected') {
        e.damaged = 'detected';
        this.corruptionsDetected++;
      }
      throw Object.assign(new Error(`Corruption: checksum mismatch in the value of key ${Buffer.from(k, 'latin1').toString('hex').slice(0, 40)} (${this.path})`), {
        code: 'LEVEL_CORRUPTION',
      });
    }
    return e.value;
  }

  #sortedKeys(): string[] {
    if (this.#sorted === null) this.#sorted = [...this.#map.keys()].sort();
    return this.#sorted;
  }

  /** The entries in the range as they are now, checked, in key order. */
  #snapshot(range: KeyRange): [string, Uint8Array][] {
    this.#readable();
    const keys = this.#sortedKeys();
    const gte = range.gte === undefined ? undefined : str(range.gte);
    const lt = range.lt === undefined ? undefined : str(range.lt);
    let i = gte === undefined ? 0 : lowerBound(keys, gte);
    const out: [string, Uint8Array][] = [];
    for (; i < keys.length && (lt === undefined || keys[i] < lt); i++) {
      const e = this.#map.get(keys[i]) as Entry;
      out.push([keys[i], this.#checked(keys[i], e).slice()]);
    }
    return out;
  }
}

/** The first index whose key is >= `k`. */
function lowerBound(keys: readonly string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
