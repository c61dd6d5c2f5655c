import { runSeed } from './cluster';
const seed = Number(process.argv[2] ?? 1);
const opts = JSON.parse(process.argv[3] ?? '{}');
const r = await runSeed(seed, { traceLines: 60, ...opts });
const { trace, ...rest } = r;
console.log(JSON.stringify({ ...rest, faults: JSON.stringify(rest.faults), violations: rest.violations.map((v) => `${v.kind}@${v.atMs}: ${v.message}`) }, null, 1));
if (r.violations.length || opts.traceNodes) console.log(trace.join('\n'));
