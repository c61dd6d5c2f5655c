/**
 * Round steps of one height of Tendermint consensus (Buchman, Kwon, Milosevic, "The
 * latest gossip on BFT consensus", 2018, Algorithm 1), as a pure XState machine.
 *
 * Pure: no I/O, no clock, no randomness, no vote counting. The consensus core
 * (src/consensus/core.ts) counts votes and tells the machine *facts* as events
 * ("+2/3 prevotes for block B at round r", "a timeout tagged (h, r, step) fired"); the
 * machine decides what they mean and answers with effects as actions (`prevote`,
 * `precommit`, `decide`, `scheduleTimeout`, …) that the core executes. The core never
 * signs a vote the machine did not ask for: the drawn machine is the enforced one.
 *
 *   NewHeight ─TIMEOUT(NewHeight)─▶ Propose ─PROPOSAL / TIMEOUT(Propose)─▶ Prevote
 *   Prevote ─+2/3 any─▶ PrevoteWait        Prevote, PrevoteWait ─+2/3 block (lock) / nil─▶ Precommit
 *   PrevoteWait ─TIMEOUT(PrevoteWait)─▶ Precommit (nil)
 *   Propose…Precommit ─+2/3 precommits any─▶ PrecommitWait ─TIMEOUT─▶ Propose (round + 1)
 *   any step of the height ─+2/3 precommits for a block (any round)─▶ Commit ─COMMIT_DONE─▶ NewHeight (height + 1)
 *   any step of the height ─f+1 voting power at a higher round─▶ Propose (that round)
 *
 * Locking (paper lines 22-43): prevote a proposal only if not locked, locked on the same
 * block, or the proposal carries a proof-of-lock (+2/3 prevotes at polRound < round)
 * no older than our lock; lock (and precommit) on a block only on +2/3 prevotes for it in
 * the current round while in Prevote/PrevoteWait; validValue/validRound follow every
 * polka seen at step >= Prevote, and a proposer re-proposes validValue.
 *
 * Linear votes (decision 174, context.linear): a vote goes to the round's collector (its
 * proposer) only, which broadcasts one certificate (the +2/3 signed votes of one value)
 * per step; the core adds a certificate's votes one by one, so the events above are the
 * same. Waiting for a certificate is the step itself (Prevote, Precommit); the fall-back
 * is the `fallBack` action on the timeouts of Propose, Prevote, PrevoteWait and
 * Precommit: from then on, the round's votes (`to: 'all'`) and the timeout's rebroadcast
 * go to every validator, today's all-to-all protocol. A new round is linear again.
 *
 *   Propose ─TIMEOUT(Propose) / fallBack─▶ Prevote (nil, to all)
 *   Prevote ─TIMEOUT(Prevote) / rebroadcast, fallBack─▶ Prevote      (no prevote certificate)
 *   Precommit ─TIMEOUT(Precommit) / rebroadcast, fallBack─▶ Precommit (no precommit certificate)
 *
 * Timeouts: every step schedules one timeout tagged (height, round, step) on entry.
 * Steps only grow within a round and rounds only grow within a height, so a timeout
 * whose tag differs from the current (height, round, step) is stale and is dropped
 * (`isStaleTimeout` is CometBFT's comparison). The timeouts of Prevote, Precommit and
 * Commit are not in the paper: they re-broadcast our own votes and ask peers for what
 * we miss, because our transport may drop messages (the paper assumes eventual
 * delivery).
 */
import { assertEvent, setup, type SnapshotFrom } from 'xstate';
import { assignUpdates, compileEffectStepper, type ContextUpdate, type EffectStep } from './stepper';

/**
 * Ordered round steps (CometBFT's RoundStepType without NewRound: entering a round
 * goes straight to Propose, there is nothing to wait for in between). Numeric and
 * ordered so a stale timeout is recognised by comparing (height, round, step).
 */
export enum Step {
  NewHeight = 1,
  Propose = 2,
  Prevote = 3,
  PrevoteWait = 4,
  Precommit = 5,
  PrecommitWait = 6,
  Commit = 7,
}

export type StepName = keyof typeof Step;

