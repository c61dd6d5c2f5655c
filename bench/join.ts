/**
 * `npm run bench -- join` (issue 27, "a new node joins in seconds however long the
 * chain"): how long a new node takes to reach the head by state sync, against the
 * chain's length, beside block sync from genesis (`--no-state-sync`) on the same chain.
 *
 * For each length N (BENCH_JOIN_LENGTHS, default 1000,3000,6000):
 *   - the chain is built offline into a validator's data folder (test/helpers/signed-chain.ts:
 *     real signed blocks committed through the real Chain on LevelDB, BENCH_JOIN_TXS
 *     faucet credits a block, default 2), of the devnet genesis cut to four validators with
 *     a storage section writing a snapshot every SNAPSHOT_EVERY blocks and keeping every
 *     block; the node's own SnapshotStore writes the snapshot at the chain's last multiple
 *     of SNAPSHOT_EVERY, as the chain actor would have;
 *   - the folder is copied to the four validators, which start as real processes on them
 *     (the single-file build, libp2p on loopback), keep
 *     producing blocks and serves snapshots, light proofs, chunks and blocks over libp2p;
 *   - a joiner made with `init --home` starts with `start --home … --bootstrap <validator>`
 *     (an empty store joins by state sync when peers offer snapshots), then again on a
 *     fresh home with `--no-state-sync` (block sync from genesis: the baseline). Each
 *     is timed from its spawn until its /status height reaches validator 1's height
 *     read at that moment; the joiner's CPU seconds (user + system, /proc) at that point.
 *     The state-sync join's phases are read from the lines it prints (src/cli/sync-progress.ts):
 *     offers (until it verifies), light proof (verifying), chunks, restore (head block and
 *     anchors), then open + block sync of the blocks after the snapshot.
 *
 * "At the head": every 100 ms validator 1's height is read, then the joiner's. The joiner
 * follows the chain once it is within SYNC_GAP (3) blocks of that height: the distance
 * below which a node catches up from consensus messages instead of syncing blocks
 * (src/chain/sync.ts), a few tens of ms of this chain's blocks. That moment is the figure
 * (`seconds`, and the joiner's CPU then); `exactSeconds` is the first probe that found it
 * at validator 1's height or above. A follower of a chain making a block every ~60 ms on
 * two shared cores trails the head by 0-3 blocks, so the exact moment is partly chance.
 *
 * Knobs: BENCH_JOIN_BASELINE_MAX (the baseline runs only up to this length: block sync
 * from genesis takes minutes past ~10,000 blocks), BENCH_JOIN_LOG=<path> (each joiner's
 * output with the ms since spawn, to <path>.<head>.<state|block>-sync.log),
 * BENCH_JOIN_PROF=<dir> (the joiner runs with --cpu-prof into <dir>).
 *
 * Four validators: a node alone runs no libp2p (nothing to join), and the offline chain's
 * commits are signed by all but one member (3 of 4: a quorum). The set never changes, so
 * the light proof from genesis carries no anchors (its cost grows with set changes, not
 * with length). Linux only (/proc).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../src/cli/launcher';
import { loadGenesisFile } from '../src/genesis/load';
import { peerIdOfPublicKey } from '../src/net/libp2p';
import { hexToBytes } from '../src/util/bytes';
import { PrivValFile } from '../src/storage/privval-file';
import { SnapshotStore } from '../src/storage/snapshot-store';
import { ROOT, tempDir, waitFor } from '../test/helpers/devnet';
import { NODE_BUILD } from '../test/helpers/node-program';
import { buildSignedChain } from '../test/helpers/signed-chain';
import { SYNC_GAP } from '../src/chain/sync';
import { cpuSeconds } from './startup';

const SNAPSHOT_EVERY = 1_000;
/** Four: a node alone runs no libp2p, and the offline chain's commits are signed by all but one (3 of 4: a quorum). */
const VALIDATORS = 4;

