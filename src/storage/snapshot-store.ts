/**
 * The node's state snapshots on disk (issue 27 deliver 3, decision 136): every
 * `intervalBlocks` blocks the state at that height, written to
 * `<dataDir>/snapshots/<height>/` as `manifest` and `chunk-<i>` (src/state/snapshot.ts
 * for what they hold), the newest `keep` kept.
 *
 * Consistency: the writer reads the state through the chain store's view taken right
 * after the block's batch was written (KvStore.snapshot, synchronous), so the blocks
 * committed while it runs do not show in it. It never stalls block production: reading,
 * grouping, hashing and encoding run in slices of at most `sliceMs` of the event loop,
 * the file writes are asynchronous, and one snapshot is written at a time (a height due
 * while one is still being written is skipped, logged).
 *
 * Crash safety: a snapshot is written into `<height>.tmp/`, each file fsynced, the root
 * its subtrees hash to checked against the state root stored for that height, then the
 * folder renamed to `<height>/` and the parent fsynced: a listed snapshot is complete.
 * At open, `*.tmp` leftovers are removed, and a folder whose manifest does not decode.
 *
 * The restore side (state sync, helper of issue 27 deliver 4): restoreStateRecords writes
 * verified chunks' records into an empty chain store.
 */
import { mkdir, open as openFile, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  decodeManifest,
  DIGEST_BYTES,
  encodeChunkParts,
  encodeManifest,
  frameRecord,
  groupChunks,
  manifestHash,
  recordDigest,
  sha256,
  SnapshotError,
  subtreeHashOfDigests,
  SUBTREES,
  type SnapshotManifest,
  type StateRecord,
} from '../state/snapshot';
import { rootOfSubtrees } from '../state/tree';
import type { KvChainStore, StateView } from './chain-store';

