/**
 * State sync's decisions (issue 27, decision 140), pure: no I/O, no clock (the caller
 * passes the time). The fetcher (src/node/state-sync-join.ts) asks, these decide:
 *
 * - whether an empty store joins by state sync or by block sync (joinMode);
 * - which snapshot: offers grouped by (height, manifest hash), newest first
 *   (candidates); one is taken only once its height's header is verified from the
 *   trusted height (src/chain/light.ts) and the peers offering it hold more than a third
 *   of the power of the set that signs that height (offeredPower): at least one honest
 *   validator made the same snapshot, so its (height, manifest) is the chain's;
 * - whether the offered snapshot is that header's state at all (snapshotRootMatches);
 * - which peer is asked which chunk (ChunkPlan): a few in flight per peer, a peer that
 *   served a bad chunk or manifest dropped, a chunk that failed asked of another peer, a
 *   peer that stalled passed over for a while;
 * - whether the head block a peer sent is the verified one (checkRestoredHead).
 *
 * Nothing here trusts a peer: what a peer says (its offers, its addresses) only picks
 * what to fetch; what is written is what verified.
 */
import { blockHash, merkleRoot, type Block, type Commit } from '../codec/block';
import { decodeTx } from '../codec/tx';
import { checkCommit } from '../consensus/commit';
import type { SignatureVerifier } from '../consensus/signer';
import type { ValidatorSet } from '../consensus/validator-set';
import type { SnapshotInfo } from '../storage/snapshot-store';
import { bytesToHex, equalBytes, type Address } from '../util/bytes';
import type { SnapshotOffers } from './state-sync-wire';
import type { Genesis } from '../genesis/types';
import { genesisState } from '../state/genesis';
import { activeValidators } from '../state/validators/set';
import { consensusSet } from './validator-sets';

/** Chunks asked of one peer at once. */
export const CHUNKS_IN_FLIGHT_PER_PEER = 3;
/** How long a peer that stalled (timed out, broke the stream) is not asked for chunks. */
export const STALLED_PEER_PAUSE_MS = 10_000;
/** Stalls after which a peer is not asked again during this sync. */
export const STALLS_BEFORE_DROP = 3;

/** How an empty store starts (decision 140). */
export type JoinMode = 'state-sync' | 'block-sync';

/**
 * `forced` (`--state-sync`): state sync whatever peers keep. A fresh store (nothing but
 * possibly the folder): state sync when a peer offers a snapshot. A store being healed
 * (decision 124, moved aside): state sync only when no peer keeps block 1 (they pruned,
 * base above 1), since block sync from genesis rebuilds the whole history the node had.
 */
export function joinMode(opts: { forced: boolean; healing: boolean; answers: readonly SnapshotOffers[] }): JoinMode {
  const offered = opts.answers.some((a) => a.snapshots.length > 0);
  if (opts.forced) return 'state-sync';
  if (!offered) return 'block-sync';
  if (!opts.healing) return 'state-sync';
  const someoneHasGenesis = opts.answers.some((a) => a.base <= 1 && a.head > 0);
  return someoneHasGenesis ? 'block-sync' : 'state-sync';
}

/** One snapshot as offered: its (height, manifest hash), the peers offering it, and what the first of them said of it. */
export interface Candidate {
  height: number;
  manifestHash: Uint8Array;
  /** The root the offers claim: compared with the verified header's, never trusted. */
  stateRoot: Uint8Array;
  chunks: number;
  bytes: number;
  /** Peers offering exactly this (height, manifest hash), sorted. */
  peers: string[];
}

/** The set signing height 1 (the genesis state's active set): the trust of a sync from genesis, light proof height 0. */
export function genesisSigningSet(genesis: Genesis, genesisHash: Uint8Array): ValidatorSet {
  return consensusSet(activeValidators(genesisState(genesis, genesisHash).state));
}

