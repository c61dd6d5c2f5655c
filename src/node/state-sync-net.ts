/**
 * State sync's network on a node (decision 140): a libp2p transport of the node's own
 * identity and listen address, up only while the empty store is filled, before the
 * chain opens and the p2p actor starts its own (the actor needs an open chain: its
 * hello check reads the chain state). It dials the bootstrap peers, answers the identity
 * exchange (actors/p2p/peer-identity.ts) and takes validators' hellos (src/net/hello.ts):
 * a verified hello names the validator a peer speaks for, whether or not the genesis
 * knows it (the power that counts is that of the set signing the snapshot height,
 * src/chain/state-sync.ts), and the genesis validators' peer ids follow from their keys.
 * It asks; to others it offers nothing (it has nothing yet).
 */
import { decodeSyncResponse, encodeSyncRequest, syncProtocol } from '../chain/sync';
import { decodeAnswer, decodeSnapshotRequest, encodeOffersAnswer, encodeSnapshotRequest, failAnswer, snapshotProtocol, SnapshotRequestKind, SnapshotStatus, type SnapshotRequest } from '../chain/state-sync-wire';
import { verifyHello } from '../net/hello';
import { Libp2pTransport, peerIdOfPublicKey } from '../net/libp2p';
import { TOPICS, type GossipHandlers } from '../net/transport';
import { PeerIdentityCheck } from '../../actors/p2p/peer-identity';
import { encodeHelloAnswer, helloProtocol } from '../../actors/p2p/validator-peers';
import { hexToBytes, type Address } from '../util/bytes';
import type { Logger } from '../util/log';
import type { NodeConfig } from '../config/node-config';
import type { StateSyncNet } from './state-sync-join';

/** Gossip is not followed while the store fills: every topic's message is ignored. */
const IGNORE_ALL = Object.fromEntries(TOPICS.map((t) => [t, () => undefined])) as unknown as GossipHandlers;

export class Libp2pStateSyncNet implements StateSyncNet {
  private readonly addresses = new Map<string, Address>();
  private constructor(
    private readonly t: Libp2pTransport,
    private readonly chainId: number,
    private readonly maxBlockBytes: number,
  ) {}

  static async start(config: NodeConfig, log: Logger): Promise<Libp2pStateSyncNet> {
    const p2p = config.p2p;
    if (p2p === undefined) throw new Error('state sync needs config.p2p');
    const { chainId } = config.genesis;
    const t = new Libp2pTransport({
      chainId,
      peerKey: p2p.peerKey,
      privateKey: p2p.peerKey === undefined ? config.validatorKey : undefined,
      listen: p2p.listen,
      bootstrap: p2p.bootstrap,
      log,
      subscribe: [],
    });
    const net = new Libp2pStateSyncNet(t, chainId, config.genesis.consensus.maxBlockBytes);
    for (const v of config.genesis.validators) net.addresses.set(await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey)), v.address);
    const identity = new PeerIdentityCheck({ network: config.genesis.network, chainId, genesisHash: config.genesisHash }, t, log);
    await t.start(IGNORE_ALL);
    await identity.serve();
    await t.handle(helloProtocol(chainId), async (data, from) => {
      // Any signed hello binds its peer here: the power counted is the snapshot height's set's.
      const verdict = verifyHello(data, { chainId, from, isValidator: () => true });
      if (verdict.ok) net.addresses.set(from, verdict.address);
      return encodeHelloAnswer(verdict);
    });
    // A node joining beside others (a new network's validators all start empty) tells them
    // at once that it has nothing: they need not wait for it.
    await t.handle(snapshotProtocol(chainId), async (data) =>
      decodeSnapshotRequest(data).kind === SnapshotRequestKind.Offers
        ? encodeOffersAnswer({ base: 0, head: 0, snapshots: [] })
        : failAnswer(SnapshotStatus.NotFound, 'this node is joining: it has no snapshots yet'),
    );
    return net;
  }

  peers(): string[] {
    return this.t.peers();
  }

  addressOf(peer: string): Address | undefined {
    return this.addresses.get(peer);
  }

  async ask(peer: string, req: SnapshotRequest, timeoutMs: number): Promise<Uint8Array> {
    return decodeAnswer(req.kind, await this.t.request(peer, snapshotProtocol(this.chainId), encodeSnapshotRequest(req), timeoutMs));
  }

  async block(peer: string, height: number, timeoutMs: number) {
    const answer = decodeSyncResponse(await this.t.request(peer, syncProtocol(this.chainId), encodeSyncRequest({ fromHeight: height, maxBlocks: 1 }), timeoutMs), this.maxBlockBytes);
    const first = answer.blocks[0];
    return first === undefined || first.block.header.height !== height ? undefined : { block: first.block, commit: first.commit };
  }

  async stop(): Promise<void> {
    await this.t.stop();
  }
}
