/**
 * The p2p concern: one libp2p transport per node (TCP, noise, yamux, gossipsub), its
 * identity the validator's secp256k1 key. It turns what arrives into mailbox messages
 * for the mempool and consensus actors, and what they send into gossip, direct
 * messages or block-sync requests. Handlers decide the gossip verdict: undecodable
 * data is rejected (its sender is penalized), useless data ignored.
 *
 * Protocols besides the topics:
 *   /exchange/<chainId>/consensus/1  one consensus message to one validator (answers to a status)
 *   /exchange/<chainId>/sync/1       block sync (src/chain/sync.ts)
 */
import { Reader, Writer } from '../../src/codec/binary';
import { decodeSyncRequest, decodeSyncResponse, encodeSyncRequest, serveSync, SYNC_MAX_BLOCKS, syncProtocol, type SyncResponse } from '../../src/chain/sync';
import { decodeEvidence } from '../../src/consensus/evidence';
import { decodeMessage, type ConsensusMessage } from '../../src/consensus/messages';
import { Libp2pTransport, peerIdOfPublicKey } from '../../src/net/libp2p';
import { GossipError, Topic, type GossipHandlers } from '../../src/net/transport';
import type { NodeContext } from '../../src/node/context';
import type { Address } from '../../src/util/bytes';
import { hexToBytes } from '../../src/util/bytes';
import type { ActorBehavior, Reply } from '../actor';
import type { GossipTally } from '../mempool/mempool-actor';

export type P2PMsg =
  /** A transaction this node admitted: batched and gossiped to every validator's mempool. */
  | { type: 'gossipTx'; bytes: Uint8Array }
  | { type: 'flushTxs' }
  | { type: 'publish'; topic: Topic; data: Uint8Array }
  /** One consensus message to one validator. */
  | { type: 'direct'; to: Address; data: Uint8Array }
  /** Committed blocks after `fromHeight` from some peer; null when no peer had any. */
  | { type: 'sync'; fromHeight: number; reply: Reply<SyncResponse | null> };

export interface P2PHolder {
  transport?: Libp2pTransport;
}

const MAX_TX_BATCH_BYTES = 1 << 20;
const MAX_TX_BATCH = 4_096;
const SYNC_TIMEOUT_MS = 10_000;

export function consensusProtocol(chainId: number): string {
  return `/exchange/${chainId}/consensus/1`;
}

/** A gossip message of transactions: u32 n | n × bytes. */
export function encodeTxBatch(txs: Uint8Array[]): Uint8Array {
  const w = new Writer(txs.reduce((n, t) => n + t.length + 4, 8)).u32(txs.length);
  for (const t of txs) w.bytes(t);
  return w.finish();
}

export function decodeTxBatch(bytes: Uint8Array, maxTxBytes: number): Uint8Array[] {
  const r = new Reader(bytes, MAX_TX_BATCH_BYTES);
  const n = r.u32();
  if (n > MAX_TX_BATCH) throw new Error(`batch of ${n} transactions`);
  const txs: Uint8Array[] = [];
  for (let i = 0; i < n; i++) txs.push(r.bytes(maxTxBytes));
  r.end();
  return txs;
}

