/**
 * ConsensusCore: one validator's Tendermint consensus as a single-threaded state machine
 * driven by inputs and answering with outputs. No I/O, no clock, no randomness: the
 * node (or the simulator) delivers messages, fires the timeouts it was asked to
 * schedule, applies decided blocks and reports back with `commitDone`.
 *
 *   inputs:  proposal | vote | votes (a vote certificate) | timeout(h, r, step)
 *            | blockReady(hash, bytes) | commitDone(h) | status(from, …) | certificate
 *   outputs: broadcast(message) | send(to, message) | scheduleTimeout(h, r, step, delayMs)
 *            | decide(h, r, blockHash, block, commit) | evidence
 *
 * The round steps are the XState machine machines/consensus-round.ts: this class counts
 * votes (VoteSet), verifies each signature once, keeps proposals and validated blocks,
 * turns what it learned into machine events ("+2/3 prevotes for B at r") and executes
 * the effects the machine answers with. It signs nothing the machine did not ask for,
 * and only through the PrivValidator, which persists before a signature is released.
 *
 * This file is the loop and the effects; its parts are beside it: the contract with the
 * driver (inputs, outputs, options, counters) in ./core-types.ts, the record of one
 * height in ./height-state.ts, the admission of a proposal in ./proposal-check.ts, the
 * machine events derived from the record in ./round-events.ts, the answer to a peer's
 * status and the check of a certificate in ./catch-up.ts. Timeout lengths are in
 * ./params.ts, the next block's lastCommit in ./last-commit.ts, evidence in ./evidence.ts.
 *
 * Linear votes (decision 174, `linearVotes`): the machine says where each vote goes (the
 * round's collector, or all after a step's timeout); the collector, the round's proposer,
 * broadcasts one vote certificate per step once its vote set holds +2/3 for one value, and
 * forwards the precommits that come after it (the next block's lastCommit needs them).
 * A certificate's votes are added one by one like single votes: the vote sets, the
 * evidence and the machine events are those of the all-to-all protocol.
 *
 * Drive it from one loop: `handle` is async (signing awaits persistence) and refuses to
 * be re-entered.
 */
import {
  roundStepper,
  Step,
  stepOf,
  type ConsensusRoundAction,
  type ConsensusRoundEvent,
  type RoundState,
  type DecideParams,
  type ProposeParams,
  type TimeoutParams,
  type VoteParams,
} from '../../machines/consensus-round';
import { canonicalCommit, type Commit } from '../codec/block';
import type { Address } from '../util/bytes';
import { bytesToHex, equalBytes, hexToBytes } from '../util/bytes';
import { certificateVotes, sendWhatPeerLacks } from './catch-up';
import {
  DEFAULT_LIMITS,
  zeroCounters,
  type ConsensusApp,
  type ConsensusCoreOptions,
  type ConsensusCounters,
  type ConsensusInput,
  type ConsensusLimits,
  type ConsensusOutput,
} from './core-types';
import type { Evidence } from './evidence';
import { HeightState } from './height-state';
import {
  hashKey,
  type Certificate,
  type ConsensusMessage,
  type HashKey,
  type Proposal,
  type StatusMessage,
  type Vote,
  type VoteType,
} from './messages';
import { SETTLE_STEPS_MAX } from './limits';
import { timeoutDelayMs, type TimeoutConfig } from './params';
import { LastCommitCollector } from './last-commit';
import { DoubleSignError, isResetFloor, type PrivValidator } from './privval';
import type { SignatureVerifier } from './signer';
import { validatorsAt, type ValidatorSet, type ValidatorsByHeight } from './validator-set';
import { checkProposal, type ProposalVerdict } from './proposal-check';
import type { VoteSet } from './vote-set';
import { nextEvent } from './round-events';

export {
  DEFAULT_LIMITS,
  inputFromMessage,
  type ConsensusApp,
  type ConsensusCoreOptions,
  type ConsensusCounters,
  type ConsensusInput,
  type ConsensusLimits,
  type ConsensusOutput,
} from './core-types';

type Snapshot = RoundState;

const DEFAULT_SEED = new Uint8Array(32);
/** Each accepted machine event makes progress; a height needs far fewer than this. */
const MAX_SETTLE_STEPS = SETTLE_STEPS_MAX;

export class ConsensusCore {
  readonly chainId: number;
  readonly counters: ConsensusCounters = zeroCounters();

  readonly #validators: ValidatorsByHeight;
  readonly #privval: PrivValidator | null;
  readonly #verifier: SignatureVerifier;
  readonly #app: ConsensusApp;
  readonly #timeouts: TimeoutConfig;
  readonly #limits: ConsensusLimits;
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
  readonly #onProposalRefused: ConsensusCoreOptions['onProposalRefused'];
  readonly #linear: boolean;
  /** We collected the decided round's precommits: forward the ones that come after the height is left. */
  #forwardLastCommit = false;

