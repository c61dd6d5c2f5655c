/**
 * State sync, the asking side (issue 27, decision 140): an empty store filled from a
 * snapshot its peers offer, verified end to end before anything opens it.
 *
 *   1. offers: every connected peer is asked for its snapshots (and the blocks it keeps);
 *      joinMode (src/chain/state-sync.ts) says whether to state sync at all;
 *   2. for the newest (height H, manifest hash) offered: a light proof from the trusted
 *      height (genesis, or the operator's --trust-height/--trust-hash) to H, verified
 *      (src/chain/light.ts): header H, the state root after it, the set signing H; the
 *      offer's root must be that root, and the peers offering it must hold more than a
 *      third of that set's power (their validators from the genesis keys and hellos);
 *   3. the manifest from an offering peer: its hash the offered one, verified against the
 *      verified root; block H and its commit (block sync's protocol): the verified
 *      header's hash, its transactions' root, a commit of the set signing H;
 *   4. the chunks from the offering peers in parallel (ChunkPlan: a few in flight per
 *      peer; a bad chunk drops its peer and is asked of another; a stalled peer is
 *      passed over), each verified (verifyChunk) before its records are written;
 *   5. the light anchors, then in one synced batch the head block, its commit, the root,
 *      the signing set, base = H and the genesis hash (KvChainStore.writeRestoredHead).
 *
 * The node then opens the store as any other (Chain.open rebuilds the state and checks
 * its root against the stored one) and block sync continues from H + 1. A sync that
 * fails removes what it wrote: the folder was empty when it started.
 *
 * The network is StateSyncNet: libp2p on a node (state-sync-net.ts), the protocol's own
 * serving code over in-memory stores in tests.
 */
import { emptyStoreFolder } from '../storage/set-aside';
import { blockHash, decodeHeader, type Block, type Commit } from '../codec/block';
import { secp256k1Verifier, type SignatureVerifier } from '../consensus/signer';
import { decodeLightProof, verifyLightProof, type LightAnchor, type LightTrust, type VerifiedHeight } from '../chain/light';
import { candidates, checkRestoredHead, ChunkPlan, enoughOfferedPower, genesisSigningSet, joinMode, offeredPower, snapshotRootMatches, type Candidate, type StateSyncProgress } from '../chain/state-sync';
import { decodeOffers, decodeTrustedPayload, SNAPSHOT_TIMEOUT_MS, SnapshotAnswerError, SnapshotRequestKind, SnapshotStatus, type SnapshotOffers, type SnapshotRequest } from '../chain/state-sync-wire';
import { decodeValidatorSet, encodeValidatorSet, validatorsHash } from '../chain/validator-sets';
import type { Genesis } from '../genesis/types';
import { decodeManifest, manifestHash, verifyChunk, verifyManifest, type SnapshotManifest } from '../state/snapshot';
import { bytesToHex, equalBytes, type Address } from '../util/bytes';
import type { Logger } from '../util/log';

/** What state sync needs of the network. */
export interface StateSyncNet {
  /** Connected peers now. */
  peers(): string[];
  /** The validator a peer speaks for (genesis key or a verified hello), if known. */
  addressOf(peer: string): Address | undefined;
  /** One snapshot-protocol request; resolves to the OK answer's payload, throws SnapshotAnswerError (NOT_FOUND, REFUSED) or any error (timeout, broken stream, malformed answer). */
  ask(peer: string, req: SnapshotRequest, timeoutMs: number): Promise<Uint8Array>;
  /** Block `height` and its commit by block sync's protocol (undefined: the peer does not keep it). */
  block(peer: string, height: number, timeoutMs: number): Promise<{ block: Block; commit: Commit } | undefined>;
}

/** What the restore writes to (KvChainStore). */
export interface RestoreTarget {
  putStateRecords(records: ReadonlyArray<readonly [Uint8Array, Uint8Array]>): Promise<void>;
  putLightAnchors(anchors: LightAnchor[]): Promise<void>;
  writeRestoredHead(r: { genesisHash: Uint8Array; block: Block; commit: Commit; blockHash: Uint8Array; stateRoot: Uint8Array; signers: Uint8Array }): Promise<void>;
}

