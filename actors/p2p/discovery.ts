/**
 * Peer discovery (decision 184): from any one reachable address a node finds and keeps
 * enough peers. Three sources fill the peer table (src/net/peer-table.ts): the bootstrap
 * addresses the operator gave, the validators' endpoints and identities in chain state
 * (each record's `endpoint` host:port and the peer id of its secp256k1 key, or the peer
 * its signed hello bound), and peer exchange (src/net/pex.ts): every DISCOVERY_TICK_MS
 * the node asks one connected peer, the one asked longest ago, for the peers it knows,
 * while it has fewer connections than the target or fewer addresses than it wants, and
 * every PEX_REFRESH_MS anyway. It dials the best due entries up to the connection target
 * and sheds the worst connections above the table's maximum.
 *
 * Serving an exchange follows CometBFT's PEX reactor: a peer may ask once per
 * PEX_SERVE_INTERVAL_MIN_MS (a third of the asking interval, so an honest asker is never
 * too early); a sooner request is answered with nothing and costs the asker score. A
 * malformed answer or request costs more; a peer whose score reaches the ban floor is
 * disconnected and not dialled until its ban ends, and its ban is logged once.
 */
import { decodePexAnswer, decodePexRequest, encodePexAnswer, encodePexRequest, pexProtocol, PEX_ANSWER_PEERS_MAX, type PexPeer } from '../../src/net/pex';
import { PEER_TABLE_LIMITS, type BanEntry, type PeerEvent, type PeerTable } from '../../src/net/peer-table';
import type { Chain } from '../../src/chain/chain';
import { peerIdOfPublicKey } from '../../src/net/libp2p';
import { validatorAddresses, validatorRecord } from '../../src/state/validators/records';
import { hexToBytes, type Address } from '../../src/util/bytes';
import type { Logger } from '../../src/util/log';

export const DISCOVERY_TICK_MS = 2_000;
/** The same peer is asked for peers at most this often. */
export const PEX_ASK_INTERVAL_MS = 10_000;
/** With enough peers, one exchange this often all the same (CometBFT's ensurePeersPeriod). */
export const PEX_REFRESH_MS = 30_000;
/** A peer that asks sooner than this after its last request is answered with nothing (CometBFT: a third of the asking period). */
export const PEX_SERVE_INTERVAL_MIN_MS = Math.floor(PEX_ASK_INTERVAL_MS / 3);
/** Below this many known addresses the node keeps asking. */
export const ADDRESSES_WANTED = 32;
export const DIAL_TIMEOUT_MS = 3_000;
export const DIALS_PER_TICK_MAX = 4;
export const PEX_TIMEOUT_MS = 5_000;
/** Chain state's validator endpoints are read again this often. */
export const CHAIN_ENDPOINTS_REFRESH_MS = 10_000;

/** What discovery uses of the transport (Libp2pTransport). */
export interface DiscoveryTransport {
  readonly id: string;
  peers(): string[];
  dial(addr: string, timeoutMs: number): Promise<void>;
  hangUp(peer: string): Promise<void>;
  /** Closes the peer's connections and keeps the transport's own dialling (bootstrap) off it for `forMs`. */
  refuse(peer: string, forMs: number): Promise<void>;
  request(peer: string, protocol: string, data: Uint8Array, timeoutMs?: number): Promise<Uint8Array>;
  handle(protocol: string, handler: (data: Uint8Array, from: string) => Promise<Uint8Array>): Promise<void>;
  peerListenAddresses(peer: string): Promise<string[]>;
}

export interface DiscoveryOptions {
  chainId: number;
  table: PeerTable;
  log: Logger;
  /** The operator's bootstrap multiaddrs (with /p2p/<peer id>). */
  bootstrap: readonly string[];
  /** The validators of chain state with an endpoint: their dialable addresses and peer ids. */
  validatorEndpoints: () => Promise<PexPeer[]>;
  isValidatorPeer: (peer: string) => boolean;
  /**
   * False (`--no-discovery`): the node asks nobody for peers and dials no validator
   * endpoint; it still serves exchanges and keeps its table (the transport keeps the
   * bootstrap peers connected).
   */
  active: boolean;
  /**
   * True on a validator: it dials only validators (its bootstrap peers, chain state's
   * endpoints, peers bound to validators); full nodes come to it, its connections are for
   * consensus (CometBFT's validators keep to their sentries likewise).
   */
  dialsValidatorsOnly: () => boolean;
  now?: () => number;
}

/** `/ip4/h/tcp/p/p2p/<id>` → { peerId, addr without the suffix }; undefined for what has no peer id. */
export function splitPeerAddress(addr: string): { peerId: string; addr: string } | undefined {
  const i = addr.lastIndexOf('/p2p/');
  if (i < 0) return undefined;
  const peerId = addr.slice(i + 5);
  return peerId.length === 0 || peerId.includes('/') ? undefined : { peerId, addr: addr.slice(0, i) };
}

