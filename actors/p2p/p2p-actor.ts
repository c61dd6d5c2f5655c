/**
 * The p2p concern: one libp2p transport per node (TCP, noise, yamux, gossipsub), on every
 * node of a p2p network, validator or not. Its identity: the key file's peer key for a
 * node started with --home, else (the devnet) the validator's secp256k1 key, else a fresh
 * key. Which peer speaks for which validator: validator-peers.ts (genesis-derived peer ids
 * and signed hellos, decision 71). It turns what arrives into mailbox messages
 * for the mempool and consensus actors, and what they send into gossip, direct
 * messages or block-sync requests. Handlers decide the gossip verdict: undecodable
 * data is rejected (its sender is penalized), useless data ignored.
 *
 * Between validators, consensus messages and transactions go point to point, as
 * CometBFT's reactors send them: one long-lived stream per peer, and everything for a
 * peer in one event-loop turn (votes, a proposal, the batch of transactions this node
 * admitted) leaves as one bundle: one length-prefixed frame, one yamux frame, one noise
 * frame, one socket write. In the full mesh of a validator set that is the cheapest path
 * a message can take: gossipsub added message ids, a seen cache, event dispatch and an
 * RPC envelope to every message, about a tenth of a validator's CPU at idle and more
 * under load. Between two validators the bundles take their consensus session when it is
 * up (session-link.ts, src/net/session.ts, decision 178: one Noise-encrypted TCP connection
 * per pair, a frame per bundle, no yamux or libp2p streams), the direct stream otherwise.
 * The gossipsub topics for transactions, proposals and votes carry the same
 * data to whoever subscribes to them (full nodes); genesis validators do not subscribe,
 * and a validator publishes there only when somebody has; full nodes relay them through
 * gossipsub's mesh, with the certificates every node publishes when it decides; one
 * behind asks a peer for the certificates it missed (catch-up.ts, decision 185). A consensus message goes to
 * each validator peer once per connection and second (sent-ledger.ts, decision 117): a
 * re-broadcast or status answer repeating what the peer was just sent stays here. The direct protocol is taken
 * from validators' peers only; a node that is not a genesis validator (a full node, a
 * validator that joined later) sends the transactions it admitted (the writes posted to
 * it) to the validators on the relay protocol, which takes batches from any peer (the
 * mempool verifies every transaction).
 *
 * Protocols besides the topics:
 *   /exchange/<chainId>/direct/1  bundles to one validator: items tagged DirectItem
 *                                 (consensus message | transaction batch)
 *   /exchange/<chainId>/session/1 where this validator's consensus session listens (session-link.ts)
 *   /exchange/<chainId>/relay/1   transaction batches from any node to a validator
 *   /exchange/<chainId>/hello/1   a validator's signed hello (validator-peers.ts)
 *   /exchange/<chainId>/sync/2    block sync (src/chain/sync.ts); a request for zero blocks
 *                                 is the heads probe of peer-heights.ts
 *   /exchange/<chainId>/snapshot/1  state sync (decision 140): this node's snapshots, their
 *                                 manifests and chunks, and light proofs (snapshot-serve.ts)
 *   /exchange/<chainId>/pex/1     peer exchange (discovery.ts, src/net/pex.ts, decision 184)
 *   /exchange/<chainId>/catch-up/1  a committed height's certificate, for a full node behind (catch-up.ts)
 *   /exchange/identity/1          network, chain id and genesis hash, asked of every peer
 *                                 that connects; a peer of another genesis is refused and
 *                                 disconnected (peer-identity.ts, src/net/identity.ts)
 */
