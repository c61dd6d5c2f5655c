/**
 * The state snapshot writer's worker thread (decisions 136, 137): everything a snapshot
 * costs but the reading, off the node's main thread. The main thread (SnapshotStore in
 * snapshot-store.ts) reads the state from its consistent view in bounded batches and
 * posts each as one transferred buffer of records framed as a chunk frames them; this
 * thread hashes each record and groups it by subtree (SnapshotBuilder), then hashes the
 * 256 subtrees, checks the root they make against the root stored for the height, and
 * encodes, hashes and writes each chunk and the manifest into the snapshot's temporary
 * folder, each file fsynced. The main thread renames the folder and lists the snapshot.
 *
 * Why a thread: done on the main thread in slices, the writer's allocations (200k
 * records grouped, hashed and encoded) caused full collections of the node's ~370 MB heap
 * that stalled blocks (docs/performance.md "State snapshots"). A worker has its own heap:
 * its collections pause only it. Why not the reading too: LevelDB is opened once per
 * process (its lock), and the explicit snapshot the view reads lives on the main
 * thread's handle.
 *
 * Started from the source tree through tsx (snapshot-thread.ts), and in the single-file
 * build from its own bundle embedded as text (src/build/embedded-snapshot-thread.ts).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { encodeManifest, SnapshotBuilder, SnapshotError } from '../state/snapshot';

/** What the worker is started with. */
export interface SnapshotWorkerData {
  /** Marks the thread as the snapshot writer (the bundle's worker runs nothing else). */
  snapshotWriter: true;
  height: number;
  /** The temporary folder the files are written into (made afresh). */
  dir: string;
}

/** The main thread to the worker: a batch of records (framed, in key order), then the end. */
export type ToSnapshotWorker = { kind: 'records'; bytes: Uint8Array; count: number } | { kind: 'end'; storedRoot: Uint8Array | undefined };

/** The worker to the main thread: a batch taken in (flow control), the manifest written, or why not. */
export type FromSnapshotWorker = { kind: 'ack' } | { kind: 'done'; manifest: Uint8Array; records: number } | { kind: 'failed'; code?: string; message: string };

export const MANIFEST_FILE = 'manifest';

export function chunkFile(index: number): string {
  return `chunk-${String(index).padStart(4, '0')}`;
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** Writes `bytes` to `path` and fsyncs it (synchronous: this thread has nothing else to do meanwhile). */
function writeSynced(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'w');
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes the snapshot's files into `dir` once the root checks out; returns the manifest's bytes. */
function finish(builder: SnapshotBuilder, dir: string, storedRoot: Uint8Array | undefined): Uint8Array {
  const { stateRoot } = builder.hashSubtrees();
  if (!storedRoot || !Buffer.from(storedRoot).equals(stateRoot)) {
    throw new SnapshotError('ROOT', `the state read for height ${builder.height} hashes to ${hex(stateRoot)}, the root stored for it is ${storedRoot ? hex(storedRoot) : 'missing'}`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let index = 0;
  for (const { bytes } of builder.chunks()) writeSynced(join(dir, chunkFile(index++)), bytes);
  const manifest = encodeManifest(builder.manifest());
  writeSynced(join(dir, MANIFEST_FILE), manifest);
  syncDir(dir);
  return manifest;
}

/** The worker's loop: one snapshot, then the thread ends (the main thread ends it). */
function runSnapshotWorker(port: MessagePort, data: SnapshotWorkerData): void {
  const builder = new SnapshotBuilder(data.height);
  const post = (m: FromSnapshotWorker) => port.postMessage(m);
  let failed = false;
  port.on('message', (m: ToSnapshotWorker) => {
    if (failed) return;
    try {
      if (m.kind === 'records') {
        builder.addFramed(m.bytes, m.count);
        post({ kind: 'ack' });
      } else {
        const manifest = finish(builder, data.dir, m.storedRoot);
        post({ kind: 'done', manifest, records: builder.records });
      }
    } catch (err) {
      failed = true;
      const e = err as Error & { code?: string };
      post({ kind: 'failed', code: err instanceof SnapshotError ? e.code : undefined, message: e.message ?? String(err) });
    }
  });
}

const data = workerData as SnapshotWorkerData | undefined;
if (parentPort && data?.snapshotWriter === true) runSnapshotWorker(parentPort, data);