/** A validator record's `endpoint` (host:port, src/genesis/sections.ts) as a multiaddr without peer id. */
export function endpointAddress(endpoint: string): string | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9]{1,3}(?:\.[0-9]{1,3}){3})|([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)):([0-9]{1,5})$/.exec(endpoint);
  if (m === null) return undefined;
  const port = Number(m[4]);
  if (port < 1 || port > 65_535) return undefined;
  if (m[1] !== undefined) return `/ip6/${m[1]}/tcp/${port}`;
  if (m[2] !== undefined) return `/ip4/${m[2]}/tcp/${port}`;
  return `/dns/${m[3]}/tcp/${port}`;
}

/**
 * The validators of chain state that may take part in consensus (registered, active,
 * jailed) with a usable endpoint: the address, and the peer their signed hello bound
 * (validator-peers.ts) or else the peer id of their secp256k1 key (the devnet's
 * identities, and every validator's once its peer key is its validator key).
 */
export async function validatorEndpoints(chain: Chain, bound: { peer(a: Address): string | undefined }, cache: Map<string, string>): Promise<PexPeer[]> {
  const out: PexPeer[] = [];
  for (const address of validatorAddresses(chain.state)) {
    const r = validatorRecord(chain.state, address);
    if (r === undefined || (r.status !== 'registered' && r.status !== 'active' && r.status !== 'jailed')) continue;
    const addr = endpointAddress(r.endpoint);
    if (addr === undefined) continue;
    let peerId = bound.peer(address);
    if (peerId === undefined) {
      peerId = cache.get(r.ecdsaPubkey);
      if (peerId === undefined) {
        try {
          peerId = await peerIdOfPublicKey(hexToBytes(r.ecdsaPubkey));
        } catch {
          continue;
        }
        cache.set(r.ecdsaPubkey, peerId);
      }
    }
    out.push({ peerId, addrs: [addr] });
  }
  return out;
}

export class Discovery {
  readonly stats = { ticks: 0, dials: 0, dialsFailed: 0, asked: 0, answers: 0, answersMalformed: 0, learntByExchange: 0, served: 0, servedTooSoon: 0, requestsMalformed: 0, shed: 0, bans: 0, chainEndpoints: 0 };
  readonly #lastAsked = new Map<string, number>();
  readonly #lastServed = new Map<string, number>();
  readonly #dialing = new Set<string>();
  #lastAskAnyMs = 0;
  #lastChainMs = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  readonly #now: () => number;

  constructor(
    private readonly t: DiscoveryTransport,
    private readonly opts: DiscoveryOptions,
  ) {
    this.#now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    const now = this.#now();
    for (const b of this.opts.bootstrap) {
      const split = splitPeerAddress(b);
      if (split !== undefined) this.opts.table.learn(split.peerId, [split.addr], 'bootstrap', now);
    }
    await this.t.handle(pexProtocol(this.opts.chainId), async (data, from) => this.serve(data, from));
    this.#timer = setInterval(() => void this.tick(), DISCOVERY_TICK_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** A connection to `peer` opened: its identify addresses join the table once identify has run (the next tick). */
  connected(peer: string): void {
    this.opts.table.connected(peer, this.#now());
  }

  disconnected(peer: string): void {
    this.opts.table.disconnected(peer, this.#now());
    this.#lastServed.delete(peer);
    this.#lastAsked.delete(peer);
  }

  /** Scores what a peer did; a ban that follows disconnects it and is logged once. */
  penalize(peer: string, event: PeerEvent, detail: string): void {
    const ban = this.opts.table.record(peer, event, this.#now(), detail);
    if (ban !== undefined) this.#enforce(peer, ban);
  }

  /** The identity check refused `peer` (another chain or genesis): banned as long as it refuses it. */
  refused(peer: string, reason: string, forMs: number): void {
    this.opts.table.ban(peer, reason, forMs, this.#now());
    this.stats.bans++;
  }

  #enforce(peer: string, ban: BanEntry): void {
    this.stats.bans++;
    const forMs = ban.untilMs - this.#now();
    this.opts.log.warn({ peer, reason: ban.reason, forMs }, 'peer banned for misbehaving: disconnected, and not dialled again until the ban ends');
    void this.t.refuse(peer, forMs).catch(() => {});
  }

  /** Answers a peer-exchange request. */
  async serve(data: Uint8Array, from: string): Promise<Uint8Array> {
    const now = this.#now();
    let want: number;
    try {
      want = decodePexRequest(data).want;
    } catch (err) {
      this.stats.requestsMalformed++;
      this.penalize(from, 'malformed', `peer exchange request: ${(err as Error).message}`);
      return encodePexAnswer([]);
    }
    const last = this.#lastServed.get(from);
    if (last !== undefined && now - last < PEX_SERVE_INTERVAL_MIN_MS) {
      this.stats.servedTooSoon++;
      this.penalize(from, 'pexTooSoon', `asked again after ${now - last} ms`);
      return encodePexAnswer([]);
    }
    this.#lastServed.set(from, now);
    this.stats.served++;
    return encodePexAnswer(this.opts.table.toShare(want, from).map((e) => ({ peerId: e.peerId, addrs: e.addrs })));
  }

  /** One round: chain state, connected peers' addresses, shedding, dialling, one exchange. */
  async tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      this.stats.ticks++;
      const connected = this.t.peers();
      await this.#learnConnected(connected);
      this.#shed(connected);
      if (!this.opts.active) return;
      await this.#readChain();
      this.#dial(connected.length);
      await this.#ask(connected);
    } catch (err) {
      this.opts.log.debug({ err: (err as Error).message }, 'discovery round failed; the next one retries');
    } finally {
      this.#ticking = false;
    }
  }

  async #readChain(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastChainMs < CHAIN_ENDPOINTS_REFRESH_MS) return;
    this.#lastChainMs = now;
    const found = await this.opts.validatorEndpoints();
    this.stats.chainEndpoints = found.length;
    for (const v of found) if (v.peerId !== this.t.id) this.opts.table.learn(v.peerId, v.addrs, 'chain', now);
  }

  async #learnConnected(connected: string[]): Promise<void> {
    const now = this.#now();
    const { table } = this.opts;
    for (const peer of connected) {
      if (table.get(peer) === undefined) {
        const addrs: string[] = [];
        for (const a of await this.t.peerListenAddresses(peer)) {
          const split = splitPeerAddress(a);
          addrs.push(split?.addr ?? a);
        }
        table.learn(peer, addrs, 'inbound', now);
      }
      table.connected(peer, now);
      table.markValidator(peer, this.opts.isValidatorPeer(peer));
    }
  }

