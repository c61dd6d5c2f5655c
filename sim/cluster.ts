/**
 * Deterministic simulation of a whole validator set in one process: every validator's
 * ConsensusCore, a simulated transport and a simulated clock, all driven by ONE seeded
 * PRNG and one event queue ordered by (time, insertion order). The same seed replays
 * the same run exactly.
 *
 * Injected (fault phase only, then everything heals):
 *  - message delay (per-link base + jitter, so messages reorder), delay spikes, drops,
 *    duplicates;
 *  - symmetric partitions (two groups cut off from each other) and asymmetric ones (a
 *    set of one-way links down), overlapping, each healing after its duration;
 *  - crashes: the node loses all memory; its disk (committed chain and privval state)
 *    survives, and it restarts later from there;
 *  - one Byzantine validator (for the whole run): equivocating proposals (two different
 *    blocks for one height/round to two groups of peers) and double votes.
 *
 * Checked:
 *  - SAFETY: no two honest nodes decide different blocks at one height; every honest
 *    node's state root is the same at every height it committed; every decision carries
 *    a commit with more than 2/3 of the power in valid signatures; no honest validator
 *    ever sends two different signed messages for one (height, round, step) (across its
 *    restarts too); every evidence an honest node reports is valid and names the
 *    Byzantine validator.
 *  - LIVENESS: once the faults stop (the healing phase: the 5 honest validators up and
 *    connected, the Byzantine one still misbehaving), every honest node commits new
 *    heights within a bounded simulated time.
 *  - Evidence: when the Byzantine node equivocated often, honest nodes reported it.
 */
import { performance } from 'node:perf_hooks';
import { Step } from '../machines/consensus-round';
import { encodeCommit, type Commit } from '../src/codec/block';
import { ConsensusCore, inputFromMessage, type ConsensusInput, type ConsensusOutput } from '../src/consensus/core';
import { checkEvidence, evidenceHash, evidenceOffender, type Evidence } from '../src/consensus/evidence';
import {
  decodeMessage,
  encodeMessage,
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
import { bytesToHex, concatBytes, utf8 } from '../src/util/bytes';
import { SimApp, SimChain } from './app';
import { FastSigner, FastVerifier } from './fast-signer';
import { EventHeap } from './heap';
import { Prng } from './prng';

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
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Record<FaultKind, number>;

export type ViolationKind = 'safety' | 'state' | 'commit' | 'double-sign' | 'evidence' | 'evidence-missed' | 'liveness' | 'exception';

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
  timeouts?: Partial<TimeoutConfig>;
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
  /** Simulated ms after the heal until every honest node had committed the new heights; -1 if never. */
  recoveryMs: number;
  violations: Violation[];
  /** Hash over every decision: two runs of one seed must agree. */
  digest: string;
  trace: string[];
}

type SimEvent =
  | { kind: 'deliver'; atUs: number; seq: number; to: number; from: number; bytes: Uint8Array }
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
  disk: { chain: SimChain; privval: Uint8Array | null };
  app: SimApp | null;
  core: ConsensusCore | null;
  incarnation: number;
}

const US = 1000;