export interface SnapshotInfo {
  height: number;
  stateRoot: Uint8Array;
  manifestHash: Uint8Array;
  chunks: number;
  /** Bytes of the manifest and every chunk. */
  bytes: number;
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SnapshotStoreOptions {
  /** The snapshots folder (`<dataDir>/snapshots`). */
  dir: string;
  /** A snapshot at every height that is a multiple of this (0 or absent: none written; the folder is still served). */
  intervalBlocks?: number;
  /** How many of the newest to keep (default 2). */
  keep?: number;
  /** The longest stretch of the event loop one slice of the writer takes (default 4 ms). */
  sliceMs?: number;
  log?: Log;
}

export const DEFAULT_SNAPSHOT_KEEP = 2;
const DEFAULT_SLICE_MS = 4;
const MANIFEST_FILE = 'manifest';
const TMP_SUFFIX = '.tmp';

export function chunkFile(index: number): string {
  return `chunk-${String(index).padStart(4, '0')}`;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Writes `bytes` to `path` and fsyncs it. */
async function writeSynced(path: string, bytes: Uint8Array): Promise<void> {
  const f = await openFile(path, 'w');
  try {
    await f.writeFile(bytes);
    await f.sync();
  } finally {
    await f.close();
  }
}

/** fsyncs a folder (a rename or a new file in it is durable then). */
async function syncDir(path: string): Promise<void> {
  const f = await openFile(path, 'r');
  try {
    await f.sync();
  } finally {
    await f.close();
  }
}

export class SnapshotStore {
  private readonly infos = new Map<number, SnapshotInfo>();
  private writing: Promise<SnapshotInfo | undefined> | undefined;
  private closed = false;
  readonly intervalBlocks: number;
  readonly keep: number;
  private readonly sliceMs: number;

  private constructor(private readonly opts: SnapshotStoreOptions) {
    this.intervalBlocks = opts.intervalBlocks ?? 0;
    this.keep = Math.max(1, opts.keep ?? DEFAULT_SNAPSHOT_KEEP);
    this.sliceMs = opts.sliceMs ?? DEFAULT_SLICE_MS;
  }

  get dir(): string {
    return this.opts.dir;
  }

  /** Opens the folder (made if absent): crash leftovers removed, the complete snapshots listed. */
  static async open(opts: SnapshotStoreOptions): Promise<SnapshotStore> {
    const store = new SnapshotStore(opts);
    await mkdir(opts.dir, { recursive: true });
    for (const name of await readdir(opts.dir)) {
      const path = join(opts.dir, name);
      if (name.endsWith(TMP_SUFFIX)) {
        await rm(path, { recursive: true, force: true });
        opts.log?.info({ folder: path }, 'snapshots: removed a snapshot left unfinished by a crash');
        continue;
      }
      if (!/^\d+$/.test(name)) continue;
      try {
        const bytes = await readFile(join(path, MANIFEST_FILE));
        const m = decodeManifest(bytes);
        if (m.height !== Number(name)) throw new SnapshotError('MANIFEST', `manifest of height ${m.height} in folder ${name}`);
        store.infos.set(m.height, infoOf(m, bytes.length));
      } catch (err) {
        await rm(path, { recursive: true, force: true });
        opts.log?.warn({ folder: path, err }, 'snapshots: removed a snapshot whose manifest is unreadable');
      }
    }
    await store.prune();
    return store;
  }

  /** The snapshots kept, oldest first. */
  list(): SnapshotInfo[] {
    return [...this.infos.values()].sort((a, b) => a.height - b.height);
  }

  /** The newest snapshot's height (pruning keeps the blocks from it on, which a joining node needs), or undefined. */
  newestHeight(): number | undefined {
    let newest: number | undefined;
    for (const h of this.infos.keys()) if (newest === undefined || h > newest) newest = h;
    return newest;
  }

  async manifest(height: number): Promise<Uint8Array | undefined> {
    if (!this.infos.has(height)) return undefined;
    return readFile(join(this.dir, String(height), MANIFEST_FILE)).catch(() => undefined);
  }

  async chunk(height: number, index: number): Promise<Uint8Array | undefined> {
    const info = this.infos.get(height);
    if (!info || !Number.isInteger(index) || index < 0 || index >= info.chunks) return undefined;
    return readFile(join(this.dir, String(height), chunkFile(index))).catch(() => undefined);
  }

  /** A snapshot is due at `height`. */
  due(height: number): boolean {
    return this.intervalBlocks > 0 && height > 0 && height % this.intervalBlocks === 0 && !this.infos.has(height);
  }

  /** The snapshot being written, if any (resolves when it is listed, or undefined if it failed). */
  get inFlight(): Promise<SnapshotInfo | undefined> | undefined {
    return this.writing;
  }

  /**
   * Called right after block `height`'s batch was written, before the next block's write
   * (the chain actor's announce): when a snapshot is due, takes the store's view NOW,
   * synchronously, and writes the snapshot from it in the background. Returns the write
   * (resolves to the snapshot, or undefined when it failed: logged), or undefined.
   */
  afterCommit(store: KvChainStore, height: number): Promise<SnapshotInfo | undefined> | undefined {
    if (this.closed || !this.due(height)) return undefined;
    if (this.writing) {
      this.opts.log?.warn({ height }, 'snapshots: the previous snapshot is still being written; this height is skipped');
      return undefined;
    }
    const view = store.stateView();
    const started = performance.now();
    const write = this.writeFrom(view, height)
      .then((info) => {
        this.opts.log?.info({ height, chunks: info.chunks, bytes: info.bytes, ms: Math.round(performance.now() - started) }, 'snapshots: state snapshot written');
        return info;
      })
      .catch((err: unknown) => {
        this.opts.log?.error({ err, height }, 'snapshots: writing the state snapshot failed; the next interval tries again');
        return undefined;
      })
      .finally(() => {
        this.writing = undefined;
        void view.close().catch(() => undefined);
      });
    this.writing = write;
    return write;
  }

  /**
   * Writes the snapshot of `view` (the state at `height`) and lists it; throws, listing
   * nothing, when its root differs from the one stored for that height.
   */
  async writeFrom(view: StateView, height: number): Promise<SnapshotInfo> {
    // Each subtree's records, framed as its chunk will hold them, and their digests, in
    // growing byte buffers: off the JS heap, so holding a whole state does not make
    // every young-generation collection copy it (measured: 100-400 ms pauses at 200k
    // records when held as arrays of records).
    const framed = Array.from({ length: SUBTREES }, () => new Grow());
    const digests = Array.from({ length: SUBTREES }, () => new Grow());
    const counts = new Array<number>(SUBTREES).fill(0);
    let sliceStart = performance.now();
    const slice = async () => {
      if (performance.now() - sliceStart < this.sliceMs) return;
      await yieldToLoop();
      sliceStart = performance.now();
    };
    let n = 0;
    const digest = new Uint8Array(DIGEST_BYTES);
    for await (const [key, value] of view.records()) {
      const s = recordDigest(key, value, digest, 0);
      digests[s].append(digest);
      const f = framed[s];
      f.reserve(8 + key.length + value.length);
      f.length = frameRecord(key, value, f.bytes, f.length);
      counts[s]++;
      if ((++n & 255) === 0) await slice();
    }
    const subtrees: Uint8Array[] = [];
    for (let i = 0; i < SUBTREES; i++) {
      subtrees.push(subtreeHashOfDigests(i, digests[i].bytes, counts[i]));
      digests[i].release();
      await slice();
    }
    const sizes = framed.map((f) => f.length);
    const stateRoot = rootOfSubtrees(subtrees);
    const stored = await view.stateRoot(height);
    if (!stored || hex(stored) !== hex(stateRoot)) {
      throw new SnapshotError('ROOT', `the state read for height ${height} hashes to ${hex(stateRoot)}, the root stored for it is ${stored ? hex(stored) : 'missing'}`);
    }
    const tmp = join(this.dir, `${height}${TMP_SUFFIX}`);
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    const manifest: SnapshotManifest = { version: 1, height, stateRoot, subtrees, chunks: [] };
    const ranges = groupChunks(sizes);
    for (let c = 0; c < ranges.length; c++) {
      const [first, end] = ranges[c];
      let count = 0;
      for (let i = first; i < end; i++) count += counts[i];
      const chunk = encodeChunkParts(first, end, count, framed.slice(first, end).map((f) => f.view()));
      for (let i = first; i < end; i++) framed[i].release(); // encoded: the records may go
      await yieldToLoop();
      manifest.chunks.push({ first, end, hash: sha256(chunk), bytes: chunk.length });
      await writeSynced(join(tmp, chunkFile(c)), chunk);
      sliceStart = performance.now();
    }
    const encoded = encodeManifest(manifest);
    await writeSynced(join(tmp, MANIFEST_FILE), encoded);
    await syncDir(tmp);
    const final = join(this.dir, String(height));
    await rm(final, { recursive: true, force: true });
    await rename(tmp, final);
    await syncDir(this.dir);
    const info = infoOf(manifest, encoded.length);
    this.infos.set(height, info);
    await this.prune();
    return info;
  }

  /** Deletes all but the newest `keep`. */
  private async prune(): Promise<void> {
    const heights = [...this.infos.keys()].sort((a, b) => b - a);
    for (const h of heights.slice(this.keep)) {
      this.infos.delete(h);
      await rm(join(this.dir, String(h)), { recursive: true, force: true });
    }
  }

  /** Waits for a snapshot being written; no new one starts after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.writing;
  }
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

function infoOf(m: SnapshotManifest, manifestBytes: number): SnapshotInfo {
  return { height: m.height, stateRoot: m.stateRoot, manifestHash: manifestHash(m), chunks: m.chunks.length, bytes: manifestBytes + m.chunks.reduce((a, c) => a + c.bytes, 0) };
}

/**
 * Restore (state sync): writes verified chunks' state records into `store`, which holds
 * no state yet, one batch per chunk as they come, then the state root of `height`. The
 * head block, its commit and the chain's meta records are the caller's (they come with
 * the light proof, not the snapshot). Returns how many records were written.
 */
export async function restoreStateRecords(store: KvChainStore, height: number, stateRoot: Uint8Array, chunks: AsyncIterable<StateRecord[]> | Iterable<StateRecord[]>): Promise<number> {
  for await (const _ of store.stateRecords()) throw new Error(`the store ${store.path} already holds state: a snapshot is restored into an empty one`);
  let n = 0;
  for await (const records of chunks) {
    await store.putStateRecords(records);
    n += records.length;
  }
  await store.putStateRoot(height, stateRoot);
  return n;
}
