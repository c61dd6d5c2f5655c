/**
 * One bridge withdrawal (issue 22 item 3; decision 83), as a pure XState machine. Pure:
 * no I/O, no clock; every time is the block time carried by the event.
 *
 *              SIGNED              QUEUED
 *   requested ────────▶ signed ──────────▶ submitted ──── PAID ────▶ paid
 *       │                 │  └─────────────── PAID ───────────────────▲
 *       └──── VOID ───────┴──── VOID ────────────┴──── VOID ────────▶ refunded
 *
 * `requested` is where POST /withdraw leaves it (amount + fee locked). SIGNED: the
 * validators whose signatures are on the record hold more than 2/3 of the current power
 * (src/state/ops/withdrawal-signatures.ts). QUEUED, PAID and VOID: a quorum of
 * validators attested the external chain's WithdrawalQueued, WithdrawalPaid, or that the
 * withdrawal can never be paid there (validUntil passed unpaid, or the owners cancelled
 * it) (src/state/ops/bridge-attestation.ts). PAID is taken from `signed` too: a watcher
 * may see the queueing and the payout in one scan. `paid` and `refunded` are final and
 * take no event. Every other event in a state is refused; execution treats a refused
 * claim as late (it changes nothing), so a second VOID or a PAID after a refund cannot
 * move funds twice.
 *
 * Execution (src/state/bridge/withdrawals.ts `stepWithdrawal`) steps the stored record's
 * status and context with `stepWithdrawalMachine`, the stepper compiled from this
 * machine (machines/stepper.ts; agreement: test/machines/withdrawal.test.ts).
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

export type WithdrawalStateName = 'requested' | 'signed' | 'submitted' | 'paid' | 'refunded';
export const WITHDRAWAL_STATES: readonly WithdrawalStateName[] = ['requested', 'signed', 'submitted', 'paid', 'refunded'];

export interface WithdrawalContext {
  /** Block time of the last transition, ms. */
  updatedMs: number;
  /** External transaction of the queueing (QUEUED). */
  queuedTx?: Uint8Array;
  /** External transaction of the payout (PAID). */
  paidTx?: Uint8Array;
  /** Why it can never be paid (VOID): 1 Expired, 2 Cancelled (WithdrawalVoidReason). */
  voidReason?: number;
  /** The external cancel transaction (32 zero bytes when Expired). */
  voidTx?: Uint8Array;
}

export type WithdrawalEvent =
  | { type: 'SIGNED'; nowMs: number }
  | { type: 'QUEUED'; nowMs: number; externalTx: Uint8Array }
  | { type: 'PAID'; nowMs: number; externalTx: Uint8Array }
  | { type: 'VOID'; nowMs: number; reason: number; externalTx: Uint8Array };

/** The context update each action makes: the machine's `assign` and the stepper both call these. */
const WITHDRAWAL_UPDATES = {
  setSigned: (_context, event) => {
    assertEvent(event, 'SIGNED');
    return { updatedMs: event.nowMs };
  },
  setQueued: (_context, event) => {
    assertEvent(event, 'QUEUED');
    return { updatedMs: event.nowMs, queuedTx: event.externalTx };
  },
  setPaid: (_context, event) => {
    assertEvent(event, 'PAID');
    return { updatedMs: event.nowMs, paidTx: event.externalTx };
  },
  setVoid: (_context, event) => {
    assertEvent(event, 'VOID');
    return { updatedMs: event.nowMs, voidReason: event.reason, voidTx: event.externalTx };
  },
} as const satisfies Record<string, ContextUpdate<WithdrawalContext, WithdrawalEvent>>;

const PAY = { target: 'paid', actions: 'setPaid' } as const;
const VOID = { target: 'refunded', actions: 'setVoid' } as const;

export const withdrawalMachine = setup({
  types: {
    context: {} as WithdrawalContext,
    events: {} as WithdrawalEvent,
  },
  actions: assignUpdates(WITHDRAWAL_UPDATES),
}).createMachine({
  id: 'withdrawal',
  initial: 'requested',
  context: () => ({ updatedMs: 0 }),
  states: {
    requested: {
      on: { SIGNED: { target: 'signed', actions: 'setSigned' }, VOID },
    },
    signed: {
      on: { QUEUED: { target: 'submitted', actions: 'setQueued' }, PAID: PAY, VOID },
    },
    submitted: {
      on: { PAID: PAY, VOID },
    },
    paid: { type: 'final' },
    refunded: { type: 'final' },
  },
});

export type WithdrawalMachine = typeof withdrawalMachine;

export type WithdrawalStep = FlatStep<WithdrawalStateName, WithdrawalContext>;

/**
 * What `event` does to a withdrawal in state `value` with `context`: the state and
 * context xstate's `transition()` would leave, or undefined when the machine refuses it.
 */
export const stepWithdrawalMachine = compileFlatStepper<WithdrawalStateName, WithdrawalContext, WithdrawalEvent>(withdrawalMachine, WITHDRAWAL_UPDATES);
