/**
 * The libp2p transport: TCP with noise and yamux, gossipsub for the topics, and a
 * length-prefixed request-response protocol for block sync. The peer identity is, on the
 * devnet, the validator's secp256k1 key (contract [D-validators-keys]), so a peer id names a
 * validator; a node started from a key file (`start --home`) speaks from the file's Ed25519
 * peer key and proves its validator by a signed hello (src/net/hello.ts, decision 71); a
 * node with neither gets a fresh key. Bootstrap peers come from configuration and are
 * redialled until connected.
 */
import { gossipsub } from '@chainsafe/libp2p-gossipsub';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyFromRaw, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import { identify } from '@libp2p/identify';
import { peerIdFromString } from '@libp2p/peer-id';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import * as lp from 'it-length-prefixed';
import { pipe } from 'it-pipe';
import { pushable, type Pushable } from 'it-pushable';
import { createLibp2p } from 'libp2p';
import type { Logger } from '../util/log';
import { FrameDecoder, FrameError, frame } from './frames';
import { installYamuxWindowPolicy } from './yamux-window';
import { gossipScoring } from './gossip-params';
import { GossipError, TOPICS, Topic, type GossipHandlers, type RequestHandler, type Transport, type TransportStats } from './transport';
import { DIRECT_QUEUE_BYTES_MAX, GOSSIP_MESSAGE_BYTES_DEFAULT, NET_FRAME_BYTES_MAX } from './limits';

export interface Libp2pTransportOptions {
  chainId: number;
  /** The validator's 32-byte secp256k1 private key as the peer identity (the devnet's way); ignored when `peerKey` is given. */
  privateKey?: Uint8Array;
  /** A libp2p private key in libp2p's protobuf encoding (a key file's `peerPrivateKey`): the peer identity. Neither: a fresh Ed25519 key. */
  peerKey?: Uint8Array;
  /** Called when the first connection to a peer opens, and when its last one closes. */
  onPeerConnect?: (peer: string) => void;
  onPeerDisconnect?: (peer: string) => void;
  /** e.g. /ip4/127.0.0.1/tcp/9000 */
  listen: string[];
  /** Multiaddrs with /p2p/<peer id> of peers to keep connected to. */
  bootstrap: string[];
  log: Logger;
  /** Largest gossip message (a proposal carries a block). */
  maxMessageBytes?: number;
  redialMs?: number;
  /** Topics this node subscribes to (all by default); it can publish to any. */
  subscribe?: readonly Topic[];
  /** More counters for stats() (the owner's). */
  extraStats?: () => Record<string, unknown>;
  /** The peer table's score of a peer: gossipsub's application-specific score (decision 185). */
  peerScore?: (peer: string) => number;
  /** A gossip message from `peer` its topic's handler rejected (the peer table penalises it). */
  onReject?: (peer: string, topic: Topic, code: string) => void;
  /** The devnet: no IP colocation penalty in gossip scoring. */
  devnet?: boolean;
}

/** A direct-message queue to one peer and protocol, and its stream once dialled (to abort it). */
interface DirectOut {
  queue: Pushable<Uint8Array>;
  stream?: { abort(err: Error): void; status: string };
}

/** What this module uses of a libp2p node (typed locally: the packages' declarations disagree across versions). */
interface P2PNode {
  peerId: { toString(): string };
  getMultiaddrs(): { toString(): string }[];
  getPeers(): { toString(): string }[];
  getConnections(): { remotePeer: { toString(): string }; remoteAddr: { toString(): string } }[];
  dial(addr: unknown, opts?: { signal?: AbortSignal }): Promise<unknown>;
  hangUp(peer: unknown): Promise<void>;
  dialProtocol(peer: unknown, protocol: string, opts?: { signal?: AbortSignal }): Promise<any>;
  handle(protocol: string, handler: (data: { stream: any; connection: { remotePeer: { toString(): string } } }) => void | Promise<void>): Promise<void>;
  stop(): Promise<void>;
  /** Addresses identify learned of a peer (its own listen addresses); throws when it has none stored. */
  peerStore: { get(peer: unknown): Promise<{ addresses: { multiaddr: { toString(): string } }[] }> };
  addEventListener(event: 'peer:connect' | 'peer:disconnect', listener: (evt: { detail: { toString(): string } }) => void): void;
  services: {
    pubsub: {
      topicValidators: Map<string, (from: { toString(): string }, msg: { data: Uint8Array }) => Promise<unknown>>;
      subscribe(topic: string): void;
      publish(topic: string, data: Uint8Array): Promise<unknown>;
      getSubscribers(topic: string): unknown[];
    };
  };
}

