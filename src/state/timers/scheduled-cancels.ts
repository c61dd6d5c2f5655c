/**
 * The dead-man switch (issue 24; decision 90): a trader's signed ScheduleCancel sets a
 * block time at which every open order of theirs is cancelled (reason 'scheduled'), or
 * clears it. Rules, at the block's time:
 *   - the time must be at least MIN_SCHEDULE_LEAD_MS (5 s) after the block time (422
 *     SCHEDULE_TOO_SOON);
 *   - at most `limits.scheduleCancelsPerDay` (default 10) schedules per trader per UTC
 *     day of block time (422 SCHEDULE_LIMIT); clearing is always allowed and not counted;
 *   - a new schedule replaces the previous one.
 * Firing is an end-of-block step (src/state/apply.ts): every schedule whose time is ≤
 * the block's time fires, in (time, trader) order, read from the front of a time-sorted
 * index (src/state/timers/due-index.ts), so a block where none is due costs one read whatever
 * the number of idle schedules. The record stays (time null) to keep the day's count.
 */
import type { Address } from '../../util/bytes';
import type { ExecContext } from '../context';
import { rejected } from '../errors';
import { cancelPairOrders } from '../orders/execution';
import type { ScheduledCancelRecord } from './records';
import type { State } from '../state';

const MIN_SCHEDULE_LEAD_MS = 5_000;
export const DEFAULT_SCHEDULE_CANCELS_PER_DAY = 10;
export const DAY_MS = 86_400_000;

export function scheduleCancelsPerDay(ctx: Pick<ExecContext, 'params'>): number {
  return ctx.params.limits.scheduleCancelsPerDay ?? DEFAULT_SCHEDULE_CANCELS_PER_DAY;
}

/** The trader's schedule (time null when none) and today's count, as the API shows it. */
export function scheduleOf(state: State, trader: Address, nowMs: number): { timeMs: number | null; countToday: number } {
  const rec = state.scheduledCancels.get(trader);
  return { timeMs: rec?.timeMs ?? null, countToday: rec && rec.day === Math.floor(nowMs / DAY_MS) ? rec.count : 0 };
}

/** ScheduleCancel's execution: set (timeMs) or clear (null) the trader's schedule. */
export function scheduleCancel(ctx: ExecContext, trader: Address, timeMs: bigint | null): void {
  const nowMs = ctx.header.timestampMs;
  const day = Math.floor(nowMs / DAY_MS);
  const prev = ctx.state.scheduledCancels.get(trader);
  const count = prev && prev.day === day ? prev.count : 0;
  if (timeMs === null) {
    ctx.state.scheduledCancels.set(trader, { trader, timeMs: null, day, count });
    ctx.emit({ type: 'CancelScheduled', trader, timeMs: null, count });
    return;
  }
  if (timeMs < BigInt(nowMs + MIN_SCHEDULE_LEAD_MS)) {
    throw rejected('SCHEDULE_TOO_SOON', `time: ${timeMs} must be at least ${MIN_SCHEDULE_LEAD_MS} ms after the block time ${nowMs}`);
  }
  const limit = scheduleCancelsPerDay(ctx);
  if (count >= limit) throw rejected('SCHEDULE_LIMIT', `trader ${trader} already set ${count} scheduled cancels this UTC day (limit ${limit})`);
  const rec: ScheduledCancelRecord = { trader, timeMs: Number(timeMs), day, count: count + 1 };
  ctx.state.scheduledCancels.set(trader, rec);
  ctx.emit({ type: 'CancelScheduled', trader, timeMs: rec.timeMs, count: rec.count });
}

/**
 * End of block: fires every schedule due at the block's time, in (time, trader) order.
 * Cancels the trader's open orders pair by pair (ascending pair id, each in id order),
 * releasing their locks. Cannot be refused: an exception is a bug.
 */
export function endBlockScheduledCancels(ctx: ExecContext): void {
  const { state } = ctx;
  for (const trader of state.cancelsDue.due(ctx.header.timestampMs) as Address[]) {
    const rec = state.scheduledCancels.get(trader)!;
    const pairIds = [...new Set(state.openOrderIds(trader).map((id) => state.orders.get(String(id))!.pairId))].sort((a, b) => a - b);
    const cancelled: bigint[] = [];
    for (const pairId of pairIds) cancelled.push(...cancelPairOrders(ctx, trader, pairId, 'scheduled'));
    state.scheduledCancels.set(trader, { ...rec, timeMs: null });
    ctx.emit({ type: 'ScheduledCancelFired', trader, timeMs: rec.timeMs!, cancelledIds: cancelled.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String) });
  }
}
