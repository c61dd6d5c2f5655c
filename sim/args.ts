/**
 * Flags of `npm run sim` (node --import tsx sim/run.ts):
 *   --seeds N          run N seeds (default 20), starting at --seed (default 1)
 *   --seed S           the first seed; alone (without --seeds) runs just that seed
 *   --duration-ms MS   simulated time per seed (default 40000)
 *   --fault-ms MS      faults are injected before this time, then everything heals (default 25000)
 *   --liveness-ms MS   after the heal, every honest node must commit new heights within this (default 12000)
 *   --crypto fast|real fast: sim-only MAC signer (default); real: secp256k1
 *   --no-byzantine     no Byzantine validator
 *   --no-faults        no network faults, crashes or partitions
 *   --validators N     validator count (default 6)
 *   --tx-per-second N  workload: transactions per simulated second (default: drawn per seed, 2-10; 0: none)
 *   --unsafe-quorum    BROKEN on purpose: quorum >= 1/2 and a 3|3 partition; the checker must fail
 *   --lifecycle        the validator lifecycle scenario (sim/lifecycle.ts): joiners, jails, unjails, an unbond, a tombstone
 *   --governance       the owner governance scenario (sim/governance.ts): a parameter change by the owners
 *   --storage-faults   the disk's faults (sim/storage.ts): writes lost at crashes, values corrupted, disks full
 *   --unsafe-genesis-set  BROKEN on purpose (with --lifecycle): consensus keeps the genesis set; the checker must fail
 *   --jobs J           seeds run in J worker threads (default 1)
 *   --trace N          on failure, print the last N trace lines (default 60)
 *   --trace-nodes a,b  also trace every input/output of these nodes
 *   --keep-going       do not stop at the first failing seed
 */
import { DEFAULT_SIM_OPTIONS, type SimOptions } from './cluster';
import { STORAGE_FAULTS } from './options';
import { LIFECYCLE_JOINERS } from './lifecycle';

export interface RunArgs {
  seeds: number[];
  options: Omit<SimOptions, 'seed'>;
  jobs: number;
  keepGoing: boolean;
  /** The flags that reproduce a seed's run, besides --seed. */
  reproduceFlags: string[];
}

export class ArgsError extends Error {}

const BOOLEAN_FLAGS = new Set(['--no-byzantine', '--no-faults', '--unsafe-quorum', '--lifecycle', '--governance', '--storage-faults', '--unsafe-genesis-set', '--keep-going', '--help']);

export function parseArgs(argv: readonly string[]): RunArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') continue;
    if (!a.startsWith('--')) throw new ArgsError(`unexpected argument ${a}`);
    const eq = a.indexOf('=');
    if (eq > 0) {
      values.set(a.slice(0, eq), a.slice(eq + 1));
    } else if (BOOLEAN_FLAGS.has(a)) {
      flags.add(a);
    } else {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new ArgsError(`${a} needs a value`);
      values.set(a, v);
      i++;
    }
  }
  const known = new Set(['--seeds', '--seed', '--duration-ms', '--fault-ms', '--liveness-ms', '--crypto', '--validators', '--tx-per-second', '--jobs', '--trace', '--trace-nodes']);
  for (const k of values.keys()) if (!known.has(k)) throw new ArgsError(`unknown flag ${k}`);
  if (flags.has('--help')) throw new ArgsError('help');

  const int = (name: string, fallback: number, min = 0): number => {
    const v = values.get(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v)) throw new ArgsError(`${name} must be a non-negative integer, got ${v}`);
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min) throw new ArgsError(`${name} must be >= ${min}, got ${v}`);
    return n;
  };

  const first = int('--seed', 1);
  const count = values.has('--seeds') ? int('--seeds', 20, 1) : values.has('--seed') ? 1 : 20;
  const seeds = Array.from({ length: count }, (_, i) => first + i);
  const crypto = values.get('--crypto') ?? 'fast';
  if (crypto !== 'fast' && crypto !== 'real') throw new ArgsError(`--crypto must be fast or real, got ${crypto}`);
  const durationMs = int('--duration-ms', DEFAULT_SIM_OPTIONS.durationMs, 1);
  const unsafe = flags.has('--unsafe-quorum');
  const validators = int('--validators', DEFAULT_SIM_OPTIONS.validators, 1);
  if (flags.has('--unsafe-genesis-set') && !flags.has('--lifecycle')) throw new ArgsError('--unsafe-genesis-set needs --lifecycle (the set must change)');
  const faultPhaseMs = int('--fault-ms', Math.min(DEFAULT_SIM_OPTIONS.faultPhaseMs, durationMs));
  if (faultPhaseMs > durationMs) throw new ArgsError('--fault-ms must not exceed --duration-ms');
  const traceNodes = values.get('--trace-nodes');
  const options: Omit<SimOptions, 'seed'> = {
    ...DEFAULT_SIM_OPTIONS,
    validators,
    durationMs,
    faultPhaseMs,
    livenessBoundMs: int('--liveness-ms', DEFAULT_SIM_OPTIONS.livenessBoundMs, 1),
    crypto,
    ...(values.has('--tx-per-second') ? { txPerSecond: int('--tx-per-second', 0) } : {}),
    byzantine: !flags.has('--no-byzantine') && !unsafe,
    faults: !flags.has('--no-faults') && !unsafe,
    traceLines: int('--trace', 60),
    ...(flags.has('--lifecycle') ? { lifecycle: true } : {}),
    ...(flags.has('--governance') ? { governance: true } : {}),
    ...(flags.has('--storage-faults') ? { storageFaults: STORAGE_FAULTS } : {}),
    ...(flags.has('--unsafe-genesis-set') ? { unsafeGenesisSet: true } : {}),
    traceNodes: traceNodes === undefined ? undefined : traceNodes.split(',').map((x) => {
      const n = Number(x);
      if (!Number.isInteger(n) || n < 0 || n >= validators + (flags.has('--lifecycle') ? LIFECYCLE_JOINERS : 0)) throw new ArgsError(`--trace-nodes: bad node ${x}`);
      return n;
    }),
    ...(unsafe ? unsafeScenario(validators, durationMs) : {}),
  };
  const reproduceFlags: string[] = [];
  for (const [k, v] of values) if (k !== '--seed' && k !== '--seeds' && k !== '--jobs') reproduceFlags.push(k, v);
  for (const f of flags) if (f !== '--keep-going') reproduceFlags.push(f);
  return { seeds, options, jobs: int('--jobs', 1, 1), keepGoing: flags.has('--keep-going'), reproduceFlags };
}

/** The deliberately broken configuration: quorum >= 1/2 and a partition into two halves. */
export function unsafeScenario(validators: number, durationMs: number): Partial<SimOptions> {
  const half = Math.floor(validators / 2);
  const all = [...Array(validators).keys()];
  return {
    unsafeQuorum: { num: 1n, den: 2n, inclusive: true },
    forcedPartition: { groups: [all.slice(0, half), all.slice(half)], fromMs: 1_000, toMs: Math.min(durationMs, 6_000) },
  };
}
