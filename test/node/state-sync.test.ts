/**
 * Issue 27 on real processes: the devnet genesis cut to four validators, with short
 * windows (a state snapshot every 200 blocks, the newest 2 kept, 500 blocks retained),
 * runs under client-signed load (limit orders a wallet signs, sent through REST to every
 * validator in turn) past several snapshots, while each validator's data folder is
 * measured every second. Then a new node, made with `init` and started with `start
 * --home` and no state-sync flag (an empty store joins by state sync by default when
 * peers offer snapshots), joins over libp2p: it restores the newest snapshot the
 * validators offer, verified from genesis, and reaches the head with the same blocks and
 * state roots, while every validator has pruned the blocks below its start (it could not
 * have synced them from genesis). Every validator's folder stayed within a bound.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import { freePort } from '../../src/cli/launcher';
import { runCli, tempDir } from '../cli/run-cli';
import { DEVNET_KEYS, ROOT } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';

const N = 4;
const SNAPSHOT_EVERY = 200;
const RETAIN = 500;
/**
 * The most a validator's data folder may hold at any sample. What it keeps: 500 blocks
 * (an idle block is about 1.3 KB stored, a block of this load's few orders a few KB:
 * about 2 MB), two snapshots and one being written of a state of a few thousand records
 * (well under 1 MB each), LevelDB's write-ahead logs before they are flushed (chain and
 * index), the privval files and the log. Measured peaks: 4.7-5.7 MiB. Keeping every
 * block instead passes this bound after some 10,000 blocks of load (bench disk: 1.4 KB a
 * block idle, 290 + 256 B an order), and never stops growing.
 */
const DISK_BOUND_BYTES = 16 * 1024 * 1024;

const dir = tempDir('exchain-statesync-');
const genesisFile = join(dir.path, 'genesis.json');
const home = join(dir.path, 'joiner');
let net: LocalNetwork;

function writeGenesis(): void {
  const g = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
  g.validators = g.validators.slice(0, N);
  g.consensus = { ...g.consensus, activeSetMin: Math.min(g.consensus.activeSetMin, N) };
  g.storage = { retainBlocks: RETAIN, snapshotIntervalBlocks: SNAPSHOT_EVERY, snapshotKeep: 2 };
  writeFileSync(genesisFile, JSON.stringify(g, null, 2));
}