export const STEP_NAMES: readonly StepName[] = ['NewHeight', 'Propose', 'Prevote', 'PrevoteWait', 'Precommit', 'PrecommitWait', 'Commit'];

/** Block hashes inside the machine are lower-case 0x hex strings (serialisable snapshots). */
export type HashHex = string;

export interface ConsensusRoundContext {
  height: number;
  round: number;
  /** -1 when not locked. */
  lockedRound: number;
  lockedValue: HashHex | null;
  /** Round of the last polka (+2/3 prevotes for a block) seen at step >= Prevote; -1 none. */
  validRound: number;
  validValue: HashHex | null;
  /** Round and block with +2/3 precommits; set on entering Commit. */
  commitRound: number;
  commitValue: HashHex | null;
  /** The decision was handed out (the block is known); Commit waits for COMMIT_DONE. */
  decided: boolean;
  /**
   * Linear votes (decision 174): our votes go to the round's collector, which broadcasts
   * one certificate per step. Fixed for the machine's life (ConsensusRoundInput.linear).
   */
  linear: boolean;
  /**
   * A step's timeout fired in this round without its certificate: the collector is silent,
   * slow or cut off, so the rest of the round's votes go to all (the classic path). A new
   * round (a new collector) goes back to linear.
   */
  fellBack: boolean;
}

export interface ConsensusRoundInput {
  height: number;
  /** Round to start at (a restarted validator resumes at the round it last signed in). */
  round?: number;
  /** Lock restored from the privval's persisted state (same height only). */
  lockedRound?: number;
  lockedValue?: HashHex | null;
  /** Votes to the round's collector first (decision 174); default false: every vote to all. */
  linear?: boolean;
}

export type ConsensusRoundEvent =
  /** A signed proposal of the proposer of (height, round). `valid`: its block passed the
   * application's validation. `polQuorum`: +2/3 prevotes for this block at polRound seen. */
  | { type: 'PROPOSAL'; height: number; round: number; blockHash: HashHex; polRound: number; valid: boolean; polQuorum: boolean }
  | { type: 'PREVOTE_QUORUM_ANY'; height: number; round: number }
  /** +2/3 prevotes for one block. `haveValidBlock`: we hold its bytes and they are valid. */
  | { type: 'PREVOTE_QUORUM_BLOCK'; height: number; round: number; blockHash: HashHex; haveValidBlock: boolean }
  | { type: 'PREVOTE_QUORUM_NIL'; height: number; round: number }
  | { type: 'PRECOMMIT_QUORUM_ANY'; height: number; round: number }
  /** +2/3 precommits for one block at any round of the height: the decision. */
  | { type: 'PRECOMMIT_QUORUM_BLOCK'; height: number; round: number; blockHash: HashHex; haveValidBlock: boolean }
  /** The bytes of the committed block arrived (Commit entered without them). */
  | { type: 'BLOCK_RECEIVED'; height: number; blockHash: HashHex }
  /** f+1 voting power sent messages for a higher round: skip to it (paper line 55). */
  | { type: 'NEW_ROUND'; height: number; round: number }
  | { type: 'TIMEOUT'; height: number; round: number; step: Step }
  /** The application applied and persisted the decided block. */
  | { type: 'COMMIT_DONE'; height: number };

export type ConsensusRoundEventType = ConsensusRoundEvent['type'];

/** Effects the core executes, in the order returned by `transition()`. */
export interface TimeoutParams {
  height: number;
  round: number;
  step: Step;
}
export interface ProposeParams {
  height: number;
  round: number;
  /** Re-propose this block (with polRound = validRound) when set. */
  validValue: HashHex | null;
  validRound: number;
}
export interface VoteParams {
  height: number;
  round: number;
  /** null: nil. */
  blockHash: HashHex | null;
  /** To the round's collector only (linear, no fall-back yet this round), or to all. */
  to: 'collector' | 'all';
}
export interface DecideParams {
  height: number;
  round: number;
  blockHash: HashHex;
}

