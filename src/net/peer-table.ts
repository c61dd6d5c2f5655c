/**
 * The peer table (decision 184): every peer this node knows an address of, where it
 * learnt it, how the peer behaved, and whether it may be dialled now. Bounded in
 * addresses (PEER_TABLE_LIMITS.addressesMax) and in connections (connectionsMax, enforced
 * by whoever owns the connections: actors/p2p/discovery.ts hangs up on the entries
 * `connectionsToShed` names). No I/O and no clock of its own: the caller passes the time.
 *
 * A score, from SCORE_MIN to SCORE_MAX, rises with useful behaviour (a dial that
 * connected, a peer exchange that taught new addresses) and falls with misbehaviour (a
 * malformed message, a gossip message the topic's handler rejected, a peer-exchange
 * request sooner than allowed, a failed dial). A peer whose score reaches BAN_SCORE is
 * banned for BAN_MS; a peer of another chain or genesis is banned at once (for as long as
 * the identity check refuses it). A banned peer is not dialled and not re-learnt until the
 * ban expires, and comes back at half the ban score, so a second offence bans it again
 * quickly. Failed dials back off exponentially (CometBFT's address book: 2^attempts s);
 * an address learnt by exchange is forgotten after DIAL_ATTEMPTS_MAX failures in a row,
 * one the operator gave (bootstrap) or chain state names (a validator's endpoint) is kept,
 * its backoff capped.
 *
 * Every choice is deterministic (no random pick): the entries to dial first, to share
 * first, to forget when the table is full and to disconnect when there are too many
 * connections are ordered by score, then by failures, then by age, then by peer id.
 */

/** Where an address came from, strongest first (the order protects from eviction). */
export type PeerSource = 'bootstrap' | 'chain' | 'pex' | 'inbound';

const SOURCE_RANK: Record<PeerSource, number> = { bootstrap: 0, chain: 1, pex: 2, inbound: 3 };

export interface PeerTableLimits {
  addressesMax: number;
  addrsPerPeerMax: number;
  connectionsTarget: number;
  connectionsMax: number;
  bannedMax: number;
}

export const PEER_TABLE_LIMITS: Readonly<PeerTableLimits> = {
  /** Peers whose addresses are kept (CometBFT keeps thousands in buckets; a small network needs far fewer). */
  addressesMax: 256,
  /** Addresses kept per peer (a node listens on a few interfaces at most). */
  addrsPerPeerMax: 4,
  /** Connections this node opens itself until it has this many. */
  connectionsTarget: 10,
  /** Connections above this are shed, worst first (validators' and bootstrap peers are never shed). */
  connectionsMax: 40,
  /** Banned peers remembered (the oldest ban is forgotten first). */
  bannedMax: 1_024,
};

export const SCORE_MIN = -100;
export const SCORE_MAX = 100;
/** At or below this a peer is banned. */
export const BAN_SCORE = -50;
/** How long a ban for misbehaviour lasts. */
export const BAN_MS = 10 * 60_000;
/** The first retry after a failed dial; doubled per failure in a row. */
export const DIAL_BACKOFF_BASE_MS = 1_000;
/** The longest wait between dials of a kept address (bootstrap, chain). */
export const DIAL_BACKOFF_MAX_MS = 60_000;
/** Failures in a row after which an address learnt by exchange is forgotten (CometBFT: 16, over a day). */
export const DIAL_ATTEMPTS_MAX = 8;

/** What a peer did, and what it is worth. */
export const PEER_EVENTS = {
  dialed: 2,
  pexUseful: 1,
  dialFailed: -5,
  pexTooSoon: -10,
  gossipReject: -10,
  malformed: -25,
} as const;
export type PeerEvent = keyof typeof PEER_EVENTS;