/** Bytes of every file under `path` (0 for a file removed while walking). */
function folderBytes(path: string): number {
  let total = 0;
  for (const e of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    try {
      total += statSync(join(e.parentPath, e.name)).size;
    } catch {
      // removed meanwhile (a compaction, a snapshot's temporary folder)
    }
  }
  return total;
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: await res.json() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a node joins by state sync while the validators prune (snapshots every 200 blocks, 500 kept)', () => {
  beforeAll(async () => {
    writeGenesis();
    net = await LocalNetwork.start(N, () => [], { genesisFile });
  }, 180_000);
  afterAll(async () => {
    await net?.stop();
    dir.remove();
  }, 60_000);

  it('the validators keep a bounded disk under load; a new node restores a verified snapshot and follows with the same state root', async () => {
    await net.waitHeight(3);
    const chainId = (await net.status(1)).chainId as number;

    // Load: one trader per validator, signing limit orders with its own wallet.
    const acked: string[] = [];
    let load = true;
    const workers = Array.from({ length: N }, async (_, w) => {
      const trader = privateKeyToAccount(DEVNET_KEYS.accounts[w].privateKey);
      const signer = new ExchangeClient(net.nodes[0].url, { chainId });
      for (let n = 0; load; n++) {
        const via = net.nodes[(w + n) % N];
        const order = await signer.signOrder(trader, { symbol: 'ETH', side: n % 2 ? 'sell' : 'buy', type: 'limit', price: n % 2 ? '1010' : '990', amount: '0.01' });
        const r = await json(`${via.url}/v1/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) }).catch(() => ({ status: 0, body: {} }));
        if (r.status === 200) acked.push(r.body.data.txHash);
        await sleep(r.status === 200 ? 50 : 300);
      }
    });

    // Every validator's data folder, measured every second.
    const peak = new Array<number>(N).fill(0);
    const sampler = setInterval(() => {
      for (let i = 1; i <= N; i++) peak[i - 1] = Math.max(peak[i - 1], folderBytes(net.dataDir(i)));
    }, 1_000);

    try {
      // Past several snapshots and the retained window: snapshots at 200, 400, … and pruning below head − 500.
      const target = 6 * SNAPSHOT_EVERY + 100;
      await net.waitHeight(target, [1], 240_000);

      // Each validator has pruned: its lowest kept block is well above 1, and it keeps at most two snapshots.
      for (let i = 1; i <= N; i++) {
        const s = await net.status(i);
        expect(s.retained.blocks.lowestHeight, `validator ${i}`).toBeGreaterThan(2 * SNAPSHOT_EVERY);
        const snaps = readdirSync(join(net.dataDir(i), 'snapshots')).filter((f) => /^\d+$/.test(f));
        expect(snaps.length, `validator ${i}'s snapshots ${snaps}`).toBeGreaterThan(0);
        expect(snaps.length).toBeLessThanOrEqual(2);
        for (const h of snaps) expect(Number(h) % SNAPSHOT_EVERY).toBe(0);
        // A block below the base is answered 410 PRUNED with the lowest height kept.
        const gone = await json(`${net.nodes[i - 1].url}/block/1`);
        expect(gone.status).toBe(410);
        expect(gone.body.error.code).toBe('PRUNED');
      }

      // A new node joins: made with init, started with no state-sync flag.
      const made = await runCli(['init', '--home', home, '--network', genesisFile]);
      expect(made.code, made.stderr).toBe(0);
      const lowestBefore = Math.min(...(await Promise.all(net.nodes.map(async (n) => (await net.status(n.index)).retained.blocks.lowestHeight as number))));
      const [api, p2p] = [await freePort(), await freePort()];
      const joinedAt = Date.now();
      const joiner = await net.addNode(['--home', home, '--network', genesisFile, '--bootstrap', net.p2pAddrs.join(','), '--p2p-port', String(p2p), '--session-port', '0', '--log-level', 'info'], api);
      const joined = await net.status(joiner);
      const base = joined.retained.blocks.lowestHeight as number;
      // It started from a snapshot height the validators had already pruned below.
      expect(base % SNAPSHOT_EVERY, `the joiner's lowest block ${base} (the snapshot's height)`).toBe(0);
      expect(lowestBefore).toBeGreaterThan(1);
      expect(net.nodes[joiner - 1].output).toMatch(/state sync/i);

      // It reaches the head and agrees with the validators, block hash and state root.
      const head = await net.height(1);
      await net.waitHeight(head, [joiner], 120_000);
      const joinSeconds = (Date.now() - joinedAt) / 1000;
      for (const h of [base, head]) {
        const [a, b] = await Promise.all([net.block(1, h), net.block(joiner, h)]);
        expect(b.hash, `block ${h}`).toBe(a.hash);
        expect(b.stateRoot, `state root after ${h}`).toBe(a.stateRoot);
      }
      // It follows: later blocks arrive and match too.
      await net.waitHeight(head + 20, [joiner], 60_000);
      const later = head + 20;
      expect((await net.block(joiner, later)).stateRoot).toBe((await net.block(1, later)).stateRoot);

      console.log(
        `state sync: joined from the snapshot at ${base} in ${joinSeconds.toFixed(1)} s (validators' lowest kept ${lowestBefore}, head ${head}); ` +
          `${acked.length} orders acknowledged; peak folder MiB ${peak.map((b) => (b / 2 ** 20).toFixed(1)).join(', ')}`,
      );
    } finally {
      clearInterval(sampler);
      load = false;
      await Promise.all(workers);
    }
    expect(acked.length).toBeGreaterThan(50);
    for (let i = 0; i < N; i++) expect(peak[i], `validator ${i + 1}'s data folder at its largest`).toBeLessThanOrEqual(DISK_BOUND_BYTES);
  }, 600_000);
});