export type ConsensusRoundAction =
  | { type: 'scheduleTimeout'; params: TimeoutParams }
  | { type: 'propose'; params: ProposeParams }
  | { type: 'prevote'; params: VoteParams }
  | { type: 'precommit'; params: VoteParams }
  | { type: 'decide'; params: DecideParams }
  | { type: 'rebroadcast'; params: TimeoutParams }
  | { type: 'requestBlock'; params: DecideParams };

const EFFECT_TYPES = ['scheduleTimeout', 'propose', 'prevote', 'precommit', 'decide', 'rebroadcast', 'requestBlock'] as const;

/**
 * CometBFT's staleness rule: a timeout is stale when it belongs to another height, an
 * older round, or an earlier step of this round.
 */
export function isStaleTimeout(current: TimeoutParams, timeout: TimeoutParams): boolean {
  return (
    timeout.height !== current.height ||
    timeout.round < current.round ||
    (timeout.round === current.round && timeout.step < current.step)
  );
}

/** The paper's prevote rule for a complete proposal (lines 22-33). `undefined`: wait (POL not yet seen). */
function prevoteFor(ctx: ConsensusRoundContext, e: Extract<ConsensusRoundEvent, { type: 'PROPOSAL' }>): 'block' | 'nil' | undefined {
  if (!e.valid) return 'nil';
  if (e.polRound === -1) return ctx.lockedRound === -1 || ctx.lockedValue === e.blockHash ? 'block' : 'nil';
  // A proof-of-lock must be from an earlier round; anything else is malformed.
  if (e.polRound < -1 || e.polRound >= e.round) return 'nil';
  if (!e.polQuorum) return undefined;
  return ctx.lockedRound <= e.polRound || ctx.lockedValue === e.blockHash ? 'block' : 'nil';
}

const sameHeight = (ctx: ConsensusRoundContext, e: { height: number }) => e.height === ctx.height;
const sameRound = (ctx: ConsensusRoundContext, e: { height: number; round: number }) => e.height === ctx.height && e.round === ctx.round;
const timeoutParams =
  (step: Step) =>
  ({ context }: { context: ConsensusRoundContext }): TimeoutParams => ({ height: context.height, round: context.round, step });

// Pieces of the step states below that several steps share, written once. They stay
// listed in each state's own `on` (not hoisted to a parent state) so the drawn graph
// shows every transition where it applies and the stepper compiles it per state.
const scheduleTimeout = (step: Step) => ({ type: 'scheduleTimeout', params: timeoutParams(step) }) as const;
const rebroadcast = (step: Step) => ({ type: 'rebroadcast', params: timeoutParams(step) }) as const;
const timeoutIs = (step: Step) => ({ type: 'timeoutIs', params: { step } }) as const;

/** +2/3 precommits for anything in the current round (paper line 47), from Propose to Precommit. */
const precommitsAny = { guard: 'currentRound', target: 'PrecommitWait' } as const;

/** f+1 voting power at a higher round (line 55): skip to it. */
const higherRound = { guard: 'higherRound', target: 'Propose', actions: 'enterRound' } as const;

/** Transitions of every step of a live height (all but Commit): the decision and round skips. */
const heightWide = {
  NEW_ROUND: higherRound,
  PRECOMMIT_QUORUM_BLOCK: [
    { guard: 'commitWithBlock', target: 'Commit', actions: ['recordCommit', { type: 'decide', params: decideFromEvent }] },
    { guard: 'commitWithoutBlock', target: 'Commit', actions: ['recordCommit', { type: 'requestBlock', params: decideFromEvent }] },
  ],
} as const;

/** Prevote and PrevoteWait: a polka for a block locks and precommits it (line 36), a nil polka precommits nil (line 44). */
const polkas = {
  PREVOTE_QUORUM_BLOCK: {
    guard: 'polkaForBlock',
    target: 'Precommit',
    actions: ['lock', 'updateValid', { type: 'precommit', params: voteFromPolka }],
  },
  PREVOTE_QUORUM_NIL: { guard: 'currentRound', target: 'Precommit', actions: { type: 'precommit', params: nilVote } },
} as const;

/** Precommit and PrecommitWait: no new lock, but the valid value follows the polka. */
const polkaUpdatesValid = { guard: 'polkaUpdatesValid', actions: 'updateValid' } as const;

