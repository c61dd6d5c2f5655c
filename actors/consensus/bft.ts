/**
 * The consensus concern on every node of a multi-validator network: drives the
 * ConsensusCore (src/consensus/core.ts, rounds in machines/consensus-round.ts) from one
 * mailbox. Gossip and direct messages come in from the p2p actor, timeouts from timers
 * this actor sets; decided blocks go to the chain actor, and the core hears
 * `commitDone` only after the block is applied and on disk.
 *
 * Before it takes part, and whenever peers show it is more than a couple of heights
 * behind, it catches up by block sync (src/chain/sync.ts): a node never votes at a
 * height it has not reached by applying every earlier block.
 *
 * Every node runs it, with or without a validator key. The set that signs each height is
 * the one the node's executed state fixed for it (Chain.validatorsAt): a node whose key
 * is in a height's set signs at that height, any other follows (decides from the
 * others' votes and applies), and a key joining or leaving the set switches between the
 * two at the height the state says, without a restart. A node without a key only follows.
 *
 * What the validator signs goes through the LocalPrivValidator, which writes its state
 * to the privval files (src/storage/privval-file.ts, on disk before the write returns)
 * before the signature is released, so after any restart it cannot sign a conflicting
 * vote.
 *
 * Messages come through an inbox with one bounded lane per kind (./inbox.ts): a flood of
 * votes cannot push out proposals, and the actor's own timeouts have a lane that is
 * served first and never refuses. One timer is pending at a time, the one of the step
 * the core entered last (a new one replaces it, as CometBFT's timeout ticker does): only
 * that step's timeout can act, so nothing that matters is ever dropped.
 *
 * A full disk (decision 121) pauses it: when the chain actor refuses a block because it
 * could not write it, or the privval files cannot be written (so the signature never
 * left), the core is dropped and nothing is signed or sent until the storage guard says
 * both write again ('storageBack', or any message after that); then it catches up by
 * block sync and starts a new core at the head, as after a restart.
 *
 * Blocks are paced: round 0 of the next height starts blockTimeMs after the previous
 * one started (or at once, when consensus took longer), a fixed cadence like the solo
 * producer's.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Commit } from '../../src/codec/block';
import { blockHash, encodeBlock } from '../../src/codec/block';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { ChainConsensusApp, logBlockRefusal } from '../../src/chain/consensus-app';
import { zeroCounters, type ProposalRefusal } from '../../src/consensus/core-types';
import { proposalRefusalLog } from './refusal-log';
import { AheadClaims, applySyncResponse, checkSyncedProposer, claimAheadStatus, SYNC_BUDGET_MS, SYNC_GAP, SYNC_REFUSAL_MS, SYNC_RETRY_MS, SyncPeers, type SyncAttempt, type SyncedBlock } from '../../src/chain/sync';
import { ConsensusCore, inputFromMessage, type ConsensusInput, type ConsensusOutput } from '../../src/consensus/core';
import { checkEvidence, encodeEvidence, evidenceHash, evidenceHeight, evidenceOffender, type Evidence } from '../../src/consensus/evidence';
import { encodeMessage, messageHeight, voteSigningHash, type Vote } from '../../src/consensus/messages';
import { timeoutConfig } from '../../src/consensus/params';
import { decodePrivValState, encodePrivValState, LocalPrivValidator } from '../../src/consensus/privval';
import { knownKeyVerifier, Secp256k1Signer, type SignatureVerifier } from '../../src/consensus/signer';
import { Step } from '../../machines/consensus-round';
import { sign } from '../../src/crypto/secp256k1';
import { openPrivValState, privvalMissing, PRIVVAL_RESET_HINT, PrivValFileError, type PrivValFile } from '../../src/storage/privval-file';
import { CodecError } from '../../src/codec/binary';
import { Topic } from '../../src/net/transport';
import type { NodeConfig } from '../../src/config/node-config';
import type { Chain } from '../../src/chain/chain';
import type { StorageGuard } from '../../src/storage/storage-guard';
import type { Logger } from '../../src/util/log';
import type { BlockResult, VerifiedCache } from '../../src/state/apply';
import { validatorRecord } from '../../src/state/validators/records';
import type { Address } from '../../src/util/bytes';
import { bytesToHex } from '../../src/util/bytes';
import type { ActorBehavior, ActorRef } from '../actor';
import type { ChainMsg } from '../chain/messages';
import type { P2PMsg } from '../p2p/messages';
import { isNoSpace, StorageUnavailableError } from '../../src/storage/no-space';
import { storesMovedAside } from '../../src/storage/corruption';
import type { LaneStats } from '../inbox';
import { EVIDENCE_KEPT_MAX } from '../limits';
import type { Batch, MempoolMsg } from '../mempool/messages';
import type { SignerCache } from '../../src/state/signer-cache';
import { sentKey } from '../p2p/sent-ledger';
import type { ConsensusInfo, ConsensusMsg, EvidenceRecord } from './messages';

/** How long a starting node waits for a first peer before it decides it is alone. */
const FIRST_PEER_WAIT_MS = 3_000;
/** After the first peer, how long a starting node waits for its other bootstrap peers before its first sync (within FIRST_PEER_WAIT_MS). */
const OTHER_PEERS_WAIT_MS = 1_000;