export interface PeerEntry {
  peerId: string;
  /** Dialable multiaddrs without the /p2p/ suffix, in the order learnt. */
  addrs: string[];
  source: PeerSource;
  score: number;
  connected: boolean;
  /** Failed dials in a row. */
  failures: number;
  /** Not dialled before this (ms); 0: now. */
  nextDialAtMs: number;
  /** When it was last learnt, dialled or connected. */
  lastSeenMs: number;
  /** When its current connection opened (0 when not connected). */
  connectedAtMs: number;
  /** A validator's peer (the node's consensus needs it connected): never shed. */
  validator: boolean;
  /** The last misbehaviour, in words. */
  lastPenalty?: string;
}

export interface BanEntry {
  untilMs: number;
  reason: string;
  /** The entry as it was when banned (restored, its score halved, when the ban ends). */
  entry?: PeerEntry;
}

export interface PeerTableView {
  limits: Readonly<PeerTableLimits>;
  known: number;
  connected: number;
  peers: (Omit<PeerEntry, 'lastPenalty'> & { lastPenalty: string | null })[];
  banned: { peerId: string; untilMs: number; reason: string }[];
  stats: PeerTable['stats'];
}

const clamp = (n: number) => Math.max(SCORE_MIN, Math.min(SCORE_MAX, n));

/** Lower is better (dial first, share first, shed last). */
function compareEntries(a: PeerEntry, b: PeerEntry): number {
  return b.score - a.score || a.failures - b.failures || SOURCE_RANK[a.source] - SOURCE_RANK[b.source] || b.lastSeenMs - a.lastSeenMs || (a.peerId < b.peerId ? -1 : a.peerId > b.peerId ? 1 : 0);
}

export class PeerTable {
  readonly #entries = new Map<string, PeerEntry>();
  readonly #banned = new Map<string, BanEntry>();
  readonly stats = { learnt: 0, refusedBanned: 0, refusedFull: 0, evicted: 0, forgotten: 0, banned: 0, bansExpired: 0, penalties: 0 };

