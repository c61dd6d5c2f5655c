/**
 * One isolated perp position (contract [C-state-position-*], [D-orders-perp-positions]),
 * as a pure XState machine. Pure: no I/O, no clock; prices and block times arrive as
 * event data.
 *
 *          OPEN [openAllowed]            CLOSE [closesAll] / ADL [closesAll]
 *   none ─────────────────────▶ open ─────────────────────────────────────▶ closed
 *                               │ ▲ │  TICK_SECOND [tpslHit] (every whole second)
 *      CLOSE [closesPart]       │ │ │───────────────────────────────────────▶ closed
 *      ADL [closesPart]         └─┘ │  CHECK_BLOCK [liquidatable] (every block)
 *      SET_TPSL [tpslValid]         └───────────────────────────────────────▶ liquidated
 *
 * A stale oracle price pauses everything that acts on the price: OPEN, CLOSE, TP/SL and
 * liquidation (the guards read `fresh`); funding is a context change (collateral), not
 * a transition. ADL closes (part of) a position when a loss beyond another position's
 * margin must be covered, or when traders' profit against the pool passes the genesis
 * threshold (src/state/perps/engine.ts).
 *
 * Execution (src/state/perps/engine.ts) stores the open position as a PerpPosition
 * record (closed and liquidated positions are deleted; their history is in the
 * receipts' events) and asks this machine what every event does to it: each open,
 * close, TP/SL change, TP/SL trigger, liquidation and ADL is one `stepPosition` call
 * (src/state/perps/position-step.ts), and an event the machine refuses in the
 * position's state halts the node (InvariantError). `stepPosition` is compiled from
 * this machine (machines/stepper.ts): its drawing, its guards, and the context updates
 * its actions make (POSITION_UPDATES, shared with the `assign`s below). The engine's
 * error codes come from the guard functions the guards are (openRefusal, tpslRefusal),
 * so a refusal is explained before it is stepped. test/perps/position-machine.test.ts
 * checks `stepPosition` against xstate's `transition()` for every (state, event) and
 * that every position change of the engine went through it.
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

export type PositionStateName = 'none' | 'open' | 'closed' | 'liquidated';

export interface PositionContext {
  isLong: boolean;
  /** ×1e18; 0 before OPEN. */
  size: bigint;
  /** ×1e6. */
  entryPrice: bigint;
  /** USDC units. */
  margin: bigint;
  leverage: number;
  /** ×1e6, 0 = unset. */
  takeProfit: bigint;
  stopLoss: bigint;
  maintenanceMarginBps: number;
}

export const EMPTY_POSITION_CONTEXT: Readonly<PositionContext> = Object.freeze({
  isLong: true,
  size: 0n,
  entryPrice: 0n,
  margin: 0n,
  leverage: 1,
  takeProfit: 0n,
  stopLoss: 0n,
  maintenanceMarginBps: 0,
});

/** What an open is judged on (execution computes the size from the oracle price). */
export interface OpenFacts {
  /** The pair has a perp market (a spot-only pair added by governance has none: decision 76). */
  perpListed: boolean;
  /** An oracle price exists for the market. */
  hasPrice: boolean;
  /** It is within the oracle's staleness bound at the block time. */
  fresh: boolean;
  leverage: number;
  maxLeverage: number;
  margin: bigint;
  minMargin: bigint;
  /** Size the margin buys at the oracle price (0: too small). */
  size: bigint;
}

export type OpenRefusal = 'MARKET_NOT_LISTED' | 'NO_ORACLE_PRICE' | 'ORACLE_STALE' | 'INVALID_LEVERAGE' | 'INVALID_MARGIN';

export type PositionEvent =
  | { type: 'OPEN'; facts: OpenFacts; position: PositionContext }
  | { type: 'CLOSE'; size: bigint; fresh: boolean; collateral?: bigint; minMargin?: bigint }
  | { type: 'SET_TPSL'; takeProfit: bigint; stopLoss: bigint }
  | { type: 'TICK_SECOND'; price: bigint; fresh: boolean }
  | { type: 'CHECK_BLOCK'; price: bigint; fresh: boolean; liquidatable: boolean }
  | { type: 'ADL'; size: bigint; collateral?: bigint; minMargin?: bigint };

// ---- the guard functions execution calls ----------------------------------------------

/** Guard `openAllowed`: the first reason an open is refused, null when allowed. Shape (leverage, margin) before the market, the market before price. */
export function openRefusal(f: OpenFacts): OpenRefusal | null {
  if (!Number.isInteger(f.leverage) || f.leverage < 1 || f.leverage > f.maxLeverage) return 'INVALID_LEVERAGE';
  if (f.margin < f.minMargin) return 'INVALID_MARGIN';
  if (!f.perpListed) return 'MARKET_NOT_LISTED';
  if (!f.hasPrice) return 'NO_ORACLE_PRICE';
  if (!f.fresh) return 'ORACLE_STALE';
  if (f.size <= 0n) return 'INVALID_MARGIN';
  return null;
}