/** What the behaviour needs of its own actor: to send itself its timeouts, and its lanes' counters for /status. */
export interface ConsensusSelf {
  send(m: ConsensusMsg): boolean;
  lanes(): Record<string, LaneStats> | undefined;
}

/** What BFT consensus uses of the node (built by src/node/node.ts). */
export interface ConsensusDeps {
  /** Its keys, the block time, genesis, where its privval files live, its bootstrap peers, the devnet's faults, its clock. */
  config: Pick<NodeConfig, 'validatorKey' | 'vrfKey' | 'blockTimeMs' | 'genesis' | 'dataDir' | 'p2p' | 'faults' | 'clock'>;
  log: Logger;
  /** The executed chain, read-only (the chain actor's; open before the actors start). */
  chain: () => Chain;
  /** Set once a scheduled upgrade names a newer version (decision 77): nothing more leaves it. */
  upgradeRequired: () => string | undefined;
  /** Connected peers now (the p2p actor's transport; 0 before it started): a starting node waits for them. */
  peerCount: () => number;
  /** Whether the chain and privval folders take writes, and their faults (decision 121); absent in tests without one. */
  storage?: Pick<StorageGuard, 'writable' | 'fault' | 'onChange'>;
  /** The p2p actor (its messages out, block sync), the mempool (batches, evidence), the chain actor (decided blocks). */
  actors: { p2p?: ActorRef<P2PMsg>; mempool: ActorRef<MempoolMsg>; chain: ActorRef<ChainMsg> };
}