import { Reader, Writer } from '../../src/codec/binary';
import { askPeersInTurn, decodeSyncRequest, decodeSyncResponse, encodeSyncRequest, serveSync, SYNC_MAX_BLOCKS, syncProtocol, type SyncAttempt } from '../../src/chain/sync';
import { decodeEvidence } from '../../src/consensus/evidence';
import { decodeMessage, encodeMessage, messageHeight, type Certificate, type ConsensusMessage } from '../../src/consensus/messages';
import { PeerTable } from '../../src/net/peer-table';
import { CATCH_UP_ASK_AGAIN_MS, CATCH_UP_CHECK_MS, CATCH_UP_TIMEOUT_MS, CatchUpAsker, catchUpProtocol, CatchUpServer, decodeCatchUpRequest, encodeCatchUpRequest } from './catch-up';
import { Discovery, validatorEndpoints } from './discovery';
import { encodeHello, signHello } from '../../src/net/hello';
import { Libp2pTransport, peerIdOfKey, peerIdOfPublicKey } from '../../src/net/libp2p';
import { GossipError, Topic, type GossipHandlers } from '../../src/net/transport';
import type { NodeConfig } from '../../src/config/node-config';
import type { Chain } from '../../src/chain/chain';
import type { Logger } from '../../src/util/log';
import { privateKeyToAddress } from '../../src/crypto/secp256k1';
import { validatorRecord } from '../../src/state/validators/records';
import type { Address } from '../../src/util/bytes';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import type { ActorBehavior, ActorRef, Reply } from '../actor';
import type { ConsensusMsg } from '../consensus/messages';
import { BUNDLE_ITEMS_MAX, bundleBytesMax, TX_BATCH_BYTES_MAX, TX_BATCH_HEADROOM_BYTES } from '../limits';
import { CONSENSUS_MESSAGE_OVERHEAD_BYTES } from '../../src/consensus/limits';
import type { GossipTally, MempoolMsg } from '../mempool/messages';
import type { P2PMsg } from './messages';
import { PeerHeights, probePeerHeights } from './peer-heights';
import { PeerIdentityCheck } from './peer-identity';
import { SentLedger } from './sent-ledger';
import { SERVE_STATS, serveSnapshotRequest, servedChain, type ServeStats } from './snapshot-serve';
import { snapshotProtocol, type SnapshotSource } from '../../src/chain/state-sync-wire';
import { encodeHelloAnswer, HELLO_TIMEOUT_MS, HelloSender, helloProtocol, ValidatorPeers } from './validator-peers';
import { sessionListen, startSessionLink } from './session-link';
import type { SessionNet } from '../../src/net/session';

export interface P2PHolder {
  transport?: Libp2pTransport;
  /** The peer table discovery keeps (GET /v1/network/peers shows it). */
  table?: PeerTable;
  /** Connected peers' heads as last probed (peer-heights.ts). */
  heights?: PeerHeights;
}

/** The bounds of actors/limits.ts, under the names this file has always used. */
const MAX_TX_BATCH_BYTES = TX_BATCH_BYTES_MAX;
const MAX_BUNDLE_ITEMS = BUNDLE_ITEMS_MAX;
/** Heights ahead of the head whose certificates are remembered (past it, every one is taken). */
const CERTIFICATE_HEIGHTS_KEPT_MAX = 64;
/** Distinct blocks per height whose certificates are taken from the mesh. */
const CERTIFIED_BLOCKS_PER_HEIGHT_MAX = 3;
/** Distinct hello refusals (peer and reason) logged at most. */
const HELLO_REFUSALS_LOGGED_MAX = 256;

export function directProtocol(chainId: number): string {
  return `/exchange/${chainId}/direct/1`;
}

/** Transaction batches (encodeTxBatch) from any node to a validator, one long-lived stream per peer. */
export function relayProtocol(chainId: number): string {
  return `/exchange/${chainId}/relay/1`;
}

/** What an item of a direct bundle carries: its first byte. */
export enum DirectItem {
  /** A consensus message (src/consensus/messages.ts). */
  Consensus = 1,
  /** A batch of transactions the sender admitted (encodeTxBatch). */
  Txs = 2,
}

/**
 * What a validator with the devnet fault `--stall-sync` answers block sync with: nothing,
 * ever. The asker's timeout resets the stream; the handler's await is left pending (a
 * few hundred bytes per request, on a faulty devnet node only).
 */
const stalled = new Promise<Uint8Array>(() => {});

/** Transactions from a validator's bundle: the mempool tallies them; nobody waits for the answer. */
const IGNORED_REPLY: Reply<GossipTally> = { resolve: () => {}, reject: () => {} };

function tagged(kind: DirectItem, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + 1);
  out[0] = kind;
  out.set(data, 1);
  return out;
}

/** Several messages as one: u32 n | n × (u32 length | bytes). Transaction gossip and consensus bundles. */
export function encodeBundle(items: Uint8Array[]): Uint8Array {
  const w = new Writer(items.reduce((n, t) => n + t.length + 4, 8)).u32(items.length);
  for (const t of items) w.bytes(t);
  return w.finish();
}

