/**
 * src/storage/snapshot-thread.ts in the single-file build (binary.ts): the state snapshot
 * writer's worker thread (decision 137) runs src/storage/snapshot-worker.ts bundled on its
 * own at build time (a CommonJS script of a few kilobytes: the snapshot codec, the tree's
 * hashing, node:fs), carried as text in module `exchange-build:snapshot-worker` and
 * evaluated by the worker. The build stays one file, and the worker does not load the
 * whole node.
 */
import { Worker } from 'node:worker_threads';
import { source } from 'exchange-build:snapshot-worker';
import type { SnapshotWorkerData } from '../storage/snapshot-worker';

export function startSnapshotWorker(data: SnapshotWorkerData): Worker {
  return new Worker(source, { eval: true, workerData: data });
}
