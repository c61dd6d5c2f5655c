/**
 * One validator's lifecycle (contract [C-state-validator], [C-limits-epoch],
 * [C-limits-unbonding], [C-limits-slashing], [C-limits-active-set]; decision 68), as a
 * pure XState machine. Pure: no I/O, no clock; epochs and set sizes enter as event data,
 * so every node computes the same state.
 *
 *            REGISTER                EPOCH_BOUNDARY [selected]
 *  observer ──────────▶ registered ───────────────────────────▶ active
 *                        ▲   │  ▲        EPOCH_BOUNDARY [notSelected]   │ │
 *                        │   │  └─────────────────────────────────────┘ │ JAIL_DOWNTIME [floorKept]
 *       UNJAIL [jailServed]  │ UNBOND [floorKept] (from active too)       ▼
 *                        └───┼──────────────────────────────────────── jailed
 *                            ▼                                            │ UNBOND
 *                        unbonding ◀──────────────────────────────────────┘
 *                            │ UNBONDING_DONE [unbondingDue]
 *                            ▼
 *                          exited
 *   registered, active, jailed, unbonding ──DOUBLE_SIGN──▶ tombstoned (never to rejoin)
 *
 * `observer` is a node without a record (a full node of the network): stored records
 * never hold it; a registration steps REGISTER from it. `exited` and `tombstoned` take no
 * event. EPOCH_BOUNDARY is stepped for every registered and active validator at each
 * boundary, `selected` saying whether the ranking (src/state/validators/epoch.ts) put it in
 * the active set; an active validator the ranking leaves out goes back to registered.
 * UNJAIL returns to registered, so the unjailed validator joins the set at the next
 * boundary like any candidate (decision 68: the contract's "jailed → active by unjail"
 * passes through the ranking, which alone makes the set).
 *
 * Execution (src/state/validators/records.ts `stepValidator`) stores the state value and
 * context in TableId.Validator and applies every status change through
 * `stepValidatorLifecycle`, the stepper compiled from this machine (machines/stepper.ts;
 * agreement with `transition()`: test/machines/validator-lifecycle.test.ts). An event the
 * machine refuses after execution's own checks passed halts the node (InvariantError).
 * Who steps what: RegisterValidator REGISTER, Unbond UNBOND, Unjail UNJAIL
 * (src/state/ops/validator-*.ts), the epoch boundary EPOCH_BOUNDARY and UNBONDING_DONE
 * (src/state/validators/epoch.ts), the penalty entry points JAIL_DOWNTIME and DOUBLE_SIGN
 * (src/state/validators/penalties.ts; decision 69).
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

export type ValidatorStateName = 'observer' | 'registered' | 'active' | 'jailed' | 'unbonding' | 'exited' | 'tombstoned';
export const VALIDATOR_STATES: readonly ValidatorStateName[] = ['observer', 'registered', 'active', 'jailed', 'unbonding', 'exited', 'tombstoned'];

export interface ValidatorContext {
  /** The bond that ranks the validator and gives its voting power, wei. */
  bondWei: bigint;
  /**
   * The part of the bond taken from the validator's native balance, wei: what unbonding
   * returns. A genesis validator's bond is declared by the genesis file, not taken from
   * any balance, so its lockedWei is 0 (decision 68).
   */
  lockedWei: bigint;
  /** Epoch at whose boundary the bond is returned (unbonding); 0 otherwise. */
  unbondingDoneEpoch: number;
  /** Epoch from which UNJAIL is allowed (jailed); 0 otherwise. */
  jailedUntilEpoch: number;
}

export type ValidatorEvent =
  | { type: 'REGISTER'; bondWei: bigint; lockedWei: bigint }
  | { type: 'EPOCH_BOUNDARY'; selected: boolean }
  /** `candidatesAfter`: registered + active validators if this one leaves. */
  | { type: 'UNBOND'; epoch: number; unbondingEpochs: number; candidatesAfter: number; activeSetMin: number }
  | { type: 'UNBONDING_DONE'; epoch: number }
  /** `candidatesAfter`: registered + active validators once this one is jailed. */
  | { type: 'JAIL_DOWNTIME'; epoch: number; jailEpochs: number; slashBps: number; candidatesAfter: number; activeSetMin: number }
  | { type: 'UNJAIL'; epoch: number }
  | { type: 'DOUBLE_SIGN'; slashBps: number };

export const EMPTY_VALIDATOR_CONTEXT: Readonly<ValidatorContext> = Object.freeze({ bondWei: 0n, lockedWei: 0n, unbondingDoneEpoch: 0, jailedUntilEpoch: 0 });

/** Guard of UNBOND and JAIL_DOWNTIME from a candidate state: the set keeps its floor. */
export function floorKept(e: { candidatesAfter: number; activeSetMin: number }): boolean {
  return e.candidatesAfter >= e.activeSetMin;
}

/** Guard of UNJAIL: the jail window has passed. */
export function jailServed(ctx: Pick<ValidatorContext, 'jailedUntilEpoch'>, epoch: number): boolean {
  return epoch >= ctx.jailedUntilEpoch;
}

/** Guard of UNBONDING_DONE: the unbonding window has passed. */
function unbondingDue(ctx: Pick<ValidatorContext, 'unbondingDoneEpoch'>, epoch: number): boolean {
  return epoch >= ctx.unbondingDoneEpoch;
}

