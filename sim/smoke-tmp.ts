import { runSeed } from './cluster';
const seed = Number(process.argv[2] ?? 1);
const opts = JSON.parse(process.argv[3] ?? '{}');
const r = await runSeed(seed, { traceLines: 40, ...opts });
console.log(JSON.stringify({ ...r, trace: r.violations.length ? r.trace : undefined }, null, 1));