export function decodeBundle(bytes: Uint8Array, maxItemBytes: number, maxBytes: number): Uint8Array[] {
  if (bytes.length > maxBytes) throw new Error(`bundle of ${bytes.length} bytes, over ${maxBytes}`);
  const r = new Reader(bytes, maxItemBytes);
  const n = r.u32();
  if (n > MAX_BUNDLE_ITEMS) throw new Error(`bundle of ${n} messages`);
  const items: Uint8Array[] = [];
  for (let i = 0; i < n; i++) items.push(r.bytes(maxItemBytes));
  r.end();
  return items;
}

/** A gossip message of transactions. */
export const encodeTxBatch = encodeBundle;

export function decodeTxBatch(bytes: Uint8Array, maxTxBytes: number): Uint8Array[] {
  return decodeBundle(bytes, maxTxBytes, MAX_TX_BATCH_BYTES);
}

/** What the p2p actor uses of the node (built by src/node/node.ts). */
export interface P2PDeps {
  /** Where to listen and whom to dial, its key, genesis (chain id, validators, limits) and the devnet's fault harness. */
  config: Pick<NodeConfig, 'p2p' | 'genesis' | 'genesisHash' | 'validatorKey' | 'byzantine'>;
  log: Logger;
  /** The executed chain, read-only: blocks it serves to syncing peers, validators it binds hellos to. */
  chain: () => Chain;
  /** The node's state snapshots, served to peers that join by state sync (decision 136); undefined before the node opened them. */
  snapshots: () => SnapshotSource | undefined;
  /** Where what arrives goes: consensus messages and evidence, transactions. */
  actors: { consensus?: ActorRef<ConsensusMsg>; mempool: ActorRef<MempoolMsg> };
}