export class Simulation {
  readonly opts: SimOptions;
  readonly prng: Prng;
  readonly nodes: SimNode[] = [];
  readonly validators: ValidatorSet;
  readonly verifier: SignatureVerifier;
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
        disk: { chain: new SimChain(), privval: null },
        app: null,
        core: null,
        incarnation: 0,
      });
    }
    for (let i = 0; i < n * n; i++) this.#linkBaseUs[i] = this.prng.uniform(1, 6) * US;
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
        if (node.core === null) {
          this.faults.lostToCrash++;
          return;
        }
        let message: ConsensusMessage;
        try {
          message = decodeMessage(ev.bytes);
        } catch (err) {
          this.#violation('exception', `node ${ev.to} could not decode a message from ${ev.from}: ${(err as Error).message}`);
          return;
        }
        this.#messagesDelivered++;
        await this.#input(node, inputFromMessage(message, this.nodes[ev.from].address));
        return;
      }
      case 'timer': {
        const node = this.nodes[ev.node];
        if (node.core === null || node.incarnation !== ev.incarnation) return;
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

  async #input(node: SimNode, input: ConsensusInput): Promise<void> {
    const core = node.core;
    if (core === null) return;
    let outputs: ConsensusOutput[];
    const traced = this.opts.traceNodes?.includes(node.index) ?? false;
    if (traced) this.#traceLine(`node ${node.index} @${core.height}/${core.round}/${Step[core.step]} <- ${describeInput(input)}`);
    try {
      outputs = await core.handle(input);
    } catch (err) {
      this.#violation('exception', `node ${node.index} threw on ${input.type}: ${(err as Error).stack ?? String(err)}`);
      return;
    }
    if (traced) for (const o of outputs) this.#traceLine(`node ${node.index} -> ${describeOutput(o)}`);
    this.#outputs(node, outputs);
  }

  #outputs(node: SimNode, outputs: ConsensusOutput[]): void {
    for (const o of outputs) {
      switch (o.type) {
        case 'broadcast':
          this.#observeSigned(node, o.message);
          if (node.byzantine && this.#equivocate(node, o.message)) break;
          this.#broadcast(node.index, encodeMessage(o.message));
          break;
        case 'send': {
          const to = this.#byAddress.get(o.to);
          this.#observeSigned(node, o.message);
          if (to !== undefined && to !== node.index) this.#send(node.index, to, encodeMessage(o.message));
          break;
        }
        case 'scheduleTimeout':
          this.#push({
            kind: 'timer',
            atUs: this.#nowUs + Math.round(o.delayMs * US),
            node: node.index,
            incarnation: node.incarnation,
            height: o.height,
            round: o.round,
            step: o.step,
          });
          break;
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

  async #boot(node: SimNode): Promise<void> {
    node.incarnation++;
    const chain = node.disk.chain;
    const loaded = node.disk.privval === null ? null : decodePrivValState(node.disk.privval);
    const privval = new LocalPrivValidator(
      node.signer,
      async (state) => {
        // The disk write, done before the signature leaves (round-tripped through the codec).
        node.disk.privval = encodePrivValState(state);
      },
      loaded,
    );
    node.app = new SimApp(chain, this.prng, node.address);
    node.core = new ConsensusCore({
      chainId: 713799,
      validators: this.validators,
      privValidator: privval,
      verifier: this.verifier,
      app: node.app,
      timeouts: this.#timeouts,
      height: chain.height + 1,
    });
    this.#traceLine(`boot node ${node.index} at height ${chain.height + 1}${loaded?.lastSigned ? ` (last signed ${loaded.lastSigned.height}/${loaded.lastSigned.round}/${loaded.lastSigned.step})` : ''}`);
    this.#outputs(node, await node.core.start());
  }

  #crash(node: SimNode): void {
    if (node.core === null) return;
    node.core = null;
    node.app = null;
    node.incarnation++;
    this.faults.crash++;
    this.#traceLine(`crash node ${node.index} at height ${node.disk.chain.height}`);
  }

  async #restart(node: SimNode): Promise<void> {
    if (node.core !== null) return;
    this.faults.restart++;
    await this.#boot(node);
  }

  #onDecide(node: SimNode, d: Extract<ConsensusOutput, { type: 'decide' }>): void {
    const hex = bytesToHex(d.blockHash);
    this.#traceLine(`node ${node.index} decides ${d.height}/${d.round} ${hex.slice(0, 10)}`);
    if (!node.byzantine) {
      const prev = this.#decided.get(d.height);
      if (prev === undefined) {
        this.#decided.set(d.height, hex);
        this.#digest = keccak256(concatBytes(this.#digest, d.blockHash));
      } else if (prev !== hex) {
        this.#violation('safety', `height ${d.height}: node ${node.index} decided ${hex}, another honest node decided ${prev}`);
      }
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

  /** An independent check of the commit a decision carries: > 2/3 valid precommits for the block. */
  #checkCommit(node: SimNode, height: number, hash: Uint8Array, commit: Commit): void {
    let power = 0n;
    const seen = new Set<string>();
    for (const s of commit.signatures) {
      if (seen.has(s.validator)) continue;
      seen.add(s.validator);
      const digest = voteSigningHash(713799, { type: 'precommit', height, round: commit.round, blockHash: hash });
      if (this.verifier.verify(digest, s.signature, s.validator)) power += this.validators.powerOf(s.validator);
    }
    encodeCommit(commit); // must be canonical (sorted, no duplicates) to be carried in a block
    if (commit.height !== height || !this.validators.hasQuorum(power)) {
      this.#violation('commit', `node ${node.index} decided ${height} with a commit of ${power} power of ${this.validators.totalPower}`);
    }
  }

  async #apply(ev: Extract<SimEvent, { kind: 'apply' }>): Promise<void> {
    const node = this.nodes[ev.node];
    if (node.core === null || node.incarnation !== ev.incarnation) return; // crashed before applying
    const root = bytesToHex(node.disk.chain.append(ev.height, ev.hash, ev.block, ev.commit));
    if (!node.byzantine) {
      const prev = this.#roots.get(ev.height);
      if (prev === undefined) this.#roots.set(ev.height, root);
      else if (prev !== root) this.#violation('state', `height ${ev.height}: node ${node.index} has state root ${root}, another honest node ${prev}`);
      this.#pruneSigned(node.address, ev.height);
      if (this.#healHeight >= 0 && this.#reachedAtUs[node.index] < 0 && ev.height >= this.#healHeight + this.opts.livenessHeights) {
        this.#reachedAtUs[node.index] = this.#nowUs;
      }
    }
    await this.#input(node, { type: 'commitDone', height: ev.height });
  }

  // ------------------------------------------------------------------ network

  #broadcast(from: number, bytes: Uint8Array): void {
    for (let to = 0; to < this.nodes.length; to++) if (to !== from) this.#send(from, to, bytes);
  }

  #send(from: number, to: number, bytes: Uint8Array): void {
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
      this.#push({ kind: 'deliver', atUs: this.#nowUs + Math.round(delayUs), to, from, bytes });
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
          const up = this.nodes.filter((x) => !x.byzantine && x.core !== null);
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
    for (const node of this.nodes) if (node.core === null) await this.#restart(node);
    this.#healHeight = Math.max(...this.#honest().map((x) => x.disk.chain.height));
    this.#traceLine(`heal at height ${this.#healHeight}`);
  }

  #checkLiveness(): void {
    const target = this.#healHeight + this.opts.livenessHeights;
    for (const node of this.#honest()) {
      if (node.disk.chain.height < target) {
        this.#violation(
          'liveness',
          `node ${node.index} at height ${node.disk.chain.height} (round ${node.core?.round}, step ${node.core ? Step[node.core.step] : 'down'}), ` +
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
    for (const [i, to] of peers.entries()) this.#send(node.index, to, i < cutAt ? a : b);
    // Sometimes one peer gets both, in a random order: the double sign becomes visible.
    if (this.prng.chance(0.5)) {
      const to = this.prng.pick(peers);
      this.#send(node.index, to, peers.indexOf(to) < cutAt ? b : a);
    }
    return true;
  }

  #altProposal(node: SimNode, p: Proposal): ConsensusMessage | undefined {
    const block = node.app?.proposeBlock(p.height, p.round);
    if (!block) return undefined;
    const unsigned = { ...p, polRound: -1, blockHash: block.hash, block: block.bytes };
    const signature = node.signer.sign(proposalSigningHash(713799, unsigned));
    return { kind: 'proposal', proposal: { ...unsigned, signature } };
  }

  #altVote(node: SimNode, v: Vote): ConsensusMessage {
    const blockHash = v.blockHash === null ? this.prng.bytes(32) : this.prng.chance(0.5) ? null : this.prng.bytes(32);
    const unsigned = { ...v, blockHash };
    return { kind: 'vote', vote: { ...unsigned, signature: node.signer.sign(voteSigningHash(713799, unsigned)) } };
  }

  // ------------------------------------------------------------------ checks

  /** Every signed message an honest node sends as its own must agree with all it sent before. */
  #observeSigned(node: SimNode, m: ConsensusMessage): void {
    if (node.byzantine) return;
    let key: string;
    let digest: Uint8Array;
    if (m.kind === 'vote' && m.vote.validator === node.address) {
      key = `${m.vote.height}/${m.vote.round}/${m.vote.type}`;
      digest = voteSigningHash(713799, m.vote);
    } else if (m.kind === 'proposal' && m.proposal.proposer === node.address) {
      key = `${m.proposal.height}/${m.proposal.round}/proposal`;
      digest = proposalSigningHash(713799, m.proposal);
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
    const reason = checkEvidence(713799, this.validators, this.verifier, e);
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
    const heights = honest.map((x) => x.disk.chain.height);
    for (const x of honest) this.#digest = keccak256(concatBytes(this.#digest, x.disk.chain.stateRoot));
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
