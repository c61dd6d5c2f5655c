import { DEFAULT_SIM_OPTIONS, Simulation } from './cluster';
const sim = new Simulation({ ...DEFAULT_SIM_OPTIONS, seed: 1, durationMs: 26000, stopOnViolation: false });
await sim.run();
for (const n of sim.nodes) console.log(n.index, n.byzantine, n.disk.chain.height, n.core?.height, n.core?.round, JSON.stringify(n.core?.counters), JSON.stringify(n.core?.snapshot.context));
