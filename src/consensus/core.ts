/**
 * ConsensusCore: one validator's Tendermint consensus as a single-threaded state machine
 * driven by inputs and answering with outputs. No I/O, no clock, no randomness: the
 * node (or the simulator) delivers messages, fires the timeouts it was asked to
 * schedule, applies decided blocks and reports back with `commitDone`.
 *
 *   inputs:  proposal | vote | timeout(h, r, step) | blockReady(hash, bytes)
 *            | commitDone(h) | status(from, …) | certificate
 *   outputs: broadcast(message) | send(to, message) | scheduleTimeout(h, r, step, delayMs)
 *            | decide(h, r, blockHash, block, commit) | evidence
 *
 * The round steps are the XState machine machines/consensus-round.ts: this class counts
 * votes (VoteSet), verifies each signature once, keeps proposals and validated blocks,
 * turns what it learned into machine events ("+2/3 prevotes for B at r") and executes
 * the effects the machine answers with. It signs nothing the machine did not ask for,
 * and only through the PrivValidator, which persists before a signature is released.
 *
 * Drive it from one loop: `handle` is async (signing awaits persistence) and refuses to
 * be re-entered.
 */
import {
  createRoundStepper,
  EVENTS_BY_STATE,
  Step,
  stepOf,
  type ConsensusRoundAction,
  type ConsensusRoundEvent,
  type ConsensusRoundSnapshot,
  type RoundStepper,
  type StepName,
  type DecideParams,
  type ProposeParams,
  type TimeoutParams,
  type VoteParams,
} from '../../machines/consensus-round';
import { canonicalCommit, ZERO_HASH, type Commit } from '../codec/block';
import type { Address } from '../util/bytes';
import { equalBytes, hexToBytes } from '../util/bytes';
import { duplicateProposalEvidence, stripBlock, type Evidence } from './evidence';
import {
  bitmapGet,
  bitmapSet,
  hashKey,
  proposalSigningHash,
  voteSigningHash,
  type Certificate,
  type ConsensusMessage,
  type HashKey,
  type Proposal,
  type StatusMessage,
  type Vote,
  type VoteType,
} from './messages';
import { NEXT_HEIGHT_BUFFER_MSGS, ROUNDS_AHEAD_MAX, SETTLE_STEPS_MAX } from './limits';
import { timeoutDelayMs, type TimeoutConfig } from './params';
import { LastCommitCollector } from './last-commit';
import { DoubleSignError, type PrivValidator } from './privval';
import type { SignatureVerifier } from './signer';
import { validatorsAt, type ValidatorSet, type ValidatorsByHeight } from './validator-set';
import { VoteSet } from './vote-set';

/** What consensus needs from the application (the chain actor in the node). */
export interface ConsensusApp {
  /**
   * A new block for (height, round) on top of the last committed one, or null when none
   * is ready yet (then deliver it later with a `blockReady` input).
   */
  proposeBlock(height: number, round: number): { hash: Uint8Array; bytes: Uint8Array } | null;
  /** The block's hash when it is a valid next block on the last committed state, else null. */
  validateBlock(bytes: Uint8Array): Uint8Array | null;
  /** Seed of the proposer draw of `height` (the VRF seed after `height - 1`, decision 70); default 32 zero bytes. */
  proposerSeed?(height: number): Uint8Array;
  /** The committed block of an earlier height with its commit, for peers that lag behind. */
  certificate?(height: number): Certificate | null;
}

export type ConsensusInput =
  | { type: 'proposal'; proposal: Proposal }
  | { type: 'vote'; vote: Vote }
  | { type: 'timeout'; height: number; round: number; step: Step }
  | { type: 'blockReady'; hash: Uint8Array; bytes: Uint8Array }
  | { type: 'commitDone'; height: number }
  | { type: 'status'; from: Address; status: StatusMessage }
  | { type: 'certificate'; certificate: Certificate };

export type ConsensusOutput =
  | { type: 'broadcast'; message: ConsensusMessage }
  | { type: 'send'; to: Address; message: ConsensusMessage }
  | { type: 'scheduleTimeout'; height: number; round: number; step: Step; delayMs: number }
  | { type: 'decide'; height: number; round: number; blockHash: Uint8Array; block: Uint8Array; commit: Commit }
  | { type: 'evidence'; evidence: Evidence };

export interface ConsensusLimits {
  /** Messages for rounds further ahead than this are dropped. */
  maxRoundsAhead: number;
  /** Messages of the next height held until we get there. */
  maxFutureMessages: number;
}

/** The bounds of src/consensus/limits.ts (their prices and relations are there). */
export const DEFAULT_LIMITS: ConsensusLimits = Object.freeze({ maxRoundsAhead: ROUNDS_AHEAD_MAX, maxFutureMessages: NEXT_HEIGHT_BUFFER_MSGS });