  #shed(connected: string[]): void {
    for (const peer of this.opts.table.connectionsToShed(connected, this.#now())) {
      this.stats.shed++;
      this.opts.table.disconnected(peer, this.#now());
      void this.t.hangUp(peer).catch(() => {});
    }
  }

  #dial(connectedCount: number): void {
    const need = PEER_TABLE_LIMITS.connectionsTarget - connectedCount - this.#dialing.size;
    if (need <= 0) return;
    const now = this.#now();
    const validatorsOnly = this.opts.dialsValidatorsOnly();
    let started = 0;
    // Entries come best first; those skipped here are few (a validator's table holds the full nodes that connected to it).
    for (const e of this.opts.table.toDial(PEER_TABLE_LIMITS.addressesMax, now)) {
      if (started >= Math.min(need, DIALS_PER_TICK_MAX)) break;
      if (this.#dialing.has(e.peerId)) continue;
      if (validatorsOnly && !e.validator && e.source !== 'bootstrap' && e.source !== 'chain') continue;
      started++;
      // Each retry tries the next of its addresses.
      const addr = `${e.addrs[e.failures % e.addrs.length]}/p2p/${e.peerId}`;
      this.#dialing.add(e.peerId);
      this.stats.dials++;
      this.t
        .dial(addr, DIAL_TIMEOUT_MS)
        .then(() => this.opts.table.dialSucceeded(e.peerId, this.#now()))
        .catch((err: Error) => {
          this.stats.dialsFailed++;
          this.opts.table.dialFailed(e.peerId, err.message, this.#now());
          this.opts.log.debug({ peer: e.peerId, addr, err: err.message }, 'discovery: dial failed; backing off');
        })
        .finally(() => this.#dialing.delete(e.peerId));
    }
  }

  async #ask(connected: string[]): Promise<void> {
    const now = this.#now();
    const { table } = this.opts;
    const wanting = connected.length < PEER_TABLE_LIMITS.connectionsTarget || table.size < ADDRESSES_WANTED;
    if (!wanting && now - this.#lastAskAnyMs < PEX_REFRESH_MS) return;
    // The peer asked longest ago (never first), ties by peer id: deterministic.
    let pick: string | undefined;
    let pickAt = Infinity;
    for (const p of [...connected].sort()) {
      const at = this.#lastAsked.get(p) ?? -Infinity;
      if (now - at < PEX_ASK_INTERVAL_MS) continue;
      if (at < pickAt) [pick, pickAt] = [p, at];
    }
    if (pick === undefined) return;
    this.#lastAsked.set(pick, now);
    this.#lastAskAnyMs = now;
    this.stats.asked++;
    let answer: Uint8Array;
    try {
      answer = await this.t.request(pick, pexProtocol(this.opts.chainId), encodePexRequest(PEX_ANSWER_PEERS_MAX), PEX_TIMEOUT_MS);
    } catch (err) {
      // An older node, or one gone: not misbehaviour.
      this.opts.log.debug({ peer: pick, err: (err as Error).message }, 'discovery: no peer exchange answer');
      return;
    }
    let peers: PexPeer[];
    try {
      peers = decodePexAnswer(answer);
    } catch (err) {
      this.stats.answersMalformed++;
      this.penalize(pick, 'malformed', `peer exchange answer: ${(err as Error).message}`);
      return;
    }
    this.stats.answers++;
    let learnt = 0;
    const at = this.#now();
    for (const p of peers) {
      if (p.peerId === this.t.id || p.addrs.length === 0) continue;
      const before = table.get(p.peerId);
      if (table.learn(p.peerId, p.addrs, 'pex', at) && before === undefined) learnt++;
    }
    this.stats.learntByExchange += learnt;
    if (learnt > 0) table.record(pick, 'pexUseful', at);
  }
}
