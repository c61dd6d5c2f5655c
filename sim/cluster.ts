/**
 * Deterministic simulation of a whole validator set in one process: every validator's
 * ConsensusCore, block validation (ChainConsensusApp), mempool (TxPool) and execution
 * (applyBlock over a State from the devnet genesis), the real code, over a simulated
 * transport and a simulated clock, all driven by ONE seeded PRNG and one event queue
 * ordered by (time, insertion order). The same seed replays the same run exactly.
 *
 * A seeded workload (sim/workload.ts: faucet credits, signed orders, cancels) submits
 * transactions to random nodes' pools; a pool that admits one gossips its bytes to the
 * other nodes' pools over the same faulty network, as the node's mempool does.
 *
 * Injected (fault phase only, then everything heals):
 *  - message delay (per-link base + jitter, so messages reorder), delay spikes, drops,
 *    duplicates;
 *  - symmetric partitions (two groups cut off from each other) and asymmetric ones (a
 *    set of one-way links down), overlapping, each healing after its duration;
 *  - crashes: the node loses all memory (state, pool, consensus); its disk (committed
 *    blocks and commits, state records, privval state) survives, and it restarts later
 *    from there, reopening its state the way Chain.open does;
 *  - clock skew: each node's clock is off by a constant of up to ±clockSkewMs;
 *  - one Byzantine validator (for the whole run): equivocating proposals (two different
 *    blocks for one height/round to two groups of peers), double votes, and block-sync
 *    answers with forged blocks (half of its answers).
 *
 * Block sync runs as the node's consensus actor runs it (actors/consensus/bft.ts
 * syncToHead, over the p2p actor's request-response): a node that sees messages more
 * than 3 heights ahead from validators with more than a third of the power (the real
 * AheadClaims) asks a live peer (the first one rotating with the height asked)
 * for the blocks after its head, served from that peer's disk by the real serveSync,
 * checks them with the real checkSyncResponse, applies the good ones, refuses a peer
 * that sent a forged block for 60 s, and asks again until no peer has more; then its
 * consensus restarts at the new height. Requests and answers cross the same faulty
 * network; an unanswered request times out after SYNC_TIMEOUT_MS, the next peer is
 * asked, and the silent one is passed over for 10 s (the real SyncPeers, on the
 * simulated clock). While it syncs, the node's timers, messages and pending applies
 * wait, as in the actor's mailbox.
 *
 * Checked:
 *  - SAFETY: no two honest nodes decide different blocks at one height; every honest
 *    node's state root (State.root() after applyBlock) is the same at every height it
 *    committed, and a restarted node reloads its state to the stored root; execution
 *    never throws and a decided block always validates; every decision carries
 *    a commit with 2/3 of the power or more in valid signatures; no honest validator
 *    ever sends two different signed messages for one (height, round, step) (across its
 *    restarts too); every evidence an honest node reports is valid and names the
 *    Byzantine validator.
 *  - LIVENESS: once the faults stop (the healing phase: the 5 honest validators up and
 *    connected, the Byzantine one still misbehaving), every honest node commits new
 *    heights within a bounded simulated time; every transaction an honest node admitted
 *    after the heal is committed.
 *  - Evidence: when the Byzantine node equivocated often, honest nodes reported it.
 */
import { performance } from 'node:perf_hooks';
import { Step } from '../machines/consensus-round';
import { blockHash, encodeBlock, encodeCommit, type Block, type Commit } from '../src/codec/block';
import {
  AheadClaims,
  checkSyncResponse,
  claimAheadStatus,
  decodeSyncRequest,
  decodeSyncResponse,
  encodeSyncRequest,
  forgeSyncResponse,
  serveSync,
  SYNC_GAP,
  SYNC_MAX_BLOCKS,
  SYNC_RETRY_MS,
  SyncPeers,
  type SyncedBlock,
} from '../src/chain/sync';
import { ChainConsensusApp, type ValidatedBlock } from '../src/chain/consensus-app';
import { TxPool } from '../actors/mempool/pool';
import { TxError } from '../src/state/errors';
import { ConsensusCore, inputFromMessage, type ConsensusInput, type ConsensusOutput } from '../src/consensus/core';
import { checkEvidence, evidenceHash, evidenceOffender, type Evidence } from '../src/consensus/evidence';
import {
  decodeMessage,
  encodeMessage,
  messageHeight,
  proposalSigningHash,
  voteSigningHash,
  type ConsensusMessage,
  type Proposal,
  type Vote,
} from '../src/consensus/messages';
import { timeoutConfig, type TimeoutConfig } from '../src/consensus/params';
import { decodePrivValState, encodePrivValState, LocalPrivValidator } from '../src/consensus/privval';
import { Secp256k1Signer, secp256k1Verifier, type SignatureVerifier, type Signer } from '../src/consensus/signer';
import { ValidatorSet, type QuorumRule } from '../src/consensus/validator-set';
import { keccak256 } from '../src/crypto/keccak';
import type { Address } from '../src/util/bytes';
import { bytesToHex, concatBytes, equalBytes, utf8 } from '../src/util/bytes';
import type { BlockResult } from '../src/state/apply';
import { SimChain, SimDisk, simGenesis } from './chain';
import { FastSigner, FastVerifier } from './fast-signer';
import { EventHeap } from './heap';
import { Prng } from './prng';
import { Workload } from './workload';