export interface ConsensusCoreOptions {
  chainId: number;
  /**
   * The set that signs each height, asked once when the height begins (the previous
   * block is applied by then, so a node reads it from its executed state).
   */
  validators: ValidatorsByHeight;
  /**
   * null: a non-validating follower (decides, never signs). A validator whose address is
   * not in a height's set follows at that height too: it signs only where it is a member.
   */
  privValidator: PrivValidator | null;
  verifier: SignatureVerifier;
  app: ConsensusApp;
  timeouts: TimeoutConfig;
  /** The first height to decide: last committed height + 1. */
  height: number;
  limits?: Partial<ConsensusLimits>;
}

/** Counters, for metrics and tests. Monotonic. */
export interface ConsensusCounters {
  votesAdded: number;
  /** First votes that came after their set's quorum: kept unchecked and uncounted (VoteSet "Late votes"). */
  votesLate: number;
  votesDuplicate: number;
  votesInvalid: number;
  proposalsAccepted: number;
  proposalsDuplicate: number;
  proposalsInvalid: number;
  blocksInvalid: number;
  signRefused: number;
  /** Refused votes replaced by the vote signed before a restart. */
  votesResent: number;
  futureBuffered: number;
  futureDropped: number;
  staleDropped: number;
  certificatesSent: number;
  certificatesApplied: number;
  certificatesInvalid: number;
  evidence: number;
  decisions: number;
}

export function inputFromMessage(message: ConsensusMessage, from: Address): ConsensusInput {
  switch (message.kind) {
    case 'proposal':
      return { type: 'proposal', proposal: message.proposal };
    case 'vote':
      return { type: 'vote', vote: message.vote };
    case 'status':
      return { type: 'status', from, status: message.status };
    case 'certificate':
      return { type: 'certificate', certificate: message.certificate };
  }
}

type Snapshot = ConsensusRoundSnapshot;

interface ProposalRecord {
  proposal: Proposal;
  key: HashKey;
}

interface OwnMessages {
  proposal?: Proposal;
  prevote?: Vote;
  precommit?: Vote;
}

/** Everything known about one height; dropped when the next begins. */
class HeightState {
  readonly prevotes = new Map<number, VoteSet>();
  readonly precommits = new Map<number, VoteSet>();
  /** First correctly signed proposal of the round's proposer. */
  readonly proposals = new Map<number, ProposalRecord>();
  /** Blocks whose bytes passed validateBlock (or that we built), by hash. */
  readonly blocks = new Map<HashKey, Uint8Array>();
  /** Per round: which validators sent a signed message, and their power (round skipping). */
  readonly roundSenders = new Map<number, { seen: Uint8Array; power: bigint }>();
  /** Highest round in which more than 1/3 of the power has been heard. */
  oneThirdRound = -1;
  /** First (round, block) with +2/3 precommits: the decision. */
  commitCandidate: { round: number; key: HashKey } | undefined;
  readonly own = new Map<number, OwnMessages>();
  readonly proposalEvidenceRounds = new Set<number>();
  /** Peers we already asked for help at this height. */
  readonly askedFor = new Set<Address>();
  /** A certificate was applied here: we are catching up, announce the next height. */
  caughtUp = false;
  /** The commit of a verified certificate for this height. */
  certified: Commit | undefined;
  awaitingBlock: number | undefined;

  constructor(
    readonly height: number,
    readonly seed: Uint8Array,
    /** The set that signs this height: its vote sets, proposer draw, round skipping, bitmaps and certificates. */
    readonly validators: ValidatorSet,
  ) {}

  ownAt(round: number): OwnMessages {
    let o = this.own.get(round);
    if (o === undefined) {
      o = {};
      this.own.set(round, o);
    }
    return o;
  }
}

const DEFAULT_SEED = new Uint8Array(32);
/** Each accepted machine event makes progress; a height needs far fewer than this. */
const MAX_SETTLE_STEPS = SETTLE_STEPS_MAX;

export class ConsensusCore {
  readonly chainId: number;
  readonly counters: ConsensusCounters = {
    votesAdded: 0,
    votesLate: 0,
    votesDuplicate: 0,
    votesInvalid: 0,
    proposalsAccepted: 0,
    proposalsDuplicate: 0,
    proposalsInvalid: 0,
    blocksInvalid: 0,
    signRefused: 0,
    votesResent: 0,
    futureBuffered: 0,
    futureDropped: 0,
    staleDropped: 0,
    certificatesSent: 0,
    certificatesApplied: 0,
    certificatesInvalid: 0,
    evidence: 0,
    decisions: 0,
  };

  readonly #validators: ValidatorsByHeight;
  readonly #privval: PrivValidator | null;
  readonly #verifier: SignatureVerifier;
  readonly #app: ConsensusApp;
  readonly #timeouts: TimeoutConfig;
  readonly #limits: ConsensusLimits;
  readonly #stepper: RoundStepper = createRoundStepper();
  #snapshot: Snapshot;
  #startActions: ConsensusRoundAction[];
  #hs: HeightState;
  /** Inputs for height + 1, replayed when it begins. */
  #future: ConsensusInput[] = [];
  #replay: ConsensusInput[] = [];
  #busy = false;
  #started = false;
  /** The previous height's decided commit, growing with the precommits that come after it (./last-commit.ts). */
  #lastCommit: LastCommitCollector | undefined;
  /** The commit this height was decided with, until the next height begins. */
  #decidedCommit: Commit | undefined;