  constructor(opts: ConsensusCoreOptions) {
    if (!Number.isSafeInteger(opts.height) || opts.height < 1) throw new RangeError(`height must be >= 1, got ${opts.height}`);
    this.chainId = opts.chainId;
    this.#validators = opts.validators;
    this.#privval = opts.privValidator;
    this.#verifier = opts.verifier;
    this.#app = opts.app;
    this.#timeouts = opts.timeouts;
    this.#limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.#onProposalRefused = opts.onProposalRefused;
    this.#linear = opts.linearVotes ?? true;
    // A restarted validator resumes at the round it last signed in, still locked.
    const ps = this.#privval?.state();
    const last = ps?.lastSigned;
    const lock = ps?.lock;
    // (A reset floor, decision 125, was never signed: nothing to resume, only a floor.)
    const round = last && last.height === opts.height && !isResetFloor(last) ? last.round : 0;
    const locked = lock && lock.height === opts.height ? lock : null;
    const { value, context, effects } = roundStepper.initial({
      height: opts.height,
      round,
      lockedRound: locked ? locked.round : -1,
      lockedValue: locked ? hashKey(locked.blockHash) : null,
      linear: this.#linear,
    });
    this.#snapshot = { value, context };
    this.#startActions = effects;
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

  /** The round machine's state value and context (read-only view, for status pages and tests). */
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
      out.push({ type: 'broadcast', message: { kind: 'status', status: this.#hs.status(this.round) } });
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
      case 'votes':
        this.counters.voteCertificatesReceived++;
        for (const vote of input.votes) this.#onVote({ type: 'vote', vote }, out);
        return;
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
    const verdict: ProposalVerdict = this.#roundInWindow(p.round)
      ? checkProposal(this.chainId, this.#verifier, hs, p)
      : { status: 'invalid', code: 'ROUND_OUT_OF_WINDOW', check: `round ${p.round} is not within ${this.#limits.maxRoundsAhead} rounds of this node's round ${this.round}` };
    switch (verdict.status) {
      case 'invalid':
        this.counters.proposalsInvalid++;
        this.#onProposalRefused?.({ height: p.height, round: p.round, proposer: p.proposer, blockHash: bytesToHex(p.blockHash), code: verdict.code, check: verdict.check });
        return;
      case 'duplicate':
        this.counters.proposalsDuplicate++;
        return;
      case 'conflict':
        hs.proposalEvidenceRounds.add(p.round);
        this.#emitEvidence(verdict.evidence, out);
        return;
    }
    const key = hashKey(p.blockHash);
    this.#learnBlock(key, p.blockHash, p.block);
    hs.proposals.set(p.round, { proposal: p, key });
    // The proof-of-lock claims +2/3 prevoted this block at polRound: keep every such vote.
    if (p.polRound >= 0) hs.voteSet('prevote', p.polRound).claim(p.blockHash);
    this.counters.proposalsAccepted++;
    hs.heard(p.round, this.validators.indexOf(p.proposer));
    // A proof-of-lock we cannot check (e.g. our prevotes of that round died with a
    // restart): ask the peers for them now rather than time out and prevote nil.
    if (p.polRound >= 0 && !(hs.prevotes.get(p.polRound)?.hasTwoThirdsFor(p.blockHash) ?? false)) {
      out.push({ type: 'broadcast', message: { kind: 'status', status: this.#hs.status(p.round) } });
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
    const set = this.#hs.voteSet(v.type, v.round);
    const res = set.add(v, trusted);
    if (this.#linear && res.status !== 'duplicate' && res.status !== 'invalid') this.#collect(set, v, res.status === 'late', out);
    switch (res.status) {
      case 'added':
        this.counters.votesAdded++;
        this.#hs.heard(v.round, this.validators.indexOf(v.validator));
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
      if (input.type === 'vote' && this.#lastCommit?.offer(input.vote)) {
        if (this.#forwardLastCommit) this.#broadcastVotes([input.vote], out);
        return;
      }
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
    out.push({ type: 'send', to: peer, message: { kind: 'status', status: this.#hs.status(this.round) } });
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
    const decided = hs.decidedCertificate(this.#snapshot.context);
    if (decided !== undefined) {
      this.counters.certificatesSent++;
      out.push({ type: 'send', to: from, message: { kind: 'certificate', certificate: decided } });
      return;
    }
    sendWhatPeerLacks(hs, s, this.round, (message: ConsensusMessage) => out.push({ type: 'send', to: from, message }));
  }

  /** Entered by: a `certificate` input, a peer's answer to our status when we were behind. */
  #onCertificate(c: Certificate, out: ConsensusOutput[]): void {
    const hs = this.#hs;
    const commit = c.commit;
    if (c.height !== hs.height || commit.height !== c.height || this.#snapshot.context.decided) {
      this.counters.staleDropped++;
      return;
    }
    const votes = certificateVotes(this.chainId, this.validators, this.#verifier, c);
    if (votes === undefined) {
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
      const event = nextEvent(this.#hs, this.#snapshot);
      if (event === undefined) return;
      await this.#fire(event, out);
    }
    throw new Error(`consensus did not settle within ${MAX_SETTLE_STEPS} steps at ${this.height}/${this.round}`);
  }

  /** One machine transition and its effects. False when the machine ignores the event. */
  async #fire(event: ConsensusRoundEvent, out: ConsensusOutput[]): Promise<boolean> {
    const next = roundStepper.step(this.#snapshot.value, this.#snapshot.context, event);
    if (next === undefined) return false;
    this.#snapshot = { value: next.value, context: next.context };
    if (next.context.height !== this.#hs.height) this.#enterHeight(next.context.height, out);
    for (const a of next.effects) await this.#execute(a, out);
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
        out.push({ type: 'broadcast', message: { kind: 'status', status: this.#hs.status(action.params.round) } });
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
      this.#hs.heard(round, this.validators.indexOf(pv.address));
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
    if (p.to === 'all') {
      out.push({ type: 'broadcast', message: { kind: 'vote', vote } });
      return;
    }
    // Linear: to the round's collector only; being it, the vote is in our set already.
    const collector = this.#collectorOf(p.round);
    if (collector === pv.address) return;
    this.counters.votesToCollector++;
    out.push({ type: 'send', to: collector, message: { kind: 'vote', vote } });
  }

  /** The collector of `round` at this height: its proposer (decision 174). */
  #collectorOf(round: number): Address {
    return this.validators.proposer(this.#hs.height, round, this.#hs.seed).address;
  }

  /**
   * As the round's collector: the first time a step's vote set holds +2/3 for one value,
   * broadcast those votes as one certificate; a precommit for that value coming after it
   * (kept unchecked as late) is forwarded, so every next proposer can record it in the
   * lastCommit (./last-commit.ts: downtime is counted from it). Entered by: #addVote.
   */
  #collect(set: VoteSet, v: Vote, late: boolean, out: ConsensusOutput[]): void {
    const me = this.#privval?.address;
    if (me === undefined || this.#collectorOf(v.round) !== me) return;
    const hs = this.#hs;
    const step = `${v.type}/${v.round}`;
    const maj = set.twoThirdsMajority();
    if (maj === undefined) return;
    if (!hs.certifiedSteps.has(step)) {
      hs.certifiedSteps.add(step);
      this.counters.voteCertificatesSent++;
      this.#broadcastVotes(set.votesFor(maj.blockHash), out);
      return;
    }
    if (late && v.type === 'precommit' && hashKey(v.blockHash) === hashKey(maj.blockHash)) this.#broadcastVotes([v], out);
  }

  #broadcastVotes(votes: Vote[], out: ConsensusOutput[]): void {
    out.push({ type: 'broadcast', message: { kind: 'votes', votes } });
  }

  /** Entered by: the machine's `decide` action (+2/3 precommits for a block we hold, or BLOCK_RECEIVED in Commit). */
  #decide(p: DecideParams, out: ConsensusOutput[]): void {
    const hs = this.#hs;
    const block = hs.blocks.get(p.blockHash);
    const blockHash = hexToBytes(p.blockHash);
    const commit = hs.precommits.get(p.round)?.makeCommit(blockHash) ?? this.#hs.certifiedCommit(p.round, blockHash);
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
    out.push({ type: 'broadcast', message: { kind: 'status', status: this.#hs.status(p.round) } });
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
    if (caughtUp) out.push({ type: 'broadcast', message: { kind: 'status', status: this.#hs.status(0) } });
  }

  #newHeightState(height: number): HeightState {
    const seed = this.#app.proposerSeed?.(height) ?? DEFAULT_SEED;
    return new HeightState(height, seed, validatorsAt(this.#validators, height), this.chainId, this.#verifier);
  }

  #roundInWindow(round: number): boolean {
    return Number.isSafeInteger(round) && round >= 0 && round <= this.round + this.#limits.maxRoundsAhead;
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

  /** The height being left's commit, with the late precommits its vote set kept (checked when used). */
  #collectorOfDecided(): LastCommitCollector | undefined {
    const decided = this.#decidedCommit;
    this.#decidedCommit = undefined;
    const hs = this.#hs;
    this.#forwardLastCommit = this.#linear && decided !== undefined && hs.certifiedSteps.has(`precommit/${decided.round}`);
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


}