/**
 * A slash of `slashBps` of the bond: the bond loses floor(bond × bps / 10,000), taken
 * first from the locked part (what is burned); a genesis bond's unlocked part only
 * shrinks the power.
 */
export function slashed(ctx: Pick<ValidatorContext, 'bondWei' | 'lockedWei'>, slashBps: number): { bondWei: bigint; lockedWei: bigint } {
  const cut = (ctx.bondWei * BigInt(slashBps)) / 10_000n;
  const burn = cut < ctx.lockedWei ? cut : ctx.lockedWei;
  return { bondWei: ctx.bondWei - cut, lockedWei: ctx.lockedWei - burn };
}

/** The context update each action makes: the machine's `assign` and the stepper both call these. */
const VALIDATOR_UPDATES = {
  setBond: (_context, event) => {
    assertEvent(event, 'REGISTER');
    return { bondWei: event.bondWei, lockedWei: event.lockedWei, unbondingDoneEpoch: 0, jailedUntilEpoch: 0 };
  },
  startUnbonding: (_context, event) => {
    assertEvent(event, 'UNBOND');
    return { unbondingDoneEpoch: event.epoch + event.unbondingEpochs, jailedUntilEpoch: 0 };
  },
  jail: (context, event) => {
    assertEvent(event, 'JAIL_DOWNTIME');
    return { ...slashed(context, event.slashBps), jailedUntilEpoch: event.epoch + event.jailEpochs };
  },
  clearJail: (_context, event) => {
    assertEvent(event, 'UNJAIL');
    return { jailedUntilEpoch: 0 };
  },
  /** The bond goes back to the validator's balance (execution credits the locked part). */
  release: (_context, event) => {
    assertEvent(event, 'UNBONDING_DONE');
    return { bondWei: 0n, lockedWei: 0n, unbondingDoneEpoch: 0 };
  },
  slashDoubleSign: (context, event) => {
    assertEvent(event, 'DOUBLE_SIGN');
    return { ...slashed(context, event.slashBps), unbondingDoneEpoch: 0, jailedUntilEpoch: 0 };
  },
} as const satisfies Record<string, ContextUpdate<ValidatorContext, ValidatorEvent>>;

const DOUBLE_SIGN = { target: 'tombstoned', actions: 'slashDoubleSign' } as const;

export const validatorLifecycleMachine = setup({
  types: {
    context: {} as ValidatorContext,
    events: {} as ValidatorEvent,
  },
  actions: assignUpdates(VALIDATOR_UPDATES),
  guards: {
    selected: ({ event }) => {
      assertEvent(event, 'EPOCH_BOUNDARY');
      return event.selected;
    },
    notSelected: ({ event }) => {
      assertEvent(event, 'EPOCH_BOUNDARY');
      return !event.selected;
    },
    floorKept: ({ event }) => {
      assertEvent(event, ['UNBOND', 'JAIL_DOWNTIME']);
      return floorKept(event);
    },
    jailServed: ({ context, event }) => {
      assertEvent(event, 'UNJAIL');
      return jailServed(context, event.epoch);
    },
    unbondingDue: ({ context, event }) => {
      assertEvent(event, 'UNBONDING_DONE');
      return unbondingDue(context, event.epoch);
    },
  },
}).createMachine({
  id: 'validator-lifecycle',
  initial: 'observer',
  context: () => ({ ...EMPTY_VALIDATOR_CONTEXT }),
  states: {
    observer: {
      on: { REGISTER: { target: 'registered', actions: 'setBond' } },
    },
    registered: {
      on: {
        // Explicit self-targets: the step is taken (xstate's can() is true), not refused.
        EPOCH_BOUNDARY: [{ guard: 'selected', target: 'active' }, { guard: 'notSelected', target: 'registered' }],
        UNBOND: { guard: 'floorKept', target: 'unbonding', actions: 'startUnbonding' },
        DOUBLE_SIGN,
      },
    },
    active: {
      on: {
        EPOCH_BOUNDARY: [{ guard: 'selected', target: 'active' }, { guard: 'notSelected', target: 'registered' }],
        UNBOND: { guard: 'floorKept', target: 'unbonding', actions: 'startUnbonding' },
        JAIL_DOWNTIME: { guard: 'floorKept', target: 'jailed', actions: 'jail' },
        DOUBLE_SIGN,
      },
    },
    jailed: {
      on: {
        UNJAIL: { guard: 'jailServed', target: 'registered', actions: 'clearJail' },
        // Not a candidate while jailed: leaving takes nothing from the set.
        UNBOND: { target: 'unbonding', actions: 'startUnbonding' },
        DOUBLE_SIGN,
      },
    },
    unbonding: {
      on: {
        UNBONDING_DONE: { guard: 'unbondingDue', target: 'exited', actions: 'release' },
        // A bond still locked answers for what its validator signed while it was bonded.
        DOUBLE_SIGN,
      },
    },
    exited: {},
    tombstoned: {},
  },
});

export type ValidatorLifecycleMachine = typeof validatorLifecycleMachine;

export type ValidatorStep = FlatStep<ValidatorStateName, ValidatorContext>;

/**
 * What `event` does to a validator in state `value` with `context`: the state and
 * context xstate's `transition()` would leave, or undefined when the machine refuses it.
 */
export const stepValidatorLifecycle = compileFlatStepper<ValidatorStateName, ValidatorContext, ValidatorEvent>(validatorLifecycleMachine, VALIDATOR_UPDATES);