export function p2pBehavior(deps: P2PDeps, holder: P2PHolder, self: () => { send(m: P2PMsg): boolean }): ActorBehavior<P2PMsg> {
  let transport: Libp2pTransport | undefined;
  /** A validator's consensus sessions with its validator peers (session-link.ts); undefined on other nodes. */
  let sessions: SessionNet | undefined;
  let helloSender: HelloSender | undefined;
  let identity: PeerIdentityCheck | undefined;
  /** Our hello refusals already logged (peer and reason): a refusing peer is asked again every few seconds. */
  const helloRefusalsLogged = new Set<string>();
  let heightProbe: { stop(): void } | undefined;
  /** Connected peers' heads as last probed (peer-heights.ts): GET /v1/network/peers, and the order block sync asks full nodes in. */
  const heights = new PeerHeights();
  let discovery: Discovery | undefined;
  /** Created with the transport's id; scores read before that are 0. */
  let table: PeerTable | undefined;
  /** Peer ids of validators' secp256k1 keys (peerIdOfPublicKey decompresses a point: once per key). */
  const peerIdOfKeyCache = new Map<string, string>();
  /** Not a genesis validator: its transactions go to the validators on the relay protocol. */
  let relayTxs = false;
  const validatorPeers = new ValidatorPeers();
  /** Transactions admitted this turn, sent as one batch. */
  let pendingTxs: Uint8Array[] = [];
  let pendingBytes = 0;
  /** Tagged items (consensus messages, transaction batches) per peer id, sent as one bundle per peer at the end of the turn. */
  const pendingDirect = new Map<string, Uint8Array[]>();
  let flushScheduled = false;
  const directStats = { bundlesSent: 0, itemsSent: 0, bundlesReceived: 0, consensusReceived: 0, txBatchesReceived: 0, malformed: 0, fromNonValidators: 0, resendsSuppressed: 0, bundlesSentOverSession: 0, bundlesReceivedOverSession: 0 };
  /** Consensus messages each validator peer was sent on its current connection (decision 117). */
  const sent = new SentLedger();
  /** False when `peer` was sent the message of `key` within the resend window: it has it already. */
  const firstCopy = (peer: string, key: string | undefined): boolean => {
    if (key === undefined || sent.shouldSend(peer, key, performance.now())) return true;
    directStats.resendsSuppressed++;
    return false;
  };
  const relayStats = { batchesSent: 0, batchesReceived: 0, malformed: 0 };
  /** Requests of state-sync peers this node answered (snapshot-serve.ts). */
  let snapshotStats: ServeStats | undefined;

  /** Validators that may take part in consensus now or soon: their peers are bound by a hello (decision 71). */
  const isValidator = (address: Address): boolean => {
    const status = validatorRecord(deps.chain().state, address)?.status;
    return status === 'registered' || status === 'active' || status === 'jailed';
  };

  const maxConsensusBytes = () => deps.config.genesis.consensus.maxBlockBytes + CONSENSUS_MESSAGE_OVERHEAD_BYTES;

  /** Into the consensus actor's lane for the message's kind (actors/consensus/inbox.ts): a full lane drops by its own policy and counts it. */
  const toConsensus = (message: ConsensusMessage, from: string) => toConsensusFrom(message, validatorPeers.address(from));
  const toConsensusFrom = (message: ConsensusMessage, from: Address | undefined) => {
    deps.actors.consensus?.send({ type: 'message', message, from });
  };

  const decodeConsensus = (data: Uint8Array): ConsensusMessage => {
    try {
      return decodeMessage(data, { maxBlockBytes: deps.config.genesis.consensus.maxBlockBytes });
    } catch (err) {
      throw new GossipError('reject', 'MALFORMED', (err as Error).message);
    }
  };

  /**
   * Whether the mesh relays a consensus message this node took (decision 185): what is
   * for a height this node already committed helps nobody who follows the mesh (a node
   * that far behind fills the gap by block sync), and a status speaks for its sender
   * only; both are handed to consensus all the same and stop here (IGNORE: no penalty).
   */
  const relayVerdict = (m: ConsensusMessage): void => {
    if (m.kind === 'status') throw new GossipError('ignore', 'NOT_RELAYED');
    if (messageHeight(m) <= deps.chain().height) throw new GossipError('ignore', 'STALE');
  };

  /**
   * Certificates taken from the mesh, by height, and the blocks they certify: each
   * validator publishes its own (their signature sets differ, so gossipsub does not
   * deduplicate them), and one per block is all consensus needs. The rest are neither
   * handed on nor relayed: they would fill the consensus actor's certificate lane and
   * the peers' (a lane that drops the newest drops the certificate a node needs next).
   * A few blocks per height are taken, not one: a forged certificate taken first must
   * not shut out the real one. The same block's is taken again after
   * CATCH_UP_ASK_AGAIN_MS: the first copy may have been dropped on the way to consensus,
   * and a catch-up answer (catch-up.ts) sends it again.
   */
  const certificatesTaken = new Map<number, Map<string, number>>();
  const firstCertificate = (c: Certificate): boolean => {
    const head = deps.chain().height;
    if (c.height <= head) return false;
    for (const h of certificatesTaken.keys()) if (h <= head) certificatesTaken.delete(h);
    if (!certificatesTaken.has(c.height) && certificatesTaken.size >= CERTIFICATE_HEIGHTS_KEPT_MAX) return true;
    const blocks = certificatesTaken.get(c.height) ?? new Map<string, number>();
    const key = bytesToHex(c.commit.blockHash);
    const now = Date.now();
    const at = blocks.get(key);
    if (at !== undefined ? now - at < CATCH_UP_ASK_AGAIN_MS : blocks.size >= CERTIFIED_BLOCKS_PER_HEIGHT_MAX) return false;
    blocks.set(key, now);
    certificatesTaken.set(c.height, blocks);
    return true;
  };

  /** Certificates of committed heights for nodes that follow the mesh and fell behind (catch-up.ts). */
  const catchUp = new CatchUpServer();
  let catchUpTimer: NodeJS.Timeout | undefined;
  let asker: CatchUpAsker | undefined;
  let asking = false;

  /** Asks the peer furthest ahead for the certificate of this node's next height, when due, and hands it to consensus. */
  const askCatchUp = async (t: Libp2pTransport, a: CatchUpAsker): Promise<void> => {
    if (asking) return;
    const head = deps.chain().height;
    let best: string | undefined;
    let bestHeight = head;
    for (const p of t.peers()) {
      const h = heights.get(p)?.height ?? 0;
      if (h > bestHeight) [best, bestHeight] = [p, h];
    }
    const next = a.due(head, best !== undefined, Date.now());
    if (next === undefined || best === undefined) return;
    asking = true;
    try {
      const answer = await t.request(best, catchUpProtocol(deps.config.genesis.chainId), encodeCatchUpRequest(next), CATCH_UP_TIMEOUT_MS);
      if (answer.length === 0) {
        a.stats.empty++;
        return;
      }
      const m = decodeMessage(answer, { maxBlockBytes: deps.config.genesis.consensus.maxBlockBytes });
      if (m.kind !== 'certificate' || m.certificate.height !== next) throw new Error(`catch-up answer for ${next} is a ${m.kind}`);
      a.stats.applied++;
      toConsensus(m, best);
    } catch (err) {
      a.stats.failed++;
      deps.log.debug({ err: (err as Error).message, peer: best, height: next }, 'catch-up: no certificate from the peer');
    } finally {
      asking = false;
    }
  };

  const handlers: GossipHandlers = {
    [Topic.Txs]: async (data) => {
      let txs: Uint8Array[];
      try {
        txs = decodeTxBatch(data, deps.config.genesis.consensus.maxTxBytes);
      } catch (err) {
        throw new GossipError('reject', 'MALFORMED', (err as Error).message);
      }
      const tally = await deps.actors.mempool.ask<GossipTally>((reply) => ({ type: 'submitGossip', txs, reply }));
      // Forward only what was new here; refusals that depend on state are nobody's fault.
      if (tally.added === 0) throw new GossipError('ignore', 'NOTHING_NEW');
    },
    [Topic.Proposals]: (data, from) => {
      const m = decodeConsensus(data);
      if (m.kind !== 'proposal') throw new GossipError('reject', 'WRONG_TOPIC');
      toConsensus(m, from);
      relayVerdict(m);
    },
    [Topic.Votes]: (data, from) => {
      const m = decodeConsensus(data);
      if (m.kind === 'proposal') throw new GossipError('reject', 'WRONG_TOPIC');
      if (m.kind === 'certificate' && !firstCertificate(m.certificate)) throw new GossipError('ignore', 'CERTIFICATE_HELD');
      toConsensus(m, from);
      relayVerdict(m);
    },
    [Topic.Evidence]: (data) => {
      let evidence;
      try {
        evidence = decodeEvidence(data);
      } catch (err) {
        throw new GossipError('reject', 'MALFORMED', (err as Error).message);
      }
      deps.actors.consensus?.send({ type: 'evidence', evidence, gossiped: true });
    },
    // Oracle observations travel as transactions (src/state/ops/oracle-observation.ts); the topic is reserved.
    [Topic.Oracle]: () => {
      throw new GossipError('ignore', 'UNUSED_TOPIC');
    },
  };

  const scheduleFlush = () => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(() => self().send({ type: 'flush' }));
  };

  const queueDirect = (peer: string, item: Uint8Array) => {
    const q = pendingDirect.get(peer);
    if (q === undefined) pendingDirect.set(peer, [item]);
    else q.push(item);
    scheduleFlush();
  };

  /** The gossip topic's copy, for full nodes; validators do not subscribe, so usually nobody. */
  const publishToSubscribers = (topic: Topic, data: Uint8Array) => {
    const t = transport!;
    if (t.subscribers(topic) > 0) void t.publish(topic, data).catch((err) => deps.log.debug({ err, topic }, 'publish failed'));
  };

  /** To every connected validator (one that is not connected catches up from the status exchange, block sync, or the admitting validator's proposal). */
  const toValidators = (item: Uint8Array, key?: string) => {
    for (const peer of transport!.peers()) if (validatorPeers.isValidatorPeer(peer) && firstCopy(peer, key)) queueDirect(peer, item);
  };

  const flushTxs = () => {
    if (pendingTxs.length === 0 || !transport) return;
    const data = encodeTxBatch(pendingTxs);
    pendingTxs = [];
    pendingBytes = 0;
    // Validators get it point to point: from a genesis validator in the same bundle as
    // consensus messages, from any other node on the relay protocol. Full nodes
    // subscribed to the topic get it by gossip.
    if (relayTxs) {
      const t = transport;
      const protocol = relayProtocol(deps.config.genesis.chainId);
      for (const peer of t.peers()) {
        if (!validatorPeers.isValidatorPeer(peer)) continue;
        t.sendDirect(peer, protocol, data);
        relayStats.batchesSent++;
      }
    } else toValidators(tagged(DirectItem.Txs, data));
    publishToSubscribers(Topic.Txs, data);
  };

  const flush = () => {
    const t = transport;
    if (t) {
      flushTxs();
      const protocol = directProtocol(deps.config.genesis.chainId);
      for (const [peer, items] of pendingDirect) {
        const bundle = encodeBundle(items);
        // Over the peer's consensus session when one is up, else the libp2p direct stream.
        const address = sessions === undefined ? undefined : validatorPeers.address(peer);
        if (address !== undefined && sessions!.send(address, bundle)) directStats.bundlesSentOverSession++;
        else t.sendDirect(peer, protocol, bundle);
        directStats.bundlesSent++;
        directStats.itemsSent += items.length;
      }
    }
    pendingDirect.clear();
    flushScheduled = false;
  };

  const receiveBundle = (data: Uint8Array, from: string) => {
    // The direct protocol is between validators; anybody else follows the gossip topics
    // (and relays transactions on the relay protocol).
    const address = validatorPeers.address(from);
    if (address === undefined) {
      directStats.fromNonValidators++;
      return;
    }
    receiveDirect(data, address);
  };

  /** A bundle from the validator `from` (its peer bound, or its session's handshake proved it). */
  const receiveDirect = (data: Uint8Array, from: Address) => {
    let items: Uint8Array[];
    const max = maxConsensusBytes();
    try {
      items = decodeBundle(data, max, bundleBytesMax(max));
    } catch (err) {
      directStats.malformed++;
      deps.log.debug({ err: (err as Error).message, from }, 'malformed direct bundle');
      return;
    }
    directStats.bundlesReceived++;
    for (const item of items) {
      try {
        switch (item[0]) {
          case DirectItem.Consensus: {
            const m = decodeConsensus(item.subarray(1));
            directStats.consensusReceived++;
            toConsensusFrom(m, from);
            break;
          }
          case DirectItem.Txs: {
            const txs = decodeTxBatch(item.subarray(1), deps.config.genesis.consensus.maxTxBytes);
            directStats.txBatchesReceived++;
            deps.actors.mempool.send({ type: 'submitGossip', txs, reply: IGNORED_REPLY });
            break;
          }
          default:
            throw new Error(`unknown direct item ${item[0]}`);
        }
      } catch {
        directStats.malformed++;
      }
    }
  };

  /** Transactions relayed by any node (a full node's posted writes): the mempool verifies and admits them. */
  const receiveRelay = (data: Uint8Array) => {
    let txs: Uint8Array[];
    try {
      txs = decodeTxBatch(data, deps.config.genesis.consensus.maxTxBytes);
    } catch {
      relayStats.malformed++;
      return;
    }
    relayStats.batchesReceived++;
    deps.actors.mempool.send({ type: 'submitGossip', txs, reply: IGNORED_REPLY });
  };

  /**
   * Asks the connected peers (but `exclude`) in turn for the blocks from `fromHeight`:
   * only `only` when given (the peer whose probed head showed this node behind, a full
   * node too: issue 39); else validators first, then full nodes, the highest probed
   * head first (a node that follows through the mesh may be connected to full nodes
   * only, and one of them may itself be catching up: its head would pass for the
   * network's; every synced block proves itself by its commit, so who serves it does
   * not matter).
   */
  const sync = async (fromHeight: number, exclude: ReadonlySet<string> = new Set(), only?: string): Promise<SyncAttempt> => {
    const t = transport!;
    const { genesis } = deps.config;
    const connected = t.peers().filter((p) => (only === undefined || p === only) && !exclude.has(p));
    const probed = (p: string) => heights.get(p)?.height ?? -1;
    const fullNodes = connected.filter((p) => !validatorPeers.isValidatorPeer(p)).sort((a, b) => probed(b) - probed(a));
    const peers = [...connected.filter((p) => validatorPeers.isValidatorPeer(p)), ...fullNodes];
    const request = encodeSyncRequest({ fromHeight, maxBlocks: SYNC_MAX_BLOCKS });
    return askPeersInTurn(
      peers,
      fromHeight,
      async (peer, timeoutMs) => decodeSyncResponse(await t.request(peer, syncProtocol(genesis.chainId), request, timeoutMs), genesis.consensus.maxBlockBytes),
      {
        onFailure: (peer, err) =>
          deps.log.warn({ err: (err as Error).message, peer, fromHeight }, 'block sync: a peer did not answer in time; the next peer is asked (nothing to do unless no peer ever answers: then check the bootstrap peers and the network)'),
      },
    );
  };

  return {
    async start() {
      const { config } = deps;
      if (!config.p2p) throw new Error('the p2p actor needs config.p2p');
      const { chainId } = config.genesis;
      for (const v of config.genesis.validators) validatorPeers.bind(v.address, await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey)));
      const key = config.validatorKey;
      // A genesis validator takes consensus and transactions point to point (see the top of
      // this file); every other node (a full node, a validator that joined later) follows the
      // gossip topics too.
      const own = key === undefined ? undefined : privateKeyToAddress(key);
      const genesisValidator = own !== undefined && config.genesis.validators.some((v) => v.address === own);
      relayTxs = !genesisValidator;
      transport = new Libp2pTransport({
        chainId,
        peerKey: config.p2p.peerKey,
        privateKey: config.p2p.peerKey === undefined ? key : undefined,
        listen: config.p2p.listen,
        bootstrap: config.p2p.bootstrap,
        log: deps.log,
        maxMessageBytes: maxConsensusBytes(),
        subscribe: genesisValidator ? [Topic.Oracle, Topic.Evidence] : undefined,
        devnet: config.genesis.network === 'devnet',
        peerScore: (peer) => table?.score(peer) ?? 0,
        onReject: (peer, topic, code) => discovery?.penalize(peer, 'gossipReject', `${topic}: ${code}`),
        extraStats: () => ({ discovery: discovery === undefined ? undefined : { ...discovery.stats }, catchUp: { ...catchUp.stats, ...asker?.stats }, snapshots: snapshotStats === undefined ? undefined : { ...snapshotStats }, bundles: { ...directStats }, relay: { ...relayStats }, session: sessions?.stats(), hello: { ...validatorPeers.stats, hellosRefused: { ...validatorPeers.stats.hellosRefused } }, identity: identity === undefined ? undefined : { ...identity.stats, refused: { ...identity.stats.refused } } }),
        onPeerConnect: (peer) => {
          sent.forget(peer);
          discovery?.connected(peer);
          void identity?.connected(peer);
          helloSender?.greet(peer);
        },
        onPeerDisconnect: (peer) => {
          sent.forget(peer);
          discovery?.disconnected(peer);
          helloSender?.disconnected(peer);
        },
      });
      // Before the first dial completes its check: a peer of another genesis is refused on connect.
      identity = new PeerIdentityCheck({ network: config.genesis.network, chainId, genesisHash: config.genesisHash }, transport, deps.log, (peer, code, forMs) => discovery?.refused(peer, code, forMs));
      await transport.start(handlers);
      const t = transport;
      table = new PeerTable(t.id);
      discovery = new Discovery(t, {
        chainId,
        table,
        log: deps.log,
        bootstrap: config.p2p.bootstrap,
        isValidatorPeer: (peer) => validatorPeers.isValidatorPeer(peer),
        active: config.p2p.discovery !== false,
        dialsValidatorsOnly: () => own !== undefined && isValidator(own),
        validatorEndpoints: () => validatorEndpoints(deps.chain(), validatorPeers, peerIdOfKeyCache),
      });
      await identity.serve();
      for (const peer of t.peers()) void identity.connected(peer);
      await t.handleDirect(directProtocol(chainId), receiveBundle);
      await t.handleDirect(relayProtocol(chainId), receiveRelay);
      const listen = key === undefined ? undefined : sessionListen(config.p2p);
      if (key !== undefined && listen !== undefined) {
        sessions = await startSessionLink({
          chainId,
          validatorKey: key,
          listen,
          transport: t,
          validatorPeers,
          isValidator,
          log: deps.log,
          onFrame: (from, data) => {
            directStats.bundlesReceivedOverSession++;
            receiveDirect(data, from);
          },
          onChange: (address) => {
            const peer = validatorPeers.peer(address);
            if (peer !== undefined) sent.forget(peer);
          },
        });
      }
      await t.handle(syncProtocol(chainId), async (data) => {
        const chain = deps.chain();
        const served = await serveSync(chain.store, chain.height, decodeSyncRequest(data));
        // A devnet's fault harness (--faulty-sync, --stall-sync) may forge the answer or keep it.
        const harness = deps.config.byzantine?.serveSync;
        return harness === undefined ? served : (harness(served) ?? stalled);
      });
      const served = SERVE_STATS();
      snapshotStats = served;
      await t.handle(snapshotProtocol(chainId), async (data) => serveSnapshotRequest(data, deps.snapshots(), servedChain(deps.chain()), served));
      // Every node learns validators' peers from their hellos (a full node relays writes to them and syncs from them).
      await t.handle(helloProtocol(chainId), async (data, from) => encodeHelloAnswer(validatorPeers.receiveHello(data, from, chainId, isValidator)));
      // A validator whose peer id does not follow from its key proves which validator it is.
      if (key !== undefined && (await peerIdOfKey(key)) !== t.id) {
        helloSender = new HelloSender(
          encodeHello(signHello(key, chainId, t.id)),
          (peer, hello) => t.request(peer, helloProtocol(chainId), hello, HELLO_TIMEOUT_MS),
          () => t.peers(),
          validatorPeers.stats,
          (peer, reason) => {
            const seen = `${peer} ${reason}`;
            if (helloRefusalsLogged.has(seen) || helloRefusalsLogged.size >= HELLO_REFUSALS_LOGGED_MAX) return;
            helloRefusalsLogged.add(seen);
            deps.log.warn(
              { peer, reason, address: privateKeyToAddress(key) },
              reason.startsWith('NOT_A_VALIDATOR')
                ? "a peer refused this node's validator hello: its chain state has no such validator yet (register with `validator register`, or wait for the peer to sync); retried every few seconds"
                : "a peer refused this node's validator hello; it will not take this node's consensus messages. Retried every few seconds",
            );
          },
        );
        helloSender.start();
      }
      // Peers' heads, for GET /v1/network/peers (the onboarding service's synced check) and
      // block sync's order; one round now, so that the start's sync asks the peer furthest ahead.
      const probe = probePeerHeights(heights, t, chainId, config.genesis.consensus.maxBlockBytes);
      heightProbe = probe;
      await probe.round();
      await t.handle(catchUpProtocol(chainId), async (data) => {
        const chain = deps.chain();
        const c = await catchUp.answer(decodeCatchUpRequest(data), chain.height, chain.store);
        return c === undefined ? new Uint8Array(0) : encodeMessage({ kind: 'certificate', certificate: c });
      });
      // A node that follows the mesh asks for what it missed (catch-up.ts).
      if (!genesisValidator) {
        const a = new CatchUpAsker();
        asker = a;
        catchUpTimer = setInterval(() => void askCatchUp(t, a), CATCH_UP_CHECK_MS);
        catchUpTimer.unref();
      }
      holder.heights = heights;
      holder.transport = transport;
      holder.table = table;
      await discovery.start();
      void discovery.tick();
    },
    handle(msg) {
      const t = transport!;
      switch (msg.type) {
        case 'gossipTx':
          pendingTxs.push(msg.bytes);
          pendingBytes += msg.bytes.length + 4;
          if (pendingTxs.length >= MAX_BUNDLE_ITEMS || pendingBytes >= MAX_TX_BATCH_BYTES - TX_BATCH_HEADROOM_BYTES) flushTxs();
          scheduleFlush();
          return;
        case 'publish':
          void t.publish(msg.topic, msg.data).catch((err) => deps.log.debug({ err, topic: msg.topic }, 'publish failed'));
          return;
        case 'consensus': {
          toValidators(tagged(DirectItem.Consensus, msg.data), msg.key);
          publishToSubscribers(msg.topic, msg.data);
          return;
        }
        case 'direct': {
          const peer = validatorPeers.peer(msg.to);
          if (peer === undefined || peer === t.id || !firstCopy(peer, msg.key)) return;
          queueDirect(peer, tagged(DirectItem.Consensus, msg.data));
          return;
        }
        case 'certificate': {
          // It decided a height: a node catching up asks for the next at once, not at the next check.
          if (asker !== undefined) void askCatchUp(t, asker);
          // A block this node decided, with its commit, for the nodes following the mesh
          // (decision 185); not when it took and relayed one for this block already.
          const taken = certificatesTaken.get(msg.certificate.height);
          if (taken?.has(bytesToHex(msg.certificate.commit.blockHash))) return;
          publishToSubscribers(Topic.Votes, encodeMessage({ kind: 'certificate', certificate: msg.certificate }));
          return;
        }
        case 'flush':
          flush();
          return;
        case 'sync':
          // Not awaited: the mailbox keeps flowing while the peer answers.
          sync(msg.fromHeight, msg.exclude, msg.only).then(msg.reply.resolve, msg.reply.reject);
          return;
      }
    },
    async stop() {
      helloSender?.stop();
      helloSender = undefined;
      identity = undefined;
      heightProbe?.stop();
      heightProbe = undefined;
      clearInterval(catchUpTimer);
      discovery?.stop();
      discovery = undefined;
      holder.table = undefined;
      await sessions?.stop();
      sessions = undefined;
      holder.transport = undefined;
      holder.heights = undefined;
      const t = transport;
      transport = undefined;
      await t?.stop();
    },
  };
}