/** The phases a state-sync join prints, in order, by the start of their line (src/cli/sync-progress.ts stateSyncLine). */
const PHASE_LINES: ReadonlyArray<[JoinPhase, RegExp]> = [
  ['offers', /^state sync: asking peers for snapshots/],
  ['lightProof', /^state sync at [\d,]+: verifying the snapshot height's header/],
  ['chunks', /^state sync at [\d,]+ chunks /],
  ['restore', /^state sync at [\d,]+: writing the head block/],
  ['blockSync', /^state sync at [\d,]+: restored /],
];
export type JoinPhase = 'offers' | 'lightProof' | 'chunks' | 'restore' | 'blockSync';

/**
 * Seconds spent in each phase of a state-sync join, from its output lines and the
 * moment (ms since spawn) each arrived, and `endMs` (when it reached the head): each
 * phase from its first line to the next phase's first line; `start` is spawn to the
 * first line (process start, dialing peers and, on a join not forced by --state-sync,
 * which prints nothing until a peer offers a snapshot, the offers); blockSync runs to `endMs`
 * (the chain opening, the node's actors starting, and the blocks after the snapshot).
 */
export function phaseSeconds(lines: ReadonlyArray<{ ms: number; text: string }>, endMs: number): Partial<Record<'start' | JoinPhase, number>> {
  const firstAt: Array<[JoinPhase, number]> = [];
  for (const [phase, re] of PHASE_LINES) {
    const hit = lines.find((l) => re.test(l.text.trim()));
    if (hit) firstAt.push([phase, hit.ms]);
  }
  firstAt.sort((a, b) => a[1] - b[1]);
  const out: Partial<Record<'start' | JoinPhase, number>> = {};
  if (firstAt.length === 0) return out;
  out.start = +(firstAt[0][1] / 1000).toFixed(2);
  firstAt.forEach(([phase, ms], i) => {
    const next = i + 1 < firstAt.length ? firstAt[i + 1][1] : endMs;
    out[phase] = +((next - ms) / 1000).toFixed(2);
  });
  return out;
}

export interface JoinRow {
  blocks: number;
  stateSyncS: number;
  /** When the state-sync joiner was first seen at the head exactly (null: not within the wait). */
  stateSyncExactS?: number | null;
  /** Absent: the baseline was not run at this length (BENCH_JOIN_BASELINE_MAX). */
  blockSyncS?: number;
}

/** The table's line for one length: both joins' seconds (to following) and block sync / state sync. */
export function tableLine(r: JoinRow): string {
  const ratio = r.blockSyncS !== undefined && r.stateSyncS > 0 ? `${(r.blockSyncS / r.stateSyncS).toFixed(1)}×` : '-';
  const bs = r.blockSyncS === undefined ? 'not run' : `${r.blockSyncS.toFixed(1)} s`;
  const exact = r.stateSyncExactS === undefined ? '' : ` (exactly at the head: ${r.stateSyncExactS === null ? 'not seen' : `${r.stateSyncExactS.toFixed(1)} s`})`;
  return `${String(r.blocks).padStart(7)} blocks | state sync ${r.stateSyncS.toFixed(1).padStart(6)} s${exact} | block sync ${bs.padStart(9)} | block/state ${ratio}`;
}


export interface Proc {
  proc: ChildProcess;
  lines: { ms: number; text: string }[];
  output(): string;
  stop(): Promise<void>;
}

/** Node processes still running: killed if the bench exits or is interrupted without stopping them (as test/helpers/network.ts does). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});
// Ctrl-C or a kill of the bench: Node exits on these without 'exit' unless they are handled.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    for (const p of live) p.kill('SIGKILL');
    process.exit(130);
  });
}

/** `exchange-node start …args` from the build, its output collected with the ms since spawn. */
export function startNode(args: string[]): Proc {
  const t0 = performance.now();
  const proc = spawn(process.execPath, ['--max-semi-space-size=64', ...(process.env.BENCH_JOIN_PROF && args.includes('--home') ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_JOIN_PROF] : []), NODE_BUILD, 'start', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: { ms: number; text: string }[] = [];
  let all = '';
  const take = (d: Buffer) => {
    const ms = performance.now() - t0;
    all += d;
    for (const text of String(d).split(/[\r\n]/)) if (text.trim()) lines.push({ ms, text });
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  live.add(proc);
  const exited = new Promise((r) => proc.once('exit', r)).finally(() => live.delete(proc));
  return {
    proc,
    lines,
    output: () => all,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

export async function height(url: string): Promise<number> {
  const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(5_000) });
  return ((await res.json()) as { data: { height: number } }).data.height;
}

/** A command of the build (`init`, …), which must succeed. */
export function cli(args: string[]): void {
  const r = spawnSync(process.execPath, [NODE_BUILD, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
}

interface Join {
  /** Spawn to following: within SYNC_GAP blocks of validator 1's head. */
  seconds: number;
  /** Spawn to a probe that found it at validator 1's height or above (null: not within EXACT_WAIT_MS after `seconds`). */
  exactSeconds: number | null;
  /** The joiner's CPU (user + system) at `seconds`. */
  cpuS: number;
  head: number;
  base?: number;
  phases?: Partial<Record<'start' | JoinPhase, number>>;
}

/** How often the joiner's and validator 1's heights are read (each read is a /status request to both). */
const PROBE_MS = 100;
/** How long after following the probes wait for the joiner to be seen at the head exactly. */
const EXACT_WAIT_MS = 30_000;

/** A new node with its own home joins the validator at `validatorUrl`; timed from spawn to following the validator's head. */
async function joinOnce(dir: string, genesisFile: string, bootstrap: string, validatorUrl: string, stateSync: boolean, timeoutMs: number): Promise<Join> {
  const home = join(dir, stateSync ? 'joiner-ss' : 'joiner-bs');
  cli(['init', '--home', home, '--network', genesisFile]);
  const api = await freePort();
  const p2p = await freePort();
  const t0 = performance.now();
  const node = startNode(['--home', home, '--network', genesisFile, '--bootstrap', bootstrap, '--port', String(api), '--p2p-port', String(p2p), '--session-port', '0', '--no-rate-limit', '--log-level', 'info', ...(stateSync ? [] : ['--no-state-sync'])]);
  const url = `http://127.0.0.1:${api}`;
  try {
    // Probed every PROBE_MS: validator 1's height first, then the joiner's.
    let near: { ms: number; head: number; cpuS: number } | undefined;
    let exact: { ms: number; head: number } | undefined;
    for (;;) {
      if (node.proc.exitCode !== null) throw new Error(`the joiner exited: ${node.output().slice(-4_000)}`);
      const theirs = await height(validatorUrl);
      const mine = await height(url).catch(() => -1);
      const ms = performance.now() - t0;
      if (mine >= 1 && near === undefined && mine >= theirs - SYNC_GAP) near = { ms, head: theirs, cpuS: +cpuSeconds(node.proc.pid!).toFixed(2) };
      if (mine >= 1 && mine >= theirs) exact = { ms, head: theirs };
      if (exact !== undefined || (near !== undefined && ms > near.ms + EXACT_WAIT_MS)) break;
      if (ms > timeoutMs) {
        const seen = node.lines.filter((l) => /sync|peer|"level":[456]/i.test(l.text)).map((l) => `${Math.round(l.ms)} ${l.text.slice(0, 300)}`);
        throw new Error(`timed out waiting for the ${stateSync ? 'state' : 'block'}-sync joiner at the head; its output:\n${seen.join('\n').slice(-5_000)}`);
      }
      await new Promise((r) => setTimeout(r, PROBE_MS));
    }
    const endMs = near!.ms;
    const head = near!.head;
    if (process.env.BENCH_JOIN_LOG) writeFileSync(`${process.env.BENCH_JOIN_LOG}.${head}.${stateSync ? 'state' : 'block'}-sync.log`, node.lines.map((l) => `${Math.round(l.ms)} ${l.text}`).join('\n') + `\n${Math.round(endMs)} at the head\n`);
    const out: Join = { seconds: +(endMs / 1000).toFixed(2), cpuS: near!.cpuS, head, exactSeconds: exact === undefined ? null : +(exact.ms / 1000).toFixed(2) };
    if (stateSync) {
      const restored = node.lines.find((l) => /^state sync at [\d,]+: restored/.test(l.text.trim()));
      if (!restored) throw new Error(`the joiner did not restore a snapshot: ${node.output().slice(-4_000)}`);
      out.base = Number(/at ([\d,]+)/.exec(restored.text)![1].replace(/,/g, ''));
      out.phases = phaseSeconds(node.lines, endMs);
    }
    return out;
  } finally {
    await node.stop();
  }
}

/** Four validator processes serving a chain of `blocks` blocks built offline (see the file's comment), producing on from there. */
export interface BuiltNetwork {
  genesisFile: string;
  /** The four validators' p2p addresses, comma-separated (a joiner's --bootstrap). */
  bootstrap: string;
  /** Validator 1's API. */
  validatorUrl: string;
  /** Faucet credits in the chain built. */
  txs: number;
  buildS: number;
  /** The height of the newest snapshot the validators hold. */
  snapshotAt: number;
  stop(): Promise<void>;
}

/** Builds a chain of `blocks` blocks offline under `dir` and starts four validators on it; resolves once they produce past it. */
export async function startBuiltNetwork(dir: string, blocks: number, txsPerBlock: number): Promise<BuiltNetwork> {
  const validators: Proc[] = [];
  const stop = () => Promise.all(validators.map((v) => v.stop())).then(() => undefined);
  try {
    // The devnet genesis cut to four validators, a snapshot every SNAPSHOT_EVERY blocks, every block kept.
    const g = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
    g.validators = g.validators.slice(0, VALIDATORS);
    g.consensus = { ...g.consensus, activeSetMin: Math.min(g.consensus.activeSetMin, VALIDATORS) };
    g.storage = { snapshotIntervalBlocks: SNAPSHOT_EVERY, snapshotKeep: 2 };
    const genesisFile = join(dir, 'genesis.json');
    writeFileSync(genesisFile, JSON.stringify(g, null, 2));
    const genesis = loadGenesisFile(genesisFile);

    const dataDirOf = (i: number) => join(dir, `validator-${i}`);
    const dataDir = dataDirOf(1);
    const snapshotAt = Math.floor(blocks / SNAPSHOT_EVERY) * SNAPSHOT_EVERY;
    const snaps = await SnapshotStore.open({ dir: join(dataDir, 'snapshots'), intervalBlocks: SNAPSHOT_EVERY, keep: 2 });
    const buildStart = performance.now();
    const built = await buildSignedChain({
      dataDir: join(dataDir, 'chain'),
      blocks,
      validators: VALIDATORS,
      genesisOf: () => genesis,
      faucetTxsPerBlock: txsPerBlock,
      afterCommit: async (block, _result, chain) => {
        if (block.header.height === snapshotAt) await snaps.afterCommit(chain.store, snapshotAt);
      },
    });
    await built.chain.close();
    await snaps.close();
    // A validator whose folder holds blocks needs its double-sign protection files (decision 125):
    // fresh ones, as a node starting at height 0 makes; it signs only above the head.
    (await PrivValFile.open(join(dataDir, 'privval'))).close();
    const buildS = (performance.now() - buildStart) / 1000;

    // The same folder for every validator (a closed LevelDB store and snapshot files copy as files).
    for (let i = 2; i <= VALIDATORS; i++) cpSync(dataDirOf(1), dataDirOf(i), { recursive: true });
    const apis = await Promise.all(g.validators.map(() => freePort()));
    const p2ps = await Promise.all(g.validators.map(() => freePort()));
    const addrs = await Promise.all(g.validators.map(async (v: { ecdsaPubkey: string }, i: number) => `/ip4/127.0.0.1/tcp/${p2ps[i]}/p2p/${await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey))}`));
    for (let i = 1; i <= VALIDATORS; i++) {
      validators.push(
        startNode(['--genesis', genesisFile, '--validators', String(VALIDATORS), '--validator-index', String(i), '--data-dir', dataDirOf(i), '--port', String(apis[i - 1]), '--p2p-port', String(p2ps[i - 1]), '--bootstrap', addrs.filter((_, j) => j !== i - 1).join(','), '--session-port', '0', '--no-rate-limit', '--log-level', 'warn']),
      );
    }
    for (const v of validators) {
      await waitFor(() => (v.output().includes('READY') ? true : v.proc.exitCode !== null ? Promise.reject(new Error(`validator exited: ${v.output()}`)) : undefined), 180_000, 'validator READY');
    }
    const validatorUrl = `http://127.0.0.1:${apis[0]}`;
    await waitFor(async () => ((await height(validatorUrl).catch(() => 0)) > blocks ? true : undefined), 60_000, 'validators producing');
    return { genesisFile, bootstrap: addrs.join(','), validatorUrl, txs: built.txs, buildS, snapshotAt, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function runLength(blocks: number, txsPerBlock: number, baselineMax: number): Promise<Record<string, unknown>> {
  const dir = tempDir('bench-join-');
  let net: BuiltNetwork | undefined;
  try {
    net = await startBuiltNetwork(dir.path, blocks, txsPerBlock);
    const { genesisFile, bootstrap, validatorUrl } = net;
    const timeoutMs = Number(process.env.BENCH_JOIN_TIMEOUT_MS ?? 120_000 + blocks * 20);
    const ss = await joinOnce(dir.path, genesisFile, bootstrap, validatorUrl, true, timeoutMs);
    const bs = blocks <= baselineMax ? await joinOnce(dir.path, genesisFile, bootstrap, validatorUrl, false, timeoutMs) : undefined;
    return {
      blocks,
      txs: net.txs,
      buildS: +net.buildS.toFixed(1),
      snapshotAt: net.snapshotAt,
      stateSync: ss,
      blockSync: bs,
      line: tableLine({ blocks, stateSyncS: ss.seconds, stateSyncExactS: ss.exactSeconds, blockSyncS: bs?.seconds }),
    };
  } finally {
    await net?.stop();
    dir.remove();
  }
}

export async function benchJoin(): Promise<Record<string, unknown>> {
  const lengths = (process.env.BENCH_JOIN_LENGTHS ?? '1000,3000,6000').split(',').map(Number);
  const txsPerBlock = Number(process.env.BENCH_JOIN_TXS ?? 2);
  const build = spawnSync(process.execPath, ['src/build/run.mjs', '--if-stale', '--out', NODE_BUILD], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (build.status !== 0) throw new Error(`build: ${build.stderr}`);
  const rows: Record<string, unknown>[] = [];
  // Block sync from genesis takes minutes past ~10,000 blocks: the baseline runs up to this length.
  const baselineMax = Number(process.env.BENCH_JOIN_BASELINE_MAX ?? Infinity);
  for (const n of lengths) rows.push(await runLength(n, txsPerBlock, baselineMax));
  const out: Record<string, unknown> = {
    conditions: `${VALIDATORS} validators (devnet genesis cut to ${VALIDATORS}, block time ${JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8')).consensus.blockTimeMs} ms) on a chain built offline with ${txsPerBlock} signed faucet credits a block, snapshot every ${SNAPSHOT_EVERY} blocks (the newest at the chain's last multiple), every block kept; the joiner is a fresh \`init --home\` node bootstrapped to the ${VALIDATORS} validators on loopback while they keep producing; time from spawn until its /status height is within ${SYNC_GAP} blocks of validator 1's (read first, every ${PROBE_MS} ms), and beside it the first probe at validator 1's height; CPU = the joiner's user + system at the first`,
  };
  for (const r of rows) out[`${r.blocks} blocks`] = r;
  out.table = '\n' + rows.map((r) => r.line).join('\n');
  return out;
}
