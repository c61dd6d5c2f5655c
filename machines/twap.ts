/**
 * One TWAP order (issue 24 item 1; decision 91), as a pure XState machine. Pure: no I/O,
 * no clock; every time is the block time carried by the event.
 *
 *            SLICE / MISS (more slices to go)
 *              ┌─────┐
 *              ▼     │
 *            running ─┴── SLICE (last, or the size is filled) ─▶ completed
 *              │  └────── MISS (last slice) ───────────────────▶ completed
 *              ├───────── REFUSED (the trader cannot pay) ─────▶ failed
 *              └───────── CANCEL (TwapCancel) ─────────────────▶ cancelled
 *
 * A slice is an IOC market order with a worst price 3% from the oracle mark
 * (src/state/timers/twap.ts). SLICE: it executed (a zero fill included: IOC takes what the
 * book has within the bound). MISS: it could not be placed for a reason of the market
 * (no fresh mark, no liquidity, a slice below the pair's minimum): the size left is
 * spread over the slices that remain. REFUSED: the trader's balance cannot pay for the
 * slice, and the TWAP stops (`failed`). `completed`, `failed` and `cancelled` are final.
 *
 * Execution (src/state/timers/twap.ts `stepTwap`) steps the stored record's state and context
 * with `stepTwapMachine`, the stepper compiled from this machine (machines/stepper.ts;
 * agreement: test/machines/twap.test.ts); what the step leaves is stored, an event the
 * machine refuses is a TwapCancel's 422 TWAP_STATE, or, for a slice, a halt (a bug).
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

export type TwapStateName = 'running' | 'completed' | 'failed' | 'cancelled';
export const TWAP_STATES: readonly TwapStateName[] = ['running', 'completed', 'failed', 'cancelled'];

export interface TwapContext {
  /** Total size ×1e18. */
  size: bigint;
  slicesTotal: number;
  slicesDone: number;
  slicesMissed: number;
  /** Size filled so far ×1e18, and its USDC notional. */
  filled: bigint;
  notional: bigint;
  /** Block time (ms) of the next slice; 0 once final. */
  nextSliceMs: number;
  /** Block time of the last transition, ms. */
  updatedMs: number;
  /** The code of the last missed or refused slice. */
  lastCode?: string;
}

export type TwapEvent =
  | { type: 'SLICE'; nowMs: number; filled: bigint; notional: bigint; nextSliceMs: number }
  | { type: 'MISS'; nowMs: number; code: string; nextSliceMs: number }
  | { type: 'REFUSED'; nowMs: number; code: string }
  | { type: 'CANCEL'; nowMs: number };

/** Slices taken so far, executed or missed. */
export const slicesTaken = (c: TwapContext): number => c.slicesDone + c.slicesMissed;

/** The context update each action makes: the machine's `assign` and the stepper both call these. */
const TWAP_UPDATES = {
  recordSlice: (context, event) => {
    assertEvent(event, 'SLICE');
    return { slicesDone: context.slicesDone + 1, filled: context.filled + event.filled, notional: context.notional + event.notional, nextSliceMs: event.nextSliceMs, updatedMs: event.nowMs };
  },
  recordMiss: (context, event) => {
    assertEvent(event, 'MISS');
    return { slicesMissed: context.slicesMissed + 1, nextSliceMs: event.nextSliceMs, updatedMs: event.nowMs, lastCode: event.code };
  },
  recordRefusal: (_context, event) => {
    assertEvent(event, 'REFUSED');
    return { nextSliceMs: 0, updatedMs: event.nowMs, lastCode: event.code };
  },
  recordCancel: (_context, event) => {
    assertEvent(event, 'CANCEL');
    return { nextSliceMs: 0, updatedMs: event.nowMs };
  },
  stop: () => ({ nextSliceMs: 0 }),
} as const satisfies Record<string, ContextUpdate<TwapContext, TwapEvent>>;

export const twapMachine = setup({
  types: {
    context: {} as TwapContext,
    events: {} as TwapEvent,
  },
  actions: assignUpdates(TWAP_UPDATES),
  guards: {
    /** This slice is the last one, or fills what was left. */
    finishes: ({ context, event }) => {
      assertEvent(event, 'SLICE');
      return slicesTaken(context) + 1 >= context.slicesTotal || context.filled + event.filled >= context.size;
    },
    lastSlice: ({ context, event }) => {
      assertEvent(event, 'MISS');
      return slicesTaken(context) + 1 >= context.slicesTotal;
    },
  },
}).createMachine({
  id: 'twap',
  initial: 'running',
  context: () => ({ size: 0n, slicesTotal: 1, slicesDone: 0, slicesMissed: 0, filled: 0n, notional: 0n, nextSliceMs: 0, updatedMs: 0 }),
  states: {
    running: {
      on: {
        SLICE: [{ guard: 'finishes', target: 'completed', actions: ['recordSlice', 'stop'] }, { actions: 'recordSlice' }],
        MISS: [{ guard: 'lastSlice', target: 'completed', actions: ['recordMiss', 'stop'] }, { actions: 'recordMiss' }],
        REFUSED: { target: 'failed', actions: 'recordRefusal' },
        CANCEL: { target: 'cancelled', actions: 'recordCancel' },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

export type TwapMachine = typeof twapMachine;

export type TwapStep = FlatStep<TwapStateName, TwapContext>;

/** What `event` does to a TWAP in state `value` with `context`: what xstate's `transition()` would leave, or undefined when refused. */
export const stepTwapMachine = compileFlatStepper<TwapStateName, TwapContext, TwapEvent>(twapMachine, TWAP_UPDATES);
