/**
 * Where the replica bench's per-order CPU goes (issue 25 round two; docs/performance.md
 * "Per-order cost"). The loop of bench/replica.ts (40 warm blocks, then `BLOCKS` blocks of
 * 24 batch transactions × 10 orders) with, per phase (apply: Chain.commit; index:
 * Indexer.indexBlock):
 *  - µs per order of all threads (process.cpuUsage) and of the main thread
 *    (process.threadCpuUsage): the difference is V8's helper threads and LevelDB's;
 *  - with `ALLOC=1`, the minor collections inside the phase's windows (run with
 *    `--max-semi-space-size=1 --min-semi-space-size=1`: one per MiB allocated);
 *  - with `PROF=file.json`, a sampling profile (100 µs) of one run with each block's
 *    phase windows, then `REPORT=file.json PHASE=apply|index` prints the phase's self
 *    and inclusive µs per order by function, its samples chosen by those windows.
 *
 *   node --expose-gc --max-semi-space-size=64 --import tsx bench/replica-profile.ts
 */
import { Session } from 'node:inspector/promises';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeTx, encodeTx, TxKind, type Tx } from '../src/codec/tx';
import { canonicalCommit, type Block } from '../src/codec/block';
import { Chain } from '../src/chain/chain';
import { Indexer } from '../src/indexer/indexer';
import { TxPool } from '../actors/mempool/pool';
import { batchDigest, restSigningHash } from '../src/signing/exchange-digest';
import { sign } from '../src/crypto/secp256k1';
import { hexToBytes, type Address } from '../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../test/helpers/devnet';
import { benchOrder } from './load';

type Phase = 'apply' | 'index';
type Windows = Record<Phase, [number, number][]>;

const { genesis, hash } = devnetGenesis(6);
const proposer = DEVNET_KEYS.validators[0].address;
const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });
const allUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const mainUs = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

/** `blocks` blocks of 24 signed batch transactions × 10 orders (bench/replica.ts's stream). */
function batchBlocks(blocks: number): Uint8Array[][] {
  const accounts = DEVNET_KEYS.accounts.slice(0, 16);
  let nonce = 1_000_000n;
  let i = 0;
  const out: Uint8Array[][] = [];
  for (let b = 0; b < blocks; b++) {
    const txs: Uint8Array[] = [];
    for (let t = 0; t < 24; t++) {
      const k = b * 24 + t;
      const acc = accounts[k % accounts.length];
      const orders = [];
      for (let j = 0; j < 10; j++, i++) orders.push(benchOrder(i, j % 2 ? 'ETH' : 'BTC', k % 2 === 1));
      const n = nonce++;
      const signature = sign(restSigningHash(batchDigest(orders, n)), hexToBytes(acc.privateKey));
      txs.push(encodeTx(genesis.chainId, TxKind.RestBatch, { trader: acc.address as Address, orders, nonce: n, signature }).bytes);
    }
    out.push(txs);
  }
  return out;
}

/** One run over fresh folders: µs per order of each phase, all threads and main thread; `windows` gets each block's phase times (performance.now ms). */
async function run(prepared: Uint8Array[][], windows?: Windows) {
  const dir = tempDir('bench-replica-profile-');
  const chain = await Chain.open({ dataDir: `${dir.path}/chain`, genesis, genesisHash: hash, syncWrites: false });
  const indexer = await Indexer.open(`${dir.path}/index`);
  const pool = new TxPool({ maxTxs: 100_000, maxBytes: 1 << 30, maxTxBytes: 1 << 20 }, () => chain.state);
  const all = { apply: 0, index: 0 };
  const main = { apply: 0, index: 0 };
  let t = genesis.genesisTimeMs;
  let orders = 0;
  for (const txs of prepared) {
    for (const bytes of txs) pool.addBytes(bytes);
    const decoded: Tx[] = txs.map((b) => decodeTx(b, 1 << 20));
    const block = chain.buildBlock({ txs, decoded, timestampMs: (t += 22), proposer, lastCommit: null, vrfKey: devnetVrfKey(0) });
    let w = performance.now();
    let m = mainUs();
    let a = allUs();
    const result = await chain.commit(block, commitOf(block), pool.signers, decoded);
    pool.removeCommitted(result.receipts.map((r) => r.txHash));
    all.apply += allUs() - a;
    main.apply += mainUs() - m;
    windows?.apply.push([w, performance.now()]);
    w = performance.now();
    m = mainUs();
    a = allUs();
    await indexer.indexBlock(block.header.height, block.header.timestampMs, result.receipts, result.blockEvents);
    all.index += allUs() - a;
    main.index += mainUs() - m;
    windows?.index.push([w, performance.now()]);
    orders += txs.length * 10;
  }
  await indexer.close();
  await chain.close();
  dir.remove();
  const per = (us: number) => +(us / orders).toFixed(1);
  return { orders, apply: per(all.apply), applyMain: per(main.apply), index: per(all.index), indexMain: per(main.index) };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; columnNumber: number };
  children?: number[];
  parent?: number;
}