export function p2pBehavior(node: () => NodeContext, holder: P2PHolder, self: () => { send(m: P2PMsg): boolean }): ActorBehavior<P2PMsg> {
  let transport: Libp2pTransport | undefined;
  const peerOf = new Map<Address, string>();
  const addressOf = new Map<string, Address>();
  let pendingTxs: Uint8Array[] = [];
  let pendingBytes = 0;
  let flushScheduled = false;

  const toConsensus = (message: ConsensusMessage, from: string) => {
    node().actors.consensus?.send({ type: 'message', message, from: addressOf.get(from) });
  };

  const decodeConsensus = (data: Uint8Array): ConsensusMessage => {
    try {
      return decodeMessage(data, { maxBlockBytes: node().config.genesis.consensus.maxBlockBytes });
    } catch (err) {
      throw new GossipError('reject', 'MALFORMED', (err as Error).message);
    }
  };

  const handlers: GossipHandlers = {
    [Topic.Txs]: async (data) => {
      let txs: Uint8Array[];
      try {
        txs = decodeTxBatch(data, node().config.genesis.consensus.maxTxBytes);
      } catch (err) {
        throw new GossipError('reject', 'MALFORMED', (err as Error).message);
      }
      const tally = await node().actors.mempool.ask<GossipTally>((reply) => ({ type: 'submitGossip', txs, reply }));
      // Forward only what was new here; refusals that depend on state are nobody's fault.
      if (tally.added === 0) throw new GossipError('ignore', 'NOTHING_NEW');
    },
    [Topic.Proposals]: (data, from) => {
      const m = decodeConsensus(data);
      if (m.kind !== 'proposal') throw new GossipError('reject', 'WRONG_TOPIC');
      toConsensus(m, from);
    },
    [Topic.Votes]: (data, from) => {
      const m = decodeConsensus(data);
      if (m.kind === 'proposal') throw new GossipError('reject', 'WRONG_TOPIC');
      toConsensus(m, from);
    },
    [Topic.Evidence]: (data) => {
      let evidence;
      try {
        evidence = decodeEvidence(data);
      } catch (err) {
        throw new GossipError('reject', 'MALFORMED', (err as Error).message);
      }
      node().actors.consensus?.send({ type: 'evidence', evidence, gossiped: true });
    },
    // Oracle observations travel as transactions (src/state/ops/oracle.ts); the topic is reserved.
    [Topic.Oracle]: () => {
      throw new GossipError('ignore', 'UNUSED_TOPIC');
    },
  };

  const flush = () => {
    flushScheduled = false;
    if (pendingTxs.length === 0 || !transport) return;
    const data = encodeTxBatch(pendingTxs);
    pendingTxs = [];
    pendingBytes = 0;
    void transport.publish(Topic.Txs, data).catch((err) => node().log.debug({ err }, 'tx gossip failed'));
  };

  const sync = async (fromHeight: number): Promise<SyncResponse | null> => {
    const t = transport!;
    const { genesis } = node().config;
    const peers = t.peers().filter((p) => addressOf.has(p));
    // Start with a different peer each time, so one slow or lying peer cannot stall us.
    const start = peers.length === 0 ? 0 : fromHeight % peers.length;
    for (let i = 0; i < peers.length; i++) {
      const peer = peers[(start + i) % peers.length];
      try {
        const answer = await t.request(peer, syncProtocol(genesis.chainId), encodeSyncRequest({ fromHeight, maxBlocks: SYNC_MAX_BLOCKS }), SYNC_TIMEOUT_MS);
        const res = decodeSyncResponse(answer, genesis.consensus.maxBlockBytes);
        if (res.blocks.length > 0) return res;
      } catch (err) {
        node().log.warn({ err: (err as Error).message, peer }, 'sync request failed');
      }
    }
    return null;
  };

  return {
    async start() {
      const n = node();
      const { config } = n;
      if (!config.p2p || !config.validatorKey) throw new Error('the p2p actor needs config.p2p and a node key');
      for (const v of config.genesis.validators) {
        const peer = await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey));
        peerOf.set(v.address, peer);
        addressOf.set(peer, v.address);
      }
      transport = new Libp2pTransport({
        chainId: config.genesis.chainId,
        privateKey: config.validatorKey,
        listen: config.p2p.listen,
        bootstrap: config.p2p.bootstrap,
        log: n.log,
        maxMessageBytes: config.genesis.consensus.maxBlockBytes + 64 * 1024,
      });
      await transport.start(handlers);
      await transport.handleDirect(consensusProtocol(config.genesis.chainId), (data, from) => toConsensus(decodeConsensus(data), from));
      await transport.handle(syncProtocol(config.genesis.chainId), async (data) => {
        const chain = node().chain();
        return serveSync(chain.store, chain.height, decodeSyncRequest(data));
      });
      holder.transport = transport;
    },
    handle(msg) {
      const t = transport!;
      switch (msg.type) {
        case 'gossipTx':
          pendingTxs.push(msg.bytes);
          pendingBytes += msg.bytes.length + 4;
          if (pendingTxs.length >= MAX_TX_BATCH || pendingBytes >= MAX_TX_BATCH_BYTES - 65_536) flush();
          else if (!flushScheduled) {
            flushScheduled = true;
            setImmediate(() => self().send({ type: 'flushTxs' }));
          }
          return;
        case 'flushTxs':
          flush();
          return;
        case 'publish':
          void t.publish(msg.topic, msg.data).catch((err) => node().log.debug({ err, topic: msg.topic }, 'publish failed'));
          return;
        case 'direct': {
          const peer = peerOf.get(msg.to);
          if (peer === undefined || peer === t.id) return;
          t.sendDirect(peer, consensusProtocol(node().config.genesis.chainId), msg.data);
          return;
        }
        case 'sync':
          // Not awaited: the mailbox keeps flowing while the peer answers.
          sync(msg.fromHeight).then(msg.reply.resolve, msg.reply.reject);
          return;
      }
    },
    async stop() {
      holder.transport = undefined;
      const t = transport;
      transport = undefined;
      await t?.stop();
    },
  };
}
