/**
 * The consensus driver: the glue around the ConsensusCore (./core.ts, rounds in
 * machines/consensus-round.ts) that every node of a multi-validator network runs, and
 * that the simulator runs too (sim/node.ts), with everything that does I/O passed in
 * (./driver-io.ts): its clock and timers, the transport, the chain, the mempool, the
 * storage signals, the privval. The node's consensus actor (actors/consensus/bft.ts) is
 * a thin shell that builds those from its deps and feeds its mailbox here; the
 * simulator feeds its per-node mailbox with its simulated clock, network and disk, so
 * the seeded runs exercise this very code (before, sim/node.ts re-wrote it).
 *
 * Messages are handled one at a time (DriverMsg): consensus messages and evidence from
 * peers, the driver's own timeouts, the storage's signal. Decided blocks go to the
 * chain, and the core hears `commitDone` only once the block is applied and on disk.
 *
 * Before it takes part, and whenever it is shown more than SYNC_GAP heights behind, it
 * catches up by block sync (./driver-sync.ts): a node never votes at a height it has not
 * reached by applying every earlier block.
 *
 * Every node runs it, with or without a validator key. The set that signs each height is
 * the one the executed state fixed for it (Chain.validatorsAt): a node whose key is in a
 * height's set signs at that height, any other follows (decides from the others' votes
 * and applies), and a key joining or leaving the set switches between the two at the
 * height the state says, without a restart.
 *
 * One timer is pending at a time, the one of the step the core entered last (a new one
 * replaces it, as CometBFT's timeout ticker does): only that step's timeout can act, so
 * nothing that matters is ever dropped.
 *
 * A full disk (decision 121) pauses it: when the chain refuses a block because it could
 * not write it, or the privval files cannot be written (so the signature never left),
 * the core is dropped and nothing is signed or sent until the storage says both write
 * again ('storageBack', or any message after that); then it catches up by block sync and
 * starts a new core at the head, as after a restart.
 *
 * Blocks are paced: round 0 of the next height starts blockTimeMs after the previous one
 * started (or at once, when consensus took longer), a fixed cadence like the solo
 * producer's.
 */
import { Step } from '../../machines/consensus-round';
import { ChainConsensusApp } from '../chain/consensus-app';
import { blockHash, decodeCommit, encodeBlock, type Commit } from '../codec/block';
import { encodeTx, TxKind } from '../codec/tx';
import { isNoSpace, StorageUnavailableError } from '../storage/no-space';
import { bytesToHex, type Address } from '../util/bytes';
import { ConsensusCore, inputFromMessage } from './core';
import { zeroCounters, type ConsensusInput, type ConsensusOutput } from './core-types';
import { DriverSync } from './driver-sync';
import type { DriverConfig, DriverIO, DriverMsg, EvidenceRecord } from './driver-io';
import { checkEvidence, evidenceHash, evidenceHeight, evidenceOffender, type Evidence } from './evidence';
import { messageHeight } from './messages';

/** How long a starting node waits for a first peer before it decides it is alone. */
export const FIRST_PEER_WAIT_MS = 3_000;
/** After the first peer, how long a starting node waits for its other bootstrap peers before its first sync (within FIRST_PEER_WAIT_MS). */
export const OTHER_PEERS_WAIT_MS = 1_000;
/** How often a starting node looks at its peer count. */
const PEER_POLL_MS = 50;

/** What /status shows of the driver (the actor adds its inbox's lanes). */
export interface DriverInfo {
  height: number;
  round: number;
  step: string;
  syncing: boolean;
  blocksSynced: number;
  /** Block-sync answers refused because a block in them had no valid commit (the peer was then skipped). */
  syncPeersRefused: number;
  /** Block-sync requests a peer did not answer in time, or failed (the peer was then skipped for a while). */
  syncPeersUnanswered: number;
  /** Block syncs that messages far ahead started (validators with more than a third of the power far ahead). */
  syncsStarted: number;
  /** Messages far ahead that started none (too few validators that far ahead and no peer's probed head, or a sync just found nothing). */
  messagesAheadIgnored: number;
  /** Block syncs started because one peer's probed head was far ahead (a node connected to one validator, or to full nodes only: 39.2). */
  peerSyncsStarted: number;
  /** The highest head peers have shown: sync answers' heads and the heights validators with more than a third of the power reached. */
  syncTarget: number;
  /** The head when the current (or last) block sync began (eth_syncing's startingBlock). */
  syncStartHeight: number;
  /** Blocks applied per second by the last block sync that applied any (0 before one). */
  syncBlocksPerSecond: number;
  evidence: EvidenceRecord[];
  counters: Record<string, number>;
  proposalsUntimely: number;
  /** Why this node's key signs nothing (its double-sign protection files lost or damaged: decision 125), or null. */
  signingRefused: string | null;
}

