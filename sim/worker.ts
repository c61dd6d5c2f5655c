/** A worker thread of `sim/run.ts --jobs J`: runs the seeds it is sent, answers each result. */
import { parentPort, workerData } from 'node:worker_threads';
import { runSeed, type SimOptions } from './cluster';

const options = (workerData as { options: Omit<SimOptions, 'seed'> }).options;
parentPort?.on('message', (seed: number) => {
  runSeed(seed, options).then(
    (r) => parentPort?.postMessage(r),
    (err) => {
      throw err;
    },
  );
});