/** gossipsub verdicts (TopicValidatorResult) */
const ACCEPT = 'accept';
const IGNORE = 'ignore';
const REJECT = 'reject';
/** The bounds of src/net/limits.ts, under the names this file has always used. */
const MAX_REQUEST_BYTES = NET_FRAME_BYTES_MAX;
const MAX_DIRECT_QUEUE_BYTES = DIRECT_QUEUE_BYTES_MAX;
/**
 * Bad bootstrap addresses already reported by this process: the state-sync transport and
 * the p2p actor's read the same list, and the operator needs the line once.
 */
const bootstrapReported = new Set<string>();
function once(addr: string): boolean {
  if (bootstrapReported.has(addr)) return false;
  bootstrapReported.add(addr);
  return true;
}

/** A bootstrap address failing this long gets its warning (peers starting together fail for a few seconds). */
const BOOTSTRAP_UNREACHABLE_WARN_MS = 10_000;

function topicName(chainId: number, topic: Topic): string {
  return `/exchange/${chainId}/${topic}/1`;
}

/** The peer id a validator's key gives, without starting a node. */
export async function peerIdOfKey(privateKey: Uint8Array): Promise<string> {
  const { peerIdFromPrivateKey } = await import('@libp2p/peer-id');
  return peerIdFromPrivateKey(privateKeyFromRaw(privateKey) as never).toString();
}

/** The peer id of a validator from its compressed secp256k1 public key (genesis `ecdsaPubkey`). */
export async function peerIdOfPublicKey(compressed: Uint8Array): Promise<string> {
  const { peerIdFromPublicKey } = await import('@libp2p/peer-id');
  const { publicKeyFromRaw } = await import('@libp2p/crypto/keys');
  return peerIdFromPublicKey(publicKeyFromRaw(compressed) as never).toString();
}

export class Libp2pTransport implements Transport {
  private node: P2PNode | undefined;
  private redial: NodeJS.Timeout | undefined;
  private readonly byName = new Map<string, Topic>();
  private readonly peerIds = new Map<string, ReturnType<typeof peerIdFromString>>();
  /** Per peer and protocol. */
  private readonly outbound = new Map<string, DirectOut>();
  private readonly directStats = { sent: 0, queuesDropped: 0 };
  /** Peers refused (another chain or genesis: actors/p2p/peer-identity.ts), by the wall-clock ms until which they are not dialled. */
  private readonly refusedUntil = new Map<string, number>();
  /** Bootstrap addresses failing since (ms), or -1 once their warning was logged. */
  private readonly bootstrapFailing = new Map<string, number>();
  private bootstrapChecked: { addr: string; ma: ReturnType<typeof multiaddr>; peer: string }[] | undefined;
  private readonly counters: TransportStats = {
    published: 0,
    received: { txs: 0, proposals: 0, votes: 0, oracle: 0, evidence: 0 },
    ignored: 0,
    rejected: 0,
    requestsServed: 0,
    peers: 0,
  };
  id = '';

  constructor(private readonly opts: Libp2pTransportOptions) {
    for (const t of TOPICS) this.byName.set(topicName(opts.chainId, t), t);
  }

