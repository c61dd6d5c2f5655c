/**
 * The node's state snapshots on disk (issue 27 deliver 3, decision 136): every
 * `intervalBlocks` blocks the state at that height, written to
 * `<dataDir>/snapshots/<height>/` as `manifest` and `chunk-<i>` (src/state/snapshot.ts
 * for what they hold), the newest `keep` kept.
 *
 * Consistency: the writer reads the state through the chain store's view taken right
 * after the block's batch was written (KvStore.snapshot, synchronous), so the blocks
 * committed while it runs do not show in it. It never stalls block production (decision
 * 137): the main thread only reads the view, in batches of READ_BATCH_RECORDS records,
 * each posted framed in one transferred buffer to a worker thread (snapshot-worker.ts)
 * that hashes, groups, checks the root, encodes and writes the files on its own heap; one
 * snapshot is written at a time (a height due while one is still being written is
 * skipped, logged).
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
import type { Worker } from 'node:worker_threads';
import { decodeManifest, frameRecord, manifestHash, SnapshotError, type SnapshotManifest, type StateRecord } from '../state/snapshot';
import type { KvChainStore, StateView } from './chain-store';
import { startSnapshotWorker } from './snapshot-thread';
import { chunkFile, MANIFEST_FILE, type FromSnapshotWorker, type ToSnapshotWorker } from './snapshot-worker';

export { chunkFile } from './snapshot-worker';

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
  /** The longest stretch of the event loop the reads take before yielding to it (default 4 ms; LevelDB's reads yield at every batch anyway). */
  sliceMs?: number;
  log?: Log;
}

const DEFAULT_SNAPSHOT_KEEP = 2;
const DEFAULT_SLICE_MS = 4;
const TMP_SUFFIX = '.tmp';
/** Records read from the view per batch: one read of the store, one message to the worker (~50 KB of records here). */
const READ_BATCH_RECORDS = 512;
/** Batches posted to the worker and not yet taken in, at most. */
const WORKER_WINDOW_BATCHES = 8;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

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
   * nothing, when its root differs from the one stored for that height. This thread only
   * reads the view, a batch of at most READ_BATCH_RECORDS records at a time, and posts
   * each batch framed in one transferred buffer; the worker thread (snapshot-worker.ts)
   * hashes, groups, checks the root, encodes and writes the files.
   */
  async writeFrom(view: StateView, height: number): Promise<SnapshotInfo> {
    const tmp = join(this.dir, `${height}${TMP_SUFFIX}`);
    const storedRoot = await view.stateRoot(height);
    const worker = new WorkerLink(startSnapshotWorker({ snapshotWriter: true, height, dir: tmp }));
    let encoded: Uint8Array;
    try {
      let sliceStart = performance.now();
      for await (const batch of view.recordBatches(READ_BATCH_RECORDS)) {
        let size = 0;
        for (const [k, v] of batch) size += 8 + k.length + v.length;
        const bytes = new Uint8Array(size);
        let at = 0;
        for (const [k, v] of batch) at = frameRecord(k, v, bytes, at);
        await worker.send(bytes, batch.length);
        // A store whose reads resolve without I/O (the memory store) would otherwise hold the loop.
        if (performance.now() - sliceStart >= this.sliceMs) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
      encoded = await worker.end(storedRoot);
    } catch (err) {
      await worker.terminate();
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
    await worker.terminate();
    const manifest = decodeManifest(encoded);
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

/**
 * The main thread's side of one snapshot's worker: batches posted with at most
 * WORKER_WINDOW_BATCHES not yet taken in (a worker slower than the reads holds back the
 * reads, not memory), then the end, answered by the manifest's bytes or the error.
 */
class WorkerLink {
  private unacked = 0;
  private wake: (() => void) | undefined;
  private readonly result: Promise<Uint8Array>;

  constructor(private readonly worker: Worker) {
    this.result = new Promise<Uint8Array>((resolve, reject) => {
      worker.on('message', (m: FromSnapshotWorker) => {
        if (m.kind === 'ack') this.unacked--;
        else if (m.kind === 'done') resolve(m.manifest);
        else reject(m.code ? new SnapshotError(m.code as SnapshotError['code'], m.message) : new Error(`the snapshot worker thread failed: ${m.message}`));
        this.wake?.();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the snapshot worker thread ended (exit code ${code}) before the snapshot was written`)));
    });
    // Observed by send and end; a failure between them must not go unhandled.
    this.result.catch(() => undefined);
  }

  async send(bytes: Uint8Array, count: number): Promise<void> {
    while (this.unacked >= WORKER_WINDOW_BATCHES) await Promise.race([new Promise<void>((r) => (this.wake = r)), this.result]);
    this.unacked++;
    const m: ToSnapshotWorker = { kind: 'records', bytes, count };
    this.worker.postMessage(m, [bytes.buffer as ArrayBuffer]);
  }

  end(storedRoot: Uint8Array | undefined): Promise<Uint8Array> {
    const m: ToSnapshotWorker = { kind: 'end', storedRoot };
    this.worker.postMessage(m);
    return this.result;
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
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
