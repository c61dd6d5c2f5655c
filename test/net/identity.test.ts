/**
 * The chain identity peers compare on connect (src/net/identity.ts) and the p2p actor's
 * check (actors/p2p/peer-identity.ts): a peer of another genesis is refused, disconnected,
 * not redialled for a while, and the log names both genesis hashes and the remedy, once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GENESIS_MISMATCH_REMEDY, PeerIdentityCheck } from '../../actors/p2p/peer-identity';
import { compareIdentity, decodeIdentity, encodeIdentity, IDENTITY_BYTES_MAX, type ChainIdentity } from '../../src/net/identity';
import { Libp2pTransport } from '../../src/net/libp2p';
import { TOPICS, type GossipHandlers } from '../../src/net/transport';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { createMemoryLogger, LOG_LEVEL, type LogRecord } from '../../src/util/log';
import { Node } from '../../src/node/node';
import { DEVNET_KEYS, devnetGenesis, nodeConfig, tempDir, waitFor } from '../helpers/devnet';

const six = devnetGenesis(6);
const four = devnetGenesis(4);
const SIX: ChainIdentity = { network: 'devnet', chainId: six.genesis.chainId, genesisHash: six.hash };
const FOUR: ChainIdentity = { network: 'devnet', chainId: four.genesis.chainId, genesisHash: four.hash };

describe('chain identity', () => {
  it('round-trips, stays within its bound and refuses other versions and trailing bytes', () => {
    const bytes = encodeIdentity(SIX);
    expect(bytes.length).toBeLessThanOrEqual(IDENTITY_BYTES_MAX);
    expect(decodeIdentity(bytes)).toEqual(SIX);
    const other = bytes.slice();
    other[0] = 2;
    expect(() => decodeIdentity(other)).toThrow(/version 2/);
    expect(() => decodeIdentity(new Uint8Array([...bytes, 0]))).toThrow();
  });

  it('tells another chain id from another genesis of the same chain id', () => {
    expect(SIX.chainId).toBe(FOUR.chainId);
    expect(compareIdentity(SIX, { ...SIX })).toBeNull();
    expect(compareIdentity(SIX, FOUR)).toEqual({
      code: 'WRONG_GENESIS',
      reason: `the peer's genesis is ${bytesToHex(four.hash)}, this node's ${bytesToHex(six.hash)} (same chain id ${SIX.chainId})`,
    });
    expect(compareIdentity(SIX, { network: 'testnet', chainId: 7, genesisHash: six.hash })?.code).toBe('WRONG_CHAIN');
  });
});

describe('peer identity over libp2p', () => {
  const transports: Libp2pTransport[] = [];
  afterAll(async () => {
    for (const t of transports) await t.stop();
  });
  const quiet = Object.fromEntries(TOPICS.map((t) => [t, () => {}])) as unknown as GossipHandlers;

  /** A transport wired as the p2p actor wires it: every connecting peer is checked. */
  async function peer(own: ChainIdentity, keyIndex: number, bootstrap: string[]): Promise<{ t: Libp2pTransport; records: LogRecord[] }> {
    const { log, records } = createMemoryLogger();
    let check: PeerIdentityCheck | undefined;
    const t = new Libp2pTransport({
      chainId: own.chainId,
      privateKey: hexToBytes(DEVNET_KEYS.validators[keyIndex].ecdsaPrivateKey),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      bootstrap,
      log,
      redialMs: 200,
      onPeerConnect: (p) => void check?.connected(p),
    });
    check = new PeerIdentityCheck(own, t, log);
    await t.start(quiet);
    transports.push(t);
    await check.serve();
    return { t, records };
  }

  it('refuses and disconnects a peer of another genesis, names both hashes and the remedy once, and keeps a peer of its own', async () => {
    const b = await peer(SIX, 1, []);
    const c = await peer(FOUR, 2, []);
    const a = await peer(SIX, 0, [b.t.listenAddresses()[0], c.t.listenAddresses()[0]]);
    const refusal = (records: LogRecord[]) => records.filter((r) => r.level === LOG_LEVEL.warn && String(r.msg).startsWith('peer refused'));

    const warned = await waitFor(() => refusal(a.records)[0], 15_000, 'a refuses c');
    expect(warned).toMatchObject({
      msg: 'peer refused: it runs another genesis than this node (genesis hashes differ); disconnected',
      peer: c.t.id,
      code: 'WRONG_GENESIS',
      genesisHash: bytesToHex(six.hash),
      peerGenesisHash: bytesToHex(four.hash),
      chainId: SIX.chainId,
      peerChainId: FOUR.chainId,
      remedy: GENESIS_MISMATCH_REMEDY,
    });
    expect(GENESIS_MISMATCH_REMEDY).toContain('GET /api/validators/download/genesis');
    expect(GENESIS_MISMATCH_REMEDY).toContain('init');
    // The other side judges the same way, from its own point of view.
    const seen = await waitFor(() => refusal(c.records)[0], 15_000, 'c refuses a');
    expect(seen).toMatchObject({ peer: a.t.id, genesisHash: bytesToHex(four.hash), peerGenesisHash: bytesToHex(six.hash) });

    await waitFor(() => (!a.t.peers().includes(c.t.id) && a.t.peers().includes(b.t.id)) || undefined, 10_000, 'c disconnected, b kept');
    // Not redialled (the bootstrap loop runs every 200 ms) and not logged again.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(a.t.peers()).not.toContain(c.t.id);
    expect(a.t.peers()).toContain(b.t.id);
    expect(refusal(a.records)).toHaveLength(1);
    expect(refusal(b.records)).toHaveLength(0);
  });
});