  async start(handlers: GossipHandlers): Promise<void> {
    const { opts } = this;
    installYamuxWindowPolicy();
    const privateKey =
      opts.peerKey !== undefined ? privateKeyFromProtobuf(opts.peerKey) : opts.privateKey !== undefined ? privateKeyFromRaw(opts.privateKey) : undefined;
    const node = (await createLibp2p({
      ...(privateKey === undefined ? {} : { privateKey: privateKey as never }),
      addresses: { listen: opts.listen },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      services: {
        identify: identify(),
        pubsub: gossipsub({
          emitSelf: false,
          allowPublishToZeroTopicPeers: true,
          // No per-message libp2p signature: consensus messages and transactions carry their
          // own secp256k1 signatures, and signing every gossip message with the peer key
          // (pure-JS curve math) cost more CPU than everything else the node did. Message
          // ids are then content hashes, so a resent identical message is deduplicated.
          globalSignaturePolicy: 'StrictNoSign',
          maxInboundDataLength: opts.maxMessageBytes ?? GOSSIP_MESSAGE_BYTES_DEFAULT,
          // A mesh with peer scoring (decision 185, src/net/gossip-params.ts): full nodes relay
          // what their handlers accept, so a node connected only to other full nodes follows
          // consensus too. A node's own messages still go to every subscribed peer at once
          // (flood publish): genesis validators subscribe to no consensus topic (they take
          // consensus point to point) and reach the full nodes connected to them so.
          floodPublish: true,
          doPX: false,
          ...gossipScoring({ topicName: (t) => topicName(opts.chainId, t), appScore: opts.peerScore ?? (() => 0), devnet: opts.devnet ?? false }),
          heartbeatInterval: 700,
        }) as never,
      },
    })) as unknown as P2PNode;
    this.node = node;
    this.id = node.peerId.toString();
    const { onPeerConnect, onPeerDisconnect } = opts;
    if (onPeerConnect) node.addEventListener('peer:connect', (evt) => onPeerConnect(evt.detail.toString()));
    if (onPeerDisconnect) node.addEventListener('peer:disconnect', (evt) => onPeerDisconnect(evt.detail.toString()));
    const pubsub = node.services.pubsub;
    for (const [name, topic] of this.byName) {
      // Validation and handling in one: the handler's verdict is the gossip verdict.
      pubsub.topicValidators.set(name, async (from, msg) => {
        this.counters.received[topic]++;
        try {
          // The peer it came from (unsigned gossip names no author; in the full mesh of a
          // validator set that is almost always the author).
          await handlers[topic](msg.data, from.toString());
          return ACCEPT;
        } catch (err) {
          if (err instanceof GossipError) {
            if (err.action === 'reject') {
              this.counters.rejected++;
              opts.onReject?.(from.toString(), topic, err.code);
            } else this.counters.ignored++;
            return err.action === 'reject' ? REJECT : IGNORE;
          }
          opts.log.error({ err, topic }, 'gossip handler failed');
          this.counters.ignored++;
          return IGNORE;
        }
      });
      if (opts.subscribe === undefined || opts.subscribe.includes(topic)) pubsub.subscribe(name);
    }
    await this.dialBootstrap();
    this.redial = setInterval(() => void this.dialBootstrap(), opts.redialMs ?? 1_000);
    opts.log.info({ peerId: this.id, listen: node.getMultiaddrs().map(String) }, 'p2p listening');
  }

