/**
 * TWAP orders (issue 24; decision 91): a total size bought or sold over a duration in
 * slices, one every `limits.twapSliceIntervalMs` of block time (default 30 s), each an
 * IOC market order through placeOrder with a worst price 3% from the pair's oracle mark
 * (src/state/oracle.ts, the price the perps engine marks at).
 *
 * - slicesTotal = ceil(duration / interval); the first slice runs at the end of the
 *   block that placed the TWAP, the next ones at createdMs + k × interval (a late block
 *   takes the slice that fell due; one slice per TWAP per block).
 * - A slice's size is what is left divided by the slices left, rounded down to the lot
 *   (the last slice takes all that is left); with `randomize` it is scaled by 80–120 %,
 *   the factor read from keccak256(twap id, slice number) (deterministic: every node
 *   draws the same); a slice below the pair's minimum size is raised to it.
 * - What a slice's outcome does to the TWAP is the twap machine's (machines/twap.ts):
 *   stepTwap steps the stored record with the stepper compiled from it. A market reason
 *   (no fresh mark, no liquidity, halted chain, size) is a MISS; a balance refusal is
 *   REFUSED (the TWAP fails); a TwapCancel is CANCEL (422 TWAP_STATE if refused).
 * - A slice runs under a journal checkpoint: a refused slice writes nothing and its
 *   order events are dropped.
 * Running TWAPs are read from a (next slice time, id) index (src/state/timers/due-index.ts), so
 * a block where no slice is due costs one read, whatever the number of TWAPs.
 */
import { stepTwapMachine, slicesTaken, type TwapEvent } from '../../../machines/twap';
import { keccak256 } from '../../crypto/keccak';
import { utf8, type Address } from '../../util/bytes';
import type { ChainEvent, ExecContext } from '../context';
import { badRequest, forbidden, rejected, TxError } from '../errors';
import { haltOf } from '../governance/operations';
import { placeOrder, pairOrThrow, type OrderInput } from '../orders/execution';
import { oraclePrice } from '../oracle';
import { requireSpot } from '../pair-markets';
import { ceilDiv } from '../orders/settlement';
import { InvariantError, type State } from '../state';
import type { TwapRecord } from './records';

export const DEFAULT_TWAP_SLICE_INTERVAL_MS = 30_000;
export const TWAP_MIN_MINUTES = 5;
export const TWAP_MAX_MINUTES = 24 * 60;
/** A slice's worst price: 3% (300 bps) from the mark. */
const TWAP_SLIPPAGE_BPS = 300n;

export function twapSliceIntervalMs(params: ExecContext['params']): number {
  return params.limits.twapSliceIntervalMs ?? DEFAULT_TWAP_SLICE_INTERVAL_MS;
}

function twapSlicesTotal(minutes: number, intervalMs: number): number {
  return Math.max(1, Math.ceil((minutes * 60_000) / intervalMs));
}

function nextTwapId(state: State): bigint {
  const id = (state.meta.get('nextTwapId') as bigint | undefined) ?? 1n;
  state.meta.set('nextTwapId', id + 1n);
  return id;
}

/** Steps a TWAP with the machine's stepper; undefined when the machine refuses the event. */
export function stepTwap(rec: TwapRecord, event: TwapEvent): TwapRecord | undefined {
  const next = stepTwapMachine(rec.state, rec.context, event);
  return next && { ...rec, state: next.value, context: next.context };
}

interface TwapInput {
  owner: Address;
  pairId: number;
  side: 0 | 1;
  size: bigint;
  minutes: number;
  randomize: boolean;
}

/** TwapPlace's execution: the record, running, its first slice due at this block's end. */
export function placeTwap(ctx: ExecContext, t: TwapInput): TwapRecord {
  const pair = pairOrThrow(ctx.state, t.pairId);
  if (t.size % pair.lotSize !== 0n) throw badRequest('INVALID_AMOUNT', `amount: must be a multiple of the lot size ${pair.lotSize} (×1e-18)`);
  if (t.size < pair.minSize) throw badRequest('INVALID_AMOUNT', `amount: below the minimum size ${pair.minSize} (×1e-18)`);
  requireSpot(pair);
  const nowMs = ctx.header.timestampMs;
  const slicesTotal = twapSlicesTotal(t.minutes, twapSliceIntervalMs(ctx.params));
  const id = String(nextTwapId(ctx.state));
  const rec: TwapRecord = {
    id, owner: t.owner, pairId: t.pairId, symbol: pair.symbol, side: t.side, minutes: t.minutes, randomize: t.randomize, createdMs: nowMs,
    state: 'running',
    context: { size: t.size, slicesTotal, slicesDone: 0, slicesMissed: 0, filled: 0n, notional: 0n, nextSliceMs: nowMs, updatedMs: nowMs },
  };
  ctx.state.twaps.set(id, rec);
  ctx.emit({ type: 'TwapPlaced', twapId: id, owner: t.owner, pairId: t.pairId, symbol: pair.symbol, side: t.side, size: t.size, minutes: t.minutes, randomize: t.randomize, slicesTotal });
  return rec;
}

/** TwapCancel's execution: 404 unknown, 403 another's, 422 TWAP_STATE when the machine refuses (not running). */
export function cancelTwap(ctx: ExecContext, owner: Address, id: string): TwapRecord {
  const rec = ctx.state.twaps.get(id);
  if (!rec) throw new TxError(404, 'UNKNOWN_TWAP', `twapId: no TWAP ${id}`);
  if (rec.owner !== owner) throw forbidden('NOT_OWNER', `TWAP ${id} does not belong to ${owner}`);
  const next = stepTwap(rec, { type: 'CANCEL', nowMs: ctx.header.timestampMs });
  if (!next) throw rejected('TWAP_STATE', `TWAP ${id} is ${rec.state}, not running`);
  ctx.state.twaps.set(id, next);
  ctx.emit({ type: 'TwapEnded', twapId: id, owner, state: 'cancelled', filled: next.context.filled, remaining: next.context.size - next.context.filled });
  return next;
}

