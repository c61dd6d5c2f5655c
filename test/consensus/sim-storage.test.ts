/**
 * The simulator over a faulty disk (issue 26 deliver 6, decision 126): 24 seeds of the CI
 * runs (sim-options.ts CI) with the storage faults on (sim/options.ts STORAGE_FAULTS):
 * crashes that lose the unsynced tail of a store, values corrupted in a down node's store,
 * disks full for a while. Each seed: no safety, state, double-sign or liveness violation;
 * every corruption injected was found by the node's own read and its store moved aside
 * and synced again; every honest store holds the decided block at each of its heights
 * (sim/checks.ts checkStores). Over all seeds, every kind of storage fault happened.
 */
import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_OPTIONS } from '../../sim/cluster';
import { STORAGE_FAULTS } from '../../sim/options';
import { SeedRunner } from '../../sim/seeds';
import { CI, describeFailure } from './sim-options';

const SEEDS = 24;
const FAULTY_DISKS = { ...CI, storageFaults: STORAGE_FAULTS };

describe('deterministic simulation over a faulty disk: the real Chain over an in-memory store', () => {
  const runner = new SeedRunner({ ...DEFAULT_SIM_OPTIONS, ...FAULTY_DISKS }, Math.min(2, availableParallelism()));
  afterAll(() => runner.close());

  it(`seeds 1-${SEEDS}: safety holds, every corruption is found and healed, nothing decided is missing from a store`, { timeout: 300_000 }, async () => {
    const totals = { crashLostWrites: 0, batchesLost: 0, storeCorrupted: 0, corruptionFound: 0, storeHealed: 0, diskFull: 0, storagePaused: 0, storageResumed: 0 };
    for (const r of await runner.run(Array.from({ length: SEEDS }, (_, i) => i + 1))) {
      if (r.violations.length > 0) expect.fail(`${describeFailure(r, CI)} --storage-faults`);
      expect(r.minHonestHeight).toBeGreaterThan(10);
      expect(r.recoveryMs).toBeGreaterThanOrEqual(0);
      expect(r.faults.corruptionFound).toBe(r.faults.storeCorrupted);
      expect(r.faults.storeHealed).toBe(r.faults.storeCorrupted);
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r.faults[k];
    }
    console.log(`sim storage faults over ${SEEDS} seeds: ${JSON.stringify(totals)}`);
    expect(totals.storeCorrupted).toBeGreaterThan(5);
    expect(totals.corruptionFound).toBe(totals.storeCorrupted);
    expect(totals.crashLostWrites).toBeGreaterThan(3);
    expect(totals.batchesLost).toBeGreaterThanOrEqual(totals.crashLostWrites);
    expect(totals.diskFull).toBeGreaterThan(10);
    expect(totals.storagePaused).toBeGreaterThan(5);
    expect(totals.storageResumed).toBeGreaterThan(5);
  });
});