/**
 * The machine's context updates, one function per named `assign` action: the machine
 * (through assignUpdates) and its compiled stepper (roundStepper) apply this one table.
 */
const ROUND_UPDATES = {
  // A new round has a new collector: linear again.
  enterRound: (_c, event) => {
    assertEvent(event, 'NEW_ROUND');
    return { round: event.round, fellBack: false };
  },
  nextRound: (c) => ({ round: c.round + 1, fellBack: false }),
  fallBack: () => ({ fellBack: true }),
  lock: (_c, event) => {
    assertEvent(event, 'PREVOTE_QUORUM_BLOCK');
    return { lockedRound: event.round, lockedValue: event.blockHash };
  },
  updateValid: (_c, event) => {
    assertEvent(event, 'PREVOTE_QUORUM_BLOCK');
    return { validRound: event.round, validValue: event.blockHash };
  },
  recordCommit: (_c, event) => {
    assertEvent(event, 'PRECOMMIT_QUORUM_BLOCK');
    return { commitRound: event.round, commitValue: event.blockHash, decided: event.haveValidBlock };
  },
  markDecided: () => ({ decided: true }),
  nextHeight: (c) => ({
    height: c.height + 1,
    round: 0,
    lockedRound: -1,
    lockedValue: null,
    validRound: -1,
    validValue: null,
    commitRound: -1,
    commitValue: null,
    decided: false,
    fellBack: false,
  }),
} satisfies Record<string, ContextUpdate<ConsensusRoundContext, ConsensusRoundEvent>>;

/** The context a height starts with: the machine's `context` and the stepper's `initial` both call it. */
export function initialRoundContext(input: ConsensusRoundInput): ConsensusRoundContext {
  const lockedRound = input.lockedRound ?? -1;
  const lockedValue = lockedRound >= 0 ? (input.lockedValue ?? null) : null;
  return {
    height: input.height,
    round: input.round ?? 0,
    lockedRound: lockedValue === null ? -1 : lockedRound,
    lockedValue,
    // A lock implies a polka at lockedRound: the valid value is at least that.
    validRound: lockedValue === null ? -1 : lockedRound,
    validValue: lockedValue,
    commitRound: -1,
    commitValue: null,
    decided: false,
    linear: input.linear ?? false,
    fellBack: false,
  };
}