export const FAULT_KINDS = [
  'drop',
  'duplicate',
  'delaySpike',
  'partitionSymmetric',
  'partitionAsymmetric',
  'partitionBlocked',
  'crash',
  'restart',
  'lostToCrash',
  'equivocatingProposal',
  'doubleVote',
  'forgedSyncAnswer',
  'claimAhead',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Record<FaultKind, number>;

export type ViolationKind = 'safety' | 'state' | 'commit' | 'double-sign' | 'evidence' | 'evidence-missed' | 'liveness' | 'sync' | 'exception';

export interface Violation {
  kind: ViolationKind;
  atMs: number;
  message: string;
}

export interface SimOptions {
  seed: number;
  /** Number of validators (6). */
  validators: number;
  /** Voting powers, one per validator; equal when absent. */
  powers?: bigint[];
  durationMs: number;
  /** Faults are injected before this time only; after it the network heals. */
  faultPhaseMs: number;
  /** After the heal, every honest node must have committed `livenessHeights` new heights within this. */
  livenessBoundMs: number;
  livenessHeights: number;
  byzantine: boolean;
  faults: boolean;
  crypto: 'fast' | 'real';
  /** Deliberately broken quorum rule (to show the checker catches it). */
  unsafeQuorum?: QuorumRule;
  /** A scripted partition, besides (or instead of) the random faults. */
  forcedPartition?: { groups: number[][]; fromMs: number; toMs: number };
  /** A deliberately broken block sync (to show the checker catches it): answers applied without checking their commits. */
  unsafeSync?: boolean;
  /** A deliberately broken sync trigger (to show the checker catches it): any one message far ahead starts a sync, as before decision 66. */
  unsafeSyncTrigger?: boolean;
  /** A deliberate execution bug (to show the checker catches it): at `atMs`, a stray write into that node's state. */
  divergeState?: { node: number; atMs: number };
  timeouts?: Partial<TimeoutConfig>;
  /** Transactions submitted per simulated second (a Poisson stream); absent: drawn per seed, 2-10; 0: none. */
  txPerSecond?: number;
  /** Each node's clock is off by a constant drawn in ±this (with faults only). */
  clockSkewMs: number;
  /** A transaction an honest node admitted after the heal must be committed within this. */
  txLivenessMs: number;
  /** Stop at the first violation (the CLI does; tests may want them all). */
  stopOnViolation: boolean;
  /** Keep the last N trace lines and attach them to the result. */
  traceLines: number;
  /** Also trace every input and output of these nodes (debugging a seed). */
  traceNodes?: number[];
}

export const DEFAULT_SIM_OPTIONS: Omit<SimOptions, 'seed'> = {
  validators: 6,
  durationMs: 40_000,
  faultPhaseMs: 25_000,
  livenessBoundMs: 12_000,
  livenessHeights: 3,
  byzantine: true,
  faults: true,
  crypto: 'fast',
  clockSkewMs: 100,
  txLivenessMs: 2_000,
  stopOnViolation: true,
  traceLines: 0,
};

/** Genesis-like timeouts (genesis/devnet.json). */
export const SIM_TIMEOUTS = {
  timeoutProposeMs: 300,
  timeoutProposeDeltaMs: 100,
  timeoutPrevoteMs: 100,
  timeoutPrevoteDeltaMs: 50,
  timeoutPrecommitMs: 100,
  timeoutPrecommitDeltaMs: 50,
};

export interface TxCounts {
  /** Drawn by the workload and sent to a node. */
  submitted: number;
  /** Admitted by the pool they were sent to. */
  admitted: number;
  /** Refused at the door (down node, or the pool said no). */
  refused: number;
  /** Gossiped copies a peer's pool admitted. */
  gossipAdmitted: number;
  /** In committed blocks (each height counted once), and of them those whose receipt is ok / failed. */
  committed: number;
  ok: number;
  failed: number;
}

export interface SyncCounts {
  requests: number;
  answers: number;
  blocksApplied: number;
  refused: number;
  timeouts: number;
  /** Messages far ahead that started no sync (too little power that far ahead, or a sync just found nothing). */
  aheadIgnored: number;
}

export interface SimResult {
  seed: number;
  simulatedMs: number;
  wallMs: number;
  /** Highest height committed by an honest node. */
  heights: number;
  /** Lowest height committed by an honest node at the end. */
  minHonestHeight: number;
  byzantine: number | null;
  faults: FaultCounts;
  messagesDelivered: number;
  evidenceReported: number;
  /** Distinct offences among them (one double sign seen by five nodes is one offence). */
  evidenceOffences: number;
  txs: TxCounts;
  /** Proposals dropped before the core for a stale time (ChainConsensusApp.isTimely, as the node does). */
  proposalsUntimely: number;
  /** Block sync: requests sent, answers with blocks, blocks applied from them, answers refused (a forged block), requests timed out. */
  sync: SyncCounts;
  /** Simulated ms after the heal until every honest node had committed the new heights; -1 if never. */
  recoveryMs: number;
  violations: Violation[];
  /** Hash over every decision: two runs of one seed must agree. */
  digest: string;
  trace: string[];
}

type Channel = 'consensus' | 'tx' | 'syncRequest' | 'syncResponse';

type SimEvent =
  | { kind: 'deliver'; atUs: number; seq: number; to: number; from: number; channel: Channel; bytes: Uint8Array; tag: number }
  | { kind: 'timer'; atUs: number; seq: number; node: number; incarnation: number; height: number; round: number; step: Step }
  | { kind: 'apply'; atUs: number; seq: number; node: number; incarnation: number; height: number; hash: Uint8Array; block: Uint8Array; commit: Commit }
  | { kind: 'action'; atUs: number; seq: number; run: () => Promise<void> | void };

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

interface SimNode {
  index: number;
  signer: Signer;
  address: Address;
  byzantine: boolean;
  /** Survives crashes. */
  disk: SimDisk;
  /** The running incarnation's memory; null while the node is down. */
  live: LiveNode | null;
  incarnation: number;
  /** Constant offset of this node's clock. */
  clockSkewMs: number;
}

/** What a crash loses: everything but the disk. */
interface LiveNode {
  chain: SimChain;
  pool: TxPool;
  /** Kept across core restarts within an incarnation, as the actor keeps it. */
  privval: LocalPrivValidator;
  app: ChainConsensusApp;
  core: ConsensusCore;
  /** The commit of the head block: the next block's lastCommit. */
  lastCommit: Commit | null;
  /** Blocks the app asked this node to build (proposeBlock → requestBlock), delivered as blockReady. */
  builds: { height: number; round: number }[];
  /** When round 0 of the current height started (pacing, as the node's consensus actor does). */
  roundZeroAtUs: number;
  /** The block sync under way, if any (the actor is busy in syncToHead meanwhile). */
  sync: SyncSession | null;
  /** Events for this node that arrived while it synced: handled once it is done, as its mailbox would. */
  deferred: SimEvent[];
  /** Peers block sync passes over for a while: liars and silent ones (the actor's SyncPeers, on the simulated clock). */
  syncPeers: SyncPeers;
  /** Heights validators showed far ahead of this node (the actor's AheadClaims). */
  aheadClaims: AheadClaims;
  /** Until when messages start no sync (the last one found nothing to apply). */
  noSyncUntilUs: number;
}

interface SyncSession {
  /** Peers to ask for the current height, in order, and how many were asked. */
  order: number[];
  next: number;
  /** The peer asked last, and a token that tells its answer or timeout from stale ones. */
  peer: number;
  token: number;
  /** Blocks were applied in this catch-up (the core restarts at the new height). */
  moved: boolean;
}

interface Submitted {
  hash: string;
  atUs: number;
  node: number;
}

/** The simulated clocks start this long after the genesis time. */
const CLOCK_START_MS = 1_000;
/** Mempool bounds of a simulated node (the node's defaults). */
const POOL_LIMITS = { maxTxs: 10_000, maxBytes: 64 * 1024 * 1024 };

const US = 1000;
/**
 * An unanswered sync request gives up after this (the p2p actor waits 10 s; the simulated
 * network delivers within 410 ms or drops, so 1 s only shortens the wait for a drop).
 */
const SYNC_TIMEOUT_MS = 1_000;
/** Certificates a booting node's app is handed from its disk (ChainConsensusApp's default keep). */
const CERTIFICATES_KEPT = 1_024;

export class Simulation {
  readonly opts: SimOptions;
  readonly prng: Prng;
  readonly nodes: SimNode[] = [];
  readonly validators: ValidatorSet;
  readonly verifier: SignatureVerifier;
  readonly genesis = simGenesis().genesis;
  readonly genesisHash = simGenesis().hash;
  readonly faults: FaultCounts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as FaultCounts;
  readonly violations: Violation[] = [];
  readonly #queue = new EventHeap<SimEvent>();
  readonly #byAddress = new Map<Address, number>();
  readonly #timeouts: TimeoutConfig;
  #seq = 0;
  #nowUs = 0;
  #byzantine: number | null = null;
  /** Directed link (from * n + to) -> number of active partitions cutting it. */
  readonly #cut: Int32Array;
  readonly #linkBaseUs: Float64Array;
  #faultsActive = false;
  #pDrop = 0;
  #pDuplicate = 0;
  #pSpike = 0;
  /** Height -> hash decided by the first honest node. */
  readonly #decided = new Map<number, string>();
  /** Height -> state root after it, from the first honest node that committed it. */
  readonly #roots = new Map<number, string>();
  /** Honest signer -> "h/r/step" -> signing hash of what it sent. */
  readonly #signed = new Map<Address, Map<string, string>>();
  #messagesDelivered = 0;
  #evidenceReported = 0;
  readonly #offences = new Set<string>();
  readonly #workload: Workload;
  #txPerSecond = 0;
  readonly txs: TxCounts = { submitted: 0, admitted: 0, refused: 0, gossipAdmitted: 0, committed: 0, ok: 0, failed: 0 };
  /** Hashes of the transactions in committed blocks. */
  readonly #committedTxs = new Set<string>();
  /** Admitted by an honest node after the heal: must be committed (checked at the end). */
  readonly #mustCommit: Submitted[] = [];
  #proposalsUntimely = 0;
  readonly #sync: SyncCounts = { requests: 0, answers: 0, blocksApplied: 0, refused: 0, timeouts: 0, aheadIgnored: 0 };
  #syncToken = 0;
  #digest = keccak256(utf8.encode('sim-digest'));
  #healHeight = -1;
  readonly #reachedAtUs: number[] = [];
  readonly #trace: string[] = [];

  constructor(opts: SimOptions) {
    this.opts = opts;
    this.prng = new Prng(opts.seed);
    const n = opts.validators;
    if (!Number.isInteger(n) || n < 1) throw new RangeError('validators must be >= 1');
    if (opts.faultPhaseMs > opts.durationMs) throw new RangeError('faultPhaseMs must not exceed durationMs');
    this.#timeouts = timeoutConfig(SIM_TIMEOUTS, opts.timeouts);
    this.#cut = new Int32Array(n * n);
    this.#linkBaseUs = new Float64Array(n * n);
    const signers: Signer[] = [];
    const fast: FastSigner[] = [];
    for (let i = 0; i < n; i++) {
      const secret = keccak256(utf8.encode(`sim-validator-${opts.seed}-${i}`));
      if (opts.crypto === 'real') {
        signers.push(new Secp256k1Signer(secret));
      } else {
        const s = new FastSigner(secret);
        fast.push(s);
        signers.push(s);
      }
    }
    this.verifier = opts.crypto === 'real' ? secp256k1Verifier : new FastVerifier(fast);
    const powers = opts.powers ?? signers.map(() => 10n);
    if (powers.length !== n) throw new RangeError('one power per validator');
    this.validators = new ValidatorSet(
      signers.map((s, i) => ({ address: s.address, power: powers[i] })),
      opts.unsafeQuorum ? { unsafeQuorumForSimulation: opts.unsafeQuorum } : {},
    );
    for (const [i, s] of signers.entries()) {
      this.#byAddress.set(s.address, i);
      this.nodes.push({
        index: i,
        signer: s,
        address: s.address,
        byzantine: false,
        disk: new SimDisk(),
        live: null,
        incarnation: 0,
        clockSkewMs: 0,
      });
    }
    for (let i = 0; i < n * n; i++) this.#linkBaseUs[i] = this.prng.uniform(1, 6) * US;
    if (opts.faults) for (const node of this.nodes) node.clockSkewMs = this.prng.uniform(-opts.clockSkewMs, opts.clockSkewMs);
    this.#workload = new Workload(this.prng, this.genesis);
    this.#txPerSecond = opts.txPerSecond ?? this.prng.uniform(2, 10);
    if (opts.byzantine && n > 1) {
      this.#byzantine = this.prng.int(n);
      this.nodes[this.#byzantine].byzantine = true;
    }
    for (let i = 0; i < n; i++) this.#reachedAtUs.push(-1);
  }

  get nowMs(): number {
    return this.#nowUs / US;
  }

  async run(): Promise<SimResult> {
    const wallStart = performance.now();
    this.#planFaults();
    for (const node of this.nodes) await this.#boot(node);
    const endUs = this.opts.durationMs * US;
    const healUs = this.opts.faultPhaseMs * US;
    this.#at(healUs, () => this.#heal());
    this.#at(healUs + this.opts.livenessBoundMs * US, () => this.#checkLiveness());
    this.#at(endUs, () => this.#checkTxLiveness());
    this.#scheduleSubmit();
    while (this.#queue.size > 0) {
      const ev = this.#queue.peek() as SimEvent;
      if (ev.atUs > endUs) break;
      this.#queue.pop();
      this.#nowUs = ev.atUs;
      await this.#process(ev);
      if (this.opts.stopOnViolation && this.violations.length > 0) break;
    }
    return this.#result(performance.now() - wallStart);
  }

  // ------------------------------------------------------------------ events

  #push(ev: DistributiveOmit<SimEvent, 'seq'>): void {
    this.#queue.push({ ...ev, seq: this.#seq++ } as SimEvent);
  }

  #at(atUs: number, run: () => Promise<void> | void): void {
    this.#push({ kind: 'action', atUs, run });
  }

  async #process(ev: SimEvent): Promise<void> {
    switch (ev.kind) {
      case 'deliver': {
        const node = this.nodes[ev.to];
        if (node.live === null) {
          this.faults.lostToCrash++;
          return;
        }
        if (ev.channel === 'consensus' && node.live.sync !== null) {
          node.live.deferred.push(ev);
          return;
        }
        this.#messagesDelivered++;
        if (ev.channel === 'tx') {
          this.#onGossipTx(node, node.live, ev.bytes);
          return;
        }
        if (ev.channel === 'syncRequest') return this.#serveSync(node, ev.from, ev.bytes, ev.tag);
        if (ev.channel === 'syncResponse') return this.#onSyncAnswer(node, node.live, ev.from, ev.bytes, ev.tag);
        let message: ConsensusMessage;
        try {
          message = decodeMessage(ev.bytes);
        } catch (err) {
          this.#violation('exception', `node ${ev.to} could not decode a message from ${ev.from}: ${(err as Error).message}`);
          return;
        }
        const height = messageHeight(message);
        if (height > node.live.core.height + SYNC_GAP) {
          // Far behind, if more than a third of the power says so (decision 66): block
          // sync. The message is dropped, as the actor drops it.
          const shown = this.opts.unsafeSyncTrigger ? height : node.live.aheadClaims.claim(this.nodes[ev.from].address, height);
          if (shown <= node.live.core.height + SYNC_GAP || this.#nowUs < node.live.noSyncUntilUs) {
            this.#sync.aheadIgnored++;
            return;
          }
          this.#checkBehind(node, node.live, shown);
          await this.#startSync(node, node.live, false);
          return;
        }
        // As the node's consensus actor does: a fresh proposal must carry a recent time.
        if (message.kind === 'proposal' && !node.live.app.isTimely(message.proposal)) {
          this.#proposalsUntimely++;
          if (this.opts.traceNodes?.includes(node.index)) this.#traceLine(`node ${node.index} drops untimely ${describeMessage(message)}`);
          return;
        }
        await this.#input(node, inputFromMessage(message, this.nodes[ev.from].address));
        return;
      }
      case 'timer': {
        const node = this.nodes[ev.node];
        if (node.live === null || node.incarnation !== ev.incarnation) return;
        if (node.live.sync !== null) {
          node.live.deferred.push(ev);
          return;
        }
        if (ev.step === Step.NewHeight) node.live.roundZeroAtUs = this.#nowUs;
        await this.#input(node, { type: 'timeout', height: ev.height, round: ev.round, step: ev.step });
        return;
      }
      case 'apply':
        return this.#apply(ev);
      case 'action':
        await ev.run();
        return;
    }
  }

  /** One input, its outputs, and the blocks the app asked for meanwhile (actors/consensus/bft.ts `run`). */
  async #input(node: SimNode, input: ConsensusInput): Promise<void> {
    const live = node.live;
    if (live === null) return;
    const outputs = await this.#handle(node, live, input);
    if (outputs === null) return;
    this.#outputs(node, outputs);
    await this.#buildRequested(node, live);
  }

  async #handle(node: SimNode, live: LiveNode, input: ConsensusInput): Promise<ConsensusOutput[] | null> {
    const traced = this.opts.traceNodes?.includes(node.index) ?? false;
    if (traced) this.#traceLine(`node ${node.index} @${live.core.height}/${live.core.round}/${Step[live.core.step]} <- ${describeInput(input)}`);
    let outputs: ConsensusOutput[];
    try {
      outputs = await live.core.handle(input);
    } catch (err) {
      this.#violation('exception', `node ${node.index} threw on ${input.type}: ${(err as Error).stack ?? String(err)}`);
      return null;
    }
    if (traced) for (const o of outputs) this.#traceLine(`node ${node.index} -> ${describeOutput(o)}`);
    return outputs;
  }

  async #buildRequested(node: SimNode, live: LiveNode): Promise<void> {
    for (let req = live.builds.shift(); req !== undefined && node.live === live; req = live.builds.shift()) {
      const built = this.#build(node, live, req.height, req.round, false);
      if (built === null) continue;
      live.app.built(built.validated);
      const outputs = await this.#handle(node, live, { type: 'blockReady', hash: built.validated.hash, bytes: built.bytes });
      if (outputs === null) return;
      this.#outputs(node, outputs);
    }
  }

  /**
   * The proposer's block, as the node's consensus actor builds it: the pool's batch in
   * arrival order, on top of the head, timed by this node's clock. `variant`: a
   * different block for the same (height, round) (a Byzantine proposer's second one).
   */
  #build(node: SimNode, live: LiveNode, height: number, round: number, variant: boolean): { validated: ValidatedBlock; bytes: Uint8Array } | null {
    if (height !== live.chain.height + 1) return null;
    const { consensus } = this.genesis;
    let { txs, decoded } = live.pool.peekBatch(consensus.maxBlockTxs, consensus.maxBlockBytes);
    let timestampMs = this.#clockMs(node);
    if (variant) {
      timestampMs += this.prng.range(1, 50);
      const keep = this.prng.int(txs.length + 1);
      txs = txs.slice(0, keep);
      decoded = decoded.slice(0, keep);
    }
    const block: Block = live.chain.buildBlock({ txs, decoded, timestampMs, proposer: node.address, round, lastCommit: live.lastCommit });
    return { validated: { block, decoded, hash: blockHash(block.header) }, bytes: encodeBlock(block, consensus.maxBlockBytes) };
  }

  #clockMs(node: SimNode): number {
    return this.genesis.genesisTimeMs + CLOCK_START_MS + Math.round(this.nowMs + node.clockSkewMs);
  }

  #outputs(node: SimNode, outputs: ConsensusOutput[]): void {
    for (const o of outputs) {
      switch (o.type) {
        case 'broadcast':
          this.#observeSigned(node, o.message);
          if (node.byzantine) this.#claimAhead(node, o.message);
          if (node.byzantine && this.#equivocate(node, o.message)) break;
          this.#broadcast(node.index, 'consensus', encodeMessage(o.message));
          break;
        case 'send': {
          const to = this.#byAddress.get(o.to);
          this.#observeSigned(node, o.message);
          if (to !== undefined && to !== node.index) this.#send(node.index, to, 'consensus', encodeMessage(o.message));
          break;
        }
        case 'scheduleTimeout': {
          let delayUs = Math.round(o.delayMs * US);
          // Pacing (actors/consensus/bft.ts): round 0 of the next height starts one block time after this one's.
          if (o.step === Step.NewHeight && node.live !== null) {
            delayUs = Math.max(0, node.live.roundZeroAtUs + this.genesis.consensus.blockTimeMs * US - this.#nowUs);
          }
          this.#push({
            kind: 'timer',
            atUs: this.#nowUs + delayUs,
            node: node.index,
            incarnation: node.incarnation,
            height: o.height,
            round: o.round,
            step: o.step,
          });
          break;
        }
        case 'decide':
          this.#onDecide(node, o);
          break;
        case 'evidence':
          this.#onEvidence(node, o.evidence);
          break;
      }
    }
  }

  // ------------------------------------------------------------------ nodes

  /** Starts an incarnation from the disk: the chain reopened, an empty pool, a fresh app and core. */
  async #boot(node: SimNode): Promise<void> {
    node.incarnation++;
    let chain: SimChain;
    try {
      chain = SimChain.open(node.disk, this.genesis, this.genesisHash);
    } catch (err) {
      this.#violation('state', `node ${node.index} could not reopen its chain at height ${node.disk.height}: ${(err as Error).message}`);
      return;
    }
    const loaded = node.disk.privval === null ? null : decodePrivValState(node.disk.privval);
    const privval = new LocalPrivValidator(
      node.signer,
      async (state) => {
        // The disk write, done before the signature leaves (round-tripped through the codec).
        node.disk.privval = encodePrivValState(state);
      },
      loaded,
    );
    const pool = new TxPool({ ...POOL_LIMITS, maxTxBytes: this.genesis.consensus.maxTxBytes }, () => chain.state);
    const live: LiveNode = {
      chain,
      pool,
      privval,
      app: null as unknown as ChainConsensusApp,
      core: null as unknown as ConsensusCore,
      lastCommit: null,
      builds: [],
      roundZeroAtUs: this.#nowUs,
      sync: null,
      deferred: [],
      syncPeers: new SyncPeers(() => this.#nowUs / US),
      aheadClaims: new AheadClaims(this.validators),
      noSyncUntilUs: 0,
    };
    node.live = live;
    this.#traceLine(`boot node ${node.index} at height ${chain.height + 1}${loaded?.lastSigned ? ` (last signed ${loaded.lastSigned.height}/${loaded.lastSigned.round}/${loaded.lastSigned.step})` : ''}`);
    await this.#startCore(node, live);
  }

  /** A fresh app and core at the chain's next height (at boot, and after a block sync moved the chain: bft.ts newCore). */
  async #startCore(node: SimNode, live: LiveNode): Promise<void> {
    const chain = live.chain;
    const builds: LiveNode['builds'] = [];
    const app = new ChainConsensusApp(() => chain, {
      validators: this.validators,
      verifier: this.verifier,
      requestBlock: (height, round) => builds.push({ height, round }),
      now: () => this.#clockMs(node),
    });
    // Certificates for lagging peers, from the store (the node serves them from its store too).
    for (let h = Math.max(1, chain.height - CERTIFICATES_KEPT + 1); h <= chain.height; h++) {
      const b = node.disk.blocks[h - 1];
      app.committed(h, b.bytes, b.commit);
    }
    const core = new ConsensusCore({
      chainId: this.genesis.chainId,
      validators: this.validators,
      privValidator: live.privval,
      verifier: this.verifier,
      app,
      timeouts: this.#timeouts,
      height: chain.height + 1,
    });
    live.app = app;
    live.core = core;
    live.builds = builds;
    live.aheadClaims.reached(chain.height);
    live.lastCommit = node.disk.blocks.at(-1)?.commit ?? null;
    live.roundZeroAtUs = this.#nowUs;
    let outputs: ConsensusOutput[];
    try {
      outputs = await core.start();
    } catch (err) {
      this.#violation('exception', `node ${node.index} threw on start: ${(err as Error).stack ?? String(err)}`);
      return;
    }
    this.#outputs(node, outputs);
    await this.#buildRequested(node, live);
  }

  #crash(node: SimNode): void {
    if (node.live === null) return;
    node.live = null;
    node.incarnation++;
    this.faults.crash++;
    this.#traceLine(`crash node ${node.index} at height ${node.disk.height}`);
  }

  async #restart(node: SimNode): Promise<void> {
    if (node.live !== null) return;
    this.faults.restart++;
    await this.#boot(node);
  }

  #onDecide(node: SimNode, d: Extract<ConsensusOutput, { type: 'decide' }>): void {
    const hex = bytesToHex(d.blockHash);
    this.#traceLine(`node ${node.index} decides ${d.height}/${d.round} ${hex.slice(0, 10)}`);
    if (!node.byzantine) {
      this.#holdToDecisions(node, d.height, d.blockHash, 'decided');
      this.#checkCommit(node, d.height, d.blockHash, d.commit);
    }
    this.#push({
      kind: 'apply',
      atUs: this.#nowUs + Math.round(this.prng.uniform(0.2, 2) * US),
      node: node.index,
      incarnation: node.incarnation,
      height: d.height,
      hash: d.blockHash,
      block: d.block,
      commit: d.commit,
    });
  }

  /**
   * Safety: the first honest block at a height is the decision (and goes into the digest);
   * any other an honest node decides or syncs there is a violation. False on a violation.
   */
  #holdToDecisions(node: SimNode, height: number, hash: Uint8Array, how: 'decided' | 'synced'): boolean {
    const hex = bytesToHex(hash);
    const prev = this.#decided.get(height);
    if (prev === undefined) {
      this.#decided.set(height, hex);
      this.#digest = keccak256(concatBytes(this.#digest, hash));
      return true;
    }
    if (prev === hex) return true;
    this.#violation('safety', `height ${height}: node ${node.index} ${how} ${hex}, ${how === 'decided' ? 'another' : 'an'} honest node decided ${prev}`);
    return false;
  }

  /** An independent check of the commit a decision carries: a quorum (≥ 2/3) of valid precommits for the block. */
  #checkCommit(node: SimNode, height: number, hash: Uint8Array, commit: Commit): void {
    let power = 0n;
    const seen = new Set<string>();
    const digest = voteSigningHash(this.genesis.chainId, { type: 'precommit', height, round: commit.round, blockHash: hash });
    for (const s of commit.signatures) {
      if (seen.has(s.validator)) continue;
      seen.add(s.validator);
      if (this.verifier.verify(digest, s.signature, s.validator)) power += this.validators.powerOf(s.validator);
    }
    encodeCommit(commit); // must be canonical (sorted, no duplicates) to be carried in a block
    if (commit.height !== height || !this.validators.hasQuorum(power)) {
      this.#violation('commit', `node ${node.index} decided ${height} with a commit of ${power} power of ${this.validators.totalPower}`);
    }
  }

  /** The decided block applied by the real execution and written to the disk, then `commitDone` (bft.ts applyDecision). */
  async #apply(ev: Extract<SimEvent, { kind: 'apply' }>): Promise<void> {
    const node = this.nodes[ev.node];
    const live = node.live;
    if (live === null || node.incarnation !== ev.incarnation) return; // crashed before applying, or its core was replaced after a sync
    if (live.sync !== null) {
      live.deferred.push(ev);
      return;
    }
    const v = live.app.take(ev.hash) ?? live.app.validate(ev.block);
    if (v === null || !equalBytes(v.hash, ev.hash)) {
      this.#violation('exception', `node ${node.index}: the block it decided at ${ev.height} does not validate on its chain`);
      return;
    }
    let result: BlockResult;
    try {
      result = live.chain.commit(v.block, ev.block, ev.commit, live.pool.verified, v.decoded);
    } catch (err) {
      this.#violation('state', `node ${node.index} could not apply block ${ev.height}: ${(err as Error).message}`);
      return;
    }
    this.#committed(node, live, ev.height, ev.block, ev.commit, result);
    await this.#input(node, { type: 'commitDone', height: ev.height });
  }

  /** What follows a block's commit on a node, decided or synced: the app, the pool, and the cross-node checks. */
  #committed(node: SimNode, live: LiveNode, height: number, bytes: Uint8Array, commit: Commit, result: BlockResult): void {
    live.app.committed(height, bytes, commit);
    live.lastCommit = commit;
    live.pool.removeCommitted(result.receipts.map((r) => r.txHash));
    if (!node.byzantine) {
      const root = bytesToHex(result.stateRoot);
      const prev = this.#roots.get(height);
      if (prev === undefined) {
        this.#roots.set(height, root);
        this.#countCommitted(result);
      } else if (prev !== root) {
        this.#violation('state', `height ${height}: node ${node.index} has state root ${root}, another honest node ${prev}`);
      }
      this.#pruneSigned(node.address, height);
      if (this.#healHeight >= 0 && this.#reachedAtUs[node.index] < 0 && height >= this.#healHeight + this.opts.livenessHeights) {
        this.#reachedAtUs[node.index] = this.#nowUs;
      }
    }
  }

  // ------------------------------------------------------------------ block sync

  /** syncToHead: ask the live peers not refused, the first one rotating with the height asked (the p2p actor's `sync`). */
  async #startSync(node: SimNode, live: LiveNode, moved: boolean): Promise<void> {
    const from = live.chain.height + 1;
    const excluded = live.syncPeers.excluded();
    const peers = this.nodes.filter((x) => x.index !== node.index && x.live !== null && !excluded.has(String(x.index))).map((x) => x.index);
    const start = peers.length === 0 ? 0 : from % peers.length;
    const order = peers.map((_, i) => peers[(start + i) % peers.length]);
    live.sync = { order, next: 0, peer: -1, token: 0, moved };
    this.#traceLine(`node ${node.index} syncs from ${from}, peers ${JSON.stringify(order)}`);
    await this.#askNext(node, live);
  }

  async #askNext(node: SimNode, live: LiveNode): Promise<void> {
    const s = live.sync as SyncSession;
    if (s.next >= s.order.length) {
      await this.#endSync(node, live);
      return;
    }
    s.peer = s.order[s.next++];
    s.token = ++this.#syncToken;
    const token = s.token;
    this.#sync.requests++;
    this.#send(node.index, s.peer, 'syncRequest', encodeSyncRequest({ fromHeight: live.chain.height + 1, maxBlocks: SYNC_MAX_BLOCKS }), token);
    this.#at(this.#nowUs + SYNC_TIMEOUT_MS * US, async () => {
      if (node.live !== live || live.sync !== s || s.token !== token) return;
      this.#sync.timeouts++;
      live.syncPeers.noAnswer(String(s.peer));
      await this.#askNext(node, live);
    });
  }

  /** A peer serves sync from its disk (the p2p actor's handler); the Byzantine one forges half of its answers. */
  async #serveSync(server: SimNode, to: number, bytes: Uint8Array, tag: number): Promise<void> {
    const disk = server.disk;
    const store = {
      getEncodedBlockAndCommit: async (h: number) => {
        const b = disk.blocks[h - 1];
        return b === undefined ? undefined : { block: b.bytes, commit: encodeCommit(b.commit) };
      },
    };
    const request = decodeSyncRequest(bytes);
    let answer = await serveSync(store, disk.height, request);
    if (server.byzantine && this.prng.chance(0.5) && disk.height >= request.fromHeight) {
      answer = forgeSyncResponse(answer, this.genesis.consensus.maxBlockBytes);
      this.faults.forgedSyncAnswer++;
    }
    this.#send(server.index, to, 'syncResponse', answer, tag);
  }

  /** An answer to this node's sync request: checked, its good blocks applied, its peer refused if it forged one. */
  async #onSyncAnswer(node: SimNode, live: LiveNode, from: number, bytes: Uint8Array, tag: number): Promise<void> {
    const s = live.sync;
    if (s === null || s.peer !== from || s.token !== tag) return; // late, duplicated, or not asked
    s.token = 0;
    let response;
    try {
      response = decodeSyncResponse(bytes, this.genesis.consensus.maxBlockBytes);
    } catch (err) {
      this.#violation('exception', `node ${node.index} could not decode a sync answer from ${from}: ${(err as Error).message}`);
      return;
    }
    if (response.blocks.length === 0) {
      await this.#askNext(node, live);
      return;
    }
    this.#sync.answers++;
    const fromHeight = live.chain.height + 1;
    const { blocks, refused } = this.opts.unsafeSync
      ? { blocks: response.blocks, refused: null }
      : checkSyncResponse(this.genesis.chainId, this.validators, this.verifier, fromHeight, response);
    for (const b of blocks) {
      if (!this.#applySynced(node, live, b)) return;
      s.moved = true;
    }
    if (refused !== null) {
      this.#sync.refused++;
      if (!this.nodes[from].byzantine) this.#violation('exception', `node ${node.index} refused a sync answer from honest node ${from}: ${refused}`);
      live.syncPeers.refuse(String(from));
      this.#traceLine(`node ${node.index} refuses sync answer of ${from}: ${refused}`);
      await this.#startSync(node, live, s.moved);
      return;
    }
    if (response.peerHead >= fromHeight + blocks.length) await this.#startSync(node, live, s.moved);
    else await this.#endSync(node, live);
  }

  /** A block from sync, proven by its commit: applied as the chain actor applies it, and held to the decisions. */
  #applySynced(node: SimNode, live: LiveNode, b: SyncedBlock): boolean {
    const height = b.block.header.height;
    if (!node.byzantine && !this.#holdToDecisions(node, height, blockHash(b.block.header), 'synced')) return false;
    let result: BlockResult;
    try {
      result = live.chain.commit(b.block, b.bytes, b.commit, live.pool.verified);
    } catch (err) {
      this.#violation('state', `node ${node.index} could not apply synced block ${height}: ${(err as Error).message}`);
      return false;
    }
    this.#sync.blocksApplied++;
    this.#committed(node, live, height, b.bytes, b.commit, result);
    return true;
  }

  /** The catch-up is over: a node that moved restarts its consensus at the new height (bft.ts newCore); what waited is handled. */
  async #endSync(node: SimNode, live: LiveNode): Promise<void> {
    const s = live.sync as SyncSession;
    live.sync = null;
    const deferred = live.deferred;
    live.deferred = [];
    if (s.moved) {
      node.incarnation++; // the old core's timers and decisions are void
      this.#traceLine(`node ${node.index} synced to ${live.chain.height}`);
      await this.#startCore(node, live);
    } else {
      live.noSyncUntilUs = this.#nowUs + SYNC_RETRY_MS * US;
    }
    for (const ev of deferred) this.#push({ ...ev, atUs: this.#nowUs } as DistributiveOmit<SimEvent, 'seq'>);
  }

  #countCommitted(result: BlockResult): void {
    for (const r of result.receipts) {
      this.txs.committed++;
      if (r.status === 'ok') this.txs.ok++;
      else this.txs.failed++;
      this.#committedTxs.add(r.txHash);
    }
  }

  // ------------------------------------------------------------------ transactions

  /** The workload: the next transaction after an exponential gap (a Poisson stream of txPerSecond). */
  #scheduleSubmit(): void {
    if (this.#txPerSecond <= 0) return;
    const gapUs = Math.max(1, Math.round((-Math.log(1 - this.prng.float()) / this.#txPerSecond) * 1e6));
    const atUs = this.#nowUs + gapUs;
    if (atUs > this.opts.durationMs * US) return;
    this.#at(atUs, () => {
      this.#submit();
      this.#scheduleSubmit();
    });
  }

  /** A client sends a transaction to one node: its pool checks it, and gossips it when admitted. */
  #submit(): void {
    const { tx } = this.#workload.next();
    const node = this.nodes[this.prng.int(this.nodes.length)];
    this.txs.submitted++;
    const live = node.live;
    if (live === null) {
      this.txs.refused++;
      return;
    }
    try {
      live.pool.add(tx);
    } catch (err) {
      if (!(err instanceof TxError)) {
        this.#violation('exception', `node ${node.index}'s pool threw on a submitted transaction: ${(err as Error).stack ?? String(err)}`);
      }
      this.txs.refused++;
      return;
    }
    this.txs.admitted++;
    if (!node.byzantine && this.#healHeight >= 0) this.#mustCommit.push({ hash: bytesToHex(tx.hash), atUs: this.#nowUs, node: node.index });
    this.#broadcast(node.index, 'tx', tx.bytes);
  }

  /** A peer's gossiped transaction: checked once by this node's pool (duplicates and used nonces refused). */
  #onGossipTx(node: SimNode, live: LiveNode, bytes: Uint8Array): void {
    try {
      live.pool.addBytes(bytes);
      this.txs.gossipAdmitted++;
    } catch (err) {
      if (!(err instanceof TxError)) {
        this.#violation('exception', `node ${node.index}'s pool threw on a gossiped transaction: ${(err as Error).stack ?? String(err)}`);
      }
    }
  }

  /** Every transaction an honest node admitted after the heal, early enough, is in a committed block. */
  #checkTxLiveness(): void {
    const deadlineUs = this.#nowUs - this.opts.txLivenessMs * US;
    for (const t of this.#mustCommit) {
      if (t.atUs > deadlineUs || this.#committedTxs.has(t.hash)) continue;
      this.#violation('liveness', `transaction ${t.hash.slice(0, 12)} admitted by node ${t.node} at ${(t.atUs / US).toFixed(1)} ms (after the heal) was never committed`);
      return;
    }
  }

  // ------------------------------------------------------------------ network

  #broadcast(from: number, channel: Channel, bytes: Uint8Array): void {
    for (let to = 0; to < this.nodes.length; to++) if (to !== from) this.#send(from, to, channel, bytes);
  }

  /** `tag`: which request a sync answer is for (a request-response stream tells them apart on the node). */
  #send(from: number, to: number, channel: Channel, bytes: Uint8Array, tag = 0): void {
    const n = this.nodes.length;
    if (this.#cut[from * n + to] > 0) {
      this.faults.partitionBlocked++;
      return;
    }
    if (this.#faultsActive && this.prng.chance(this.#pDrop)) {
      this.faults.drop++;
      return;
    }
    let copies = 1;
    if (this.#faultsActive && this.prng.chance(this.#pDuplicate)) {
      this.faults.duplicate++;
      copies = 2;
    }
    for (let c = 0; c < copies; c++) {
      let delayUs = this.#linkBaseUs[from * n + to] + this.prng.uniform(0, 4) * US;
      if (this.#faultsActive && this.prng.chance(this.#pSpike)) {
        this.faults.delaySpike++;
        delayUs += this.prng.uniform(20, 400) * US;
      }
      this.#push({ kind: 'deliver', atUs: this.#nowUs + Math.round(delayUs), to, from, channel, bytes, tag });
    }
  }

  #cutLinks(links: [number, number][], delta: 1 | -1): void {
    const n = this.nodes.length;
    for (const [a, b] of links) this.#cut[a * n + b] += delta;
  }

  // ------------------------------------------------------------------ faults

  #planFaults(): void {
    const o = this.opts;
    const n = this.nodes.length;
    const faultEndUs = o.faultPhaseMs * US;
    if (o.forcedPartition) {
      const { groups, fromMs, toMs } = o.forcedPartition;
      const links = partitionLinks(groups);
      this.#at(fromMs * US, () => {
        this.faults.partitionSymmetric++;
        this.#traceLine(`forced partition ${JSON.stringify(groups)}`);
        this.#cutLinks(links, 1);
      });
      this.#at(toMs * US, () => this.#cutLinks(links, -1));
    }
    if (o.divergeState) {
      const { node, atMs } = o.divergeState;
      this.#at(atMs * US, () => {
        this.#traceLine(`stray write into node ${node}'s state`);
        this.nodes[node].live?.chain.state.faucetClaims.set(bytesToHex(new Uint8Array(20)), 1n);
      });
    }
    if (!o.faults) return;
    // Per-seed intensity of the per-message faults.
    this.#pDrop = this.prng.uniform(0, 0.08);
    this.#pDuplicate = this.prng.uniform(0, 0.05);
    this.#pSpike = this.prng.uniform(0, 0.05);
    this.#faultsActive = true;
    let tUs = this.prng.uniform(200, 1500) * US;
    while (tUs < faultEndUs) {
      const endUs = Math.min(tUs + this.prng.uniform(200, 5000) * US, faultEndUs);
      const roll = this.prng.float();
      if (roll < 0.3) {
        // Symmetric: a random group of 1-3 cut off from the rest.
        const order = this.prng.shuffle([...Array(n).keys()]);
        const k = this.prng.range(1, Math.max(1, Math.floor(n / 2)));
        const links = partitionLinks([order.slice(0, k), order.slice(k)]);
        this.#at(tUs, () => {
          this.faults.partitionSymmetric++;
          this.#traceLine(`partition ${JSON.stringify([order.slice(0, k), order.slice(k)])}`);
          this.#cutLinks(links, 1);
        });
        this.#at(endUs, () => this.#cutLinks(links, -1));
      } else if (roll < 0.5) {
        // Asymmetric: one-way links down (a node that cannot hear, or cannot be heard, or random links).
        const links: [number, number][] = [];
        const x = this.prng.int(n);
        const mode = this.prng.int(3);
        for (let y = 0; y < n; y++) {
          if (y === x) continue;
          if (mode === 0) links.push([y, x]);
          else if (mode === 1) links.push([x, y]);
        }
        if (mode === 2) for (let i = 0; i < n; i++) links.push([this.prng.int(n), this.prng.int(n)]);
        const real = links.filter(([a, b]) => a !== b);
        this.#at(tUs, () => {
          this.faults.partitionAsymmetric++;
          this.#traceLine(`one-way links down ${JSON.stringify(real)}`);
          this.#cutLinks(real, 1);
        });
        this.#at(endUs, () => this.#cutLinks(real, -1));
      } else {
        // Crash an honest node; it restarts at the end of the fault (at the latest at the heal).
        const victimRoll = this.prng.u32();
        this.#at(tUs, () => {
          const up = this.nodes.filter((x) => !x.byzantine && x.live !== null);
          if (up.length === 0) return;
          const victim = up[victimRoll % up.length];
          this.#crash(victim);
          this.#at(endUs, () => this.#restart(victim));
        });
      }
      tUs += this.prng.uniform(300, 3000) * US;
    }
  }

  async #heal(): Promise<void> {
    this.#faultsActive = false;
    this.#cut.fill(0);
    for (const node of this.nodes) if (node.live === null) await this.#restart(node);
    this.#healHeight = Math.max(...this.#honest().map((x) => x.disk.height));
    this.#traceLine(`heal at height ${this.#healHeight}`);
  }

  #checkLiveness(): void {
    const target = this.#healHeight + this.opts.livenessHeights;
    for (const node of this.#honest()) {
      if (node.disk.height < target) {
        this.#violation(
          'liveness',
          `node ${node.index} at height ${node.disk.height} (round ${node.live?.core.round}, step ${node.live ? Step[node.live.core.step] : 'down'}), ` +
            `${this.opts.livenessBoundMs} ms after the heal at height ${this.#healHeight}; target ${target}`,
        );
      }
    }
  }

  #honest(): SimNode[] {
    return this.nodes.filter((x) => !x.byzantine);
  }

  // ------------------------------------------------------------------ Byzantine behaviour

  /** Sends conflicting messages to two groups of peers; false to send the message normally. */
  #equivocate(node: SimNode, m: ConsensusMessage): boolean {
    let alt: ConsensusMessage | undefined;
    if (m.kind === 'proposal' && this.prng.chance(0.7)) {
      alt = this.#altProposal(node, m.proposal);
      if (alt) this.faults.equivocatingProposal++;
    } else if (m.kind === 'vote' && m.vote.validator === node.address && this.prng.chance(0.5)) {
      alt = this.#altVote(node, m.vote);
      this.faults.doubleVote++;
    }
    if (alt === undefined) return false;
    const peers = this.prng.shuffle(this.nodes.filter((x) => x.index !== node.index).map((x) => x.index));
    const cutAt = this.prng.range(1, Math.max(1, peers.length - 1));
    const a = encodeMessage(m);
    const b = encodeMessage(alt);
    for (const [i, to] of peers.entries()) this.#send(node.index, to, 'consensus', i < cutAt ? a : b);
    // Sometimes one peer gets both, in a random order: the double sign becomes visible.
    if (this.prng.chance(0.5)) {
      const to = this.prng.pick(peers);
      this.#send(node.index, to, 'consensus', peers.indexOf(to) < cutAt ? b : a);
    }
    return true;
  }

  /**
   * The Byzantine validator follows some of its votes with a status message 1,000 heights
   * ahead, to every peer (what `--claim-ahead` does on the node): no honest node may start
   * a block sync on its word alone (#checkBehind).
   */
  #claimAhead(node: SimNode, m: ConsensusMessage): void {
    if (m.kind !== 'vote' || m.vote.validator !== node.address || !this.prng.chance(0.3)) return;
    this.#broadcast(node.index, 'consensus', encodeMessage(claimAheadStatus(m.vote.height, this.validators.size)));
    this.faults.claimAhead++;
  }

  /**
   * A sync started by messages: more than a third of the power showed `shown`, so an
   * honest node must have been there (its chain at `shown` - 1 or beyond: a message is
   * at most one height past its sender's chain, and disks keep their blocks). Otherwise
   * the node synced on the word of the faulty validator.
   */
  #checkBehind(node: SimNode, live: LiveNode, shown: number): void {
    const honestTop = Math.max(...this.nodes.filter((x) => !x.byzantine && x.index !== node.index).map((x) => x.disk.height));
    if (honestTop + 1 < shown) {
      this.#violation('sync', `node ${node.index} at height ${live.core.height} started a block sync for height ${shown}, which no honest node has reached (highest ${honestTop})`);
    }
  }

  #altProposal(node: SimNode, p: Proposal): ConsensusMessage | undefined {
    const built = node.live === null ? null : this.#build(node, node.live, p.height, p.round, true);
    if (built === null) return undefined;
    const unsigned = { ...p, polRound: -1, blockHash: built.validated.hash, block: built.bytes };
    const signature = node.signer.sign(proposalSigningHash(this.genesis.chainId, unsigned));
    return { kind: 'proposal', proposal: { ...unsigned, signature } };
  }

  #altVote(node: SimNode, v: Vote): ConsensusMessage {
    const blockHash = v.blockHash === null ? this.prng.bytes(32) : this.prng.chance(0.5) ? null : this.prng.bytes(32);
    const unsigned = { ...v, blockHash };
    return { kind: 'vote', vote: { ...unsigned, signature: node.signer.sign(voteSigningHash(this.genesis.chainId, unsigned)) } };
  }

  // ------------------------------------------------------------------ checks

  /** Every signed message an honest node sends as its own must agree with all it sent before. */
  #observeSigned(node: SimNode, m: ConsensusMessage): void {
    if (node.byzantine) return;
    let key: string;
    let digest: Uint8Array;
    if (m.kind === 'vote' && m.vote.validator === node.address) {
      key = `${m.vote.height}/${m.vote.round}/${m.vote.type}`;
      digest = voteSigningHash(this.genesis.chainId, m.vote);
    } else if (m.kind === 'proposal' && m.proposal.proposer === node.address) {
      key = `${m.proposal.height}/${m.proposal.round}/proposal`;
      digest = proposalSigningHash(this.genesis.chainId, m.proposal);
    } else {
      return;
    }
    let mine = this.#signed.get(node.address);
    if (mine === undefined) {
      mine = new Map();
      this.#signed.set(node.address, mine);
    }
    const hex = bytesToHex(digest);
    const prev = mine.get(key);
    if (prev === undefined) mine.set(key, hex);
    else if (prev !== hex) this.#violation('double-sign', `honest node ${node.index} signed two different messages at ${key}`);
  }

  #pruneSigned(address: Address, committedHeight: number): void {
    const mine = this.#signed.get(address);
    if (mine === undefined || committedHeight % 64 !== 0) return;
    for (const key of mine.keys()) if (Number(key.slice(0, key.indexOf('/'))) < committedHeight - 64) mine.delete(key);
  }

  #onEvidence(node: SimNode, e: Evidence): void {
    if (node.byzantine) return;
    this.#evidenceReported++;
    const reason = checkEvidence(this.genesis.chainId, this.validators, this.verifier, e);
    if (reason !== null) {
      this.#violation('evidence', `node ${node.index} reported invalid evidence: ${reason}`);
      return;
    }
    this.#offences.add(bytesToHex(evidenceHash(e)));
    const offender = this.#byAddress.get(evidenceOffender(e));
    if (offender === undefined || !this.nodes[offender].byzantine) {
      this.#violation('double-sign', `node ${node.index} holds valid evidence against honest validator ${offender}`);
    }
  }

  #violation(kind: ViolationKind, message: string): void {
    this.violations.push({ kind, atMs: this.nowMs, message });
    this.#traceLine(`VIOLATION ${kind}: ${message}`);
  }

  #traceLine(line: string): void {
    if (this.opts.traceLines <= 0) return;
    this.#trace.push(`${this.nowMs.toFixed(3)}ms ${line}`);
    if (this.#trace.length > this.opts.traceLines) this.#trace.shift();
  }

  #result(wallMs: number): SimResult {
    const honest = this.#honest();
    const byz = this.#byzantine;
    const equivocations = this.faults.doubleVote + this.faults.equivocatingProposal;
    if (byz !== null && equivocations >= 30 && this.#evidenceReported === 0 && this.violations.length === 0) {
      this.#violation('evidence-missed', `the Byzantine node equivocated ${equivocations} times and no honest node reported evidence`);
    }
    let recoveryMs = -1;
    if (this.#healHeight >= 0 && honest.every((x) => this.#reachedAtUs[x.index] >= 0)) {
      recoveryMs = (Math.max(...honest.map((x) => this.#reachedAtUs[x.index])) - this.opts.faultPhaseMs * US) / US;
    }
    const heights = honest.map((x) => x.disk.height);
    for (const x of honest) this.#digest = keccak256(concatBytes(this.#digest, x.disk.stateRoot));
    return {
      seed: this.opts.seed,
      simulatedMs: this.nowMs,
      wallMs,
      heights: Math.max(...heights),
      minHonestHeight: Math.min(...heights),
      byzantine: byz,
      faults: { ...this.faults },
      messagesDelivered: this.#messagesDelivered,
      evidenceReported: this.#evidenceReported,
      evidenceOffences: this.#offences.size,
      txs: { ...this.txs },
      sync: { ...this.#sync },
      proposalsUntimely: this.#proposalsUntimely,
      recoveryMs,
      violations: [...this.violations],
      digest: bytesToHex(this.#digest),
      trace: [...this.#trace],
    };
  }
}

function describeMessage(m: ConsensusMessage): string {
  switch (m.kind) {
    case 'proposal':
      return `proposal ${m.proposal.height}/${m.proposal.round} pol ${m.proposal.polRound} ${bytesToHex(m.proposal.blockHash).slice(0, 10)} by ${m.proposal.proposer.slice(0, 8)}`;
    case 'vote':
      return `${m.vote.type} ${m.vote.height}/${m.vote.round} ${m.vote.blockHash ? bytesToHex(m.vote.blockHash).slice(0, 10) : 'nil'} by ${m.vote.validator.slice(0, 8)}`;
    case 'status':
      return `status ${m.status.height}/${m.status.round}`;
    case 'certificate':
      return `certificate ${m.certificate.height}`;
  }
}

function describeInput(i: ConsensusInput): string {
  switch (i.type) {
    case 'proposal':
      return describeMessage({ kind: 'proposal', proposal: i.proposal });
    case 'vote':
      return describeMessage({ kind: 'vote', vote: i.vote });
    case 'status':
      return `status ${i.status.height}/${i.status.round} from ${i.from.slice(0, 8)}`;
    case 'certificate':
      return `certificate ${i.certificate.height}`;
    case 'timeout':
      return `timeout ${i.height}/${i.round}/${Step[i.step]}`;
    default:
      return i.type;
  }
}

function describeOutput(o: ConsensusOutput): string {
  switch (o.type) {
    case 'broadcast':
      return `broadcast ${describeMessage(o.message)}`;
    case 'send':
      return `send to ${o.to.slice(0, 8)} ${describeMessage(o.message)}`;
    case 'scheduleTimeout':
      return `schedule ${o.height}/${o.round}/${Step[o.step]} +${o.delayMs}ms`;
    case 'decide':
      return `decide ${o.height}/${o.round}`;
    case 'evidence':
      return `evidence ${o.evidence.kind}`;
  }
}

function partitionLinks(groups: number[][]): [number, number][] {
  const links: [number, number][] = [];
  for (const [gi, g] of groups.entries()) {
    for (const [hi, h] of groups.entries()) {
      if (gi === hi) continue;
      for (const a of g) for (const b of h) links.push([a, b]);
    }
  }
  return links;
}

export async function runSeed(seed: number, overrides: Partial<Omit<SimOptions, 'seed'>> = {}): Promise<SimResult> {
  return new Simulation({ ...DEFAULT_SIM_OPTIONS, ...overrides, seed }).run();
}
