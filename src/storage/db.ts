/**
 * LevelDB storage (classic-level): the key-value store LevelKv, and ChainStore, the
 * chain store over it (src/storage/chain-store.ts holds what is written and how; the
 * simulator runs the same over memory, src/storage/memory-kv.ts).
 */
import { ClassicLevel } from 'classic-level';
import { writeBatch } from './batch';
import { KvChainStore } from './chain-store';
import { checkStoreFiles, storeLocked } from './corruption';
import { storageWords } from './storage-errors';
import type { KeyRange, KvSnapshot, KvStatus, KvStore, Op } from './kv';

export * from './chain-store';

/** LevelDB as a KvStore. */
export class LevelKv implements KvStore {
  /**
   * Made by `open`, not by the constructor: abstract-level opens a database on the tick
   * after it is constructed, and an open replays (and deletes) a log cut short and takes
   * the folder's lock, so a store made before `filesDamaged` looked at its files would
   * both destroy the evidence and keep the lock the heal's fresh store needs.
   */
  private db: ClassicLevel<Uint8Array, Uint8Array> | undefined;

  constructor(readonly path: string) {}

  /** The open database (a bug to ask before `open`). */
  get level(): ClassicLevel<Uint8Array, Uint8Array> {
    if (!this.db) throw new Error(`the chain database ${this.path} is not open`);
    return this.db;
  }

  get status(): KvStatus {
    return this.db?.status ?? 'closed';
  }

  /** Opens the database; a failure says why in words (another process holds it, corruption, permissions) and keeps LevelDB's error as its cause. */
  async open(opts: { createIfMissing?: boolean } = {}): Promise<void> {
    this.db ??= new ClassicLevel<Uint8Array, Uint8Array>(this.path, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await this.db.open({ createIfMissing: opts.createIfMissing ?? true });
    } catch (err) {
      throw new Error(`cannot open the chain database ${this.path}: ${openFailure(err)}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    await this.db?.close();
  }

  /** LevelDB's log and MANIFEST, read with their checksums before opening replays them (not while another process holds the store). */
  filesDamaged(): string | null {
    return storeLocked(this.path) === true ? null : checkStoreFiles(this.path);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return (await this.level.get(key)) ?? undefined;
  }

  async put(key: Uint8Array, value: Uint8Array, opts: { sync: boolean }): Promise<void> {
    await this.level.put(key, value, opts);
  }

  async del(key: Uint8Array, opts: { sync: boolean }): Promise<void> {
    await this.level.del(key, opts);
  }

  async write(ops: readonly Op[], opts: { sync: boolean }): Promise<void> {
    await writeBatch(this.level, ops, opts.sync);
  }

  /** Keys without filling the block cache (a scan of every key must not evict the working set). */
  keys(range: KeyRange = {}): AsyncIterable<Uint8Array> {
    return this.level.keys({ ...range, fillCache: false });
  }

  entries(range: KeyRange = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.level.iterator(range);
  }

  /** LevelDB's explicit snapshot (classic-level 3): taken synchronously; its reads skip the block cache. */
  snapshot(): KvSnapshot {
    const level = this.level;
    const snapshot = level.snapshot();
    return {
      get: async (key) => (await level.get(key, { snapshot })) ?? undefined,
      entries: (range = {}) => level.iterator({ ...range, snapshot, fillCache: false }),
      entryBatches: async function* (range, maxEntries) {
        const it = level.iterator({ ...range, snapshot, fillCache: false });
        try {
          for (;;) {
            const batch = await it.nextv(maxEntries);
            if (batch.length === 0) return;
            yield batch;
          }
        } finally {
          await it.close();
        }
      },
      close: () => snapshot.close(),
    };
  }

  async compactRange(range: Required<KeyRange>): Promise<void> {
    await this.level.compactRange(range.gte, range.lt);
  }
}

/** The node's chain store: LevelDB in `path`. */
export class ChainStore extends KvChainStore {
  constructor(path: string, syncWrites = true) {
    super(path, new LevelKv(path), syncWrites);
  }
}

/** What an operator can do about a LevelDB open error, from its code (classic-level puts the reason in `cause`). */
export function openFailure(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const detail = e.cause?.message ?? e.message ?? String(err);
  if (code === 'LEVEL_LOCKED') return `another process holds it (${detail}): stop the other node using this data folder, or give this one another --data-dir`;
  if (code === 'LEVEL_CORRUPTION') return `LevelDB reports corruption (${detail}): restore the folder from a backup, or move it away and let the node sync the chain again from its peers`;
  if (/permission|EACCES|EPERM/i.test(detail)) return `no permission (${detail}): the node's user must be able to read and write the data folder`;
  if (/ENOSPC|no space/i.test(detail)) return `the disk is full (${detail}): free space on the data folder's disk`;
  const words = storageWords(err, 'the data folder');
  if (words) return `${words.cause} (${detail}): ${words.next}`;
  return `${detail} (check that the folder exists, is writable and the disk has space)`;
}