export interface StateSyncOptions {
  genesis: Genesis;
  genesisHash: Uint8Array;
  net: StateSyncNet;
  log: Logger;
  /** `--state-sync`: state sync or fail; otherwise only when joinMode says so. */
  forced: boolean;
  /** The store was moved aside as corrupt (decision 124): state sync only when the peers pruned. */
  healing: boolean;
  /** The operator's trusted height and header hash; absent: genesis. */
  trust?: { height: number; hash: Uint8Array };
  /** Opens the (empty) store to restore into; called once a snapshot is chosen. */
  openTarget(): Promise<RestoreTarget & { close(): Promise<void> }>;
  /** Removes what a failed restore wrote (the store's folder). */
  discardTarget(): Promise<void>;
  onProgress?: (p: StateSyncProgress) => void;
  verifier?: SignatureVerifier;
  /** How long offers are gathered before deciding (auto), and how long a forced sync keeps looking for a usable snapshot. */
  offersWaitMs?: number;
  forcedWaitMs?: number;
  /** Per-kind request timeouts in place of SNAPSHOT_TIMEOUT_MS (tests shorten them). */
  timeoutsMs?: Partial<Record<SnapshotRequestKind, number>>;
  /** The bootstrap peer count: once that many answered, offers are not waited for longer. */
  expectedPeers?: number;
  now?: () => number;
}

/** Offers are gathered this long after the start (or until every bootstrap peer answered) before an empty store decides. */
export const OFFERS_WAIT_MS = 3_000;
/** A forced state sync looks this long for a snapshot it can verify before it gives up. */
export const FORCED_WAIT_MS = 120_000;
const POLL_MS = 200;
/** How often the offers gathered so far are looked at. */
const OFFERS_POLL_MS = 25;

export class StateSyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateSyncError';
  }
}

function timeoutOf(o: Pick<StateSyncOptions, 'timeoutsMs'>, kind: SnapshotRequestKind): number {
  return o.timeoutsMs?.[kind] ?? SNAPSHOT_TIMEOUT_MS[kind];
}

