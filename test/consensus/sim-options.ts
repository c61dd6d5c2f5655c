import type { SimOptions, SimResult } from '../../sim/cluster';

/** Shortened seeds: 12 s simulated, faults for the first 7 s, then every honest node must progress within 4 s. */
export const SHORT: Partial<Omit<SimOptions, 'seed'>> = { durationMs: 12_000, faultPhaseMs: 7_000, livenessBoundMs: 4_000, traceLines: 40 };

/** The CI seeds (test/consensus/sim-seeds.test.ts): 8 s simulated, faults for the first 5 s, progress within 3 s of the heal. */
export const CI: Partial<Omit<SimOptions, 'seed'>> = { durationMs: 8_000, faultPhaseMs: 5_000, livenessBoundMs: 3_000, traceLines: 40 };

/** The lifecycle scenario's seeds (test/consensus/sim-lifecycle.test.ts): SHORT's times, with joiners, jails, unjails, an unbond, a tombstone. */
export const LIFECYCLE: Partial<Omit<SimOptions, 'seed'>> = { ...SHORT, lifecycle: true };

/** The governance scenario's seeds (test/consensus/sim-governance.test.ts): SHORT's times, with a parameter change by the owners. */
export const GOVERNANCE: Partial<Omit<SimOptions, 'seed'>> = { ...SHORT, governance: true };

export function describeFailure(r: SimResult, o: Partial<Omit<SimOptions, 'seed'>> = SHORT): string {
  const trace = r.trace.join('\n');
  return (
    `seed ${r.seed}: ${r.violations.map((v) => `${v.kind}: ${v.message}`).join('; ')}\n${trace}\n` +
    `reproduce: npm run sim -- --seed ${r.seed} --duration-ms ${o.durationMs} --fault-ms ${o.faultPhaseMs} --liveness-ms ${o.livenessBoundMs}${o.lifecycle ? ' --lifecycle' : ''}${o.governance ? ' --governance' : ''}`
  );
}
