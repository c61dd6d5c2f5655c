/**
 * One owner governance operation (issue 21 item 1, contract [C-auth-governance];
 * decision 74), as a pure XState machine. Pure: no I/O, no clock; every time is the
 * block time carried by the event, so every node computes the same state.
 *
 *          PROPOSE             APPROVE                 TICK [timelockPassed]          EXECUTE
 *   none ──────────▶ proposed ─────────▶ approved ────────────────────────▶ ready ──────────▶ executed
 *                      │  │                │  │                                │ │
 *                      │  └── CANCEL ──────┼──┴──── CANCEL ───────────────────┼─┴──▶ cancelled
 *                      └── TICK [expiredAt] ┴─────── TICK [expiredAt] ────────┴────▶ expired
 *
 * `none` is an operation without a record (nothing is stored for it). PROPOSE is the
 * first owner's signature; APPROVE a second owner's (2 of 3: execution checks the
 * approver is an owner other than the proposer), which starts the timelock: readyAtMs =
 * the approving block's time + the operation's timelock. TICK is the passing of block
 * time: it takes an approved operation to ready once the block time reaches readyAtMs,
 * and any pending operation to expired once it reaches expiresAtMs (fixed at PROPOSE).
 * A TICK that changes nothing is an explicit self-target, so the step is taken, not
 * refused. EXECUTE is taken from ready only; executed, cancelled and expired take no
 * event.
 *
 * Execution (src/state/governance/operations.ts `stepOperation`) steps a stored record (value +
 * context, TableId.Governance) with `stepGovernanceOperation`, the stepper compiled from
 * this machine (machines/stepper.ts; agreement: test/machines/governance-operation.test.ts):
 * every owner transaction first steps TICK at its block's time, then its own event; an
 * event the machine refuses is the transaction's refusal (OPERATION_STATE, or
 * TIMELOCK_NOT_PASSED for EXECUTE from approved). The operations' state as shown (the
 * API) is the TICK at the head's time of the stored record (operationStateAt).
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

export type GovernanceStateName = 'none' | 'proposed' | 'approved' | 'ready' | 'executed' | 'cancelled' | 'expired';
export const GOVERNANCE_STATES: readonly GovernanceStateName[] = ['none', 'proposed', 'approved', 'ready', 'executed', 'cancelled', 'expired'];

export interface GovernanceContext {
  /** Block time of the proposal, ms. */
  proposedAtMs: number;
  /** How long after approval the operation becomes ready, ms (0 for a halt). */
  timelockMs: number;
  /** Block time from which it may execute, ms; 0 until approved. */
  readyAtMs: number;
  /** Block time from which a pending operation is expired, ms. */
  expiresAtMs: number;
  /** Block time of the execution, ms; 0 until executed. */
  executedAtMs: number;
}

export type GovernanceEvent =
  | { type: 'PROPOSE'; nowMs: number; timelockMs: number; expiresAtMs: number }
  | { type: 'APPROVE'; nowMs: number }
  | { type: 'TICK'; nowMs: number }
  | { type: 'EXECUTE'; nowMs: number }
  | { type: 'CANCEL'; nowMs: number };

export const EMPTY_GOVERNANCE_CONTEXT: Readonly<GovernanceContext> = Object.freeze({ proposedAtMs: 0, timelockMs: 0, readyAtMs: 0, expiresAtMs: 0, executedAtMs: 0 });

/** Guard of TICK to expired: the block time reached the operation's expiry. */
export function expiredAt(ctx: Pick<GovernanceContext, 'expiresAtMs'>, nowMs: number): boolean {
  return nowMs >= ctx.expiresAtMs;
}

/** Guard of TICK to ready: the block time reached the end of the timelock. */
function timelockPassed(ctx: Pick<GovernanceContext, 'readyAtMs'>, nowMs: number): boolean {
  return nowMs >= ctx.readyAtMs;
}

/** The context update each action makes: the machine's `assign` and the stepper both call these. */
const GOVERNANCE_UPDATES = {
  setProposal: (_context, event) => {
    assertEvent(event, 'PROPOSE');
    return { proposedAtMs: event.nowMs, timelockMs: event.timelockMs, readyAtMs: 0, expiresAtMs: event.expiresAtMs, executedAtMs: 0 };
  },
  startTimelock: (context, event) => {
    assertEvent(event, 'APPROVE');
    return { readyAtMs: event.nowMs + context.timelockMs };
  },
  setExecuted: (_context, event) => {
    assertEvent(event, 'EXECUTE');
    return { executedAtMs: event.nowMs };
  },
} as const satisfies Record<string, ContextUpdate<GovernanceContext, GovernanceEvent>>;

const CANCEL = { target: 'cancelled' } as const;
const EXPIRE = { guard: 'expired', target: 'expired' } as const;

export const governanceOperationMachine = setup({
  types: {
    context: {} as GovernanceContext,
    events: {} as GovernanceEvent,
  },
  actions: assignUpdates(GOVERNANCE_UPDATES),
  guards: {
    expired: ({ context, event }) => {
      assertEvent(event, 'TICK');
      return expiredAt(context, event.nowMs);
    },
    timelockPassed: ({ context, event }) => {
      assertEvent(event, 'TICK');
      return timelockPassed(context, event.nowMs);
    },
  },
}).createMachine({
  id: 'governance-operation',
  initial: 'none',
  context: () => ({ ...EMPTY_GOVERNANCE_CONTEXT }),
  states: {
    none: {
      on: { PROPOSE: { target: 'proposed', actions: 'setProposal' } },
    },
    proposed: {
      on: {
        APPROVE: { target: 'approved', actions: 'startTimelock' },
        TICK: [EXPIRE, { target: 'proposed' }],
        CANCEL,
      },
    },
    approved: {
      on: {
        // Expiry first: an operation left past its expiry is not made ready by the same tick.
        TICK: [EXPIRE, { guard: 'timelockPassed', target: 'ready' }, { target: 'approved' }],
        CANCEL,
      },
    },
    ready: {
      on: {
        EXECUTE: { target: 'executed', actions: 'setExecuted' },
        TICK: [EXPIRE, { target: 'ready' }],
        CANCEL,
      },
    },
    executed: {},
    cancelled: {},
    expired: {},
  },
});

export type GovernanceOperationMachine = typeof governanceOperationMachine;

export type GovernanceStep = FlatStep<GovernanceStateName, GovernanceContext>;

/**
 * What `event` does to an operation in state `value` with `context`: the state and
 * context xstate's `transition()` would leave, or undefined when the machine refuses it.
 */
export const stepGovernanceOperation = compileFlatStepper<GovernanceStateName, GovernanceContext, GovernanceEvent>(governanceOperationMachine, GOVERNANCE_UPDATES);
