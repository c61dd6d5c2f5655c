/**
 * Discovery and following by consensus (issue 39 items 1 and 3, decisions 184 and 185),
 * with real processes: four validators whose genesis endpoints are their real p2p
 * ports, and three full nodes made with `init` and started with `start --home`:
 *
 *   A  bootstraps from validator 1;
 *   B  is given only A's address (and one unreachable address and one that is no
 *      multiaddr: each gets one clear line and B runs on); it finds the validators in
 *      chain state and C by peer exchange, and follows the head;
 *   C  bootstraps from A with --no-discovery: it asks nobody for peers, and validators
 *      dial only validators, so it is connected to full nodes only; it moves with the
 *      chain through them: block sync from full nodes, certificates relayed on the mesh
 *      and asked for (catch-up). (Within 2 blocks of the head it is not held to: on a
 *      chain this fast, a node that far behind needs block sync started by a peer's
 *      probed head, issue 39 item 2's.)
 *
 * Stopping A (B's and C's only bootstrap peer) stops neither. A node of another chain
 * given validator 1's address is refused with a clear line on both sides and runs on.
 * The figures (peers found within 30 s, observer lag in blocks and ms) are printed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/launcher';
import { genesisToJson, renderJson } from '../../src/genesis/build';
import { peerIdOfKey } from '../../src/net/libp2p';
import { devnetGenesis, tempDir, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';
import { getData, lagBehind, percentile, sampleLag as sampleLagBehind, startObserver as startObserverIn, stopObserver, type Observer } from '../helpers/observers';

const N = 4;
const dir = tempDir('exchain-discovery-');
let net: LocalNetwork;
const genesisFile = join(dir.path, 'devnet-4v.json');

const observers: Observer[] = [];
const get = getData;
const startObserver = (name: string, genesis: string, bootstrap: string[], extra: string[] = []) => startObserverIn(dir.path, observers, name, genesis, bootstrap, extra);
const stop = stopObserver;
const lag = (o: Observer) => lagBehind(net.nodes[0].url, o);
const pct = percentile;
const sampleLag = (o: Observer, ms: number) => sampleLagBehind(net.nodes[0].url, o, ms);

let A: Observer;
let B: Observer;
let C: Observer;
let foreign: Observer;
let startedB = 0;
let startedC = 0;

beforeAll(async () => {
  // The genesis names each validator's real p2p port as its endpoint: chain state is a source of peers.
  const ports = await Promise.all(Array.from({ length: N }, () => freePort()));
  const { genesis } = devnetGenesis(N);
  const ours = { ...genesis, validators: genesis.validators.map((v, i) => ({ ...v, endpoint: `127.0.0.1:${ports[i]}` })) };
  writeFileSync(genesisFile, renderJson(genesisToJson(ours)));
  net = await LocalNetwork.start(N, () => [], { genesisFile, p2pPorts: ports });
  A = await startObserver('A', genesisFile, [net.p2pAddrs[0]]);
  startedB = Date.now();
  // A port nothing listens on, a peer nobody runs.
  const unreachable = `/ip4/127.0.0.1/tcp/${await freePort()}/p2p/${await peerIdOfKey(new Uint8Array(32).fill(5))}`;
  B = await startObserver('B', genesisFile, [A.p2p, unreachable, 'not-a-multiaddr']);
  C = await startObserver('C', genesisFile, [A.p2p], ['--no-discovery']);
  startedC = Date.now();
}, 300_000);

afterAll(async () => {
  for (const o of observers) await stop(o);
  await net?.stop();
  dir.remove();
}, 90_000);

describe('a node given one address finds peers and follows by consensus', () => {
  it('B, given only A, finds the validators (chain state) within 30 s of its start, and C (peer exchange) within 30 s of C\'s', async () => {
    const table = async () => {
      const { table: t } = await get(B.url, '/v1/network/peers');
      return { t, byId: new Map<string, any>(t.peers.map((p: any) => [p.peerId, p])) };
    };
    const validatorIds = net.p2pAddrs.map((a) => a.split('/p2p/')[1]);
    await waitFor(
      async () => {
        const { byId } = await table();
        return validatorIds.every((id) => byId.get(id)?.connected) ? true : undefined;
      },
      Math.max(1_000, 30_000 - (Date.now() - startedB)),
      'B connected to every validator',
    );
    await waitFor(
      async () => {
        const c = (await table()).byId.get(C.peerId);
        return c?.connected && c.source === 'pex' ? true : undefined;
      },
      Math.max(1_000, 30_000 - (Date.now() - startedC)),
      'B learnt C by exchange and connected to it (30 s from C\'s READY)',
    );
    const { t, byId } = await table();
    process.stdout.write(`discovery figures: B knows ${t.known} peers, connected to ${t.connected}, ${Math.round((Date.now() - startedB) / 1000)} s after its start\n`);
    expect(byId.get(A.peerId).source).toBe('bootstrap');
    for (const id of validatorIds) expect(byId.get(id).source).toBe('chain');
  });

  it('says once what is wrong with each bad bootstrap address, and runs on', async () => {
    await waitFor(() => (B.output.includes('bootstrap peer unreachable') ? true : undefined), 30_000, 'the unreachable bootstrap line');
    expect(B.output).toMatch(/bootstrap address ignored: it is not a multiaddr/);
    expect(B.output.match(/bootstrap address ignored/g)).toHaveLength(1);
    expect(B.output.match(/bootstrap peer unreachable/g)).toHaveLength(1);
    expect(B.proc!.exitCode).toBeNull();
  });

  it('C, with no discovery, is connected to full nodes only and moves with the chain through them', async () => {
    await waitFor(async () => ((await get(C.url, '/status')).p2p.peers.includes(B.peerId) ? true : undefined), 30_000, 'B dialled C');
    const validatorIds = new Set(net.p2pAddrs.map((a) => a.split('/p2p/')[1]));
    const peers: string[] = (await get(C.url, '/status')).p2p.peers;
    expect(peers.filter((p) => validatorIds.has(p))).toEqual([]);
    // Block sync from full nodes, then certificates: relayed on the topic and asked for (catch-up).
    const h0 = (await get(C.url, '/v1/network')).blockHeight;
    await waitFor(async () => ((await get(C.url, '/v1/network')).blockHeight >= h0 + 20 ? true : undefined), 30_000, 'C 20 blocks further');
    const samples = await sampleLag(C, 10_000);
    process.stdout.write(`discovery figures: C (full nodes only) lag p50 ${pct(samples.blocks, 50)} p99 ${pct(samples.blocks, 99)} blocks, p50 ${pct(samples.ms, 50)} p99 ${pct(samples.ms, 99)} ms\n`);
    const { p2p, consensus } = await get(C.url, '/status');
    expect(p2p.stats.catchUp.applied + consensus.counters.certificatesApplied).toBeGreaterThan(0);
    expect(p2p.stats.received.votes).toBeGreaterThan(0);
  }, 120_000);

  it('B follows the head within 2 blocks', async () => {
    await waitFor(async () => ((await lag(B)).blocks <= 2 ? true : undefined), 60_000, 'B at the head');
    const samples = await sampleLag(B, 10_000);
    process.stdout.write(`discovery figures: B lag p50 ${pct(samples.blocks, 50)} p99 ${pct(samples.blocks, 99)} blocks, p50 ${pct(samples.ms, 50)} p99 ${pct(samples.ms, 99)} ms\n`);
    expect(pct(samples.blocks, 50)).toBeLessThanOrEqual(2);
  }, 120_000);

  it('stopping A, the only bootstrap peer of B and C, stops neither', async () => {
    await stop(A);
    const [b0, c0] = await Promise.all([get(B.url, '/v1/network'), get(C.url, '/v1/network')]);
    // Both move on, and B stays at the head.
    await waitFor(
      async () => {
        const [b, c] = await Promise.all([get(B.url, '/v1/network'), get(C.url, '/v1/network')]);
        if (b.blockHeight < b0.blockHeight + 5 || c.blockHeight < c0.blockHeight + 5) return undefined;
        return (await lag(B)).blocks <= 2 ? true : undefined;
      },
      30_000,
      'B and C five blocks further without A, B at the head',
    );
  }, 60_000);

  it('a node of another chain is refused with a clear line on both sides, and runs on', async () => {
    const { genesis } = devnetGenesis(N);
    const otherFile = join(dir.path, 'other-chain.json');
    writeFileSync(otherFile, renderJson(genesisToJson({ ...genesis, chainId: genesis.chainId + 1 })));
    foreign = await startObserver('foreign', otherFile, [net.p2pAddrs[0]]);
    await waitFor(() => (net.nodes[0].output.includes('peer refused: it runs another chain') ? true : undefined), 30_000, "validator 1's refusal line");
    await waitFor(() => (foreign.output.includes('peer refused: it runs another chain') ? true : undefined), 30_000, "the foreign node's refusal line");
    const { table } = await get(net.nodes[0].url, '/v1/network/peers');
    expect(table.banned.find((b: any) => b.peerId === foreign.peerId)?.reason).toBe('WRONG_CHAIN');
    expect(table.peers.find((p: any) => p.peerId === foreign.peerId)).toBeUndefined();
    expect(foreign.proc!.exitCode).toBeNull();
    expect(net.nodes[0].proc!.exitCode).toBeNull();
  });
});
