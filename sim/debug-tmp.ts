import { DEFAULT_SIM_OPTIONS, Simulation } from './cluster';
const seed = Number(process.argv[2] ?? 1);
const sim = new Simulation({ ...DEFAULT_SIM_OPTIONS, seed, stopOnViolation: false, traceLines: Number(process.argv[3] ?? 0), traceNodes: process.argv[4] ? JSON.parse(process.argv[4]) : undefined });
const r = await sim.run();
for (const n of sim.nodes) console.log(n.index, n.byzantine ? 'BYZ' : '', n.disk.chain.height, n.core?.height, n.core?.round, JSON.stringify(n.core?.snapshot.value), JSON.stringify(n.core?.snapshot.context), 'proposer order', sim.validators.proposerOrder(n.core!.height, n.app!.proposerSeed(n.core!.height)).map(v => sim.nodes.findIndex(x => x.address === v.address)).join(','));
console.log(r.trace.join('\n'));