  /**
   * The bootstrap addresses that can be dialled, each with its peer id; one clear line for
   * each that cannot (not a multiaddr, or no /p2p/<peer id>): it is left out, the node runs on.
   */
  private bootstrapAddrs(): { addr: string; ma: ReturnType<typeof multiaddr>; peer: string }[] {
    if (this.bootstrapChecked !== undefined) return this.bootstrapChecked;
    const ok: { addr: string; ma: ReturnType<typeof multiaddr>; peer: string }[] = [];
    for (const addr of this.opts.bootstrap) {
      let ma: ReturnType<typeof multiaddr>;
      try {
        ma = multiaddr(addr);
      } catch (err) {
        if (!once(addr)) continue;
        this.opts.log.error({ bootstrap: addr, err: (err as Error).message }, 'bootstrap address ignored: it is not a multiaddr (give /ip4/<host>/tcp/<port>/p2p/<peer id>, as GET /v1/network lists under p2p.multiaddrs)');
        continue;
      }
      const peer = ma.getPeerId();
      if (!peer) {
        if (once(addr)) this.opts.log.error({ bootstrap: addr }, 'bootstrap address ignored: it names no peer (append /p2p/<peer id>, as GET /v1/network lists under p2p.multiaddrs)');
        continue;
      }
      ok.push({ addr, ma, peer });
    }
    this.bootstrapChecked = ok;
    return ok;
  }

  /** Keeps every bootstrap peer connected (a restarted peer comes back by itself). */
  private async dialBootstrap(): Promise<void> {
    const node = this.node;
    if (!node) return;
    const connected = new Set(this.peers());
    await Promise.all(
      this.bootstrapAddrs().map(async ({ addr, ma, peer }) => {
        if (peer === this.id || connected.has(peer)) {
          this.bootstrapFailing.delete(addr);
          return;
        }
        const until = this.refusedUntil.get(peer);
        if (until !== undefined) {
          if (Date.now() < until) return;
          this.refusedUntil.delete(peer);
        }
        try {
          await node.dial(ma, { signal: AbortSignal.timeout(2_000) });
          if (this.bootstrapFailing.get(addr) === -1) this.opts.log.info({ bootstrap: addr }, 'bootstrap peer reached');
          this.bootstrapFailing.delete(addr);
        } catch (err) {
          // Not up yet: the next round retries. One that stays unreachable is said once.
          const since = this.bootstrapFailing.get(addr);
          if (since === undefined) this.bootstrapFailing.set(addr, Date.now());
          else if (since !== -1 && Date.now() - since >= BOOTSTRAP_UNREACHABLE_WARN_MS) {
            this.bootstrapFailing.set(addr, -1);
            this.opts.log.warn(
              { bootstrap: addr, err: (err as Error).message, forMs: Date.now() - since },
              'bootstrap peer unreachable: nothing answers at this address (a wrong host or port, a firewall, or the node is down); still retried every second, and other peers are found by exchange',
            );
          }
        }
      }),
    );
  }

  /** Dials `addr` (a multiaddr ending in /p2p/<peer id>); rejects when no connection opens within `timeoutMs`. */
  async dial(addr: string, timeoutMs: number): Promise<void> {
    await this.node!.dial(multiaddr(addr), { signal: AbortSignal.timeout(timeoutMs) });
  }

  /** Closes every connection to `peer` (it may dial again). */
  async hangUp(peer: string): Promise<void> {
    await this.node?.hangUp(this.peerIdOf(peer));
  }

  private peerIdOf(peer: string): ReturnType<typeof peerIdFromString> {
    let id = this.peerIds.get(peer);
    if (id === undefined) {
      id = peerIdFromString(peer);
      this.peerIds.set(peer, id);
    }
    return id;
  }

  /**
   * Closes every connection to `peer` and dials it no more for `forMs` (a bootstrap peer
   * is tried again after that: its operator may have fixed it). A peer that dials us
   * again is judged again by whoever refused it.
   */
  async refuse(peer: string, forMs: number): Promise<void> {
    this.refusedUntil.set(peer, Date.now() + forMs);
    let id = this.peerIds.get(peer);
    if (id === undefined) {
      id = peerIdFromString(peer);
      this.peerIds.set(peer, id);
    }
    await this.node?.hangUp(id);
  }

  listenAddresses(): string[] {
    return this.node ? this.node.getMultiaddrs().map(String) : [];
  }

