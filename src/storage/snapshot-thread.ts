/**
 * Starts the state snapshot writer's worker thread (snapshot-worker.ts, decision 137) from
 * the source tree: the worker loads the TypeScript module through tsx, as the tests and
 * benches run the node. The single-file build substitutes
 * src/build/embedded-snapshot-thread.ts for this module (src/build/binary.ts): there the
 * worker's code is carried in the build, bundled on its own.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SnapshotWorkerData } from './snapshot-worker';

export function startSnapshotWorker(data: SnapshotWorkerData): Worker {
  // tsx resolved from here, so the worker loads it whatever the process's working folder.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return new Worker(new URL('./snapshot-worker.ts', import.meta.url), { workerData: data, execArgv: ['--import', tsx] });
}
