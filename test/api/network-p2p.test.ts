/**
 * GET /v1/network's `p2p` (issue 20): the node's libp2p peer id and its listen multiaddrs,
 * each ending in /p2p/<peer id> (what another node passes to `start --bootstrap`). On a
 * node of a p2p network without a validator key (the p2p actor runs on every node of such
 * a network): the identity is the key file's peer key when given, a fresh key otherwise.
 * A node without p2p (the solo devnet) answers an empty list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { p2pMultiaddrs } from '../../src/api/routes/chain-info';
import { generateNodeKeys } from '../../src/node/keyfile';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { devnetGenesis, startNode, tempDir, useDevnetNode } from '../helpers/devnet';
import type { Node } from '../../src/node/node';

async function network(url: string): Promise<any> {
  const res = await fetch(`${url}/v1/network`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: any }).data;
}

describe('GET /v1/network p2p', () => {
  const solo = useDevnetNode();
  const dirs: { remove(): void }[] = [];
  const nodes: Node[] = [];
  afterAll(async () => {
    for (const n of nodes) await n.stop();
    for (const d of dirs) d.remove();
  });

  /** A node of the two-validator devnet that holds no validator key: a follower. */
  async function follower(peerKey?: Uint8Array): Promise<{ node: Node; url: string }> {
    const dir = tempDir();
    dirs.push(dir);
    const { genesis, hash } = devnetGenesis(2);
    const started = await startNode(dir.path, { genesis, genesisHash: hash, validatorKey: undefined, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], peerKey } });
    nodes.push(started.node);
    return started;
  }

  it("lists the key file's peer id and its listen multiaddrs with /p2p/<peer id>", async () => {
    const keys = await generateNodeKeys({ network: 'devnet', chainId: 713799, genesisHash: bytesToHex(devnetGenesis(2).hash) });
    const { url } = await follower(hexToBytes(keys.peerPrivateKey));
    const net = await network(url);
    expect(net.p2p.peerId).toBe(keys.peerId);
    expect(net.p2p.multiaddrs.length).toBeGreaterThan(0);
    for (const a of net.p2p.multiaddrs) expect(a).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/[1-9][0-9]*/p2p/${keys.peerId}$`));
    // The fields of before are all still there, and the bridge's (issue 22) after them.
    expect(Object.keys(net)).toEqual(['chainId', 'network', 'blockHeight', 'latestBlockTimeMs', 'blockTimeMs', 'rpc', 'ws', 'contracts', 'validators', 'p2p', 'bridge']);
  });

  it('a node with neither a key file nor a validator key gets a fresh identity', async () => {
    const { url } = await follower();
    const net = await network(url);
    expect(net.p2p.peerId).toMatch(/^12D3KooW/);
    for (const a of net.p2p.multiaddrs) expect(a.endsWith(`/p2p/${net.p2p.peerId}`)).toBe(true);
  });

  it('a node without p2p lists none', async () => {
    expect((await network(solo.url)).p2p).toEqual({ peerId: null, multiaddrs: [] });
  });

  it('appends /p2p/<peer id> to an address that lacks it, and only then', () => {
    expect(p2pMultiaddrs({ peerId: 'P', listen: ['/ip4/1.2.3.4/tcp/9000', '/ip4/1.2.3.4/tcp/9001/p2p/P'] })).toEqual({
      peerId: 'P',
      multiaddrs: ['/ip4/1.2.3.4/tcp/9000/p2p/P', '/ip4/1.2.3.4/tcp/9001/p2p/P'],
    });
  });
});
