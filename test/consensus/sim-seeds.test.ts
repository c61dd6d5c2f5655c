import { describe, expect, it } from 'vitest';
import { runSeed } from '../../sim/cluster';
import { describeFailure, SHORT } from './sim-options';

describe('deterministic simulation: 6 validators, faults, one Byzantine', () => {
  it('30 seeds: no safety, state, double-sign, evidence or liveness violation', async () => {
    const totals = { heights: 0, evidence: 0, crashes: 0, partitions: 0, drops: 0, equivocations: 0 };
    for (let seed = 1; seed <= 30; seed++) {
      const r = await runSeed(seed, SHORT);
      if (r.violations.length > 0) expect.fail(describeFailure(r));
      expect(r.minHonestHeight).toBeGreaterThan(10);
      expect(r.recoveryMs).toBeGreaterThanOrEqual(0);
      expect(r.recoveryMs).toBeLessThanOrEqual(SHORT.livenessBoundMs as number);
      totals.heights += r.heights;
      totals.evidence += r.evidenceOffences;
      totals.crashes += r.faults.crash;
      totals.partitions += r.faults.partitionSymmetric + r.faults.partitionAsymmetric;
      totals.drops += r.faults.drop;
      totals.equivocations += r.faults.doubleVote + r.faults.equivocatingProposal;
      // The Byzantine validator was caught in every seed.
      expect(r.byzantine).not.toBeNull();
      expect(r.evidenceOffences).toBeGreaterThan(0);
    }
    // The faults really were injected.
    expect(totals.crashes).toBeGreaterThan(20);
    expect(totals.partitions).toBeGreaterThan(20);
    expect(totals.drops).toBeGreaterThan(1000);
    expect(totals.equivocations).toBeGreaterThan(1000);
    expect(totals.heights).toBeGreaterThan(2000);
  });

});
