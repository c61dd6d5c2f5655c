/**
 * GET /v1/network/peers (decision 79): a node lists each connected peer with the listen
 * addresses the peer announced (libp2p identify) and its head as the node last probed it
 * over the sync protocol (actors/p2p/peer-heights.ts). Two in-process followers of the
 * two-validator devnet (no validator runs, so both stay at the genesis head, 0); one
 * bootstraps to the other, and each comes to list the other. A node without p2p lists none.
 * The probe's answer handling is checked on a transport of two functions.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PeerHeights, probePeerHeights } from '../../actors/p2p/peer-heights';
import { decodeSyncRequest, serveSync, syncProtocol } from '../../src/chain/sync';
import type { Node } from '../../src/node/node';
import { devnetGenesis, startNode, tempDir, useDevnetNode, waitFor } from '../helpers/devnet';

async function peers(url: string): Promise<{ blockHeight: number; peers: { peerId: string; listen: string[]; height: number | null; heightAtMs: number | null }[] }> {
  const res = await fetch(`${url}/v1/network/peers`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: any }).data;
}

describe('GET /v1/network/peers', () => {
  const solo = useDevnetNode();
  const dirs: { remove(): void }[] = [];
  const nodes: Node[] = [];
  afterAll(async () => {
    for (const n of nodes.reverse()) await n.stop();
    for (const d of dirs) d.remove();
  });

  async function follower(bootstrap: string[]): Promise<{ node: Node; url: string }> {
    const dir = tempDir();
    dirs.push(dir);
    const { genesis, hash } = devnetGenesis(2);
    const started = await startNode(dir.path, { genesis, genesisHash: hash, validatorKey: undefined, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap } });
    nodes.push(started.node);
    return started;
  }

  it("lists a connected peer with its announced listen address and its probed head", async () => {
    const a = await follower([]);
    const aInfo = a.node.p2pInfo()!;
    const aAddr = aInfo.listen.find((l) => l.startsWith('/ip4/127.0.0.1/tcp/'))!;
    const b = await follower([aAddr.endsWith(`/p2p/${aInfo.peerId}`) ? aAddr : `${aAddr}/p2p/${aInfo.peerId}`]);
    const bInfo = b.node.p2pInfo()!;
    const bListen = bInfo.listen.map((l) => l.replace(`/p2p/${bInfo.peerId}`, ''));
    const seen = await waitFor(
      async () => (await peers(a.url)).peers.find((p) => p.peerId === bInfo.peerId && p.height !== null && p.listen.length > 0),
      15_000,
      "a's view of b with a height",
    );
    expect(seen.height).toBe(0);
    expect(seen.heightAtMs).toBeGreaterThan(Date.now() - 60_000);
    // What b listens on, as b reports it, is what a learned b announces.
    for (const l of bListen) expect(seen.listen.map((x) => x.replace(`/p2p/${bInfo.peerId}`, ''))).toContain(l);
    const fromB = await waitFor(async () => (await peers(b.url)).peers.find((p) => p.peerId === aInfo.peerId && p.height !== null), 15_000, "b's view of a");
    expect(fromB.height).toBe(0);
    expect((await peers(a.url)).blockHeight).toBe(0);
  });

  it('a node without p2p lists no peers, with its height', async () => {
    const view = await peers(solo.url);
    expect(view.peers).toEqual([]);
    expect(view.blockHeight).toBeGreaterThanOrEqual(0);
  });

  it('the probe records a peer head from a zero-block answer, keeps the last one when a peer fails, and forgets a gone peer', async () => {
    const heads = new Map([['p1', 7], ['p2', 9]]);
    let connected = ['p1', 'p2'];
    let failing = false;
    const store = { getEncodedBlockAndCommit: async () => ({ block: new Uint8Array(1), commit: new Uint8Array(1) }) };
    const t = {
      peers: () => connected,
      async request(peer: string, protocol: string, data: Uint8Array) {
        expect(protocol).toBe(syncProtocol(713714));
        if (failing) throw new Error('stalled');
        return serveSync(store, heads.get(peer)!, decodeSyncRequest(data));
      },
    };
    const heights = new PeerHeights();
    let now = 1_000;
    const probe = probePeerHeights(heights, t, 713714, 1 << 20, () => now);
    try {
      await probe.round();
      expect(heights.get('p1')).toEqual({ height: 7, atMs: 1_000 });
      expect(heights.get('p2')).toEqual({ height: 9, atMs: 1_000 });
      failing = true;
      now = 2_000;
      await probe.round();
      expect(heights.get('p1')).toEqual({ height: 7, atMs: 1_000 });
      connected = ['p2'];
      await probe.round();
      expect(heights.get('p1')).toBeUndefined();
      expect(heights.get('p2')).toEqual({ height: 9, atMs: 1_000 });
    } finally {
      probe.stop();
    }
  });
});