  /** Peers subscribed to a topic. */
  subscribers(topic: Topic): number {
    return this.node ? this.node.services.pubsub.getSubscribers(topicName(this.opts.chainId, topic)).length : 0;
  }

  async publish(topic: Topic, data: Uint8Array): Promise<void> {
    this.counters.published++;
    await this.node!.services.pubsub.publish(topicName(this.opts.chainId, topic), data);
  }

  async handle(protocol: string, handler: RequestHandler): Promise<void> {
    await this.node!.handle(protocol, async ({ stream, connection }) => {
      try {
        await pipe(
          stream,
          (source) => lp.decode(source, { maxDataLength: MAX_REQUEST_BYTES }),
          async function* (source) {
            for await (const req of source) yield await handler(req.subarray(), connection.remotePeer.toString());
          },
          (source) => lp.encode(source),
          stream,
        );
        this.counters.requestsServed++;
      } catch (err) {
        this.opts.log.debug({ err, protocol }, 'request stream failed');
        stream.abort(err as Error);
      }
    });
  }

  /**
   * One request and its answer. `timeoutMs` bounds the whole exchange, not just the
   * dial: a peer that accepts the stream and never answers (stalls, or is frozen) has it
   * aborted at the deadline, and the call rejects.
   */
  async request(peer: string, protocol: string, data: Uint8Array, timeoutMs = 5_000): Promise<Uint8Array> {
    // A deadline's remainder is fractional (deadline − performance.now()): AbortSignal.timeout
    // throws on a non-integer delay, which counted the peer as unanswered without asking it.
    const signal = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)));
    // Parsing a peer id decompresses its public key (pure-JS curve math): once per peer.
    let id = this.peerIds.get(peer);
    if (id === undefined) {
      id = peerIdFromString(peer);
      this.peerIds.set(peer, id);
    }
    const stream = await this.node!.dialProtocol(id as never, protocol, { signal });
    const late = new Error(`peer ${peer} did not answer ${protocol} within ${timeoutMs} ms`);
    const onAbort = () => stream.abort(late);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await pipe(
        [data],
        (source) => lp.encode(source),
        stream,
        (source) => lp.decode(source, { maxDataLength: MAX_REQUEST_BYTES }),
        async (source) => {
          for await (const a of source) return a.subarray();
          throw new Error(`peer ${peer} closed ${protocol} without answering`);
        },
      );
    } catch (err) {
      throw signal.aborted ? late : err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Messages of a protocol to one peer over one long-lived stream (length-prefixed),
   * opened on first use and reopened after it breaks: no stream set-up per message.
   * Fire and forget; a message to an unreachable peer is dropped, and so is the whole
   * queue of a peer that stopped reading (more than MAX_DIRECT_QUEUE_BYTES waiting):
   * its stream is closed and the next message opens a new one.
   * (A pushable of byte arrays counts its buffered bytes.)
   */
  sendDirect(peer: string, protocol: string, data: Uint8Array): void {
    const key = `${peer} ${protocol}`;
    let out = this.outbound.get(key);
    if (out !== undefined) {
      // A peer that stopped reading, or a stream the peer reset or closed (a malformed
      // frame, a restart): what is queued there would never arrive. Drop it; the message
      // goes out on a new stream. Ending with an error discards what is buffered (a plain
      // end() would still drain it); aborting frees a write stuck on a full window.
      const full = out.queue.readableLength >= MAX_DIRECT_QUEUE_BYTES;
      if (full || (out.stream !== undefined && out.stream.status !== 'open')) {
        if (full) this.directStats.queuesDropped++;
        this.outbound.delete(key);
        const err = new Error(full ? `peer ${peer} stopped reading ${protocol}` : `stream of ${protocol} to ${peer} ended`);
        out.queue.end(err);
        out.stream?.abort(err);
        out = undefined;
      }
    }
    if (out === undefined) {
      const entry: DirectOut = { queue: pushable<Uint8Array>({ objectMode: true }) };
      out = entry;
      this.outbound.set(key, entry);
      void (async () => {
        try {
          let id = this.peerIds.get(peer);
          if (id === undefined) {
            id = peerIdFromString(peer);
            this.peerIds.set(peer, id);
          }
          const stream = await this.node!.dialProtocol(id as never, protocol, { signal: AbortSignal.timeout(5_000) });
          entry.stream = stream;
          await pipe(entry.queue, stream);
        } catch (err) {
          this.opts.log.debug({ err, peer, protocol }, 'direct stream closed');
        } finally {
          if (this.outbound.get(key) === entry) this.outbound.delete(key);
          entry.queue.end();
        }
      })();
    }
    out.queue.push(frame(data));
    this.directStats.sent++;
  }

  /** Serves long-lived direct streams of `protocol`: every message is handed to `handler`. */
  async handleDirect(protocol: string, handler: (data: Uint8Array, from: string) => void): Promise<void> {
    await this.node!.handle(protocol, async ({ stream, connection }) => {
      const from = connection.remotePeer.toString();
      try {
        const frames = new FrameDecoder(MAX_REQUEST_BYTES);
        // The stream yields Uint8ArrayLists (iterable over their buffers) or Uint8Arrays.
        for await (const chunk of stream.source as AsyncIterable<Uint8Array | Iterable<Uint8Array>>) {
          for (const part of chunk instanceof Uint8Array ? [chunk] : chunk) {
            for (const m of frames.push(part)) {
              try {
                handler(m, from);
              } catch {
                // a bad message is the sender's problem; the stream stays
              }
            }
          }
        }
      } catch (err) {
        this.opts.log.debug({ err, protocol }, 'direct stream from peer closed');
        // A malformed frame ends our reading: reset the stream so the sender's next
        // message opens a new one instead of filling a window nobody drains.
        if (err instanceof FrameError) stream.abort(err);
      }
    });
  }

  /** The listen addresses a peer announced over identify, as the peer store holds them ([] when none). */
  async peerListenAddresses(peer: string): Promise<string[]> {
    if (!this.node) return [];
    let id = this.peerIds.get(peer);
    if (id === undefined) {
      id = peerIdFromString(peer);
      this.peerIds.set(peer, id);
    }
    try {
      return (await this.node.peerStore.get(id)).addresses.map((a) => a.multiaddr.toString()).sort();
    } catch {
      return [];
    }
  }

  /** The IP address a connected peer's connection comes from (where its consensus session listens too: src/net/session.ts). */
  peerHost(peer: string): string | undefined {
    const c = this.node?.getConnections().find((c) => c.remotePeer.toString() === peer);
    return c === undefined ? undefined : /^\/ip[46]\/([^/]+)\//.exec(c.remoteAddr.toString())?.[1];
  }

  /** Connected peers (from the connections: getPeers() re-parses every peer id, which costs curve math). */
  peers(): string[] {
    if (!this.node) return [];
    return [...new Set(this.node.getConnections().map((c) => c.remotePeer.toString()))];
  }

  stats(): TransportStats {
    return { ...this.counters, received: { ...this.counters.received }, peers: this.peers().length, direct: { ...this.directStats }, ...this.opts.extraStats?.() };
  }

  async stop(): Promise<void> {
    clearInterval(this.redial);
    for (const o of this.outbound.values()) o.queue.end();
    this.outbound.clear();
    await this.node?.stop();
    this.node = undefined;
  }
}

/**
 * A fresh Ed25519 peer identity in protobuf encoding (a key file's `peerKey` form), for a
 * node that has neither a key file's nor a validator key: made once per process, so the
 * state-sync transport that runs before the p2p actor's and the actor's own are the same
 * peer to the others (one peer id in their logs and refusals).
 */
export async function freshPeerKey(): Promise<Uint8Array> {
  return privateKeyToProtobuf(await generateKeyPair('Ed25519'));
}