export class ConsensusDriver {
  #core: ConsensusCore | undefined;
  #app: ChainConsensusApp | undefined;
  #generation = 0;
  #lastCommit: Commit | null = null;
  #roundZeroAt = 0;
  #proposalsUntimely = 0;
  /** The one pending timer (see the module comment) and the height it is for. */
  #timer: { cancel: () => void; height: number } | undefined;
  /** Dropped its core because a write failed for lack of space (decision 121); resumes once the disk takes writes again. */
  #paused = false;
  /** Started, its first catch-up (the `catchUp` message) not yet done: /status shows it syncing. */
  #starting = false;
  #stopped = false;
  readonly #evidence = new Map<string, EvidenceRecord>();
  readonly #buildRequests: { height: number; round: number }[] = [];
  /** The certificates of the last heights committed (the app of each new core gets them: lagging peers are served across core restarts). */
  readonly #recent: { height: number; bytes: Uint8Array; commit: Commit }[] = [];
  readonly #sync: DriverSync;
  #cancelPeersCheck: (() => void) | undefined;

  constructor(
    private readonly io: DriverIO,
    private readonly config: DriverConfig,
  ) {
    this.#sync = new DriverSync(io, config, (h, bytes, commit) => this.#remember(h, bytes, commit));
  }

  get height(): number | undefined {
    return this.#core?.height;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** The commit the next block at `height + 1` carries: the core's, or the head's. */
  lastCommitFor(height: number): Commit | null {
    return this.#core?.lastCommitFor(height) ?? this.#lastCommit;
  }

  /** Read on demand (GET /status), not rebuilt after every message. */
  info(): DriverInfo {
    const core = this.#core;
    const chain = this.io.chain.view();
    const s = this.#sync;
    return {
      height: core?.height ?? chain.height + 1,
      round: core?.round ?? 0,
      step: core ? Step[core.step] : 'Syncing',
      syncing: s.syncing || this.#starting,
      blocksSynced: s.blocksSynced,
      syncPeersRefused: s.peers.refused,
      syncPeersUnanswered: s.peers.unanswered,
      syncsStarted: s.syncsStarted,
      messagesAheadIgnored: s.messagesAheadIgnored,
      peerSyncsStarted: s.peerSyncsStarted,
      syncTarget: Math.max(chain.height, s.peerHeadSeen, (core?.height ?? 1) - 1, s.claims.shown() - 1),
      syncBlocksPerSecond: s.blocksPerSecond,
      syncStartHeight: s.startHeight,
      evidence: [...this.#evidence.values()],
      // Zeros before the first core (a node answering /status while it catches up at start).
      counters: { ...(core?.counters ?? zeroCounters()) } as unknown as Record<string, number>,
      proposalsUntimely: this.#proposalsUntimely,
      signingRefused: this.config.signingRefused,
    };
  }

  /**
   * Reads the certificates of the last heights from the store, and sends itself the
   * catch-up: the actors started after the node's consensus (the oracle, the API) come
   * up meanwhile, so /status and /health answer while a node syncs a long chain.
   */
  async start(): Promise<void> {
    this.#stopped = false;
    this.#paused = false;
    this.#sync.reset();
    const chain = this.io.chain.view();
    this.#recent.length = 0;
    const loaded = Math.min(this.config.certificatesKept, this.config.certificatesLoadedAtStart);
    for (let h = Math.max(1, chain.height - loaded + 1); h <= chain.height; h++) {
      const b = await chain.store.getEncodedBlockAndCommit(h);
      if (b === undefined) continue; // pruned, or a store restored from a snapshot: nothing to serve from here
      this.#recent.push({ height: h, bytes: b.block, commit: decodeCommit(b.commit) });
    }
    this.#starting = true;
    this.io.self({ type: 'catchUp' });
    this.#schedulePeersCheck();
  }

  stop(): void {
    this.#stopped = true;
    this.#starting = false;
    this.#generation++;
    this.#clearTimer();
    this.#cancelPeersCheck?.();
    this.#cancelPeersCheck = undefined;
    this.#core = undefined;
  }

  #stopRequested(): boolean {
    return this.#stopped || this.io.stopping?.() === true;
  }

  async handle(msg: DriverMsg): Promise<void> {
    // The first message after start runs the catch-up: normally the `catchUp` start sent,
    // but the actor's lane holds one message and a later one (storageBack) may have superseded it.
    if (this.#starting) {
      await this.#waitForPeers();
      this.#starting = false;
      if (this.#stopRequested()) return;
      if (!this.#canWrite()) {
        this.#paused = true;
        this.io.log.warn({}, 'consensus waits: the disk is full (see the storage lines); it catches up and takes part once it takes writes again');
        return;
      }
      await this.#catchUpAndStart();
      return;
    }
    if (msg.type === 'catchUp') return;
    if (this.#paused) {
      if (!this.#canWrite()) return;
      this.#paused = false;
      this.io.log.info({ height: this.io.chain.view().height }, 'consensus resumes: the disk takes writes again; catching up from peers');
      this.io.observer?.resumed?.();
      await this.#catchUpAndStart();
      return;
    }
    if (!this.#core) return;
    try {
      await this.#handleMessage(msg);
    } catch (err) {
      if (!this.#pauseOn(err)) throw err;
    }
  }

  /** Catch up before taking part: wait briefly for a first peer, and a little longer for the rest of the bootstrap peers (the sync's fallbacks when the first is slow or lies). */
  async #waitForPeers(): Promise<void> {
    const { clock, transport } = this.io;
    const deadline = clock.now() + FIRST_PEER_WAIT_MS;
    while (clock.now() < deadline && transport.peerCount() === 0 && !this.#stopRequested()) await clock.sleep(PEER_POLL_MS);
    const all = transport.bootstrapCount();
    const rest = Math.min(deadline, clock.now() + OTHER_PEERS_WAIT_MS);
    while (clock.now() < rest && transport.peerCount() > 0 && transport.peerCount() < all && !this.#stopRequested()) await clock.sleep(PEER_POLL_MS);
  }

  /** The periodic look at peers' probed heads; the next is set when one fires, so a check the mailbox dropped only skips one. */
  #schedulePeersCheck(): void {
    this.#cancelPeersCheck?.();
    this.#cancelPeersCheck = this.io.clock.setTimer(this.#sync.peerCheckMs, () => {
      if (this.#stopped) return;
      this.#schedulePeersCheck();
      this.io.self({ type: 'peersCheck' });
    });
  }

  async #handleMessage(msg: DriverMsg): Promise<void> {
    const core = this.#core;
    if (!core) return;
    switch (msg.type) {
      case 'timer':
        if (msg.generation !== this.#generation) return;
        if (msg.step === Step.NewHeight) this.#roundZeroAt = this.io.clock.now();
        return this.#run(await this.#input({ type: 'timeout', height: msg.height, round: msg.round, step: msg.step }));
      case 'evidence': {
        const why = checkEvidence(this.config.chainId, this.#validatorsNow(), this.config.verifier, msg.evidence);
        if (why !== null) {
          this.io.log.warn({ why, kind: msg.evidence.kind }, 'evidence refused: it does not prove a double-sign by a validator of this height (nothing to do; a peer relayed a bad or stale proof)');
          return;
        }
        this.#recordEvidence(msg.evidence, false);
        return;
      }
      case 'peersCheck':
        if (await this.#sync.peerAhead(core.height)) await this.#newCore();
        return;
      case 'message': {
        const m = msg.message;
        const height = messageHeight(m);
        if (height > core.height + this.#sync.gap) {
          // Far behind, as validators with more than a third of the power, or one peer's
          // probed head, say: catch up by block sync, then start consensus at the new
          // head. The message is dropped.
          if (await this.#sync.farAhead(core.height, height, msg.from)) await this.#newCore();
          return;
        }
        if (m.kind === 'proposal' && !this.#app!.isTimely(m.proposal)) {
          this.#proposalsUntimely++;
          this.io.observer?.proposalUntimely?.();
          return;
        }
        if (m.kind === 'status' && msg.from === undefined) return;
        return this.#run(await this.#input(inputFromMessage(m, msg.from ?? ('0x' as Address))));
      }
      default:
        return;
    }
  }

  #input(input: ConsensusInput): Promise<ConsensusOutput[]> {
    this.io.observer?.input?.(input);
    return this.#core!.handle(input);
  }

  /** The set that signs the node's next height. */
  #validatorsNow() {
    return this.io.chain.validatorsAt(this.io.chain.view().height + 1);
  }

  #clearTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #schedule(o: Extract<ConsensusOutput, { type: 'scheduleTimeout' }>): void {
    let delay = o.delayMs;
    const clock = this.io.clock;
    // Pacing: the next height's round 0 starts one block time after this one's.
    if (o.step === Step.NewHeight) delay = Math.max(0, this.#roundZeroAt + this.config.blockTimeMs - clock.now());
    const gen = this.#generation;
    this.#clearTimer();
    const timer = {
      height: o.height,
      cancel: clock.setTimer(delay, () => {
        if (this.#timer === timer) this.#timer = undefined;
        // The actor's timeout lane never refuses while it accepts messages: false means it is stopping.
        if (!this.io.self({ type: 'timer', generation: gen, height: o.height, round: o.round, step: o.step })) {
          this.io.log.warn({ height: o.height, round: o.round, step: Step[o.step] }, 'consensus timeout not delivered: the actor is stopping');
        }
      }),
    };
    this.#timer = timer;
  }

  #recordEvidence(e: Evidence, observed: boolean): boolean {
    const hash = bytesToHex(evidenceHash(e));
    if (this.#evidence.has(hash)) return false;
    if (this.#evidence.size >= this.config.evidenceKept) this.#evidence.delete(this.#evidence.keys().next().value!);
    this.#evidence.set(hash, { kind: e.kind, offender: evidenceOffender(e), height: evidenceHeight(e), hash, observed });
    this.io.log.warn(
      { kind: e.kind, offender: evidenceOffender(e), height: evidenceHeight(e), observed },
      'double-sign evidence: the validator `offender` signed two conflicting messages at this height; conflicting votes go into a block and tombstone it (if it is yours: two nodes run its key, stop one)',
    );
    // Into a block through the pool (decision 72): execution tombstones the signer. Conflicting proposals are not punished.
    if (e.kind === 'duplicateVote') this.io.mempool.submitEvidence(encodeTx(this.config.chainId, TxKind.DoubleSignEvidence, { evidence: e }));
    return true;
  }

  #remember(height: number, bytes: Uint8Array, commit: Commit): void {
    this.#sync.progressed();
    this.#lastCommit = commit;
    this.#recent.push({ height, bytes, commit });
    if (this.#recent.length > this.config.certificatesKept) this.#recent.shift();
  }

  async #applyDecision(d: Extract<ConsensusOutput, { type: 'decide' }>): Promise<void> {
    const app = this.#app!;
    const v = app.take(d.blockHash) ?? app.validate(d.block);
    if (v === null) throw new Error(`decided block ${bytesToHex(d.blockHash)} at ${d.height} does not validate here`);
    await this.io.chain.commitDecided(v, d.commit);
    app.committed(d.height, d.block, d.commit);
    this.#remember(d.height, d.block, d.commit);
    this.io.transport.decided?.({ height: d.height, block: d.block, commit: d.commit });
    // The core would drop it as stale; clearing saves a wakeup and a trip through the mailbox.
    if (this.#timer !== undefined && this.#timer.height <= d.height) this.#clearTimer();
  }

  async #build(height: number, round: number): Promise<ConsensusInput | null> {
    const chain = this.io.chain.view();
    if (height !== chain.height + 1) return null;
    const { maxBlockTxs, maxBlockBytes, privval, vrfKey } = this.config;
    const batch = await this.io.mempool.batch(maxBlockTxs, maxBlockBytes);
    const block = chain.buildBlock({
      txs: batch.txs,
      decoded: batch.decoded,
      timestampMs: this.io.clock.wallMs(),
      proposer: privval!.address,
      round,
      lastCommit: this.#core?.lastCommitFor(height - 1) ?? this.#lastCommit,
      vrfKey: vrfKey!,
    });
    const bytes = encodeBlock(block, maxBlockBytes);
    const hash = blockHash(block.header);
    this.#app!.built({ block, decoded: batch.decoded, hash });
    return { type: 'blockReady', hash, bytes };
  }

  /** Runs the core's outputs, and everything they lead to, to completion. */
  async #run(first: ConsensusOutput[]): Promise<void> {
    const queue = [...first];
    const { transport, harness, observer } = this.io;
    for (;;) {
      // A software upgrade this node is too old for (decision 77): nothing more leaves it.
      if (this.io.halted()) return;
      const o = queue.shift();
      if (o === undefined) {
        const req = this.#buildRequests.shift();
        if (req === undefined) break;
        const input = await this.#build(req.height, req.round);
        if (input) queue.push(...(await this.#input(input)));
        continue;
      }
      observer?.output?.(o);
      switch (o.type) {
        case 'broadcast':
          if (harness?.broadcast?.(o.message, this.#harnessContext())) break;
          transport.broadcast(o.message);
          break;
        case 'send':
          if (harness?.send?.(o.to, o.message, this.#harnessContext())) break;
          transport.send(o.to, o.message);
          break;
        case 'scheduleTimeout':
          this.#schedule(o);
          break;
        case 'decide':
          await this.#applyDecision(o);
          queue.push(...(await this.#input({ type: 'commitDone', height: o.height })));
          break;
        case 'evidence':
          if (this.#recordEvidence(o.evidence, true)) transport.publishEvidence(o.evidence);
          break;
      }
    }
  }

  #harnessContext() {
    return { transport: this.io.transport, address: this.config.privval?.address, validators: () => this.#validatorsNow() };
  }

  async #newCore(): Promise<void> {
    const chain = this.io.chain.view();
    this.#generation++;
    this.#clearTimer();
    this.#buildRequests.length = 0;
    const last = this.#recent.at(-1);
    this.#lastCommit = last?.height === chain.height ? last.commit : chain.height > 0 ? ((await chain.store.getCommit(chain.height)) ?? null) : null;
    // The set of each height from the executed chain: the next height's, and the head's
    // (the next block's lastCommit), read when asked, after the previous block is applied.
    const validators = (height: number) => this.io.chain.validatorsAt(height);
    const app = new ChainConsensusApp(() => this.io.chain.view(), {
      validators,
      verifier: this.config.verifier,
      vrfKeyOf: (v) => this.io.chain.view().vrfKeyOf(v),
      vrf: this.config.vrf,
      requestBlock: (height, round) => this.#buildRequests.push({ height, round }),
      now: () => this.io.clock.wallMs(),
      keepCertificates: this.config.certificatesKept,
      onRefused: this.config.onBlockRefused,
    });
    // Certificates for lagging peers, kept across cores.
    for (const c of this.#recent) app.committed(c.height, c.bytes, c.commit);
    this.#app = app;
    this.#core = new ConsensusCore({
      chainId: this.config.chainId,
      validators,
      privValidator: this.config.privval,
      verifier: this.config.verifier,
      app,
      timeouts: this.config.timeouts,
      height: chain.height + 1,
      onProposalRefused: this.config.onProposalRefused,
    });
    this.#sync.reached(chain.height);
    this.#roundZeroAt = this.io.clock.now();
    await this.#run(await this.#core.start());
  }

  #canWrite(): boolean {
    return this.io.storage?.canWrite() ?? true;
  }

  /**
   * A write failed for lack of space (the chain's refusal, or the privval files'
   * ENOSPC): drop the core, so nothing more is signed or sent, and wait for the disk.
   * False for any other error (the caller rethrows it: a restart, as before).
   */
  #pauseOn(err: unknown): boolean {
    if (!(err instanceof StorageUnavailableError) && !isNoSpace(err)) return false;
    // The privval files: nothing to write again (the signature never left); the storage's probe waits for space.
    if (!(err instanceof StorageUnavailableError) && !(this.io.storage?.privvalFull(err) ?? false)) return false;
    if (!this.#paused) {
      this.io.log.warn({ height: this.#core?.height, err: (err as Error).message }, 'consensus paused: a write failed for lack of space; nothing is signed until the disk takes writes again');
      this.io.observer?.paused?.(err);
    }
    this.#paused = true;
    this.#core = undefined;
    this.#generation++;
    this.#clearTimer();
    this.#buildRequests.length = 0;
    return true;
  }

  /** Catches up by block sync and starts a new core at the head (the start's path). */
  async #catchUpAndStart(): Promise<void> {
    try {
      await this.#sync.toHead(() => this.#stopRequested());
      if (this.#stopRequested()) return;
      await this.#newCore();
    } catch (err) {
      if (!this.#pauseOn(err)) throw err;
    }
  }
}