/** The size of slice number `k` (0-based), before the pair's bounds. */
function sliceSize(rec: TwapRecord, lotSize: bigint, minSize: bigint): bigint {
  const c = rec.context;
  const k = slicesTaken(c);
  const remaining = c.size - c.filled;
  const left = c.slicesTotal - k;
  if (left <= 1) return remaining;
  let size = remaining / BigInt(left);
  if (rec.randomize) {
    const draw = keccak256(utf8.encode(`twap:${rec.id}:${k}`));
    size = (size * BigInt(80 + (draw[0] % 41))) / 100n;
  }
  size -= size % lotSize;
  if (size < minSize) size = minSize;
  return size > remaining ? remaining : size;
}

/** The worst price of a slice: 3% above the mark for a buy (rounded down to the tick), 3% below for a sell (rounded up). */
export function sliceWorstPrice(side: 0 | 1, mark: bigint, tickSize: bigint): bigint {
  if (side === 0) {
    const p = (mark * (10_000n + TWAP_SLIPPAGE_BPS)) / 10_000n;
    return p - (p % tickSize);
  }
  const p = ceilDiv(mark * (10_000n - TWAP_SLIPPAGE_BPS), 10_000n);
  return ceilDiv(p, tickSize) * tickSize;
}

/** End of block: one slice of every TWAP due at the block's time, in (time, id) order. Cannot be refused. */
export function endBlockTwaps(ctx: ExecContext): void {
  const { state } = ctx;
  const nowMs = ctx.header.timestampMs;
  const interval = twapSliceIntervalMs(ctx.params);
  for (const padded of state.twapsDue.due(nowMs)) {
    const id = String(BigInt(padded));
    const rec = state.twaps.get(id);
    if (rec?.state !== 'running') throw new InvariantError(`TWAP ${id} is due but not running`);
    const k = slicesTaken(rec.context);
    // From the slice's own due time (createdMs + k × interval while the interval stays),
    // not from createdMs: an interval changed by governance (decision 114) spaces the
    // later slices of a running TWAP without shifting the ones it already took.
    const nextSliceMs = rec.context.nextSliceMs + interval;
    const pair = pairOrThrow(state, rec.pairId);
    const size = sliceSize(rec, pair.lotSize, pair.minSize);
    let event: TwapEvent;
    let orderId: string | undefined;
    let filled = 0n;
    const mark = oraclePrice(state, rec.pairId, nowMs);
    if (haltOf(state)) event = { type: 'MISS', nowMs, code: 'CHAIN_HALTED', nextSliceMs };
    else if (!mark) event = { type: 'MISS', nowMs, code: 'NO_ORACLE_PRICE', nextSliceMs };
    else if (!mark.fresh) event = { type: 'MISS', nowMs, code: 'ORACLE_STALE', nextSliceMs };
    else {
      const checkpoint = state.journal.checkpoint();
      const events: ChainEvent[] = [];
      // A slice is immediate-or-cancel: its unfilled rest never rests (decision 91).
      const order: OrderInput = {
        owner: rec.owner, signer: rec.owner, pairId: rec.pairId, side: rec.side, orderType: 0,
        price: sliceWorstPrice(rec.side, mark.price, pair.tickSize), size, leverage: 1, isAgent: false, tif: 'Ioc',
      };
      try {
        const out = placeOrder({ ...ctx, emit: (e) => events.push(e) }, order);
        for (const e of events) ctx.emit(e);
        orderId = String(out.orderId);
        filled = out.filled;
        event = { type: 'SLICE', nowMs, filled: out.filled, notional: out.notional, nextSliceMs };
      } catch (err) {
        if (!(err instanceof TxError)) throw err;
        state.journal.rollback(checkpoint);
        event = err.code === 'INSUFFICIENT_BALANCE' ? { type: 'REFUSED', nowMs, code: err.code } : { type: 'MISS', nowMs, code: err.code, nextSliceMs };
      }
    }
    const next = stepTwap(rec, event);
    if (!next) throw new InvariantError(`the twap machine refused ${event.type} for running TWAP ${id}`);
    state.twaps.set(id, next);
    ctx.emit({ type: 'TwapSlice', twapId: id, owner: rec.owner, slice: k, size, filled, ...(orderId ? { orderId } : {}), ...(event.type === 'SLICE' ? {} : { code: event.code }) });
    if (next.state !== 'running') {
      ctx.emit({ type: 'TwapEnded', twapId: id, owner: rec.owner, state: next.state as 'completed' | 'failed', filled: next.context.filled, remaining: next.context.size - next.context.filled });
    }
  }
}

/** A TWAP as the API shows it. */
export function twapView(rec: TwapRecord) {
  const c = rec.context;
  return {
    twapId: rec.id, owner: rec.owner, symbol: rec.symbol, pairId: rec.pairId, side: rec.side === 0 ? 'buy' : 'sell',
    state: rec.state, size: c.size, filled: c.filled, remaining: c.size - c.filled, notional: c.notional,
    slicesTotal: c.slicesTotal, slicesDone: c.slicesDone, slicesMissed: c.slicesMissed, nextSliceMs: rec.state === 'running' ? c.nextSliceMs : null,
    minutes: rec.minutes, randomize: rec.randomize, createdMs: rec.createdMs, updatedMs: c.updatedMs, lastCode: c.lastCode ?? null,
  };
}