  constructor(opts: ConsensusCoreOptions) {
    if (!Number.isSafeInteger(opts.height) || opts.height < 1) throw new RangeError(`height must be >= 1, got ${opts.height}`);
    this.chainId = opts.chainId;
    this.#validators = opts.validators;
    this.#privval = opts.privValidator;
    this.#verifier = opts.verifier;
    this.#app = opts.app;
    this.#timeouts = opts.timeouts;
    this.#limits = { ...DEFAULT_LIMITS, ...opts.limits };
    // A restarted validator resumes at the round it last signed in, still locked.
    const ps = this.#privval?.state();
    const last = ps?.lastSigned;
    const lock = ps?.lock;
    const round = last && last.height === opts.height ? last.round : 0;
    const locked = lock && lock.height === opts.height ? lock : null;
    const [snapshot, actions] = this.#stepper.initial({
      height: opts.height,
      round,
      lockedRound: locked ? locked.round : -1,
      lockedValue: locked ? hashKey(locked.blockHash) : null,
    });
    this.#snapshot = snapshot;
    this.#startActions = actions;
    this.#hs = this.#newHeightState(opts.height);
    // The locked block's bytes came back with the lock: we can re-propose it.
    if (locked?.block) this.#learnBlock(hashKey(locked.blockHash), locked.blockHash, locked.block);
  }

  get height(): number {
    return this.#snapshot.context.height;
  }

  /** The set that signs the current height. */
  get validators(): ValidatorSet {
    return this.#hs.validators;
  }

  get round(): number {
    return this.#snapshot.context.round;
  }

  get step(): Step {
    return stepOf(this.#snapshot.value);
  }

  /** The round machine's snapshot (read-only view, for status pages and tests). */
  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** The first outputs: NewHeight's timeout and a status so peers ahead of us help. */
  async start(): Promise<ConsensusOutput[]> {
    if (this.#started) throw new Error('ConsensusCore already started');
    this.#started = true;
    return this.#exclusive(async (out) => {
      for (const a of this.#startActions) await this.#execute(a, out);
      this.#startActions = [];
      out.push({ type: 'broadcast', message: { kind: 'status', status: this.#status(this.round) } });
    });
  }

  async handle(input: ConsensusInput): Promise<ConsensusOutput[]> {
    if (!this.#started) throw new Error('ConsensusCore.handle before start');
    return this.#exclusive(async (out) => {
      await this.#dispatch(input, out);
      await this.#settle(out);
    });
  }

  async #exclusive(body: (out: ConsensusOutput[]) => Promise<void>): Promise<ConsensusOutput[]> {
    if (this.#busy) throw new Error('ConsensusCore is single-threaded: await each handle() before the next');
    this.#busy = true;
    const out: ConsensusOutput[] = [];
    try {
      await body(out);
    } finally {
      this.#busy = false;
    }
    return out;
  }

  // ------------------------------------------------------------------ inputs

  async #dispatch(input: ConsensusInput, out: ConsensusOutput[]): Promise<void> {
    switch (input.type) {
      case 'proposal':
        return this.#onProposal(input, out);
      case 'vote':
        return this.#onVote(input, out);
      case 'timeout':
        await this.#fire({ type: 'TIMEOUT', height: input.height, round: input.round, step: input.step }, out);
        return;
      case 'commitDone':
        await this.#fire({ type: 'COMMIT_DONE', height: input.height }, out);
        return;
      case 'blockReady':
        return this.#onBlockReady(input.hash, input.bytes, out);
      case 'status':
        return this.#onStatus(input.from, input.status, out);
      case 'certificate':
        return this.#onCertificate(input.certificate, out);
      default:
        throw new TypeError(`unknown consensus input ${(input as { type: string }).type}`);
    }
  }

  /** Entered by: a `proposal` input (gossip, a peer's status answer, or the next height's replay). */
  #onProposal(input: Extract<ConsensusInput, { type: 'proposal' }>, out: ConsensusOutput[]): void {
    const p = input.proposal;
    const hs = this.#hs;
    if (p.height !== hs.height) return this.#otherHeight(input, p.height, p.proposer, out);
    if (!this.#roundInWindow(p.round) || !(p.polRound === -1 || (p.polRound >= 0 && p.polRound < p.round))) {
      this.counters.proposalsInvalid++;
      return;
    }
    if (p.proposer !== this.validators.proposer(hs.height, p.round, hs.seed).address) {
      this.counters.proposalsInvalid++;
      return;
    }
    const existing = hs.proposals.get(p.round);
    if (existing !== undefined) {
      const a = existing.proposal;
      const same = equalBytes(a.blockHash, p.blockHash) && a.polRound === p.polRound;
      if (same || hs.proposalEvidenceRounds.has(p.round)) {
        this.counters.proposalsDuplicate++;
        return;
      }
      if (!this.#verifyProposal(p)) {
        this.counters.proposalsInvalid++;
        return;
      }
      hs.proposalEvidenceRounds.add(p.round);
      this.#emitEvidence(duplicateProposalEvidence(this.chainId, stripBlock(a), stripBlock(p)), out);
      return;
    }
    if (!this.#verifyProposal(p)) {
      this.counters.proposalsInvalid++;
      return;
    }
    const key = hashKey(p.blockHash);
    this.#learnBlock(key, p.blockHash, p.block);
    hs.proposals.set(p.round, { proposal: p, key });
    // The proof-of-lock claims +2/3 prevoted this block at polRound: keep every such vote.
    if (p.polRound >= 0) this.#voteSet('prevote', p.polRound).claim(p.blockHash);
    this.counters.proposalsAccepted++;
    this.#heard(p.round, this.validators.indexOf(p.proposer));
    // A proof-of-lock we cannot check (e.g. our prevotes of that round died with a
    // restart): ask the peers for them now rather than time out and prevote nil.
    if (p.polRound >= 0 && !(hs.prevotes.get(p.polRound)?.hasTwoThirdsFor(p.blockHash) ?? false)) {
      out.push({ type: 'broadcast', message: { kind: 'status', status: this.#status(p.round) } });
    }
  }

  /** Entered by: a `vote` input (gossip, a peer's status answer, or the next height's replay). */
  #onVote(input: Extract<ConsensusInput, { type: 'vote' }>, out: ConsensusOutput[]): void {
    const v = input.vote;
    if (v.height !== this.#hs.height) return this.#otherHeight(input, v.height, v.validator, out);
    if (!this.#roundInWindow(v.round)) {
      this.counters.votesInvalid++;
      return;
    }
    this.#addVote(v, false, out);
  }

  /** Entered by: #onVote (a peer's vote), #vote (our own) and #onCertificate (a certificate's precommits, verified). */
  #addVote(v: Vote, trusted: boolean, out: ConsensusOutput[]): void {
    const set = this.#voteSet(v.type, v.round);
    const res = set.add(v, trusted);
    switch (res.status) {
      case 'added':
        this.counters.votesAdded++;
        this.#heard(v.round, this.validators.indexOf(v.validator));
        break;
      case 'conflict':
        // Counted for its own value (see VoteSet), reported once.
        if (res.evidence !== undefined) this.#emitEvidence(res.evidence, out);
        break;
      case 'late':
        this.counters.votesLate++;
        return;
      case 'duplicate':
        this.counters.votesDuplicate++;
        return;
      case 'invalid':
        this.counters.votesInvalid++;
        return;
    }
    if (v.type === 'precommit' && this.#hs.commitCandidate === undefined) {
      const maj = set.twoThirdsMajority();
      if (maj !== undefined && maj.blockHash !== null) this.#hs.commitCandidate = { round: v.round, key: hashKey(maj.blockHash) };
    }
  }

  /** A message of another height: buffer the next height's, ask for help when behind. Entered by: #onProposal, #onVote. */
  #otherHeight(input: ConsensusInput, height: number, sender: Address, out: ConsensusOutput[]): void {
    const h = this.#hs.height;
    if (height < h) {
      if (input.type === 'vote' && this.#lastCommit?.offer(input.vote)) return;
      this.counters.staleDropped++;
      return;
    }
    if (height === h + 1) {
      if (this.#future.length < this.#limits.maxFutureMessages) {
        this.#future.push(input);
        this.counters.futureBuffered++;
      } else {
        this.counters.futureDropped++;
      }
      // Waiting in Commit for our own application is normal; anywhere else we missed h.
      if (this.step === Step.Commit) return;
    }
    this.#askForHelp(sender, out);
  }

  #askForHelp(peer: Address, out: ConsensusOutput[]): void {
    const hs = this.#hs;
    if (hs.askedFor.has(peer) || peer === this.#privval?.address) return;
    hs.askedFor.add(peer);
    out.push({ type: 'send', to: peer, message: { kind: 'status', status: this.#status(this.round) } });
  }

  /** Entered by: a `blockReady` input, the application's answer to proposeBlock returning null (the node's `requestBlock`). */
  #onBlockReady(hash: Uint8Array, bytes: Uint8Array, out: ConsensusOutput[]): Promise<void> | void {
    const hs = this.#hs;
    const key = hashKey(hash);
    if (hs.awaitingBlock !== undefined && hs.awaitingBlock === this.round && this.step === Step.Propose) {
      // The application built it for us: no validation round trip.
      hs.blocks.set(key, bytes);
      hs.awaitingBlock = undefined;
      return this.#signProposal(this.round, hash, bytes, -1, out);
    }
    this.#learnBlock(key, hash, bytes);
  }

  /** A peer told us where it is: give it what it lacks. Entered by: a `status` input (a peer's start, timeout rebroadcast, or request for help). */
  #onStatus(from: Address, s: StatusMessage, out: ConsensusOutput[]): void {
    const hs = this.#hs;
    if (s.height < hs.height) {
      const certificate = this.#app.certificate?.(s.height) ?? null;
      if (certificate !== null) {
        this.counters.certificatesSent++;
        out.push({ type: 'send', to: from, message: { kind: 'certificate', certificate } });
      }
      return;
    }
    if (s.height > hs.height) return this.#askForHelp(from, out);
    const decided = this.#decidedCertificate();
    if (decided !== undefined) {
      this.counters.certificatesSent++;
      out.push({ type: 'send', to: from, message: { kind: 'certificate', certificate: decided } });
      return;
    }
    const send = (message: ConsensusMessage) => out.push({ type: 'send', to: from, message });
    if (!s.hasProposal) {
      const rec = hs.proposals.get(s.round);
      if (rec) send({ kind: 'proposal', proposal: rec.proposal });
    }
    for (const [sets, bitmap] of [
      [hs.prevotes, s.prevotes],
      [hs.precommits, s.precommits],
    ] as const) {
      const set = sets.get(s.round);
      if (set === undefined) continue;
      for (let i = 0; i < this.validators.size; i++) {
        const v = set.getByIndex(i);
        if (v !== undefined && !bitmapGet(bitmap, i)) send({ kind: 'vote', vote: v });
      }
    }
    if (s.polRound >= 0) {
      // Its bitmap marks the votes it holds for the proposal's block at polRound.
      const ours = hs.proposals.get(s.round);
      const pol = hs.prevotes.get(s.polRound);
      const votes = ours !== undefined && ours.proposal.polRound === s.polRound ? pol?.votesFor(ours.proposal.blockHash) : pol?.votes();
      for (const v of votes ?? []) {
        if (!bitmapGet(s.polPrevotes, this.validators.indexOf(v.validator))) send({ kind: 'vote', vote: v });
      }
    }
    // Behind in rounds: everything of our round lets it skip here (f+1) and take part.
    if (this.round > s.round) {
      const rec = hs.proposals.get(this.round);
      if (rec) send({ kind: 'proposal', proposal: rec.proposal });
      for (const set of [hs.prevotes.get(this.round), hs.precommits.get(this.round)]) {
        for (const v of set?.votes() ?? []) send({ kind: 'vote', vote: v });
      }
    }
  }

  /** Entered by: a `certificate` input, a peer's answer to our status when we were behind. */
  #onCertificate(c: Certificate, out: ConsensusOutput[]): void {
    const hs = this.#hs;
    const commit = c.commit;
    if (c.height !== hs.height || commit.height !== c.height || this.#snapshot.context.decided) {
      this.counters.staleDropped++;
      return;
    }
    // The zero hash is nil: nil precommits would "verify" as a commit of it.
    if (commit.blockHash.length !== 32 || equalBytes(commit.blockHash, ZERO_HASH) || !Number.isSafeInteger(commit.round) || commit.round < 0) {
      this.counters.certificatesInvalid++;
      return;
    }
    // Verify before anything is stored: a forged certificate must cost us nothing.
    const votes: Vote[] = [];
    const seen = new Set<Address>();
    let power = 0n;
    for (const s of commit.signatures) {
      if (seen.has(s.validator) || !this.validators.has(s.validator)) continue;
      const vote: Vote = { type: 'precommit', height: c.height, round: commit.round, blockHash: commit.blockHash, validator: s.validator, signature: s.signature };
      if (s.signature.length !== 65 || !this.#verifier.verify(voteSigningHash(this.chainId, vote), s.signature, s.validator)) continue;
      seen.add(s.validator);
      power += this.validators.powerOf(s.validator);
      votes.push(vote);
    }
    if (!this.validators.hasQuorum(power)) {
      this.counters.certificatesInvalid++;
      return;
    }
    const key = hashKey(commit.blockHash);
    if (!this.#learnBlock(key, commit.blockHash, c.block)) {
      // +2/3 committed a block our application refuses: our state has diverged.
      this.counters.certificatesInvalid++;
      return;
    }
    for (const v of votes) this.#addVote(v, true, out);
    // The verified certificate is a proof on its own, whatever our vote set holds.
    hs.certified = canonicalCommit({ height: c.height, round: commit.round, blockHash: commit.blockHash, signatures: votes.map((v) => ({ validator: v.validator, signature: v.signature })) });
    hs.commitCandidate ??= { round: commit.round, key };
    hs.caughtUp = true;
    this.counters.certificatesApplied++;
  }

  // ------------------------------------------------------------------ machine

  /** Feeds the machine every fact it can act on until nothing changes. */
  async #settle(out: ConsensusOutput[]): Promise<void> {
    for (let i = 0; i < MAX_SETTLE_STEPS; i++) {
      if (this.#replay.length > 0) {
        const batch = this.#replay;
        this.#replay = [];
        for (const input of batch) await this.#dispatch(input, out);
        continue;
      }
      const event = this.#nextEvent();
      if (event === undefined) return;
      await this.#fire(event, out);
    }
    throw new Error(`consensus did not settle within ${MAX_SETTLE_STEPS} steps at ${this.height}/${this.round}`);
  }

  /** The first fact the machine accepts now, in order of urgency. */
  #nextEvent(): ConsensusRoundEvent | undefined {
    const hs = this.#hs;
    const ctx = this.#snapshot.context;
    const { height, round } = ctx;
    const candidates: ConsensusRoundEvent[] = [];
    const c = hs.commitCandidate;
    if (c !== undefined) {
      candidates.push({ type: 'PRECOMMIT_QUORUM_BLOCK', height, round: c.round, blockHash: c.key, haveValidBlock: hs.blocks.has(c.key) });
    }
    if (ctx.commitValue !== null && !ctx.decided && hs.blocks.has(ctx.commitValue)) {
      candidates.push({ type: 'BLOCK_RECEIVED', height, blockHash: ctx.commitValue });
    }
    if (hs.oneThirdRound > round) candidates.push({ type: 'NEW_ROUND', height, round: hs.oneThirdRound });
    const rec = hs.proposals.get(round);
    if (rec !== undefined) {
      const pol = rec.proposal.polRound;
      candidates.push({
        type: 'PROPOSAL',
        height,
        round,
        blockHash: rec.key,
        polRound: pol,
        valid: hs.blocks.has(rec.key),
        polQuorum: pol >= 0 && (hs.prevotes.get(pol)?.hasTwoThirdsFor(rec.proposal.blockHash) ?? false),
      });
    }
    const prevotes = hs.prevotes.get(round);
    if (prevotes !== undefined) {
      const maj = prevotes.twoThirdsMajority();
      if (maj !== undefined && maj.blockHash !== null) {
        const key = hashKey(maj.blockHash);
        candidates.push({ type: 'PREVOTE_QUORUM_BLOCK', height, round, blockHash: key, haveValidBlock: hs.blocks.has(key) });
      } else if (maj !== undefined) {
        candidates.push({ type: 'PREVOTE_QUORUM_NIL', height, round });
      }
      if (prevotes.hasTwoThirdsAny()) candidates.push({ type: 'PREVOTE_QUORUM_ANY', height, round });
    }
    if (hs.precommits.get(round)?.hasTwoThirdsAny()) candidates.push({ type: 'PRECOMMIT_QUORUM_ANY', height, round });
    const accepted = EVENTS_BY_STATE[this.#snapshot.value as StepName];
    return candidates.find((e) => accepted.has(e.type) && this.#snapshot.can(e));
  }

  /** One machine transition and its effects. False when the machine ignores the event. */
  async #fire(event: ConsensusRoundEvent, out: ConsensusOutput[]): Promise<boolean> {
    if (!this.#snapshot.can(event)) return false;
    const [next, actions] = this.#stepper.step(this.#snapshot, event);
    this.#snapshot = next;
    if (next.context.height !== this.#hs.height) this.#enterHeight(next.context.height, out);
    for (const a of actions) await this.#execute(a, out);
    return true;
  }

  async #execute(action: ConsensusRoundAction, out: ConsensusOutput[]): Promise<void> {
    switch (action.type) {
      case 'scheduleTimeout': {
        const { height, round, step } = action.params;
        out.push({ type: 'scheduleTimeout', height, round, step, delayMs: timeoutDelayMs(this.#timeouts, step, round) });
        return;
      }
      case 'propose':
        return this.#propose(action.params, out);
      case 'prevote':
        return this.#vote('prevote', action.params, out);
      case 'precommit':
        return this.#vote('precommit', action.params, out);
      case 'decide':
        return this.#decide(action.params, out);
      case 'rebroadcast':
        return this.#rebroadcast(action.params, out);
      case 'requestBlock':
        out.push({ type: 'broadcast', message: { kind: 'status', status: this.#status(action.params.round) } });
        return;
    }
  }

  // ------------------------------------------------------------------ effects

  /** Entered by: the machine's `propose` action, on entering Propose (TIMEOUT(NewHeight), TIMEOUT(PrecommitWait), or NEW_ROUND on f+1 at a higher round). */
  async #propose(p: ProposeParams, out: ConsensusOutput[]): Promise<void> {
    const hs = this.#hs;
    const me = this.#privval?.address;
    if (me === undefined || this.validators.proposer(p.height, p.round, hs.seed).address !== me) return;
    if (hs.ownAt(p.round).proposal !== undefined) return;
    // Re-propose the valid value with its proof-of-lock round (paper line 15) when we hold its bytes.
    if (p.validValue !== null && p.validRound >= 0 && p.validRound < p.round) {
      const bytes = hs.blocks.get(p.validValue);
      if (bytes !== undefined) {
        const hash = hexToBytes(p.validValue);
        // Name the proof-of-lock only if we can show it (after a restart we may not);
        // without one, validators locked on this block or unlocked still prevote it,
        // and receivers' lock checks keep it safe whatever polRound says.
        const pol = hs.prevotes.get(p.validRound)?.hasTwoThirdsFor(hash) ? p.validRound : -1;
        return this.#signProposal(p.round, hash, bytes, pol, out);
      }
    }
    const block = this.#app.proposeBlock(p.height, p.round);
    if (block === null) {
      hs.awaitingBlock = p.round;
      return;
    }
    hs.blocks.set(hashKey(block.hash), block.bytes);
    return this.#signProposal(p.round, block.hash, block.bytes, -1, out);
  }

  /** Entered by: #propose (a block at hand or the valid value) and #onBlockReady (the block built for us). */
  async #signProposal(round: number, blockHash: Uint8Array, block: Uint8Array, polRound: number, out: ConsensusOutput[]): Promise<void> {
    const pv = this.#privval;
    if (pv === null || !this.validators.has(pv.address)) return;
    const hs = this.#hs;
    let proposal: Proposal;
    try {
      proposal = await pv.signProposal(this.chainId, { height: hs.height, round, polRound, blockHash, block, proposer: pv.address });
    } catch (err) {
      if (err instanceof DoubleSignError) {
        this.counters.signRefused++;
        return;
      }
      throw err;
    }
    hs.ownAt(round).proposal = proposal;
    if (!hs.proposals.has(round)) {
      hs.proposals.set(round, { proposal, key: hashKey(blockHash) });
      this.#heard(round, this.validators.indexOf(pv.address));
    }
    out.push({ type: 'broadcast', message: { kind: 'proposal', proposal } });
    // Re-proposing a valid value: send its proof-of-lock along (peers that restarted or
    // missed those prevotes could not accept the proposal otherwise).
    if (polRound >= 0) {
      for (const vote of hs.prevotes.get(polRound)?.votesFor(blockHash) ?? []) out.push({ type: 'broadcast', message: { kind: 'vote', vote } });
    }
  }

  /**
   * Entered by: the machine's `prevote` action (PROPOSAL or TIMEOUT(Propose) in Propose) and its
   * `precommit` action (+2/3 prevotes for a block or nil, or TIMEOUT(PrevoteWait)).
   */
  async #vote(type: VoteType, p: VoteParams, out: ConsensusOutput[]): Promise<void> {
    const pv = this.#privval;
    if (pv === null || !this.validators.has(pv.address)) return;
    let vote: Vote;
    try {
      const blockHash = p.blockHash === null ? null : hexToBytes(p.blockHash);
      const lockedBlock = type === 'precommit' && p.blockHash !== null ? this.#hs.blocks.get(p.blockHash) : undefined;
      vote = await pv.signVote(this.chainId, { type, height: p.height, round: p.round, blockHash, validator: pv.address }, lockedBlock);
    } catch (err) {
      if (!(err instanceof DoubleSignError)) throw err;
      this.counters.signRefused++;
      // A restarted validator back in a round it already voted in: send the vote it did
      // sign there (the same message again, not a second one), or stay silent.
      const signed = pv.signedVote(p.height, p.round, type);
      if (signed === null) return;
      this.counters.votesResent++;
      vote = signed;
    }
    this.#hs.ownAt(p.round)[type] = vote;
    this.#addVote(vote, true, out);
    out.push({ type: 'broadcast', message: { kind: 'vote', vote } });
  }

  /** Entered by: the machine's `decide` action (+2/3 precommits for a block we hold, or BLOCK_RECEIVED in Commit). */
  #decide(p: DecideParams, out: ConsensusOutput[]): void {
    const hs = this.#hs;
    const block = hs.blocks.get(p.blockHash);
    const blockHash = hexToBytes(p.blockHash);
    const commit = hs.precommits.get(p.round)?.makeCommit(blockHash) ?? this.#certifiedCommit(p.round, blockHash);
    // The machine decides only on +2/3 precommits for a block we hold: anything else is a bug.
    if (block === undefined || commit === undefined) throw new Error(`decide ${p.height}/${p.round} without block or commit`);
    this.counters.decisions++;
    this.#decidedCommit = commit;
    out.push({ type: 'decide', height: p.height, round: p.round, blockHash, block, commit });
  }

  /** Entered by: the machine's `rebroadcast` action, on TIMEOUT(Propose | Prevote | PrevoteWait | Precommit | PrecommitWait). */
  #rebroadcast(p: TimeoutParams, out: ConsensusOutput[]): void {
    const own = this.#hs.own.get(p.round);
    if (own?.proposal) out.push({ type: 'broadcast', message: { kind: 'proposal', proposal: own.proposal } });
    if (own?.prevote) out.push({ type: 'broadcast', message: { kind: 'vote', vote: own.prevote } });
    if (own?.precommit) out.push({ type: 'broadcast', message: { kind: 'vote', vote: own.precommit } });
    out.push({ type: 'broadcast', message: { kind: 'status', status: this.#status(p.round) } });
  }

  #emitEvidence(evidence: Evidence, out: ConsensusOutput[]): void {
    this.counters.evidence++;
    out.push({ type: 'evidence', evidence });
  }

  // ------------------------------------------------------------------ helpers

  /** Entered by: #fire, when a transition (COMMIT_DONE in Commit) moved the machine to the next height. */
  #enterHeight(height: number, out: ConsensusOutput[]): void {
    const caughtUp = this.#hs.caughtUp;
    this.#lastCommit = this.#collectorOfDecided();
    this.#hs = this.#newHeightState(height);
    this.#replay = this.#future;
    this.#future = [];
    // We were catching up: peers ahead of us answer this with the next certificate.
    if (caughtUp) out.push({ type: 'broadcast', message: { kind: 'status', status: this.#status(0) } });
  }

  #newHeightState(height: number): HeightState {
    const seed = this.#app.proposerSeed?.(height) ?? DEFAULT_SEED;
    return new HeightState(height, seed, validatorsAt(this.#validators, height));
  }

  #roundInWindow(round: number): boolean {
    return Number.isSafeInteger(round) && round >= 0 && round <= this.round + this.#limits.maxRoundsAhead;
  }

  #voteSet(type: VoteType, round: number): VoteSet {
    const hs = this.#hs;
    const sets = type === 'prevote' ? hs.prevotes : hs.precommits;
    let set = sets.get(round);
    if (set === undefined) {
      set = new VoteSet(this.chainId, hs.height, round, type, this.validators, this.#verifier);
      sets.set(round, set);
    }
    return set;
  }

  #verifyProposal(p: Proposal): boolean {
    return p.signature.length === 65 && p.blockHash.length === 32 && this.#verifier.verify(proposalSigningHash(this.chainId, p), p.signature, p.proposer);
  }

  /** Keeps the bytes when they are a valid block with this hash; true when we hold it. */
  #learnBlock(key: HashKey, hash: Uint8Array, bytes: Uint8Array): boolean {
    const hs = this.#hs;
    if (hs.blocks.has(key)) return true;
    const got = this.#app.validateBlock(bytes);
    if (got === null || !equalBytes(got, hash)) {
      this.counters.blocksInvalid++;
      return false;
    }
    hs.blocks.set(key, bytes);
    return true;
  }

  /** A signed message of `index` at `round`: more than 1/3 of the power there lets us skip to it. */
  #heard(round: number, index: number): void {
    if (index < 0) return;
    const hs = this.#hs;
    let r = hs.roundSenders.get(round);
    if (r === undefined) {
      r = { seen: new Uint8Array(this.validators.size), power: 0n };
      hs.roundSenders.set(round, r);
    }
    if (r.seen[index] === 1) return;
    r.seen[index] = 1;
    r.power += this.validators.validators[index].power;
    if (round > hs.oneThirdRound && this.validators.hasOneThird(r.power)) hs.oneThirdRound = round;
  }

  #status(round: number): StatusMessage {
    const hs = this.#hs;
    const bytes = Math.ceil(this.validators.size / 8);
    const prevotes = new Uint8Array(bytes);
    const precommits = new Uint8Array(bytes);
    for (const [set, bitmap] of [
      [hs.prevotes.get(round), prevotes],
      [hs.precommits.get(round), precommits],
    ] as const) {
      if (set === undefined) continue;
      for (let i = 0; i < this.validators.size; i++) if (set.getByIndex(i) !== undefined) bitmapSet(bitmap, i);
    }
    const proposal = hs.proposals.get(round)?.proposal;
    const polRound = proposal?.polRound ?? -1;
    const polPrevotes = new Uint8Array(bytes);
    const polSet = polRound >= 0 ? hs.prevotes.get(polRound) : undefined;
    if (polSet !== undefined && proposal !== undefined) {
      for (let i = 0; i < this.validators.size; i++) if (polSet.hasVoteFor(i, proposal.blockHash)) bitmapSet(polPrevotes, i);
    }
    return { height: hs.height, round, hasProposal: hs.proposals.has(round), prevotes, precommits, polRound, polPrevotes };
  }

  #certifiedCommit(round: number, blockHash: Uint8Array): Commit | undefined {
    const c = this.#hs.certified;
    return c !== undefined && c.round === round && equalBytes(c.blockHash, blockHash) ? c : undefined;
  }

  /** The height being left's commit, with the late precommits its vote set kept (checked when used). */
  #collectorOfDecided(): LastCommitCollector | undefined {
    const decided = this.#decidedCommit;
    this.#decidedCommit = undefined;
    const hs = this.#hs;
    if (decided === undefined || decided.height !== hs.height) return undefined;
    const collector = new LastCommitCollector(this.chainId, hs.validators, decided, this.#verifier);
    for (const v of hs.precommits.get(decided.round)?.lateVotes() ?? []) collector.offer(v);
    return collector;
  }

  /**
   * The commit of `height` (the last decided one) to record in the next block: the
   * decided commit and every precommit for its block that came after it, each checked
   * once (./last-commit.ts). null for any other height.
   */
  lastCommitFor(height: number): Commit | null {
    const c = this.#lastCommit;
    return c !== undefined && c.height === height ? c.commit() : null;
  }

  /** Once decided here: the block and its commit, for peers still deciding. */
  #decidedCertificate(): Certificate | undefined {
    const ctx = this.#snapshot.context;
    if (!ctx.decided || ctx.commitValue === null) return undefined;
    const block = this.#hs.blocks.get(ctx.commitValue);
    const hash = hexToBytes(ctx.commitValue);
    const commit = this.#hs.precommits.get(ctx.commitRound)?.makeCommit(hash) ?? this.#certifiedCommit(ctx.commitRound, hash);
    if (block === undefined || commit === undefined) return undefined;
    return { height: ctx.height, block, commit };
  }
}