export const consensusRoundMachine = setup({
  types: {
    context: {} as ConsensusRoundContext,
    events: {} as ConsensusRoundEvent,
    input: {} as ConsensusRoundInput,
  },
  actions: {
    // Effects: no implementation here; `transition()` returns them to the core.
    scheduleTimeout: (_, _params: TimeoutParams) => {},
    propose: (_, _params: ProposeParams) => {},
    prevote: (_, _params: VoteParams) => {},
    precommit: (_, _params: VoteParams) => {},
    decide: (_, _params: DecideParams) => {},
    rebroadcast: (_, _params: TimeoutParams) => {},
    requestBlock: (_, _params: DecideParams) => {},
    // Context updates: the table the stepper applies too.
    ...assignUpdates(ROUND_UPDATES),
  },
  guards: {
    timeoutIs: ({ context, event }, params: { step: Step }) =>
      event.type === 'TIMEOUT' && sameRound(context, event) && event.step === params.step,
    pendingCommitTimeout: ({ context, event }) =>
      event.type === 'TIMEOUT' && sameRound(context, event) && event.step === Step.Commit && !context.decided,
    proposalAcceptable: ({ context, event }) =>
      event.type === 'PROPOSAL' && sameRound(context, event) && prevoteFor(context, event) === 'block',
    proposalRejected: ({ context, event }) =>
      event.type === 'PROPOSAL' && sameRound(context, event) && prevoteFor(context, event) === 'nil',
    polkaForBlock: ({ context, event }) =>
      event.type === 'PREVOTE_QUORUM_BLOCK' && sameRound(context, event) && event.haveValidBlock,
    polkaUpdatesValid: ({ context, event }) =>
      event.type === 'PREVOTE_QUORUM_BLOCK' && sameRound(context, event) && event.haveValidBlock && context.validRound < event.round,
    currentRound: ({ context, event }) => 'round' in event && sameRound(context, event),
    higherRound: ({ context, event }) => event.type === 'NEW_ROUND' && sameHeight(context, event) && event.round > context.round,
    commitWithBlock: ({ context, event }) =>
      event.type === 'PRECOMMIT_QUORUM_BLOCK' && sameHeight(context, event) && event.haveValidBlock,
    commitWithoutBlock: ({ context, event }) =>
      event.type === 'PRECOMMIT_QUORUM_BLOCK' && sameHeight(context, event) && !event.haveValidBlock,
    committedBlockArrived: ({ context, event }) =>
      event.type === 'BLOCK_RECEIVED' && sameHeight(context, event) && !context.decided && event.blockHash === context.commitValue,
    committedHere: ({ context, event }) => event.type === 'COMMIT_DONE' && sameHeight(context, event) && context.decided,
  },
}).createMachine({
  id: 'consensus-round',
  initial: 'NewHeight',
  context: ({ input }) => initialRoundContext(input),
  states: {
    NewHeight: {
      entry: scheduleTimeout(Step.NewHeight),
      on: {
        TIMEOUT: { guard: timeoutIs(Step.NewHeight), target: 'Propose' },
        ...heightWide,
      },
    },
    Propose: {
      entry: [
        scheduleTimeout(Step.Propose),
        {
          type: 'propose',
          params: ({ context }) => ({
            height: context.height,
            round: context.round,
            validValue: context.validValue,
            validRound: context.validRound,
          }),
        },
      ],
      on: {
        PROPOSAL: [
          { guard: 'proposalAcceptable', target: 'Prevote', actions: { type: 'prevote', params: voteFromProposal } },
          { guard: 'proposalRejected', target: 'Prevote', actions: { type: 'prevote', params: nilVote } },
        ],
        // No proposal: the proposer, this round's collector, is silent; the nil prevote goes to all.
        TIMEOUT: { guard: timeoutIs(Step.Propose), target: 'Prevote', actions: [rebroadcast(Step.Propose), 'fallBack', { type: 'prevote', params: nilVote }] },
        PRECOMMIT_QUORUM_ANY: precommitsAny,
        ...heightWide,
        // Re-entered: a new round of the same step schedules its timeout and proposes again.
        NEW_ROUND: { ...higherRound, reenter: true },
      },
    },
    Prevote: {
      entry: scheduleTimeout(Step.Prevote),
      on: {
        ...polkas,
        PREVOTE_QUORUM_ANY: { guard: 'currentRound', target: 'PrevoteWait' },
        // No prevote certificate in time: our prevote (re-)goes to all, and the round's later votes too.
        TIMEOUT: { guard: timeoutIs(Step.Prevote), target: 'Prevote', reenter: true, actions: [rebroadcast(Step.Prevote), 'fallBack'] },
        PRECOMMIT_QUORUM_ANY: precommitsAny,
        ...heightWide,
      },
    },
    PrevoteWait: {
      entry: scheduleTimeout(Step.PrevoteWait),
      on: {
        ...polkas,
        TIMEOUT: {
          guard: timeoutIs(Step.PrevoteWait),
          target: 'Precommit',
          actions: [rebroadcast(Step.PrevoteWait), 'fallBack', { type: 'precommit', params: nilVote }],
        },
        PRECOMMIT_QUORUM_ANY: precommitsAny,
        ...heightWide,
      },
    },
    Precommit: {
      entry: scheduleTimeout(Step.Precommit),
      on: {
        // Line 36 at step Precommit: no new lock, but the valid value follows the polka.
        PREVOTE_QUORUM_BLOCK: polkaUpdatesValid,
        PRECOMMIT_QUORUM_ANY: precommitsAny,
        // No precommit certificate in time: our precommit (re-)goes to all.
        TIMEOUT: { guard: timeoutIs(Step.Precommit), target: 'Precommit', reenter: true, actions: [rebroadcast(Step.Precommit), 'fallBack'] },
        ...heightWide,
      },
    },
    PrecommitWait: {
      entry: scheduleTimeout(Step.PrecommitWait),
      on: {
        PREVOTE_QUORUM_BLOCK: polkaUpdatesValid,
        TIMEOUT: { guard: timeoutIs(Step.PrecommitWait), target: 'Propose', actions: [rebroadcast(Step.PrecommitWait), 'nextRound'] },
        ...heightWide,
      },
    },
    Commit: {
      entry: scheduleTimeout(Step.Commit),
      on: {
        BLOCK_RECEIVED: {
          guard: 'committedBlockArrived',
          actions: ['markDecided', { type: 'decide', params: decideFromContext }],
        },
        TIMEOUT: {
          guard: 'pendingCommitTimeout',
          target: 'Commit',
          reenter: true,
          actions: { type: 'requestBlock', params: decideFromContext },
        },
        COMMIT_DONE: { guard: 'committedHere', target: 'NewHeight', actions: 'nextHeight' },
      },
    },
  },
});

