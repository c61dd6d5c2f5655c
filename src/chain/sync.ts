/**
 * Block sync: a node that was down (or is new) asks a peer for the committed blocks
 * after its head, each with the commit that made it final, and applies them after
 * checking each commit on its own (2/3 of the power or more precommitted that block).
 * The power is that of the set that signs the block's height, which the node knows only
 * once it has applied the block before (an epoch boundary or a jailing changes it):
 * applySyncResponse checks one block, applies it, reads the next set, checks the next.
 * It trusts no peer: a block whose commit does not verify, or that is not the height it
 * asked for, is refused (checkSyncResponse), that peer is not asked again for
 * SYNC_REFUSAL_MS, and the next peer is asked (the consensus actor's syncToHead). Nor
 * does it wait on one: a peer that does not answer within SYNC_REQUEST_TIMEOUT_MS (it
 * stalls, is frozen, or breaks the stream) is passed over for SYNC_UNANSWERED_MS, and
 * one call asks peers for at most SYNC_BUDGET_MS in all (askPeersInTurn, SyncPeers).
 * Each block's VRF proof is checked as consensus checks it (checkSyncedProof), just
 * before the block is applied, against the chain it extends: its seed, and the VRF keys
 * of its state, which knows a validator that registered in an earlier block of the
 * same answer; and its proposer must be the one drawn from its height's set
 * (checkSyncedProposer does both).
 *
 * A peer that pruned the blocks asked for (decision 133) answers with none and its base
 * (the lowest height it keeps): the asker moves on to the next peer, and when every peer
 * that answered has pruned past its head it says so (SyncAttempt.pruned; state sync is
 * the way on from there).
 *
 *   request:  u8 version | u64 fromHeight | u32 maxBlocks
 *   response: u8 version | u64 peerHead | u64 peerBase | u32 n | n × (bytes block | bytes commit)
 * Version 2 added peerBase (version 1 had none; the protocol id moved with it).
 */
import { Reader, Writer } from '../codec/binary';
import { blockHash, decodeBlock, decodeCommit, encodeBlock, type Block, type Commit } from '../codec/block';
import { checkCommit } from '../consensus/commit';
import type { ConsensusMessage } from '../consensus/messages';
import { checkProposerProof, ECVRF, type VrfKeyOf, type VrfScheme } from '../consensus/proposer-vrf';
import type { SignatureVerifier } from '../consensus/signer';
import { ValidatorSet } from '../consensus/validator-set';
import type { KvChainStore } from '../storage/chain-store';
import { bytesToHex, equalBytes, type Address } from '../util/bytes';
import { validatorsHash } from './validator-sets';
import type { ChainView } from './view';

const SYNC_VERSION = 2;
/**
 * Blocks one sync answer carries at most (the asker asks for this many, a server caps
 * any request at it). The asker applies them back to back: every actor that hears of
 * each committed block (indexer, mempool, API) must absorb this many in its mailbox
 * (actors/limits.ts checks it).
 */
export const SYNC_MAX_BLOCKS = 256;
/**
 * Consensus messages more heights ahead than this, from validators with more than a
 * third of the power, start block sync (AheadClaims; fewer: the core's certificate
 * exchange).
 */
export const SYNC_GAP = 3;
/** After a block sync that found nothing to apply, messages start none for this long. */
export const SYNC_RETRY_MS = 1_000;
/** How long a peer that answered block sync with a block without a valid commit is not asked again (local policy). */
export const SYNC_REFUSAL_MS = 60_000;
/**
 * Bytes of blocks and commits a server puts in one answer before it stops adding more
 * (it always sends at least one block). The asker holds the whole answer while it
 * checks it: 32 MiB at most, plus one block (syncResponseBytesMax); the transport's
 * frame limit must hold that (actors/limits.ts checks it).
 */
export const SYNC_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Bytes of an answer besides its blocks and commits: version, peer head, peer base, count. */
const SYNC_RESPONSE_HEADER_BYTES = 21;
/** Bytes of the two length prefixes of one (block, commit) entry. */
const SYNC_ENTRY_PREFIX_BYTES = 8;
/** How long one peer has to answer one sync request (a full answer is up to 32 MiB). */
export const SYNC_REQUEST_TIMEOUT_MS = 10_000;
/** How long a peer that did not answer (timed out, broke the stream) is not asked again (local policy). */
export const SYNC_UNANSWERED_MS = 10_000;
/** One sync call's time across peers in all: the consensus actor waits a little longer than this. */
export const SYNC_BUDGET_MS = 25_000;

