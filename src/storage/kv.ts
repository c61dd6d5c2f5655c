/**
 * The key-value store under the chain store (src/storage/chain-store.ts): what the chain
 * store asks of LevelDB, and no more. Two implementations: LevelKv (src/storage/db.ts,
 * classic-level, the node's) and MemoryKv (src/storage/memory-kv.ts, the simulator's,
 * with the faults of a real disk). Keys are ordered bytewise, as LevelDB orders them;
 * an iteration sees the store as it was when the iteration started (LevelDB's implicit
 * snapshot). A read of damaged data throws an error with code LEVEL_CORRUPTION, a write
 * the disk has no room for one whose message says "No space left on device" (the
 * classifiers isStoreCorruption and isNoSpace recognise both, from either store).
 * Pure: no I/O module is imported here.
 */

export type Op = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** A key range: from `gte` (inclusive) to `lt` (exclusive); either end absent = open. */
export interface KeyRange {
  gte?: Uint8Array;
  lt?: Uint8Array;
}

export type KvStatus = 'opening' | 'open' | 'closing' | 'closed';

/**
 * A read-only view of the store as it was when the snapshot was taken (synchronously):
 * later writes do not show in it. Closed by its holder.
 */
export interface KvSnapshot {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  entries(range?: KeyRange): AsyncIterable<[Uint8Array, Uint8Array]>;
  /** The same entries, at most `maxEntries` at a time (one read of the store per batch, not one per entry). */
  entryBatches(range: KeyRange, maxEntries: number): AsyncIterable<Array<[Uint8Array, Uint8Array]>>;
  close(): Promise<void>;
}

export interface KvStore {
  readonly status: KvStatus;
  open(opts?: { createIfMissing?: boolean }): Promise<void>;
  close(): Promise<void>;
  /** What is wrong with the store's own files before it is opened (LevelDB's log and MANIFEST), or null. */
  filesDamaged(): string | null;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  put(key: Uint8Array, value: Uint8Array, opts: { sync: boolean }): Promise<void>;
  del(key: Uint8Array, opts: { sync: boolean }): Promise<void>;
  /** Writes `ops` as ONE atomic batch; `sync`: durable before it resolves. */
  write(ops: readonly Op[], opts: { sync: boolean }): Promise<void>;
  /** Every key in the range, in order, each one's value checked as it is read (LevelDB checks the blocks it reads). */
  keys(range?: KeyRange): AsyncIterable<Uint8Array>;
  entries(range?: KeyRange): AsyncIterable<[Uint8Array, Uint8Array]>;
  /**
   * The store as it is now, taken before this returns (LevelDB's explicit snapshot), so a
   * caller that takes it right after a write sees that write and none after it, however
   * late it reads (a state snapshot's writer, src/storage/snapshot-store.ts).
   */
  snapshot(): KvSnapshot;

  /**
   * Rewrites the files holding the range so the space of deleted keys is given back
   * (LevelDB keeps a deleted value's bytes, under a tombstone, until a compaction reaches
   * them; pruning asks for one over what it deleted). A store that frees on delete does nothing.
   */
  compactRange(range: Required<KeyRange>): Promise<void>;
}