/** Offers grouped by (height, manifest hash), newest height first; at one height the one more peers offer first, then by hash (a defined order). */
export function candidates(answers: ReadonlyMap<string, readonly SnapshotInfo[]>): Candidate[] {
  const byKey = new Map<string, Candidate>();
  for (const [peer, infos] of answers) {
    const seen = new Set<string>();
    for (const s of infos) {
      const key = `${s.height}:${bytesToHex(s.manifestHash)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const c = byKey.get(key);
      if (c === undefined) byKey.set(key, { height: s.height, manifestHash: s.manifestHash, stateRoot: s.stateRoot, chunks: s.chunks, bytes: s.bytes, peers: [peer] });
      else c.peers.push(peer);
    }
  }
  const out = [...byKey.values()];
  for (const c of out) c.peers.sort();
  out.sort((a, b) => b.height - a.height || b.peers.length - a.peers.length || (bytesToHex(a.manifestHash) < bytesToHex(b.manifestHash) ? -1 : 1));
  return out;
}

/**
 * The power, in `set`, of the validators whose peers offer `c`: a validator counts once
 * however many peers claim it; a peer whose validator is unknown (no hello, not a
 * genesis key) counts nothing.
 */
export function offeredPower(c: Pick<Candidate, 'peers'>, set: ValidatorSet, addressOf: (peer: string) => Address | undefined): bigint {
  const counted = new Set<Address>();
  let power = 0n;
  for (const peer of c.peers) {
    const a = addressOf(peer);
    if (a === undefined || counted.has(a)) continue;
    counted.add(a);
    power += set.powerOf(a);
  }
  return power;
}

/** More than a third of `set`'s power offers `c` (at least one honest validator, faulty power being below a third). */
export function enoughOfferedPower(c: Pick<Candidate, 'peers'>, set: ValidatorSet, addressOf: (peer: string) => Address | undefined): boolean {
  return set.hasOneThird(offeredPower(c, set, addressOf));
}

/** The offered snapshot claims the root the verified header commits to (next.parentStateRoot); a snapshot of no committed root is refused before any chunk is fetched. */
export function snapshotRootMatches(c: Pick<Candidate, 'stateRoot'>, verifiedRoot: Uint8Array): boolean {
  return equalBytes(c.stateRoot, verifiedRoot);
}

/**
 * null when `block` is the verified header's block (same hash, its transactions hashing
 * to its txRoot) and `commit` finalizes it under `setAt` (the set signing its height);
 * otherwise why not.
 */
export function checkRestoredHead(
  chainId: number,
  verifiedHash: Uint8Array,
  setAt: ValidatorSet,
  verifier: SignatureVerifier,
  block: Block,
  commit: Commit,
  maxTxBytes: number,
): string | null {
  const hash = blockHash(block.header);
  if (!equalBytes(hash, verifiedHash)) return `block ${block.header.height} hashes to ${bytesToHex(hash)}, the verified header to ${bytesToHex(verifiedHash)}`;
  let hashes: Uint8Array[];
  try {
    hashes = block.txs.map((t) => decodeTx(t, maxTxBytes).hash);
  } catch (err) {
    return `block ${block.header.height}: a transaction does not decode (${(err as Error).message})`;
  }
  if (hashes.length !== block.header.txCount || !equalBytes(merkleRoot(hashes), block.header.txRoot)) return `block ${block.header.height}: its transactions do not hash to its txRoot`;
  const why = checkCommit(chainId, setAt, verifier, block.header.height, hash, commit);
  return why === null ? null : `commit of block ${block.header.height}: ${why}`;
}

interface PeerState {
  inFlight: number;
  dropped: boolean;
  stalls: number;
  pausedUntilMs: number;
}

/** One chunk request to start: ask `peer` for chunk `index`. */
export interface ChunkAssignment {
  peer: string;
  index: number;
}

/**
 * Which peer fetches which chunk. Chunks go lowest index first to peers with room (fewer
 * than `perPeer` in flight), never to a dropped or paused peer, and not to a peer that
 * already failed that chunk while another peer could take it. A peer that sends a chunk
 * that does not verify (or a wrong manifest) is dropped for the whole sync: it lied, or
 * serves a snapshot that is not the one the chain committed. A peer that stalls is
 * paused for STALLED_PEER_PAUSE_MS and dropped after STALLS_BEFORE_DROP stalls.
 */
export class ChunkPlan {
  readonly #pending = new Set<number>();
  readonly #inFlight = new Map<number, string>();
  readonly #done = new Set<number>();
  readonly #failedBy = new Map<number, Set<string>>();
  readonly #peers = new Map<string, PeerState>();
  readonly stats = { badChunks: 0, stalls: 0, refetched: 0, peersDropped: 0 };

  constructor(
    readonly chunks: number,
    peers: readonly string[],
    private readonly perPeer = CHUNKS_IN_FLIGHT_PER_PEER,
  ) {
    if (!Number.isSafeInteger(chunks) || chunks < 0) throw new RangeError(`chunks must be a count: ${chunks}`);
    for (let i = 0; i < chunks; i++) this.#pending.add(i);
    for (const p of [...peers].sort()) this.addPeer(p);
  }

  /** A peer that offers the snapshot (joined later, say). */
  addPeer(peer: string): void {
    if (!this.#peers.has(peer)) this.#peers.set(peer, { inFlight: 0, dropped: false, stalls: 0, pausedUntilMs: 0 });
  }

  get complete(): boolean {
    return this.#done.size === this.chunks;
  }

  get doneCount(): number {
    return this.#done.size;
  }

  /** Peers still asked (not dropped). */
  usablePeers(): string[] {
    return [...this.#peers].filter(([, s]) => !s.dropped).map(([p]) => p);
  }

  /** Chunks are left and no peer may ever be asked again: the sync cannot finish with these peers. */
  get stuck(): boolean {
    return !this.complete && this.usablePeers().length === 0;
  }

  /** The requests to start now. */
  next(nowMs: number): ChunkAssignment[] {
    const out: ChunkAssignment[] = [];
    const ready = [...this.#peers].filter(([, s]) => !s.dropped && s.pausedUntilMs <= nowMs);
    for (const index of [...this.#pending].sort((a, b) => a - b)) {
      const failed = this.#failedBy.get(index);
      const open = ready.filter(([, s]) => s.inFlight < this.perPeer);
      if (open.length === 0) break;
      // Least loaded first; a peer that failed this chunk only when nobody else can take it.
      open.sort((a, b) => a[1].inFlight - b[1].inFlight || (a[0] < b[0] ? -1 : 1));
      const fresh = open.filter(([p]) => !failed?.has(p));
      const othersExist = ready.some(([p]) => !failed?.has(p));
      const pick = fresh[0] ?? (othersExist ? undefined : open[0]);
      if (pick === undefined) continue;
      pick[1].inFlight++;
      this.#pending.delete(index);
      this.#inFlight.set(index, pick[0]);
      out.push({ peer: pick[0], index });
    }
    return out;
  }

  /** `peer` sent chunk `index` and it verified. */
  done(peer: string, index: number): void {
    if (!this.#release(peer, index)) return;
    this.#done.add(index);
  }

  /** `peer` sent chunk `index` and it did not verify: the peer is dropped, the chunk asked of another. */
  bad(peer: string, index: number): void {
    this.stats.badChunks++;
    this.#fail(peer, index);
    this.drop(peer);
  }

  /** `peer` did not answer chunk `index` in time (or broke the stream): the chunk goes to another, the peer pauses. */
  stalled(peer: string, index: number, nowMs: number): void {
    this.stats.stalls++;
    this.#fail(peer, index);
    const s = this.#peers.get(peer);
    if (s === undefined) return;
    s.stalls++;
    s.pausedUntilMs = nowMs + STALLED_PEER_PAUSE_MS;
    if (s.stalls >= STALLS_BEFORE_DROP) this.drop(peer);
  }

  /** `peer` answered NOT_FOUND (its snapshot was deleted meanwhile): not a lie, but it cannot serve this snapshot. */
  gone(peer: string, index: number): void {
    this.#fail(peer, index);
    this.drop(peer);
  }

  /** Asks `peer` nothing more (a wrong manifest or chunk, or it left). Its chunks in flight stay its until they end. */
  drop(peer: string): void {
    const s = this.#peers.get(peer);
    if (s === undefined || s.dropped) return;
    s.dropped = true;
    this.stats.peersDropped++;
  }

  isDropped(peer: string): boolean {
    return this.#peers.get(peer)?.dropped ?? true;
  }

  /** The earliest time a paused peer may be asked again (undefined: none paused); the caller waits at most until then when next() gave nothing. */
  nextWakeMs(nowMs: number): number | undefined {
    let at: number | undefined;
    for (const s of this.#peers.values()) if (!s.dropped && s.pausedUntilMs > nowMs) at = Math.min(at ?? Infinity, s.pausedUntilMs);
    return at;
  }

  #fail(peer: string, index: number): void {
    if (!this.#release(peer, index)) return;
    let f = this.#failedBy.get(index);
    if (f === undefined) this.#failedBy.set(index, (f = new Set()));
    f.add(peer);
    this.#pending.add(index);
    this.stats.refetched++;
  }

  /** Ends the request of `index` by `peer`; false when it was not that peer's (a late answer after a reassignment). */
  #release(peer: string, index: number): boolean {
    if (this.#inFlight.get(index) !== peer) return false;
    this.#inFlight.delete(index);
    const s = this.#peers.get(peer);
    if (s !== undefined) s.inFlight--;
    return true;
  }
}

/** How far a state sync got (the fetcher reports it; the command line prints it: src/cli/sync-progress.ts). */
export type StateSyncPhase = 'offers' | 'verifying' | 'chunks' | 'restoring' | 'done';

export interface StateSyncProgress {
  phase: StateSyncPhase;
  height?: number;
  chunksDone: number;
  chunksTotal: number;
  bytes: number;
  bytesTotal: number;
  peers: number;
}