describe('a node refuses a peer of another genesis', () => {
  const nodes: Node[] = [];
  const dirs: { remove(): void }[] = [];
  afterAll(async () => {
    for (const n of nodes.reverse()) await n.stop();
    for (const d of dirs) d.remove();
  });

  async function follower(validators: number, bootstrap: string[]): Promise<{ node: Node; records: LogRecord[] }> {
    const dir = tempDir();
    dirs.push(dir);
    const { genesis, hash } = devnetGenesis(validators);
    const { log, records } = createMemoryLogger({ level: 'info' });
    const node = new Node(nodeConfig(dir.path, { genesis, genesisHash: hash, validatorKey: undefined, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap } }), log);
    await node.start();
    nodes.push(node);
    return { node, records };
  }

  it('the p2p actor logs both genesis hashes and the remedy, and counts the refusal in its stats', async () => {
    const a = await follower(2, []);
    const info = a.node.p2pInfo()!;
    const addr = info.listen.find((l) => l.startsWith('/ip4/127.0.0.1/tcp/'))!;
    const b = await follower(3, [addr.includes('/p2p/') ? addr : `${addr}/p2p/${info.peerId}`]);
    const warned = await waitFor(() => a.records.find((r) => r.level === LOG_LEVEL.warn && r.code === 'WRONG_GENESIS'), 15_000, "a's refusal of b");
    expect(warned).toMatchObject({
      msg: 'peer refused: it runs another genesis than this node (genesis hashes differ); disconnected',
      peer: b.node.p2pInfo()!.peerId,
      genesisHash: bytesToHex(devnetGenesis(2).hash),
      peerGenesisHash: bytesToHex(devnetGenesis(3).hash),
      remedy: GENESIS_MISMATCH_REMEDY,
    });
    const seen = await waitFor(() => b.records.find((r) => r.level === LOG_LEVEL.warn && r.code === 'WRONG_GENESIS'), 15_000, "b's refusal of a");
    expect(seen).toMatchObject({ peer: info.peerId, genesisHash: bytesToHex(devnetGenesis(3).hash), peerGenesisHash: bytesToHex(devnetGenesis(2).hash) });
    await waitFor(() => (a.node.p2pInfo()!.peers.length === 0 && b.node.p2pInfo()!.peers.length === 0) || undefined, 10_000, 'disconnected');
    expect((a.node.p2pInfo()!.stats as { identity: { refused: Record<string, number> } }).identity.refused.WRONG_GENESIS).toBeGreaterThanOrEqual(1);
  });
});
