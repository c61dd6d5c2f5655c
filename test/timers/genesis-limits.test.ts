/**
 * The timers' genesis parameters (decisions 90–91): `limits.scheduleCancelsPerDay` and
 * `limits.twapSliceIntervalMs` are optional (absent: the defaults, and the genesis and
 * its hash as before), bounded, and refused with the field's path when out of range.
 */
import { describe, expect, it } from 'vitest';
import { parseLimits } from '../../src/genesis/sections';
import { DEFAULT_SCHEDULE_CANCELS_PER_DAY, scheduleCancelsPerDay } from '../../src/state/timers/scheduled-cancels';
import { DEFAULT_TWAP_SLICE_INTERVAL_MS, twapSliceIntervalMs } from '../../src/state/timers/twap';
import { GENESIS } from './harness';

const base = GENESIS.limits;

describe('timer limits in the genesis', () => {
  it('absent: not in the parsed limits, and execution reads the defaults (10 a day, 30 s)', () => {
    const parsed = parseLimits({ ...base }, 'genesis.limits');
    expect('scheduleCancelsPerDay' in parsed || 'twapSliceIntervalMs' in parsed).toBe(false);
    expect(scheduleCancelsPerDay({ params: { limits: parsed } as any })).toBe(DEFAULT_SCHEDULE_CANCELS_PER_DAY);
    expect(twapSliceIntervalMs({ limits: parsed } as any)).toBe(DEFAULT_TWAP_SLICE_INTERVAL_MS);
    expect([DEFAULT_SCHEDULE_CANCELS_PER_DAY, DEFAULT_TWAP_SLICE_INTERVAL_MS]).toEqual([10, 30_000]);
  });

  it('present: taken as given within their bounds', () => {
    const parsed = parseLimits({ ...base, scheduleCancelsPerDay: 3, twapSliceIntervalMs: 1000 }, 'genesis.limits');
    expect(parsed).toMatchObject({ scheduleCancelsPerDay: 3, twapSliceIntervalMs: 1000 });
  });

  it('out of range or not an integer: refused naming the field', () => {
    for (const [field, value] of [['scheduleCancelsPerDay', 0], ['scheduleCancelsPerDay', 10_001], ['scheduleCancelsPerDay', 2.5], ['twapSliceIntervalMs', 99], ['twapSliceIntervalMs', 3_600_001], ['twapSliceIntervalMs', '30000']] as const) {
      expect(() => parseLimits({ ...base, [field]: value }, 'genesis.limits'), `${field} ${value}`).toThrow(`genesis.limits.${field}`);
    }
  });
});
