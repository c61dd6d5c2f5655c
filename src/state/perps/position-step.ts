/**
 * Where the perps engine asks the position machine (machines/position.ts) what an event
 * does: every change of a position's state (open, close whole or part, TP/SL set, TP/SL
 * triggered, liquidation, ADL) is one `stepPosition` call on the stored record's state
 * (a stored record is `open`; no record is `none`). An event the machine refuses in that
 * state is a bug in the engine, never a transaction's fault: the node halts
 * (InvariantError) rather than store a position the drawn machine could not reach.
 */
import { EMPTY_POSITION_CONTEXT, stepPosition, type PositionContext, type PositionEvent, type PositionStep } from '../../../machines/position';
import type { PerpPosition } from '../records';
import { InvariantError } from '../state';
import { liquidatable, MIN_PERP_MARGIN } from './math';

/** The engine's CloseReason (engine.ts): a reason added there does not compile until it maps to an event here. */
type SettleReason = 'close' | 'tp' | 'sl' | 'liquidation' | 'adl';

/** The machine context a stored position stands for. */
export function positionContext(p: PerpPosition, maintenanceMarginBps: number): PositionContext {
  return {
    isLong: p.isLong,
    size: p.size,
    entryPrice: p.entryPrice,
    margin: p.margin,
    leverage: p.leverage,
    takeProfit: p.takeProfit,
    stopLoss: p.stopLoss,
    maintenanceMarginBps,
  };
}

/**
 * The machine's answer to `event` for `pos` (null: no position yet, state `none`).
 * Throws InvariantError when the machine refuses it.
 */
export function stepStored(pos: PerpPosition | null, maintenanceMarginBps: number, event: PositionEvent): PositionStep {
  const next = pos === null ? stepPosition('none', EMPTY_POSITION_CONTEXT, event) : stepPosition('open', positionContext(pos, maintenanceMarginBps), event);
  if (next === undefined) {
    throw new InvariantError(`the position machine refuses ${event.type} in state ${pos === null ? 'none' : 'open'}${pos === null ? '' : ` (position ${pos.id})`}`);
  }
  return next;
}

/** Steps an event that must leave the position open (OPEN, SET_TPSL): anything else halts. */
export function stepToOpen(pos: PerpPosition | null, maintenanceMarginBps: number, event: PositionEvent): PositionStep {
  const next = stepStored(pos, maintenanceMarginBps, event);
  if (next.value !== 'open') throw new InvariantError(`the position machine took ${event.type}${pos === null ? '' : ` of position ${pos.id}`} to ${next.value}`);
  return next;
}

/**
 * The machine event a settlement of `closeSize` at `price` for `reason` is, with the
 * facts its guards read: the collateral standing behind the position (margin less the
 * funding it owes) for the no-dust rule, whether the market's price is fresh, and for a
 * liquidation whether the position is below maintenance at that price.
 */
export function settleEvent(pos: PerpPosition, collateral: bigint, closeSize: bigint, price: bigint, fresh: boolean, reason: SettleReason, maintenanceMarginBps: number): PositionEvent {
  switch (reason) {
    case 'close':
      return { type: 'CLOSE', size: closeSize, fresh, collateral, minMargin: MIN_PERP_MARGIN };
    case 'adl':
      return { type: 'ADL', size: closeSize, collateral, minMargin: MIN_PERP_MARGIN };
    case 'tp':
    case 'sl':
      return { type: 'TICK_SECOND', price, fresh };
    case 'liquidation': {
      const terms = { isLong: pos.isLong, entryPrice: pos.entryPrice, size: pos.size, collateral };
      return { type: 'CHECK_BLOCK', price, fresh, liquidatable: liquidatable(terms, price, maintenanceMarginBps) };
    }
  }
}