/** Where a vote goes: the collector while linear and no step of the round timed out, else all. */
const voteTo = (context: ConsensusRoundContext): VoteParams['to'] => (context.linear && !context.fellBack ? 'collector' : 'all');

function voteFromProposal({ context, event }: { context: ConsensusRoundContext; event: ConsensusRoundEvent }): VoteParams {
  assertEvent(event, 'PROPOSAL');
  return { height: context.height, round: context.round, blockHash: event.blockHash, to: voteTo(context) };
}

function voteFromPolka({ context, event }: { context: ConsensusRoundContext; event: ConsensusRoundEvent }): VoteParams {
  assertEvent(event, 'PREVOTE_QUORUM_BLOCK');
  return { height: context.height, round: context.round, blockHash: event.blockHash, to: voteTo(context) };
}

function nilVote({ context }: { context: ConsensusRoundContext }): VoteParams {
  return { height: context.height, round: context.round, blockHash: null, to: voteTo(context) };
}

function decideFromEvent({ context, event }: { context: ConsensusRoundContext; event: ConsensusRoundEvent }): DecideParams {
  assertEvent(event, 'PRECOMMIT_QUORUM_BLOCK');
  return { height: context.height, round: event.round, blockHash: event.blockHash };
}

function decideFromContext({ context }: { context: ConsensusRoundContext }): DecideParams {
  if (context.commitValue === null) throw new Error('Commit step without a committed value');
  return { height: context.height, round: context.commitRound, blockHash: context.commitValue };
}

export type ConsensusRoundMachine = typeof consensusRoundMachine;
export type ConsensusRoundSnapshot = SnapshotFrom<ConsensusRoundMachine>;

const EFFECTS = new Set<string>(EFFECT_TYPES);

/** The effect actions among executed actions, in order (assigns are applied, never returned). */
export function effectsOf(actions: readonly { type: string; params?: unknown }[]): ConsensusRoundAction[] {
  const out: ConsensusRoundAction[] = [];
  for (const a of actions) if (EFFECTS.has(a.type)) out.push({ type: a.type, params: a.params } as ConsensusRoundAction);
  return out;
}

/** A round machine state as the core holds it: the state value and context, no xstate snapshot. */
export interface RoundState {
  value: StepName;
  context: ConsensusRoundContext;
}
export type RoundStep = EffectStep<StepName, ConsensusRoundContext, ConsensusRoundAction>;

/**
 * The round machine compiled by the stepper the other machines use (machines/stepper.ts):
 * a table lookup and the machine's own guards and context updates per event, no xstate
 * actor or snapshot (xstate's pure `transition()` builds a throw-away actor per call;
 * ~100 µs, several times per consensus message). The effects come back with their
 * params resolved, in xstate's order; the agreement tests walk it against `transition()`.
 */
export const roundStepper = compileEffectStepper<StepName, ConsensusRoundContext, ConsensusRoundEvent, ConsensusRoundInput, ConsensusRoundAction>(
  consensusRoundMachine,
  ROUND_UPDATES,
  EFFECT_TYPES,
  initialRoundContext,
);

/** The step of a snapshot's state value. */
export function stepOf(value: unknown): Step {
  const step = Step[value as StepName];
  if (step === undefined) throw new Error(`not a round step: ${String(value)}`);
  return step;
}
