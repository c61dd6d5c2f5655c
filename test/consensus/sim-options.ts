import type { SimOptions, SimResult } from '../../sim/cluster';

/** Shortened seeds: 12 s simulated, faults for the first 7 s, then every honest node must progress within 4 s. */
export const SHORT: Partial<Omit<SimOptions, 'seed'>> = { durationMs: 12_000, faultPhaseMs: 7_000, livenessBoundMs: 4_000, traceLines: 40 };

export function describeFailure(r: SimResult): string {
  const trace = r.trace.join('\n');
  return `seed ${r.seed}: ${r.violations.map((v) => `${v.kind}: ${v.message}`).join('; ')}\n${trace}\nreproduce: npm run sim -- --seed ${r.seed} --duration-ms 12000 --fault-ms 7000 --liveness-ms 4000`;
}
