/**
 * The timer records (issue 24, decisions 90–91) and their encodings, apart from their
 * execution (src/state/timers/scheduled-cancels.ts, src/state/timers/twap.ts) so that the state's
 * table list imports no execution:
 *   TableId.ScheduledCancel: trader -> ScheduledCancelRecord (the dead-man switch and
 *     its daily count, kept after the schedule fired or was cleared);
 *   TableId.Twap: TWAP id (decimal) -> TwapRecord (the twap machine's state and context).
 */
import type { TwapContext, TwapStateName } from '../../../machines/twap';
import type { Address } from '../../util/bytes';
import { metaCodec } from '../records';
import type { RecordCodec } from '../table';

export interface ScheduledCancelRecord {
  trader: Address;
  /** Block time (ms) at which the trader's open orders are cancelled; null: none scheduled. */
  timeMs: number | null;
  /** UTC day (block time ms / 86 400 000) the count belongs to. */
  day: number;
  /** Schedules set (clears not counted) on `day`. */
  count: number;
}

export interface TwapRecord {
  id: string;
  owner: Address;
  pairId: number;
  symbol: string;
  side: 0 | 1;
  minutes: number;
  randomize: boolean;
  createdMs: number;
  state: TwapStateName;
  context: TwapContext;
}

/** Canonical JSON with tagged bigints, like the meta records. */
export const scheduledCancelCodec = metaCodec as RecordCodec<ScheduledCancelRecord>;
export const twapCodec = metaCodec as RecordCodec<TwapRecord>;