/**
 * The largest answer serveSync builds: it stops before the entry that would pass
 * SYNC_MAX_RESPONSE_BYTES, unless that entry is the first (one block always goes).
 */
export function syncResponseBytesMax(maxBlockBytes: number, commitBytes: number): number {
  return SYNC_RESPONSE_HEADER_BYTES + Math.max(SYNC_MAX_RESPONSE_BYTES, maxBlockBytes + commitBytes + SYNC_ENTRY_PREFIX_BYTES);
}

export function syncProtocol(chainId: number): string {
  return `/exchange/${chainId}/sync/${SYNC_VERSION}`;
}

export interface SyncRequest {
  fromHeight: number;
  maxBlocks: number;
}

export interface SyncedBlock {
  block: Block;
  commit: Commit;
  /** The block as it travelled (for the certificate cache). */
  bytes: Uint8Array;
}

export interface SyncResponse {
  peerHead: number;
  /** The lowest height the peer keeps (1 unless it pruned, or started from a snapshot): it serves nothing below (absent: 1). */
  peerBase?: number;
  blocks: SyncedBlock[];
}

/** A sync response and the peer (libp2p id) that sent it. */
export interface SyncAnswer {
  peer: string;
  response: SyncResponse;
}

/** What one sync call got: the first answer with blocks (null: none), the peers that did not answer, and those that pruned the heights asked for. */
export interface SyncAttempt {
  answer: SyncAnswer | null;
  unanswered: string[];
  /** Peers that answered with no block because their base is past the height asked for (absent: none). */
  pruned?: { peer: string; base: number }[];
}

/**
 * Asks `peers` in turn, starting at a position that moves with the height asked for (so
 * one slow or lying peer is not always asked first), until one answers with blocks. A
 * peer whose request fails (its own timeout, a broken stream, an undecodable answer) is
 * listed in `unanswered` and the next is asked; no peer is asked once `budgetMs` has
 * passed, and a request never gets more time than is left of it.
 */
export async function askPeersInTurn(
  peers: readonly string[],
  fromHeight: number,
  request: (peer: string, timeoutMs: number) => Promise<SyncResponse>,
  opts: { requestTimeoutMs?: number; budgetMs?: number; now?: () => number; onFailure?: (peer: string, err: unknown) => void } = {},
): Promise<SyncAttempt> {
  const now = opts.now ?? (() => performance.now());
  const deadline = now() + (opts.budgetMs ?? SYNC_BUDGET_MS);
  const unanswered: string[] = [];
  const pruned: NonNullable<SyncAttempt['pruned']> = [];
  const attempt = (answer: SyncAnswer | null): SyncAttempt => (pruned.length > 0 ? { answer, unanswered, pruned } : { answer, unanswered });
  const start = peers.length === 0 ? 0 : fromHeight % peers.length;
  for (let i = 0; i < peers.length; i++) {
    const left = deadline - now();
    if (left < 1) break;
    const peer = peers[(start + i) % peers.length];
    try {
      const response = await request(peer, Math.min(opts.requestTimeoutMs ?? SYNC_REQUEST_TIMEOUT_MS, left));
      if (response.blocks.length > 0) return attempt({ peer, response });
      const base = response.peerBase ?? 1;
      if (base > fromHeight) pruned.push({ peer, base });
    } catch (err) {
      unanswered.push(peer);
      opts.onFailure?.(peer, err);
    }
  }
  return attempt(null);
}

/**
 * Which peers block sync passes over, and until when: a peer refused for a block without
 * a valid commit for SYNC_REFUSAL_MS, one that did not answer for SYNC_UNANSWERED_MS.
 * Local policy in wall time; it touches no state.
 */
