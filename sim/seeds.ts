/**
 * Runs many seeds, in this thread or spread over worker threads (seeds are independent
 * runs), and reports the results in seed order. Used by `npm run sim -- --jobs J` and by
 * the CI test of many seeds (test/consensus/sim-seeds.test.ts).
 *
 * The workers are started once and reused by every run() until close(). They load the
 * TypeScript sources through tsx, as `npm run sim` does.
 */
import { Worker } from 'node:worker_threads';
import { runSeed, type SimOptions, type SimResult } from './cluster';

type Reply = { result: SimResult } | { error: string };

interface SimWorker {
  worker: Worker;
  pending?: { resolve: (r: SimResult) => void; reject: (e: unknown) => void };
}

export class SeedRunner {
  readonly #workers: SimWorker[] = [];

  constructor(
    readonly options: Omit<SimOptions, 'seed'>,
    readonly jobs = 1,
  ) {}

  /** Runs the seeds; `onResult` sees each result in seed order and returns false to stop early. */
  async run(seeds: readonly number[], onResult: (r: SimResult) => boolean = () => true): Promise<SimResult[]> {
    const results: SimResult[] = [];
    if (this.jobs <= 1) {
      for (const seed of seeds) {
        const r = await runSeed(seed, this.options);
        results.push(r);
        if (!onResult(r)) break;
      }
      return results;
    }
    const queue = [...seeds];
    const done = new Map<number, SimResult>();
    let next = 0;
    let stop = false;
    const flush = () => {
      while (!stop && next < seeds.length && done.has(next)) {
        const r = done.get(next) as SimResult;
        done.delete(next);
        next++;
        results.push(r);
        if (!onResult(r)) stop = true;
      }
    };
    const drive = async (w: SimWorker) => {
      while (!stop && queue.length > 0) {
        const index = seeds.length - queue.length;
        const seed = queue.shift() as number;
        const r = await new Promise<SimResult>((resolve, reject) => {
          w.pending = { resolve, reject };
          w.worker.postMessage(seed);
        });
        w.pending = undefined;
        done.set(index, r);
        flush();
      }
    };
    while (this.#workers.length < Math.min(this.jobs, seeds.length)) this.#workers.push(this.#spawn());
    await Promise.all(this.#workers.slice(0, Math.min(this.jobs, seeds.length)).map(drive));
    return results;
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.splice(0).map((w) => w.worker.terminate()));
  }

  #spawn(): SimWorker {
    // Under `node --import tsx` the workers inherit the loader; elsewhere (vitest) they are given it.
    const hasTsx = process.execArgv.some((a, i, all) => a === '--import=tsx' || (a === '--import' && all[i + 1] === 'tsx'));
    const worker = new Worker(new URL('./worker.ts', import.meta.url), {
      workerData: { options: this.options },
      ...(hasTsx ? {} : { execArgv: ['--import', 'tsx'] }),
    });
    const w: SimWorker = { worker };
    worker.on('message', (m: Reply) => {
      if ('result' in m) w.pending?.resolve(m.result);
      else w.pending?.reject(new Error(m.error));
    });
    worker.on('error', (e) => w.pending?.reject(e));
    worker.on('exit', (code) => w.pending?.reject(new Error(`sim worker exited with code ${code}`)));
    return w;
  }
}