/**
 * A close of `size` (0 = whole) closes the whole position; so does a part that would
 * leave less than `minMargin` of collateral behind (no dust positions). Without
 * collateral facts only the size decides.
 */
export function closesAll(positionSize: bigint, size: bigint, collateral?: bigint, minMargin = 0n): boolean {
  if (size === 0n || size >= positionSize) return true;
  return collateral !== undefined && (collateral * (positionSize - size)) / positionSize < minMargin;
}

/** Guard `tpslValid`: levels are ≥ 0 (0 unset); when both are set they lie on their sides (long SL < TP, short TP < SL). */
export function tpslRefusal(isLong: boolean, takeProfit: bigint, stopLoss: bigint): 'INVALID_TPSL' | null {
  if (takeProfit < 0n || stopLoss < 0n) return 'INVALID_TPSL';
  if (takeProfit > 0n && stopLoss > 0n && (isLong ? stopLoss >= takeProfit : takeProfit >= stopLoss)) return 'INVALID_TPSL';
  return null;
}

/** Guard `tpslHit`: which target the price reached (TP first), null if none. */
export function tpslTrigger(c: Pick<PositionContext, 'isLong' | 'takeProfit' | 'stopLoss'>, price: bigint): 'tp' | 'sl' | null {
  if (c.isLong) {
    if (c.takeProfit > 0n && price >= c.takeProfit) return 'tp';
    if (c.stopLoss > 0n && price <= c.stopLoss) return 'sl';
  } else {
    if (c.takeProfit > 0n && price <= c.takeProfit) return 'tp';
    if (c.stopLoss > 0n && price >= c.stopLoss) return 'sl';
  }
  return null;
}

/** The context update each action makes: the machine's `assign`s and `stepPosition` both call these. */
const POSITION_UPDATES = {
  start: (_context, event) => {
    assertEvent(event, 'OPEN');
    return { ...event.position };
  },
  reduce: (context, event) => {
    assertEvent(event, ['CLOSE', 'ADL']);
    return { size: context.size - event.size };
  },
  setTargets: (_context, event) => {
    assertEvent(event, 'SET_TPSL');
    return { takeProfit: event.takeProfit, stopLoss: event.stopLoss };
  },
} as const satisfies Record<string, ContextUpdate<PositionContext, PositionEvent>>;

export const positionMachine = setup({
  types: {
    context: {} as PositionContext,
    events: {} as PositionEvent,
  },
  actions: assignUpdates(POSITION_UPDATES),
  guards: {
    openAllowed: ({ event }) => {
      assertEvent(event, 'OPEN');
      return openRefusal(event.facts) === null;
    },
    closesAll: ({ context, event }) => {
      assertEvent(event, ['CLOSE', 'ADL']);
      return (event.type === 'ADL' || event.fresh) && closesAll(context.size, event.size, event.collateral, event.minMargin);
    },
    closesPart: ({ context, event }) => {
      assertEvent(event, ['CLOSE', 'ADL']);
      return (event.type === 'ADL' || event.fresh) && !closesAll(context.size, event.size, event.collateral, event.minMargin);
    },
    tpslValid: ({ context, event }) => {
      assertEvent(event, 'SET_TPSL');
      return tpslRefusal(context.isLong, event.takeProfit, event.stopLoss) === null;
    },
    tpslHit: ({ context, event }) => {
      assertEvent(event, 'TICK_SECOND');
      return event.fresh && tpslTrigger(context, event.price) !== null;
    },
    liquidatable: ({ event }) => {
      assertEvent(event, 'CHECK_BLOCK');
      return event.fresh && event.liquidatable;
    },
  },
}).createMachine({
  id: 'position',
  initial: 'none',
  context: () => ({ ...EMPTY_POSITION_CONTEXT }),
  states: {
    none: {
      on: { OPEN: { guard: 'openAllowed', target: 'open', actions: 'start' } },
    },
    open: {
      on: {
        CLOSE: [
          { guard: 'closesAll', target: 'closed' },
          { guard: 'closesPart', target: 'open', actions: 'reduce' },
        ],
        ADL: [
          { guard: 'closesAll', target: 'closed' },
          { guard: 'closesPart', target: 'open', actions: 'reduce' },
        ],
        SET_TPSL: { guard: 'tpslValid', target: 'open', actions: 'setTargets' },
        TICK_SECOND: { guard: 'tpslHit', target: 'closed' },
        CHECK_BLOCK: { guard: 'liquidatable', target: 'liquidated' },
      },
    },
    closed: { type: 'final' },
    liquidated: { type: 'final' },
  },
});

export type PositionMachine = typeof positionMachine;

export type PositionStep = FlatStep<PositionStateName, PositionContext>;

/**
 * What `event` does to a position in state `value` with `context`: the state and context
 * xstate's `transition()` would leave, or undefined when the machine refuses the event
 * there (no transition, or no guard passes). Compiled once from the machine.
 */
export const stepPosition = compileFlatStepper<PositionStateName, PositionContext, PositionEvent>(positionMachine, POSITION_UPDATES);