  constructor(
    private readonly self: string,
    private readonly limits: Readonly<PeerTableLimits> = PEER_TABLE_LIMITS,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(peerId: string): PeerEntry | undefined {
    return this.#entries.get(peerId);
  }

  score(peerId: string): number {
    return this.#entries.get(peerId)?.score ?? 0;
  }

  /** The ban on `peerId` if one holds at `nowMs` (an expired one is lifted here). */
  banned(peerId: string, nowMs: number): BanEntry | undefined {
    const ban = this.#banned.get(peerId);
    if (ban === undefined) return undefined;
    if (nowMs < ban.untilMs) return ban;
    this.#banned.delete(peerId);
    this.stats.bansExpired++;
    if (ban.entry !== undefined && !this.#entries.has(peerId) && this.#entries.size < this.limits.addressesMax) {
      this.#entries.set(peerId, { ...ban.entry, score: Math.round(BAN_SCORE / 2), connected: false, connectedAtMs: 0, nextDialAtMs: nowMs });
    }
    return undefined;
  }

  /**
   * Learns addresses of `peerId` from `source`. Refused (false): this node itself, a
   * banned peer, or a full table whose worst entry is better than a newcomer. A known
   * peer gains the addresses it lacked and keeps the strongest source.
   */
  learn(peerId: string, addrs: readonly string[], source: PeerSource, nowMs: number): boolean {
    if (peerId === this.self) return false;
    if (this.banned(peerId, nowMs) !== undefined) {
      this.stats.refusedBanned++;
      return false;
    }
    const known = this.#entries.get(peerId);
    if (known !== undefined) {
      for (const a of addrs) if (!known.addrs.includes(a) && known.addrs.length < this.limits.addrsPerPeerMax) known.addrs.push(a);
      if (SOURCE_RANK[source] < SOURCE_RANK[known.source]) known.source = source;
      known.lastSeenMs = Math.max(known.lastSeenMs, nowMs);
      return true;
    }
    if (this.#entries.size >= this.limits.addressesMax && !this.#evictOne(source)) {
      this.stats.refusedFull++;
      return false;
    }
    this.#entries.set(peerId, {
      peerId,
      addrs: addrs.slice(0, this.limits.addrsPerPeerMax),
      source,
      score: 0,
      connected: false,
      failures: 0,
      nextDialAtMs: 0,
      lastSeenMs: nowMs,
      connectedAtMs: 0,
      validator: false,
    });
    this.stats.learnt++;
    return true;
  }

  /** Makes room for a newcomer of `source`: forgets the worst entry that is not connected and not stronger-sourced. */
  #evictOne(source: PeerSource): boolean {
    let worst: PeerEntry | undefined;
    for (const e of this.#entries.values()) {
      if (e.connected || e.validator || SOURCE_RANK[e.source] < SOURCE_RANK[source] || e.source === 'bootstrap' || e.source === 'chain') continue;
      if (worst === undefined || compareEntries(e, worst) > 0) worst = e;
    }
    // A newcomer starts at 0: it does not push out an entry that earned more.
    if (worst === undefined || worst.score > 0) return false;
    this.#entries.delete(worst.peerId);
    this.stats.evicted++;
    return true;
  }

  markValidator(peerId: string, validator: boolean): void {
    const e = this.#entries.get(peerId);
    if (e !== undefined) e.validator = validator;
  }

  connected(peerId: string, nowMs: number): void {
    const e = this.#entries.get(peerId);
    if (e === undefined || e.connected) return;
    e.connected = true;
    e.connectedAtMs = nowMs;
    e.lastSeenMs = nowMs;
    e.failures = 0;
    e.nextDialAtMs = 0;
  }

  disconnected(peerId: string, nowMs: number): void {
    const e = this.#entries.get(peerId);
    if (e === undefined) return;
    e.connected = false;
    e.connectedAtMs = 0;
    // Not redialled at once: a peer that hung up on us, or a connection that broke, waits the base backoff.
    e.nextDialAtMs = Math.max(e.nextDialAtMs, nowMs + DIAL_BACKOFF_BASE_MS);
  }

  dialSucceeded(peerId: string, nowMs: number): void {
    this.record(peerId, 'dialed', nowMs);
    this.connected(peerId, nowMs);
  }

  /** A dial failed: backs off 2^(failures-1) × base; an exchange-learnt address is forgotten after DIAL_ATTEMPTS_MAX. */
  dialFailed(peerId: string, reason: string, nowMs: number): void {
    const e = this.#entries.get(peerId);
    if (e === undefined) return;
    e.failures++;
    this.record(peerId, 'dialFailed', nowMs, reason);
    const kept = e.source === 'bootstrap' || e.source === 'chain' || e.validator;
    if (!kept && e.failures >= DIAL_ATTEMPTS_MAX) {
      if (this.#entries.get(peerId) === e) {
        this.#entries.delete(peerId);
        this.stats.forgotten++;
      }
      return;
    }
    e.nextDialAtMs = nowMs + Math.min(DIAL_BACKOFF_BASE_MS * 2 ** Math.min(e.failures - 1, 20), DIAL_BACKOFF_MAX_MS);
  }

  /**
   * Scores what `peerId` did; a score at or below BAN_SCORE bans it for BAN_MS. Returns
   * the ban when this event caused one (the caller disconnects the peer).
   */
  record(peerId: string, event: PeerEvent, nowMs: number, detail?: string): BanEntry | undefined {
    const e = this.#entries.get(peerId);
    const points = PEER_EVENTS[event];
    if (e === undefined) {
      // A peer we hold no address of (it dialled us and announced none) is still judged.
      if (points >= 0) return undefined;
      this.learn(peerId, [], 'inbound', nowMs);
      const fresh = this.#entries.get(peerId);
      if (fresh === undefined) return undefined;
      return this.record(peerId, event, nowMs, detail);
    }
    e.score = clamp(e.score + points);
    if (points < 0) {
      this.stats.penalties++;
      e.lastPenalty = detail === undefined ? event : `${event}: ${detail}`;
    }
    // A failed dial is not misbehaviour enough to ban: backoff and forgetting handle it.
    if (e.score <= BAN_SCORE && event !== 'dialFailed') return this.ban(peerId, e.lastPenalty ?? event, BAN_MS, nowMs);
    return undefined;
  }

  /** Bans `peerId` for `forMs` (another chain, or a score at the floor): its entry leaves the table until then. */
  ban(peerId: string, reason: string, forMs: number, nowMs: number): BanEntry {
    const e = this.#entries.get(peerId);
    this.#entries.delete(peerId);
    if (this.#banned.size >= this.limits.bannedMax && !this.#banned.has(peerId)) {
      let oldest: string | undefined;
      let oldestUntil = Infinity;
      for (const [p, b] of this.#banned) if (b.untilMs < oldestUntil || (b.untilMs === oldestUntil && oldest !== undefined && p < oldest)) [oldest, oldestUntil] = [p, b.untilMs];
      if (oldest !== undefined) this.#banned.delete(oldest);
    }
    const ban: BanEntry = { untilMs: nowMs + forMs, reason, entry: e === undefined ? undefined : { ...e, connected: false, connectedAtMs: 0 } };
    this.#banned.set(peerId, ban);
    this.stats.banned++;
    return ban;
  }

  /** Up to `n` entries to dial now: not connected, not backing off, with an address; best first. */
  toDial(n: number, nowMs: number): PeerEntry[] {
    const due = [...this.#entries.values()].filter((e) => !e.connected && e.addrs.length > 0 && e.nextDialAtMs <= nowMs);
    return due.sort(compareEntries).slice(0, n);
  }

  /** Up to `n` entries worth telling a peer about (not `exclude`, not in disgrace), best first. */
  toShare(n: number, exclude: string): PeerEntry[] {
    const good = [...this.#entries.values()].filter((e) => e.peerId !== exclude && e.addrs.length > 0 && e.score >= 0 && (e.connected || e.failures === 0));
    return good.sort(compareEntries).slice(0, n);
  }

  /**
   * Which of `connectedPeers` to disconnect so that at most connectionsMax remain: the
   * worst first, never a validator's or a bootstrap peer. A peer with no entry counts as
   * score 0, learnt inbound.
   */
  connectionsToShed(connectedPeers: readonly string[], nowMs: number): string[] {
    const excess = connectedPeers.length - this.limits.connectionsMax;
    if (excess <= 0) return [];
    const candidates = connectedPeers
      .map((p) => this.#entries.get(p) ?? { peerId: p, addrs: [], source: 'inbound' as const, score: 0, connected: true, failures: 0, nextDialAtMs: 0, lastSeenMs: nowMs, connectedAtMs: nowMs, validator: false })
      .filter((e) => !e.validator && e.source !== 'bootstrap');
    // Worst first; among equals the newest connection goes (long-lived ones have proven themselves).
    candidates.sort((a, b) => a.score - b.score || b.connectedAtMs - a.connectedAtMs || (a.peerId < b.peerId ? -1 : a.peerId > b.peerId ? 1 : 0));
    return candidates.slice(0, excess).map((e) => e.peerId);
  }

  view(nowMs: number): PeerTableView {
    for (const p of [...this.#banned.keys()]) this.banned(p, nowMs);
    const peers = [...this.#entries.values()].sort(compareEntries).map((e) => ({ ...e, addrs: [...e.addrs], lastPenalty: e.lastPenalty ?? null }));
    return {
      limits: this.limits,
      known: this.#entries.size,
      connected: peers.filter((e) => e.connected).length,
      peers,
      banned: [...this.#banned].map(([peerId, b]) => ({ peerId, untilMs: b.untilMs, reason: b.reason })).sort((a, b) => a.untilMs - b.untilMs || (a.peerId < b.peerId ? -1 : 1)),
      stats: { ...this.stats },
    };
  }
}