export class SyncPeers {
  readonly #until = new Map<string, number>();
  /** Until when each refused peer (a liar) is passed over: excluded({ liarsOnly }) names only these. */
  readonly #liarUntil = new Map<string, number>();
  /** Answers refused (a block in them did not prove itself). */
  refused = 0;
  /** Requests a peer did not answer in time, or failed. */
  unanswered = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The peers not to ask now (the expired ones are forgotten); `liarsOnly`: only those
   * refused for a forged block, not those that did not answer (a node whose one peer was
   * out of reach for a moment asks it again when it shows it is ahead).
   */
  excluded(opts: { liarsOnly?: boolean } = {}): Set<string> {
    const now = this.now();
    const out = new Set<string>();
    for (const map of opts.liarsOnly ? [this.#liarUntil] : [this.#until, this.#liarUntil]) {
      for (const [peer, until] of map) {
        if (until > now) out.add(peer);
        else map.delete(peer);
      }
    }
    return out;
  }

  refuse(peer: string): void {
    this.refused++;
    this.#skip(peer, SYNC_REFUSAL_MS);
    this.#liarUntil.set(peer, this.now() + SYNC_REFUSAL_MS);
  }

  noAnswer(peer: string): void {
    this.unanswered++;
    this.#skip(peer, SYNC_UNANSWERED_MS);
  }

  #skip(peer: string, ms: number): void {
    const until = this.now() + ms;
    // A liar that then also stalls stays passed over for the longer of the two.
    if ((this.#until.get(peer) ?? 0) < until) this.#until.set(peer, until);
  }
}

/**
 * Whether the validators' messages show this node behind (decision 66). It keeps each
 * validator's highest height seen in a message far ahead of the node (the sender is the
 * authenticated peer, not a field of the message), and `shown()` is the height that
 * validators holding more than a third of the power have each reached: faulty power is
 * below a third, so at least one honest validator is there, and the node really is
 * behind it. One faulty validator claiming a far height, however often, starts no sync;
 * before, every such message made the consensus actor ask every peer for blocks they
 * did not have, and one validator sending them could stall the others' consensus.
 */
export class AheadClaims {
  readonly #heights = new Map<Address, number>();
  readonly #validators: ValidatorSet | (() => ValidatorSet);

  /** `validators`: the set whose members' claims count (a node: its next height's). */
  constructor(validators: ValidatorSet | (() => ValidatorSet)) {
    this.#validators = validators;
  }

  private get validators(): ValidatorSet {
    const v = this.#validators;
    return v instanceof ValidatorSet ? v : v();
  }

  /** Records that `validator` sent a message at `height`; returns shown(). */
  claim(validator: Address, height: number): number {
    if (!this.validators.has(validator)) return this.shown();
    if ((this.#heights.get(validator) ?? 0) < height) this.#heights.set(validator, height);
    return this.shown();
  }

  /** The highest height that validators with more than a third of the power have each shown (0: none). */
  shown(): number {
    const byHeight = [...this.#heights].sort((a, b) => b[1] - a[1]);
    const set = this.validators;
    let power = 0n;
    for (const [validator, height] of byHeight) {
      power += set.powerOf(validator);
      if (set.hasOneThird(power)) return height;
    }
    return 0;
  }

  /** Forgets the claims the node has reached (its head is now `height`). */
  reached(height: number): void {
    for (const [validator, h] of this.#heights) if (h <= height) this.#heights.delete(validator);
  }
}

export function encodeSyncRequest(r: SyncRequest): Uint8Array {
  return new Writer(16).u8(SYNC_VERSION).u64(r.fromHeight).u32(r.maxBlocks).finish();
}

export function decodeSyncRequest(bytes: Uint8Array): SyncRequest {
  const r = new Reader(bytes);
  if (r.u8() !== SYNC_VERSION) throw new Error('unknown sync request version');
  const req = { fromHeight: r.u64(), maxBlocks: Math.min(r.u32(), SYNC_MAX_BLOCKS) };
  r.end();
  return req;
}

/**
 * Reads up to maxBlocks committed blocks from the store, stopping before the response
 * grows too large. A request below the store's base gets no block (blocks from the base
 * would not follow the asker's head), only the head and the base.
 */
export async function serveSync(store: Pick<KvChainStore, 'getEncodedBlockAndCommit'> & Partial<Pick<KvChainStore, 'base'>>, head: number, req: SyncRequest): Promise<Uint8Array> {
  const parts: { block: Uint8Array; commit: Uint8Array }[] = [];
  const base = (await store.base?.()) ?? 1;
  let size = 0;
  for (let h = Math.max(1, req.fromHeight); h >= base && h <= head && parts.length < req.maxBlocks; h++) {
    const stored = await store.getEncodedBlockAndCommit(h);
    if (!stored) break;
    size += stored.block.length + stored.commit.length + SYNC_ENTRY_PREFIX_BYTES;
    if (parts.length > 0 && size > SYNC_MAX_RESPONSE_BYTES) break;
    parts.push(stored);
  }
  return encodeSyncResponse(head, base, parts);
}

function encodeSyncResponse(head: number, base: number, parts: { block: Uint8Array; commit: Uint8Array }[]): Uint8Array {
  const size = parts.reduce((n, p) => n + p.block.length + p.commit.length + 8, 0);
  const w = new Writer(size + SYNC_RESPONSE_HEADER_BYTES).u8(SYNC_VERSION).u64(head).u64(base).u32(parts.length);
  for (const p of parts) w.bytes(p.block).bytes(p.commit);
  return w.finish();
}

/**
 * Devnet fault injection (`--faulty-sync`, tests of the syncing node's defences): the
 * same response with every block's timestamp moved by 1 ms. Each block still decodes,
 * but its hash is no longer the one its commit's precommits signed.
 */
export function forgeSyncResponse(bytes: Uint8Array, maxBlockBytes: number): Uint8Array {
  const r = new Reader(bytes, SYNC_MAX_RESPONSE_BYTES);
  r.u8();
  const head = r.u64();
  const base = r.u64();
  const n = r.u32();
  const parts: { block: Uint8Array; commit: Uint8Array }[] = [];
  for (let i = 0; i < n; i++) {
    const block = decodeBlock(r.bytes(SYNC_MAX_RESPONSE_BYTES), maxBlockBytes);
    const forged = { ...block, header: { ...block.header, timestampMs: block.header.timestampMs + 1 } };
    parts.push({ block: encodeBlock(forged, maxBlockBytes), commit: r.bytes(SYNC_MAX_RESPONSE_BYTES) });
  }
  return encodeSyncResponse(head, base, parts);
}

/**
 * Devnet fault injection (`--claim-ahead`, tests of the sync trigger): a status message
 * for a height 1,000 past `height`, claiming nothing else, for a set of `validators`.
 */
export function claimAheadStatus(height: number, validators: number): ConsensusMessage {
  const bitmap = new Uint8Array(Math.ceil(validators / 8));
  return { kind: 'status', status: { height: height + 1_000, round: 0, hasProposal: false, prevotes: bitmap, precommits: bitmap, polRound: -1, polPrevotes: bitmap } };
}

export function decodeSyncResponse(bytes: Uint8Array, maxBlockBytes: number): SyncResponse {
  const r = new Reader(bytes, SYNC_MAX_RESPONSE_BYTES);
  if (r.u8() !== SYNC_VERSION) throw new Error('unknown sync response version');
  const peerHead = r.u64();
  const peerBase = r.u64();
  const n = r.u32();
  if (n > SYNC_MAX_BLOCKS) throw new Error(`sync response of ${n} blocks exceeds ${SYNC_MAX_BLOCKS}`);
  const blocks: SyncedBlock[] = [];
  for (let i = 0; i < n; i++) {
    const raw = r.bytes(SYNC_MAX_RESPONSE_BYTES);
    const block = decodeBlock(raw, maxBlockBytes);
    blocks.push({ block, commit: decodeCommit(r.bytes(SYNC_MAX_RESPONSE_BYTES)), bytes: raw });
  }
  r.end();
  return { peerHead, peerBase, blocks };
}

/**
 * One peer's answer to a request from `fromHeight`, checked against one set for every
 * height (the simulator's, which never changes; a node, whose set does, applies with
 * applySyncResponse): the blocks that prove themselves, in order, up to the first that does not; `refused` says why that one did not (null: all
 * did). The blocks before a refused one are still final blocks (each carries its own
 * commit), so they are applied; the peer is not asked again for SYNC_REFUSAL_MS.
 */
export function checkSyncResponse(
  chainId: number,
  validators: ValidatorSet,
  verifier: SignatureVerifier,
  fromHeight: number,
  response: SyncResponse,
): { blocks: SyncedBlock[]; refused: string | null } {
  const blocks: SyncedBlock[] = [];
  for (const b of response.blocks) {
    const height = fromHeight + blocks.length;
    const why = checkSyncedBlock(chainId, validators, verifier, height, b);
    if (why !== null) return { blocks, refused: `block ${height}: ${why}` };
    blocks.push(b);
  }
  return { blocks, refused: null };
}

/**
 * One peer's answer applied block by block: block h is checked (checkSyncedBlock) against
 * `validatorsAt(h)`, asked after block h − 1 was applied, then applied. Stops at the
 * first block that does not prove itself and says why (null: every block was applied).
 * So an answer across an epoch boundary or a jailing is checked against each height's
 * own set, and a block signed by the old set where the new one applies is refused.
 */
export async function applySyncResponse(
  chainId: number,
  validatorsAt: (height: number) => ValidatorSet,
  verifier: SignatureVerifier,
  fromHeight: number,
  response: SyncResponse,
  apply: (b: SyncedBlock) => Promise<void>,
  /** More checks of a block whose commit holds, on the state it extends (its VRF proof, its proposer): null or why not. */
  check: (b: SyncedBlock) => string | null = () => null,
): Promise<{ applied: number; refused: string | null }> {
  let applied = 0;
  for (const b of response.blocks) {
    const height = fromHeight + applied;
    const why = checkSyncedBlock(chainId, validatorsAt(height), verifier, height, b) ?? check(b);
    if (why !== null) return { applied, refused: `block ${height}: ${why}` };
    await apply(b);
    applied++;
  }
  return { applied, refused: null };
}

/** null when `b` is the committed block of `height` by its commit, naming `validators` (the set of `height`); otherwise why not. */
export function checkSyncedBlock(chainId: number, validators: ValidatorSet, verifier: SignatureVerifier, height: number, b: SyncedBlock): string | null {
  if (b.block.header.height !== height) return `peer sent height ${b.block.header.height} for ${height}`;
  if (b.block.header.chainId !== chainId) return `block of chain ${b.block.header.chainId}`;
  const badCommit = checkCommit(chainId, validators, verifier, height, blockHash(b.block.header), b.commit);
  if (badCommit !== null) return badCommit;
  // The header names the set that signs its height (decision 128): a block whose commit
  // holds but whose header names another set would mislead a light client reading it.
  if (!equalBytes(b.block.header.validatorsHash, validatorsHash(validators))) return `header's validators hash ${bytesToHex(b.block.header.validatorsHash)} is not that of the set of height ${height}`;
  return null;
}

/**
 * null when the synced block `b`, the next block on `view` (its commit already checked),
 * carries a VRF proof of its height's alpha over `view`'s seed under its proposer's VRF
 * key; otherwise why not. Called just before the block is applied, so `keyOf` reads the
 * state the block extends.
 */
export function checkSyncedProof(view: Pick<ChainView, 'height' | 'seed'>, keyOf: VrfKeyOf, b: SyncedBlock, vrf: VrfScheme = ECVRF): string | null {
  if (b.block.header.height !== view.height + 1) return `block ${b.block.header.height} does not follow head ${view.height}`;
  return checkProposerProof(vrf, keyOf, b.block.header, view.seed);
}

/**
 * What block sync checks of a synced block beyond its commit, on the chain it extends
 * (called just before the block is applied): its VRF proof (checkSyncedProof), and that
 * its proposer is the one `validators` (its height's set) draws for its height and round
 * from `view`'s seed. null, or why not. The same checks as the consensus actor's
 * syncedBlockCheck, as one pure function the bench (bench/sync.ts) and tests call.
 */
export function checkSyncedProposer(
  view: Pick<ChainView, 'height' | 'seed'>,
  keyOf: VrfKeyOf,
  validators: ValidatorSet,
  b: SyncedBlock,
  vrf: VrfScheme = ECVRF,
): string | null {
  const badProof = checkSyncedProof(view, keyOf, b, vrf);
  if (badProof !== null) return badProof;
  const h = b.block.header;
  const drawn = validators.proposer(h.height, h.round, view.seed).address;
  return drawn === h.proposer ? null : `proposer ${h.proposer} is not the one drawn for round ${h.round} (${drawn})`;
}