export function bftBehavior(deps: ConsensusDeps, self: () => ConsensusSelf, info: { current?: () => ConsensusInfo }): ActorBehavior<ConsensusMsg> {
  let core: ConsensusCore | undefined;
  let app: ChainConsensusApp | undefined;
  let privval: LocalPrivValidator | undefined;
  let privvalFile: PrivValFile | undefined;
  let verifier: SignatureVerifier;
  let vrfKey: Uint8Array | undefined;
  let verified: VerifiedCache = new Map();
  let generation = 0;
  let lastCommit: Commit | null = null;
  let roundZeroAt = 0;
  let syncing = false;
  let blocksSynced = 0;
  /** The highest head a sync answer showed (see syncTarget). */
  let peerHeadSeen = 0;
  /** The height last reported as pruned by every peer that answered (the warning is said once per height). */
  let prunedWarnedFrom = 0;
  let syncBlocksPerSecond = 0;
  let syncStartHeight = 0;
  /** Peers block sync passes over for a while: liars, and peers that did not answer (local policy, wall time). */
  const syncPeers = new SyncPeers();
  let aheadClaims: AheadClaims;
  /** Set at start (the node's logger); kept across cores so a refusal is logged once. */
  let logProposalRefusal: (r: ProposalRefusal) => void = () => {};
  let syncsStarted = 0;
  let messagesAheadIgnored = 0;
  /** performance.now() before which messages start no sync (the last one found nothing to apply). */
  let noSyncUntil = 0;
  let proposalsUntimely = 0;
  /** Why this node's key signs nothing (its privval files lost or damaged: decision 125), or null. */
  let signingRefused: string | null = null;
  /**
   * The one pending timer and the height it is for. Every step the core enters schedules
   * its timeout and only the current step's can act, so a new timer replaces the pending
   * one: timers fire in the order they were set, and the inbox's timeout lane, holding
   * the latest fired, never has to refuse or drop one that matters.
   */
  let timer: { handle: NodeJS.Timeout; height: number } | undefined;
  const clearTimer = () => {
    if (timer !== undefined) clearTimeout(timer.handle);
    timer = undefined;
  };
  /** Dropped its core because a write failed for lack of space (decision 121); resumes once the disk takes writes again. */
  let paused = false;
  /** Started, its first catch-up (the `catchUp` message) not yet done: /status shows it syncing. */
  let starting = false;
  /** The running instance's signal (ActorContext): aborted when it is being stopped, so a wait or a block sync under way ends at its next step (a stop lets the current message finish). */
  let signal: AbortSignal | undefined;
  const stopRequested = () => signal?.aborted === true;
  let unsubscribeStorage: (() => void) | undefined;
  const evidence = new Map<string, EvidenceRecord>();
  const buildRequests: { height: number; round: number }[] = [];

  // Read on demand (GET /status), not rebuilt after every message.
  info.current = () => ({
    height: core?.height ?? deps.chain().height + 1,
    round: core?.round ?? 0,
    step: core ? Step[core.step] : 'Syncing',
    syncing: syncing || starting,
    blocksSynced,
    syncPeersRefused: syncPeers.refused,
    syncPeersUnanswered: syncPeers.unanswered,
    syncsStarted,
    messagesAheadIgnored,
    syncTarget: Math.max(deps.chain().height, peerHeadSeen, (core?.height ?? 1) - 1, aheadClaims ? aheadClaims.shown() - 1 : 0),
    syncBlocksPerSecond,
    syncStartHeight,
    evidence: [...evidence.values()],
    // Zeros before the first core (a node answering /status while it catches up at start).
    counters: { ...(core?.counters ?? zeroCounters()) } as unknown as Record<string, number>,
    proposalsUntimely,
    lanes: self().lanes() ?? {},
    signingRefused,
  });

  /** The set that signs the node's next height. */
  const validatorsNow = () => {
    const chain = deps.chain();
    return chain.validatorsAt(chain.height + 1);
  };

  const p2p = () => {
    const a = deps.actors.p2p;
    if (!a) throw new Error('the consensus actor needs the p2p actor');
    return a;
  };

  const schedule = (o: Extract<ConsensusOutput, { type: 'scheduleTimeout' }>) => {
    let delay = o.delayMs;
    // Pacing: the next height's round 0 starts one block time after this one's.
    if (o.step === Step.NewHeight) delay = Math.max(0, roundZeroAt + deps.config.blockTimeMs - performance.now());
    const gen = generation;
    clearTimer();
    const handle = setTimeout(() => {
      if (timer?.handle === handle) timer = undefined;
      // The timeout lane never refuses while the actor accepts messages: false means it is stopping.
      if (!self().send({ type: 'timer', generation: gen, height: o.height, round: o.round, step: o.step })) {
        deps.log.warn({ height: o.height, round: o.round, step: Step[o.step] }, 'consensus timeout not delivered: the actor is stopping');
      }
    }, delay);
    timer = { handle, height: o.height };
  };

  const recordEvidence = (e: Evidence, observed: boolean): boolean => {
    const hash = bytesToHex(evidenceHash(e));
    if (evidence.has(hash)) return false;
    if (evidence.size >= EVIDENCE_KEPT_MAX) evidence.delete(evidence.keys().next().value!);
    evidence.set(hash, { kind: e.kind, offender: evidenceOffender(e), height: evidenceHeight(e), hash, observed });
    deps.log.warn(
      { kind: e.kind, offender: evidenceOffender(e), height: evidenceHeight(e), observed },
      'double-sign evidence: the validator `offender` signed two conflicting messages at this height; conflicting votes go into a block and tombstone it (if it is yours: two nodes run its key, stop one)',
    );
    // Into a block through the pool (decision 72): execution tombstones the signer. Conflicting proposals are not punished.
    const tx = e.kind === 'duplicateVote' ? encodeTx(deps.config.genesis.chainId, TxKind.DoubleSignEvidence, { evidence: e }) : undefined;
    if (tx) deps.actors.mempool.send({ type: 'submit', tx, reply: { resolve() {}, reject: (err) => deps.log.info({ err: String(err) }, 'evidence refused by the mempool') } });
    return true;
  };

  /** Devnet fault injection: a second, conflicting vote after each real one (tests of evidence). */
  const equivocate = (v: Vote) => {
    const key = deps.config.faults?.equivocateWithKey;
    if (!key) return;
    const blockHash = randomBytes(32);
    const conflicting = { type: v.type, height: v.height, round: v.round, blockHash, validator: v.validator };
    const signature = sign(voteSigningHash(deps.config.genesis.chainId, conflicting), key);
    p2p().send({ type: 'consensus', topic: Topic.Votes, data: encodeMessage({ kind: 'vote', vote: { ...conflicting, signature } }) });
  };

  /**
   * Devnet fault injection: after each vote, a status message claiming a height 1,000
   * ahead, to every validator (tests of the sync trigger, decision 66).
   */
  const claimAhead = (v: Vote) => {
    if (!deps.config.faults?.claimAhead) return;
    p2p().send({ type: 'consensus', topic: Topic.Votes, data: encodeMessage(claimAheadStatus(v.height, validatorsNow().size)) });
  };

  const applyDecision = async (d: Extract<ConsensusOutput, { type: 'decide' }>) => {
    const v = app!.take(d.blockHash) ?? app!.validate(d.block);
    if (v === null) throw new Error(`decided block ${bytesToHex(d.blockHash)} at ${d.height} does not validate here`);
    await deps.actors.chain.ask<BlockResult>((reply) => ({ type: 'commit', block: v.block, commit: d.commit, verified, decoded: v.decoded, ackAtApply: true, reply }));
    app!.committed(d.height, d.block, d.commit);
    lastCommit = d.commit;
    // The core would drop it as stale; clearing saves a wakeup and a trip through the inbox.
    if (timer !== undefined && timer.height <= d.height) clearTimer();
  };

  const build = async (height: number, round: number): Promise<ConsensusInput | null> => {
    const chain = deps.chain();
    if (height !== chain.height + 1) return null;
    const { consensus } = deps.config.genesis;
    const batch = await deps.actors.mempool.ask<Batch>((reply) => ({ type: 'batch', maxTxs: consensus.maxBlockTxs, maxBytes: consensus.maxBlockBytes, reply }));
    const block = chain.buildBlock({ txs: batch.txs, decoded: batch.decoded, timestampMs: (deps.config.clock ?? Date.now)(), proposer: privval!.address, round, lastCommit: core?.lastCommitFor(height - 1) ?? lastCommit, vrfKey: vrfKey! });
    const bytes = encodeBlock(block, consensus.maxBlockBytes);
    const hash = blockHash(block.header);
    app!.built({ block, decoded: batch.decoded, hash });
    return { type: 'blockReady', hash, bytes };
  };

  /** Runs the core's outputs, and everything they lead to, to completion. */
  const run = async (first: ConsensusOutput[]) => {
    const queue = [...first];
    for (;;) {
      // A software upgrade this node is too old for (decision 77): nothing more leaves it.
      if (deps.upgradeRequired()) return;
      const o = queue.shift();
      if (o === undefined) {
        const req = buildRequests.shift();
        if (req === undefined) break;
        const input = await build(req.height, req.round);
        if (input) queue.push(...(await core!.handle(input)));
        continue;
      }
      switch (o.type) {
        case 'broadcast': {
          const data = encodeMessage(o.message);
          p2p().send({ type: 'consensus', topic: o.message.kind === 'proposal' ? Topic.Proposals : Topic.Votes, data, key: sentKey(o.message, data) });
          if (o.message.kind === 'vote' && o.message.vote.validator === privval?.address) {
            equivocate(o.message.vote);
            claimAhead(o.message.vote);
          }
          break;
        }
        case 'send': {
          // A status to one peer (asking it for help) always goes: its answer depends on where that peer is now.
          const data = encodeMessage(o.message);
          p2p().send({ type: 'direct', to: o.to, data, key: o.message.kind === 'status' ? undefined : sentKey(o.message, data) });
          // Linear votes (decision 174): our vote goes to the round's collector; the fault switches follow it there too.
          if (o.message.kind === 'vote' && o.message.vote.validator === privval?.address) {
            equivocate(o.message.vote);
            claimAhead(o.message.vote);
          }
          break;
        }
        case 'scheduleTimeout':
          schedule(o);
          break;
        case 'decide':
          await applyDecision(o);
          queue.push(...(await core!.handle({ type: 'commitDone', height: o.height })));
          break;
        case 'evidence':
          if (recordEvidence(o.evidence, true)) p2p().send({ type: 'publish', topic: Topic.Evidence, data: encodeEvidence(o.evidence) });
          break;
      }
    }
  };

  const newCore = async () => {
    const chain = deps.chain();
    generation++;
    clearTimer();
    buildRequests.length = 0;
    lastCommit = chain.height > 0 ? ((await chain.store.getCommit(chain.height)) ?? null) : null;
    // The set of each height from the executed chain: the next height's, and the head's
    // (the next block's lastCommit), read when asked, after the previous block is applied.
    const validators = (height: number) => deps.chain().validatorsAt(height);
    app = new ChainConsensusApp(() => deps.chain(), {
      validators,
      verifier,
      vrfKeyOf: (v) => deps.chain().vrfKeyOf(v),
      requestBlock: (height, round) => buildRequests.push({ height, round }),
      now: deps.config.clock ?? Date.now,
      onRefused: (r) => logBlockRefusal(deps.log, r),
    });
    core = new ConsensusCore({
      chainId: chain.chainId,
      validators,
      privValidator: privval ?? null,
      verifier,
      app,
      timeouts: timeoutConfig(deps.config.genesis.consensus),
      height: chain.height + 1,
      onProposalRefused: (r) => logProposalRefusal(r),
    });
    aheadClaims.reached(chain.height);
    roundZeroAt = performance.now();
    await run(await core.start());
  };

  /**
   * A synced block whose commit holds must also carry its proposer's VRF proof over our
   * seed, and its proposer must be the one drawn for its round from the height's set.
   */
  const syncedBlockCheck = (b: SyncedBlock): string | null => {
    const chain = deps.chain();
    return checkSyncedProposer(chain, chain.vrfKeyOf, chain.validatorsAt(b.block.header.height), b);
  };

  /**
   * Applies committed blocks from peers until none has more; true when it moved. A peer
   * whose answer holds a block that does not prove itself (applySyncResponse, syncedBlockCheck) is not
   * asked again for SYNC_REFUSAL_MS and the next peer is asked: a lying peer can neither
   * feed the node a block nor stop it catching up from the honest ones, nor make it
   * fetch and check its forgeries again at every consensus message that shows the node
   * behind. A peer that does not answer in time is passed over for SYNC_UNANSWERED_MS,
   * and one call waits SYNC_BUDGET_MS at most: a stalling peer cannot hold the actor
   * (before, its stream was never timed out, the wait here ended in ASK_TIMEOUT, and the
   * supervisor restarted consensus, which asked the same peer first again).
   */
  const syncToHead = async (): Promise<boolean> => {
    syncing = true;
    let moved = false;
    const startedAt = performance.now();
    const heightBefore = deps.chain().height;
    syncStartHeight = heightBefore;
    try {
      for (;;) {
        if (stopRequested()) break;
        const chain = deps.chain();
        const from = chain.height + 1;
        let attempt: SyncAttempt;
        try {
          // The p2p actor gives up asking after SYNC_BUDGET_MS; this wait is only a backstop.
          attempt = await p2p().ask<SyncAttempt>((reply) => ({ type: 'sync', fromHeight: from, exclude: syncPeers.excluded(), reply }), SYNC_BUDGET_MS + 5_000);
        } catch (err) {
          // Not a reason to restart consensus: the next message that shows us behind syncs again.
          deps.log.warn({ err: (err as Error).message, fromHeight: from }, 'block sync: no answer from the p2p actor; the next consensus message that shows this node behind syncs again');
          break;
        }
        for (const peer of attempt.unanswered) syncPeers.noAnswer(peer);
        const answer = attempt.answer;
        if (answer === null) {
          if (attempt.pruned !== undefined && prunedWarnedFrom !== from) {
            // Said once per height: no peer served a block, and these have pruned the ones this node needs next.
            prunedWarnedFrom = from;
            deps.log.warn(
              { fromHeight: from, peers: attempt.pruned },
              'block sync: no peer served the blocks after this node\'s head, and the peers listed have pruned them (their base is past it): block sync cannot catch up from them; state sync from a snapshot can, or a peer started with --archive',
            );
          }
          break;
        }
        // Each block is checked against its own height's set, read after the one before it is applied.
        const { applied, refused: why } = await applySyncResponse(chain.chainId, (h) => deps.chain().validatorsAt(h), verifier, from, answer.response, async (b) => {
          await deps.actors.chain.ask<BlockResult>((reply) => ({ type: 'commit', block: b.block, commit: b.commit, reply }), 60_000);
          blocksSynced++;
          moved = true;
        }, syncedBlockCheck);
        if (why === null) peerHeadSeen = Math.max(peerHeadSeen, answer.response.peerHead);
        if (why !== null) {
          syncPeers.refuse(answer.peer);
          deps.log.warn(
            { peer: answer.peer, why, fromHeight: from, ignoredForMs: SYNC_REFUSAL_MS },
            'block sync: refused a peer that sent a block without a valid commit or VRF proof; it is not asked again for a while and the next peer is asked (nothing to do here: that peer runs another chain or forged the block)',
          );
          continue;
        }
        if (answer.response.peerHead < from + applied) break;
      }
    } finally {
      syncing = false;
    }
    if (moved) {
      const seconds = (performance.now() - startedAt) / 1000;
      syncBlocksPerSecond = seconds > 0 ? (deps.chain().height - heightBefore) / seconds : 0;
      deps.log.info({ height: deps.chain().height, blocksSynced, blocksPerSecond: Math.round(syncBlocksPerSecond) }, 'caught up by block sync');
    }
    return moved;
  };

  /** The chain store and the privval files take writes (no fault pending in the storage guard). */
  const canWrite = () => {
    const g = deps.storage;
    return !g || (g.writable('chain') && g.writable('privval'));
  };

  /**
   * A write failed for lack of space (the chain actor's refusal, or the privval files'
   * ENOSPC): drop the core, so nothing more is signed or sent, and wait for the disk.
   * False for any other error (the caller rethrows it: a restart, as before).
   */
  const pauseOn = (err: unknown): boolean => {
    if (!(err instanceof StorageUnavailableError) && !isNoSpace(err)) return false;
    if (!(err instanceof StorageUnavailableError)) {
      // The privval files: nothing to write again (the signature never left); the probe waits for space.
      if (!deps.storage?.fault('privval', join(deps.config.dataDir, 'privval'), err, async () => {})) return false;
    }
    if (!paused) deps.log.warn({ height: core?.height, err: (err as Error).message }, 'consensus paused: a write failed for lack of space; nothing is signed until the disk takes writes again');
    paused = true;
    core = undefined;
    generation++;
    clearTimer();
    buildRequests.length = 0;
    return true;
  };

  /** Catches up by block sync and starts a new core at the head (the start's path). */
  const catchUpAndStart = async () => {
    try {
      await syncToHead();
      await newCore();
    } catch (err) {
      if (!pauseOn(err)) throw err;
    }
  };

  return {
    async start(ctx) {
      signal = ctx.signal;
      paused = false;
      unsubscribeStorage?.();
      // Wake a paused consensus when the disk takes writes again (peers' messages would too, later).
      unsubscribeStorage = deps.storage?.onChange((full) => {
        if (!full) self().send({ type: 'storageBack' });
      });
      const key = deps.config.validatorKey;
      vrfKey = deps.config.vrfKey;
      // A key proposes where its set holds it, and each block it proposes carries its VRF proof.
      if (key && !vrfKey) throw new Error('the consensus actor needs a VRF key (it proves the seed of each block it proposes)');
      // Claims count from the validators of the node's next height.
      aheadClaims = new AheadClaims(validatorsNow);
      logProposalRefusal = proposalRefusalLog(deps.log);
      // Keys of every validator with a record (genesis and registered): unknown signers fall back to recovery.
      verifier = knownKeyVerifier((address) => validatorRecord(deps.chain().state, address)?.ecdsaPubkey);
      privvalFile?.close();
      privvalFile = undefined;
      privval = undefined;
      signingRefused = null;
      if (key) {
        // A key signs only at heights whose set holds it; its privval state is kept all the same.
        // Lost or damaged, it is never rebuilt: the node follows without signing until the operator resets it.
        const dir = join(deps.config.dataDir, 'privval');
        signingRefused = privvalMissing(dir, deps.chain().height, storesMovedAside(join(deps.config.dataDir, 'chain')));
        if (signingRefused === null) {
          try {
            const { file, saved } = await openPrivValState(dir, deps.chain().store);
            privvalFile = file;
            privval = new LocalPrivValidator(new Secp256k1Signer(key), (state) => file.write(encodePrivValState(state)), saved ? decodePrivValState(saved) : null);
          } catch (err) {
            if (!(err instanceof PrivValFileError) && !(err instanceof CodecError)) throw err;
            signingRefused = `the double-sign protection files in ${dir} are damaged (${err.message})`;
          }
        }
        if (signingRefused !== null) deps.log.error({ privval: dir }, `SIGNING REFUSED: ${signingRefused}; this node follows the chain but signs nothing. ${PRIVVAL_RESET_HINT}`);
      }
      verified = await deps.actors.mempool.ask<SignerCache>((reply) => ({ type: 'verifiedCache', reply }));
      // The catch-up is the actor's first message, not part of its start: the actors
      // started after this one (the oracle, the API) come up meanwhile, so /status and
      // /health answer while a node syncs a long chain.
      starting = true;
      self().send({ type: 'catchUp' });
    },
    async handle(msg) {
      // The first message after start runs the catch-up: normally the `catchUp` start sent,
      // but its lane holds one message and a later one (storageBack) may have superseded it.
      if (starting) {
        // Catch up before taking part: wait briefly for a first peer, and a little longer for
        // the rest of the bootstrap peers (the sync's fallbacks when the first is slow or lies), then sync.
        const peersNow = deps.peerCount;
        const deadline = Date.now() + FIRST_PEER_WAIT_MS;
        while (Date.now() < deadline && peersNow() === 0 && !stopRequested()) await new Promise((r) => setTimeout(r, 50));
        const all = deps.config.p2p?.bootstrap.length ?? 0;
        const rest = Math.min(deadline, Date.now() + OTHER_PEERS_WAIT_MS);
        while (Date.now() < rest && peersNow() > 0 && peersNow() < all && !stopRequested()) await new Promise((r) => setTimeout(r, 50));
        starting = false;
        if (stopRequested()) return;
        if (!canWrite()) {
          paused = true;
          deps.log.warn('consensus waits: the disk is full (see the storage lines); it catches up and takes part once it takes writes again');
          return;
        }
        await catchUpAndStart();
        return;
      }
      if (msg.type === 'catchUp') return;
      if (paused) {
        if (!canWrite()) return;
        paused = false;
        deps.log.info({ height: deps.chain().height }, 'consensus resumes: the disk takes writes again; catching up from peers');
        await catchUpAndStart();
        return;
      }
      if (!core) return;
      try {
        await handleMessage(msg);
      } catch (err) {
        if (!pauseOn(err)) throw err;
      }
    },
    stop() {
      starting = false;
      unsubscribeStorage?.();
      unsubscribeStorage = undefined;
      privvalFile?.close();
      privvalFile = undefined;
      generation++;
      clearTimer();
      core = undefined;
    },
  };

  async function handleMessage(msg: ConsensusMsg): Promise<void> {
    if (!core) return;
    switch (msg.type) {
      case 'timer':
        if (msg.generation !== generation) return;
        if (msg.step === Step.NewHeight) roundZeroAt = performance.now();
        return run(await core.handle({ type: 'timeout', height: msg.height, round: msg.round, step: msg.step }));
      case 'evidence': {
        const why = checkEvidence(deps.config.genesis.chainId, validatorsNow(), verifier, msg.evidence);
        if (why !== null) {
          deps.log.warn({ why, kind: msg.evidence.kind }, 'evidence refused: it does not prove a double-sign by a validator of this height (nothing to do; a peer relayed a bad or stale proof)');
          return;
        }
        recordEvidence(msg.evidence, false);
        return;
      }
      case 'message': {
        const m = msg.message;
        const height = messageHeight(m);
        if (height > core.height + SYNC_GAP) {
          // Far behind, if validators with more than a third of the power say so: catch
          // up by block sync, then start consensus at the new head. The message is dropped.
          const shown = msg.from === undefined ? aheadClaims.shown() : aheadClaims.claim(msg.from, height);
          if (shown <= core.height + SYNC_GAP || performance.now() < noSyncUntil) {
            messagesAheadIgnored++;
            return;
          }
          syncsStarted++;
          if (await syncToHead()) await newCore();
          else noSyncUntil = performance.now() + SYNC_RETRY_MS;
          return;
        }
        if (m.kind === 'proposal' && !app!.isTimely(m.proposal)) {
          proposalsUntimely++;
          return;
        }
        if (m.kind === 'status' && msg.from === undefined) return;
        return run(await core.handle(inputFromMessage(m, msg.from ?? ('0x' as Address))));
      }
    }
  }
}
