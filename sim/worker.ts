/** A worker thread of SeedRunner (sim/seeds.ts): runs the seeds it is sent, answers each result or the error. */
import { parentPort, workerData } from 'node:worker_threads';
import { runSeed, type SimOptions } from './cluster';

const options = (workerData as { options: Omit<SimOptions, 'seed'> }).options;
parentPort?.on('message', (seed: number) => {
  runSeed(seed, options).then(
    (result) => parentPort?.postMessage({ result }),
    (err: unknown) => parentPort?.postMessage({ error: `seed ${seed}: ${(err as Error).stack ?? String(err)}` }),
  );
});
