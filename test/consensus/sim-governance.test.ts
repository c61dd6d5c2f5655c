/**
 * The deterministic simulation's owner governance scenario (sim/governance.ts, decision
 * 76): under the run's faults, the devnet owners propose, approve and (after the routine
 * timelock) execute a change of takerFeeBps; every honest node, each executing the
 * chain on its own state, holds the old value after every height below the execution
 * height and the new one from it on, at one state root per height (sim/checks.ts).
 */
import { describe, expect, it } from 'vitest';
import { runSeed } from '../../sim/cluster';
import { DEFAULT_SIM_OPTIONS } from '../../sim/options';
import { GOVERNANCE_TAKER_FEE_BPS } from '../../sim/governance';
import { simGenesis } from '../../sim/chain';
import { describeFailure, GOVERNANCE } from './sim-options';

const SEEDS = [1, 2, 3];
const GOVERNANCE_VALIDATORS = DEFAULT_SIM_OPTIONS.validators;

describe('deterministic simulation: a parameter change by the owners', () => {
  it(`seeds ${SEEDS.join(', ')}: executed once, taken by every honest node from the same height, no violation`, { timeout: 240_000 }, async () => {
    expect(simGenesis().genesis.fees.takerFeeBps).not.toBe(GOVERNANCE_TAKER_FEE_BPS);
    for (const seed of SEEDS) {
      const r = await runSeed(seed, GOVERNANCE);
      if (r.violations.length > 0) expect.fail(describeFailure(r, GOVERNANCE));
      expect(r.governance!.executedHeight).toBeGreaterThan(0);
      // Every honest node went past the execution height and was seen holding the new value.
      expect(r.minHonestHeight).toBeGreaterThan(r.governance!.executedHeight);
      const honest = GOVERNANCE_VALIDATORS - (r.byzantine === null ? 0 : 1);
      expect(r.governance!.nodesApplied).toBe(honest);
    }
  });
});