/** One request, bounded by its kind's timeout here whatever the network does. */
function ask(o: Pick<StateSyncOptions, 'timeoutsMs' | 'net'>, peer: string, req: SnapshotRequest): Promise<Uint8Array> {
  const t = timeoutOf(o, req.kind);
  return withTimeout(o.net.ask(peer, req, t), t, `${SnapshotRequestKind[req.kind]} of ${peer}`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Runs state sync if it should run: resolves to the restored height, or null when the
 * empty store is to start by block sync instead (nobody offers a snapshot; a heal whose
 * peers keep block 1). Throws StateSyncError when a forced sync finds nothing it can
 * verify in time, or when a chosen snapshot cannot be completed.
 */
export async function stateSyncJoin(o: StateSyncOptions): Promise<{ height: number; stateRoot: Uint8Array } | null> {
  const now = o.now ?? (() => Date.now());
  const verifier = o.verifier ?? secp256k1Verifier;
  const started = now();
  const answers = new Map<string, SnapshotOffers>();
  /** Peers that answered with something false (a light proof, manifest, head block or chunk that does not verify): asked nothing more. */
  const liars = new Set<string>();
  const progress: StateSyncProgress = { phase: 'offers', chunksDone: 0, chunksTotal: 0, bytes: 0, bytesTotal: 0, peers: 0 };
  const report = () => o.onProgress?.({ ...progress });

  const askOffers = async (peers: string[]) => {
    await Promise.all(
      peers.map(async (peer) => {
        try {
          answers.set(peer, decodeOffers(await ask(o, peer, { kind: SnapshotRequestKind.Offers })));
        } catch (err) {
          o.log.debug({ peer, err: (err as Error).message }, 'state sync: a peer gave no offers');
        }
      }),
    );
    progress.peers = answers.size;
    // A node that may well not state sync (no offers) says nothing until it does.
    if (o.forced) report();
  };

  // 1. Offers: each peer asked once as it connects, the answers read as they come, until
  // every expected peer answered, or more than two thirds of them did and one offers a
  // snapshot (a slow peer does not hold the join up: if what they offer cannot be
  // verified, offers are asked again below), or the wait is over.
  if (o.forced) report();
  const offersWait = o.offersWaitMs ?? OFFERS_WAIT_MS;
  const asked = new Set<string>();
  for (;;) {
    const fresh = o.net.peers().filter((p) => !asked.has(p));
    for (const p of fresh) asked.add(p);
    if (fresh.length > 0) void askOffers(fresh);
    const expected = o.expectedPeers ?? 0;
    const offered = [...answers.values()].some((a) => a.snapshots.length > 0);
    const all = expected > 0 && answers.size >= expected;
    const most = expected > 0 && offered && 3 * answers.size > 2 * expected;
    if (all || most || now() - started >= offersWait || (offered && o.expectedPeers === undefined)) break;
    await sleep(OFFERS_POLL_MS);
  }
  const mode = joinMode({ forced: o.forced, healing: o.healing, answers: [...answers.values()] });
  if (mode === 'block-sync') {
    o.log.info({ peersAnswered: answers.size, healing: o.healing }, o.healing ? 'state sync: a peer keeps every block: the store heals by block sync' : 'state sync: no peer offers a snapshot: the node syncs blocks from genesis');
    return null;
  }

  // 2-5. The newest candidate that verifies; offers asked again while none does.
  const deadline = started + (o.forced ? (o.forcedWaitMs ?? FORCED_WAIT_MS) : Math.max(offersWait, 30_000));
  const trust = await trustOf(o, verifier, liars);
  const tried = new Set<string>();
  for (;;) {
    const infos = new Map<string, SnapshotOffers['snapshots']>();
    for (const [peer, a] of answers) if (!liars.has(peer)) infos.set(peer, a.snapshots);
    for (const c of candidates(infos)) {
      const key = `${c.height}:${bytesToHex(c.manifestHash)}:${c.peers.join(',')}`;
      if (tried.has(key) || c.height <= trust.height) continue;
      tried.add(key);
      const restored = await tryCandidate(o, c, trust, verifier, liars, progress, report);
      if (restored !== null) return restored;
    }
    if (now() >= deadline) {
      if (!o.forced) {
        o.log.warn({ peersAnswered: answers.size }, 'state sync: no snapshot offered could be verified; the node syncs blocks from genesis instead');
        return null;
      }
      throw new StateSyncError(
        `state sync: no snapshot offered by ${answers.size} peer(s) could be verified from trusted height ${trust.height} within ${Math.round((deadline - started) / 1000)} s ` +
          '(each refusal is logged above); check the bootstrap peers, and that validators with more than a third of the power offer snapshots',
      );
    }
    await sleep(1_000);
    const more = o.net.peers().filter((p) => !liars.has(p));
    await askOffers(more);
  }
}

/** The trusted starting point: genesis, or the operator's height whose header hash and signing set a peer shows. */
async function trustOf(o: StateSyncOptions, verifier: SignatureVerifier, liars: Set<string>): Promise<LightTrust> {
  void verifier;
  if (o.trust === undefined || o.trust.height === 0) return { chainId: o.genesis.chainId, height: 0, set: genesisSigningSet(o.genesis, o.genesisHash) };
  const { height, hash } = o.trust;
  for (const peer of o.net.peers()) {
    if (liars.has(peer)) continue;
    try {
      const t = decodeTrustedPayload(await ask(o, peer, { kind: SnapshotRequestKind.Trusted, height }));
      const header = decodeHeader(t.header);
      if (!equalBytes(blockHash(header), hash)) {
        o.log.warn({ peer, height, trusted: bytesToHex(hash), got: bytesToHex(blockHash(header)) }, 'state sync: a peer sent a header at the trusted height whose hash is not the trusted hash; it is asked nothing more');
        liars.add(peer);
        continue;
      }
      const set = decodeValidatorSet(t.set);
      if (!equalBytes(validatorsHash(set), header.validatorsHash)) {
        o.log.warn({ peer, height }, "state sync: a peer sent a validator set at the trusted height that is not the one its header commits to; it is asked nothing more");
        liars.add(peer);
        continue;
      }
      return { chainId: o.genesis.chainId, height, set, header };
    } catch (err) {
      o.log.debug({ peer, err: (err as Error).message }, 'state sync: a peer did not give the trusted header');
    }
  }
  throw new StateSyncError(`state sync: no peer gave header ${height} with the trusted hash ${bytesToHex(hash)} and its validator set`);
}

/** Steps 2-5 for one candidate: the restored height, or null (refused: logged, the next candidate is tried). Throws once it has begun writing and cannot finish. */
async function tryCandidate(
  o: StateSyncOptions,
  c: Candidate,
  trust: LightTrust,
  verifier: SignatureVerifier,
  liars: Set<string>,
  progress: StateSyncProgress,
  report: () => void,
): Promise<{ height: number; stateRoot: Uint8Array } | null> {
  const H = c.height;
  const log = o.log.child({ snapshot: H });
  progress.phase = 'verifying';
  progress.height = H;
  report();
  const usable = () => c.peers.filter((p) => !liars.has(p));
  // 2. The light proof, from each offering peer in turn until one verifies.
  let verified: VerifiedHeight | undefined;
  for (const peer of usable()) {
    try {
      const proof = decodeLightProof(await ask(o, peer, { kind: SnapshotRequestKind.LightProof, trustedHeight: trust.height, height: H }));
      const v = verifyLightProof(trust, proof, verifier);
      if (v.height !== H) throw new Error(`the proof is for height ${v.height}, not ${H}`);
      verified = v;
      break;
    } catch (err) {
      if (isPeerAnswer(err)) {
        log.info({ peer, reason: (err as Error).message }, 'state sync: a peer has no light proof for the snapshot height');
        continue;
      }
      liars.add(peer);
      log.warn({ peer, reason: (err as Error).message }, 'state sync: a light proof did not verify; its peer is asked nothing more');
    }
  }
  if (verified === undefined) {
    log.warn({ peers: c.peers.length }, 'state sync: no offering peer gave a light proof that verifies; the snapshot is passed over');
    return null;
  }
  if (!snapshotRootMatches(c, verified.stateRoot)) {
    log.warn({ offeredRoot: bytesToHex(c.stateRoot), committedRoot: bytesToHex(verified.stateRoot) }, 'state sync: the snapshot offered is not of the state root the chain committed at its height; refused');
    return null;
  }
  const addressOf = (p: string) => o.net.addressOf(p);
  if (!enoughOfferedPower(c, verified.setAt, addressOf)) {
    log.warn(
      { power: offeredPower(c, verified.setAt, addressOf).toString(), totalPower: verified.setAt.totalPower.toString(), peers: c.peers.length },
      'state sync: the snapshot is offered by validators holding a third of the power or less; passed over',
    );
    return null;
  }
  const verifiedHash = blockHash(verified.header);
  // 3. The manifest and the head block, each from the first offering peer whose answer verifies.
  let manifest: SnapshotManifest | undefined;
  for (const peer of usable()) {
    try {
      const m = decodeManifest(await ask(o, peer, { kind: SnapshotRequestKind.Manifest, height: H }));
      if (!equalBytes(manifestHash(m), c.manifestHash)) throw new Error('the manifest does not hash to the one offered');
      if (m.height !== H) throw new Error(`the manifest is of height ${m.height}`);
      verifyManifest(m, verified.stateRoot);
      manifest = m;
      break;
    } catch (err) {
      if (isPeerAnswer(err) || isTimeout(err)) continue;
      liars.add(peer);
      log.warn({ peer, reason: (err as Error).message }, 'state sync: a manifest did not verify; its peer is asked nothing more');
    }
  }
  if (manifest === undefined) {
    log.warn('state sync: no offering peer gave a manifest that verifies; the snapshot is passed over');
    return null;
  }
  let head: { block: Block; commit: Commit } | undefined;
  for (const peer of usable()) {
    try {
      const t = timeoutOf(o, SnapshotRequestKind.Manifest);
      const got = await withTimeout(o.net.block(peer, H, t), t, `block ${H}`);
      if (got === undefined) continue;
      const why = checkRestoredHead(o.genesis.chainId, verifiedHash, verified.setAt, verifier, got.block, got.commit, o.genesis.consensus.maxTxBytes);
      if (why !== null) throw new Error(why);
      head = got;
      break;
    } catch (err) {
      if (isTimeout(err)) continue;
      liars.add(peer);
      log.warn({ peer, reason: (err as Error).message }, 'state sync: the head block a peer sent is not the verified one; its peer is asked nothing more');
    }
  }
  if (head === undefined) {
    log.warn({ height: H }, 'state sync: no offering peer gave the snapshot height’s block with a valid commit; the snapshot is passed over');
    return null;
  }
  // 4. The chunks; 5. the head. From here on a failure discards the folder.
  const target = await o.openTarget();
  try {
    await fetchChunks(o, manifest, c, liars, target, progress, report, log);
    progress.phase = 'restoring';
    report();
    await target.putLightAnchors(verified.anchors);
    await target.writeRestoredHead({ genesisHash: o.genesisHash, block: head.block, commit: head.commit, blockHash: verifiedHash, stateRoot: verified.stateRoot, signers: encodeValidatorSet(verified.setAt) });
    await target.close();
  } catch (err) {
    await target.close().catch(() => undefined);
    await o.discardTarget();
    throw err instanceof StateSyncError ? err : new StateSyncError(`state sync at height ${H} failed: ${(err as Error).message}`);
  }
  progress.phase = 'done';
  report();
  log.info({ height: H, stateRoot: bytesToHex(verified.stateRoot), chunks: manifest.chunks.length, bytes: progress.bytes }, 'state sync: the store is restored at the snapshot height; block sync continues from the next height');
  return { height: H, stateRoot: verified.stateRoot };
}

/** The chunks of `m` from the candidate's peers, a few in flight per peer; each verified, then written. */
async function fetchChunks(
  o: StateSyncOptions,
  m: SnapshotManifest,
  c: Candidate,
  liars: Set<string>,
  target: RestoreTarget,
  progress: StateSyncProgress,
  report: () => void,
  log: Logger,
): Promise<void> {
  const now = o.now ?? (() => Date.now());
  const plan = new ChunkPlan(m.chunks.length, c.peers.filter((p) => !liars.has(p)));
  progress.phase = 'chunks';
  progress.chunksTotal = m.chunks.length;
  progress.chunksDone = 0;
  progress.bytesTotal = m.chunks.reduce((n, r) => n + r.bytes, 0);
  progress.peers = plan.usablePeers().length;
  report();
  const running = new Set<Promise<void>>();
  let writes: Promise<void> = Promise.resolve();
  let writeFailed: unknown;
  const fetchOne = async (peer: string, index: number) => {
    let bytes: Uint8Array;
    try {
      bytes = await ask(o, peer, { kind: SnapshotRequestKind.Chunk, height: m.height, index });
    } catch (err) {
      if (err instanceof SnapshotAnswerError && err.status === SnapshotStatus.NotFound) plan.gone(peer, index);
      else {
        plan.stalled(peer, index, now());
        log.info({ peer, chunk: index, reason: (err as Error).message }, 'state sync: a peer did not serve a chunk in time; it is asked of another');
      }
      return;
    }
    let records: Array<[Uint8Array, Uint8Array]>;
    try {
      records = verifyChunk(m, index, bytes);
    } catch (err) {
      plan.bad(peer, index);
      liars.add(peer);
      log.warn({ peer, chunk: index, reason: (err as Error).message }, 'state sync: a chunk did not verify; its peer is dropped and the chunk asked of another');
      return;
    }
    plan.done(peer, index);
    progress.chunksDone = plan.doneCount;
    progress.bytes += bytes.length;
    progress.peers = plan.usablePeers().length;
    report();
    // Written in order of arrival, one batch per chunk, verified before it is written.
    writes = writes.then(() => target.putStateRecords(records)).catch((err) => {
      writeFailed ??= err;
    });
  };
  while (!plan.complete) {
    if (writeFailed !== undefined) throw writeFailed;
    for (const a of plan.next(now())) {
      const p: Promise<void> = fetchOne(a.peer, a.index).finally(() => running.delete(p));
      running.add(p);
    }
    if (plan.complete) break;
    if (running.size === 0) {
      if (plan.stuck) throw new StateSyncError(`state sync: ${m.chunks.length - plan.doneCount} chunk(s) of the snapshot at height ${m.height} left and no offering peer left to ask (${plan.stats.badChunks} bad chunks, ${plan.stats.stalls} stalls)`);
      const wake = plan.nextWakeMs(now());
      await sleep(wake === undefined ? POLL_MS : Math.max(1, Math.min(wake - now(), 1_000)));
      continue;
    }
    await Promise.race(running);
  }
  await Promise.all(running);
  await writes;
  if (writeFailed !== undefined) throw writeFailed;
}

/** A peer's NOT_FOUND or REFUSED: it has nothing to give, which is no lie. */
function isPeerAnswer(err: unknown): boolean {
  return err instanceof SnapshotAnswerError;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && /within \d+ ms|did not answer|closed .* without answering|aborted/i.test(err.message);
}

/**
 * Removes what a failed state sync wrote into a store folder (it held no store when the
 * sync began): the folder itself stays (it may be a mount point, decision 166), and so do
 * the damaged copies set aside in it.
 */
export function discardFolder(dir: string): void {
  emptyStoreFolder(dir);
}