/** Self and inclusive µs per order by function, over the samples inside the phase's windows. */
function report(file: string, phase: Phase, top: number): void {
  const { profile, windows, offsetUs, orders } = JSON.parse(readFileSync(file, 'utf8')) as {
    profile: { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };
    windows: Windows;
    offsetUs: number;
    orders: number;
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*?\/(src|actors|bench|node_modules)\//, '$1/')}:${n.callFrame.columnNumber + 1}`;
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const W = windows[phase].map(([a, b]) => [a * 1000 + offsetUs, b * 1000 + offsetUs]);
  let t = profile.startTime;
  let wi = 0;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const dt = profile.timeDeltas[i + 1] ?? 0;
    while (wi < W.length && W[wi][1] < t) wi++;
    if (wi >= W.length || t < W[wi][0]) continue;
    const leaf = byId.get(profile.samples[i])!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    total += dt;
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = n.parent === undefined ? undefined : byId.get(n.parent)) {
      const k = name(n);
      if (!seen.has(k)) incl.set(k, (incl.get(k) ?? 0) + dt);
      seen.add(k);
    }
  }
  const print = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).forEach(([k, us]) => console.log(`${(us / orders).toFixed(2).padStart(7)} µs ${((us / total) * 100).toFixed(1).padStart(5)} %  ${k}`));
  console.log(`${phase}: ${(total / orders).toFixed(1)} µs sampled per order (main thread, profiler included)`);
  console.log('-- self');
  print(self);
  console.log('-- inclusive');
  print(incl);
}

if (process.env.REPORT) {
  report(process.env.REPORT, (process.env.PHASE ?? 'apply') as Phase, Number(process.env.TOP ?? 40));
} else {
  const blocks = Number(process.env.BLOCKS ?? 100);
  await run(batchBlocks(40));
  const prepared = batchBlocks(blocks);
  if (process.env.PROF) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const windows: Windows = { apply: [], index: [] };
    const r = await run(prepared, windows);
    const { profile } = await session.post('Profiler.stop');
    // The profile's times are µs of the monotonic clock (as process.hrtime), the windows ms of performance.now(): the offset between the two goes with them.
    const offsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
    writeFileSync(process.env.PROF, JSON.stringify({ profile, windows, offsetUs, orders: r.orders }));
    console.log(JSON.stringify(r));
  } else {
    const minor: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) minor.push(e.startTime);
    });
    if (process.env.ALLOC) observer.observe({ entryTypes: ['gc'] });
    const windows: Windows = { apply: [], index: [] };
    for (let i = 0; i < Number(process.env.RUNS ?? 2); i++) console.log(JSON.stringify(await run(prepared, windows)));
    if (process.env.ALLOC) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const inside = (w: [number, number][]) => minor.filter((t) => w.some(([a, b]) => t >= a && t <= b)).length;
      console.log(JSON.stringify({ minorCollections: { apply: inside(windows.apply), index: inside(windows.index), all: minor.length } }));
      observer.disconnect();
    }
  }
}
