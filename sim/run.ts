/**
 * `npm run sim -- --seeds N [--seed S] [...]` (node --import tsx sim/run.ts): runs the
 * deterministic simulation for each seed, prints the totals, and on a failure prints
 * the seed and the command that reproduces it, then exits non-zero. Flags: sim/args.ts.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { ArgsError, parseArgs, type RunArgs } from './args';
import { FAULT_KINDS, type FaultCounts, type LifecycleCounts, type SimResult, type SyncCounts, type TxCounts } from './cluster';
import { SeedRunner } from './seeds';

async function main(): Promise<number> {
  let args: RunArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ArgsError) {
      console.error(err.message === 'help' ? usage() : `sim: ${err.message}\n\n${usage()}`);
      return err.message === 'help' ? 0 : 2;
    }
    throw err;
  }
  const o = args.options;
  console.log(
    `sim: ${args.seeds.length} seed(s) from ${args.seeds[0]}, ${o.validators} validators, crypto ${o.crypto}, ` +
      `byzantine ${o.byzantine ? 'on' : 'off'}, faults ${o.faults ? 'on' : 'off'}${o.lifecycle ? ', lifecycle scenario' : ''}` +
      `${o.unsafeQuorum ? ', UNSAFE quorum >= 1/2 with a partition' : ''}${o.unsafeGenesisSet ? ', UNSAFE genesis set kept' : ''}, ` +
      `${o.durationMs} ms per seed (faults until ${o.faultPhaseMs} ms, liveness bound ${o.livenessBoundMs} ms), jobs ${args.jobs}`,
  );
  console.log(`conditions: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`);
  const wallStart = performance.now();
  const faults = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as FaultCounts;
  let seedsRun = 0;
  let simulatedMs = 0;
  let heights = 0;
  let minHeights = Infinity;
  let messages = 0;
  let evidence = 0;
  let offences = 0;
  let byzSeeds = 0;
  let byzSeedsDetected = 0;
  let recoveryMax = 0;
  let recoveryMaxSeed = 0;
  let recoverySum = 0;
  let untimely = 0;
  const sync: SyncCounts = { requests: 0, answers: 0, blocksApplied: 0, refused: 0, timeouts: 0, aheadIgnored: 0, peerSyncs: 0 };
  let seedsRefused = 0;
  const txs: TxCounts = { submitted: 0, admitted: 0, refused: 0, gossipAdmitted: 0, committed: 0, ok: 0, failed: 0 };
  const lifecycle: LifecycleCounts = { joins: 0, jails: 0, unjails: 0, tombstones: 0, unbonds: 0 };
  const failed: SimResult[] = [];
  const runner = new SeedRunner(args.options, args.jobs);
  await runner.run(args.seeds, (r) => {
    seedsRun++;
    simulatedMs += r.simulatedMs;
    heights += r.heights;
    minHeights = Math.min(minHeights, r.minHonestHeight);
    messages += r.messagesDelivered;
    evidence += r.evidenceReported;
    offences += r.evidenceOffences;
    if (r.byzantine !== null) {
      byzSeeds++;
      if (r.evidenceReported > 0) byzSeedsDetected++;
    }
    if (r.recoveryMs > recoveryMax) {
      recoveryMax = r.recoveryMs;
      recoveryMaxSeed = r.seed;
    }
    recoverySum += Math.max(0, r.recoveryMs);
    for (const k of FAULT_KINDS) faults[k] += r.faults[k];
    for (const k of Object.keys(txs) as (keyof TxCounts)[]) txs[k] += r.txs[k];
    for (const k of Object.keys(lifecycle) as (keyof LifecycleCounts)[]) lifecycle[k] += r.lifecycle[k];
    untimely += r.proposalsUntimely;
    for (const k of Object.keys(sync) as (keyof SyncCounts)[]) sync[k] += r.sync[k];
    if (r.sync.refused > 0) seedsRefused++;
    if (r.violations.length > 0) {
      failed.push(r);
      console.log(`FAIL seed ${r.seed}: ${r.violations.length} violation(s)`);
      for (const v of r.violations.slice(0, 10)) console.log(`  ${v.kind} at ${v.atMs.toFixed(3)} ms: ${v.message}`);
      if (r.trace.length > 0) console.log(`  last ${r.trace.length} trace lines:\n    ${r.trace.join('\n    ')}`);
      console.log(`  reproduce: npm run sim -- --seed ${r.seed}${args.reproduceFlags.length ? ' ' + args.reproduceFlags.join(' ') : ''}`);
      return args.keepGoing;
    }
    if (args.seeds.length <= 50 || seedsRun % 50 === 0) {
      console.log(
        `seed ${r.seed}: ${r.heights} heights, ${r.txs.committed} txs, ${r.messagesDelivered} messages, evidence ${r.evidenceReported}, ` +
          `recovery ${r.recoveryMs.toFixed(0)} ms, wall ${r.wallMs.toFixed(0)} ms` +
          (o.lifecycle ? `; joins ${r.lifecycle.joins}, jails ${r.lifecycle.jails}, unjails ${r.lifecycle.unjails}, tombstones ${r.lifecycle.tombstones}, unbonds ${r.lifecycle.unbonds}` : '') +
          (r.governance ? `; governance executed at ${r.governance.executedHeight}, on ${r.governance.nodesApplied} nodes` : ''),
      );
    }
    return true;
  });
  await runner.close();
  const wallS = (performance.now() - wallStart) / 1000;
  const simS = simulatedMs / 1000;
  console.log('');
  console.log(`seeds run: ${seedsRun}`);
  console.log(`simulated: ${(simS / 3600).toFixed(3)} h (${simS.toFixed(0)} s), wall ${wallS.toFixed(1)} s (${(simS / wallS).toFixed(1)}× real time)`);
  console.log(`faults injected: ${FAULT_KINDS.map((k) => `${k} ${faults[k]}`).join(', ')}`);
  console.log(`heights committed: ${heights} (lowest honest node in any seed: ${minHeights === Infinity ? 0 : minHeights}), messages delivered ${messages}`);
  console.log(
    `transactions committed: ${txs.committed} (receipts ok ${txs.ok}, failed ${txs.failed}); submitted ${txs.submitted}, ` +
      `admitted ${txs.admitted}, refused at the door ${txs.refused}, gossiped copies admitted ${txs.gossipAdmitted}`,
  );
  console.log(`proposals dropped as untimely: ${untimely}`);
  console.log(
    `block sync: ${sync.requests} requests, ${sync.answers} answers with blocks, ${sync.blocksApplied} blocks applied from them, ` +
      `${sync.refused} forged answers refused (in ${seedsRefused} seeds), ${sync.timeouts} requests timed out; ` +
      `${sync.aheadIgnored} messages far ahead started no sync, ${sync.peerSyncs} syncs on one peer's probed head`,
  );
  console.log(`evidence reported by honest nodes: ${evidence} reports of ${offences} distinct double signs (seeds with a Byzantine validator: ${byzSeeds}, with evidence: ${byzSeedsDetected})`);
  console.log(
    `validator lifecycle: ${lifecycle.joins} joins, ${lifecycle.jails} jails, ${lifecycle.unjails} unjails, ${lifecycle.tombstones} tombstones, ${lifecycle.unbonds} unbonds` +
      (o.lifecycle ? '' : ' (the lifecycle scenario is --lifecycle)'),
  );
  console.log(`recovery after the heal: max ${recoveryMax.toFixed(0)} ms (seed ${recoveryMaxSeed}), mean ${(recoverySum / Math.max(1, seedsRun)).toFixed(0)} ms (bound ${o.livenessBoundMs} ms)`);
  console.log(`violations: ${failed.reduce((n, r) => n + r.violations.length, 0)}${failed.length ? ` in seeds ${failed.map((r) => r.seed).join(', ')}` : ''}`);
  return failed.length > 0 ? 1 : 0;
}

function usage(): string {
  return 'usage: npm run sim -- [--seeds N] [--seed S] [--duration-ms MS] [--fault-ms MS] [--liveness-ms MS] [--crypto fast|real] [--no-byzantine] [--no-faults] [--validators N] [--tx-per-second N] [--unsafe-quorum] [--lifecycle] [--governance] [--unsafe-genesis-set] [--jobs J] [--trace N] [--trace-nodes a,b] [--keep-going]';
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
