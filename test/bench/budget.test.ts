/**
 * The network bench's budget arithmetic (bench/budget.ts), on hand-made samples whose
 * B, c and predicted interval are worked out by hand: no network.
 */
import { describe, expect, it } from 'vitest';
import { budgetTable, formatBudgetTable, quantile, type LevelSample } from '../../bench/budget';

/** n + 1 proposer timestamps `everyMs` apart: n blocks. */
const stamps = (n: number, everyMs: number, from = 1_000_000) => Array.from({ length: n + 1 }, (_, i) => from + i * everyMs);

const sample = (over: Partial<LevelSample>): LevelSample => ({
  offeredOrdersPerSec: 0,
  perRequest: 1,
  seconds: 2,
  cpuMsByValidator: [],
  blockTimestampsMs: [],
  latenciesMs: [],
  ordersOffered: 0,
  ordersFinal: 0,
  ordersShed: 0,
  loadCpuMs: 0,
  ...over,
});

// Idle: 100 blocks in 2 s (every 20 ms); validators 1–5 spend 500 ms (5 ms a block), the
// sixth 800 (8 ms a block): B = 33 ms summed, 5.5 per validator.
const idle = sample({ cpuMsByValidator: [500, 500, 500, 500, 500, 800], blockTimestampsMs: stamps(100, 20), loadCpuMs: 100 });

describe('budgetTable', () => {
  it('takes B from the idle level, c from the CPU beyond blocks × B per final order, and predicts B / (cores − rate × c)', () => {
    // 1,000 batched orders/s for 10 s, all final; 250 blocks (40 ms apart). Each validator
    // spends its 250 idle blocks' CPU plus 100 µs an order on 10,000 orders.
    const load = sample({
      offeredOrdersPerSec: 1_000,
      perRequest: 10,
      seconds: 10,
      cpuMsByValidator: [500, 500, 500, 500, 500, 800].map((idleMs) => (idleMs / 100) * 250 + 10_000 * 0.1),
      blockTimestampsMs: stamps(250, 40),
      latenciesMs: Array.from({ length: 100 }, (_, i) => 100 - i),
      ordersOffered: 10_000,
      ordersFinal: 10_000,
      loadCpuMs: 1_500,
    });
    const t = budgetTable(idle, [load], 1.9);
    expect(t.validators).toBe(6);
    expect(t.cpuMsPerBlock).toBe(33);
    const [i, l] = t.rows;
    expect(i.level).toBe('idle');
    expect(i.blocks).toBe(100);
    expect(i.cpuMsPerBlockPerValidator).toBe(5.5);
    expect(i.cpuMsPerBlockByValidator).toEqual([5, 5, 5, 5, 5, 8]);
    expect(i.cpuUsPerOrderPerValidator).toBeNull();
    expect([i.intervalMsMedian, i.intervalMsP99, i.intervalMsMean]).toEqual([20, 20, 20]);
    // Idle: 33 / 1.9 = 17.37 ms.
    expect(i.predictedIntervalMs).toBe(17.4);
    expect(i.validatorCores).toBe(1.65);
    expect(i.loadCores).toBe(0.05);

    expect(l.level).toBe('1000/s batch×10');
    expect(l.blocks).toBe(250);
    expect(l.ordersPerSecFinal).toBe(1_000);
    expect(l.ordersNotFinal).toBe(0);
    expect(l.cpuMsPerBlockPerValidator).toBe(5.5);
    expect(l.cpuUsPerOrderPerValidator).toBe(100);
    expect([l.intervalMsMedian, l.intervalMsP99, l.intervalMsMean]).toEqual([40, 40, 40]);
    // c = 600 µs summed; 1,000/s × 0.6 ms = 0.6 cores; 33 / (1.9 − 0.6) = 25.38 ms.
    expect(l.predictedIntervalMs).toBe(25.4);
    expect(l.latencyMsP50).toBe(51);
    expect(l.latencyMsP99).toBe(100);
    // 250 × 33 ms + 10,000 × 0.6 ms = 14.25 s of CPU in 10 s.
    expect(l.validatorCores).toBe(1.43);
    expect(l.loadCores).toBe(0.15);
  });

  it('uses the final rate, counts shed and refused orders as not final, and says overload when the orders alone need every core', () => {
    // 3,000 offered, 2,000 final a second over 10 s; 1,000 ms per order summed (c = 1 ms): 2 cores > 1.9.
    const blocks = 100;
    const load = sample({
      offeredOrdersPerSec: 3_000,
      seconds: 10,
      cpuMsByValidator: [500, 500, 500, 500, 500, 800].map((idleMs) => (idleMs / 100) * blocks + (20_000 * 1) / 6),
      blockTimestampsMs: stamps(blocks, 100),
      latenciesMs: [300],
      ordersOffered: 30_000,
      ordersFinal: 20_000,
      ordersShed: 8_000,
    });
    const [, l] = budgetTable(idle, [load], 1.9).rows;
    expect(l.level).toBe('3000/s single');
    expect(l.ordersPerSecFinal).toBe(2_000);
    expect(l.ordersNotFinal).toBe(10_000);
    expect(l.ordersShed).toBe(8_000);
    expect(l.cpuUsPerOrderPerValidator).toBeCloseTo(166.7, 1);
    expect(l.predictedIntervalMs).toBeNull();
    // With four usable cores the same figures predict 33 / (4 − 2) = 16.5 ms.
    expect(budgetTable(idle, [load], 4).rows[1].predictedIntervalMs).toBe(16.5);
  });

  it('refuses samples it cannot make a budget of', () => {
    expect(() => budgetTable(sample({ cpuMsByValidator: [], blockTimestampsMs: stamps(10, 20) }), [], 1.9)).toThrow(/no validator/);
    expect(() => budgetTable(sample({ cpuMsByValidator: [1, 1], blockTimestampsMs: [5] }), [], 1.9)).toThrow(/no block/);
    expect(() => budgetTable(idle, [sample({ offeredOrdersPerSec: 500, cpuMsByValidator: [1] })], 1.9)).toThrow(/same validators/);
  });
});

describe('quantile', () => {
  it('takes the sample at floor(n·p) of the sorted list, NaN of none', () => {
    expect(quantile([3, 1, 2, 4], 0.5)).toBe(3);
    expect(quantile([3, 1, 2, 4], 0.99)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('formatBudgetTable', () => {
  it('prints one aligned line per level under a header and a rule', () => {
    const load = sample({ offeredOrdersPerSec: 500, seconds: 10, cpuMsByValidator: [9e3, 9e3, 9e3, 9e3, 9e3, 9e3], blockTimestampsMs: stamps(50, 200), latenciesMs: [40, 60], ordersOffered: 5_000, ordersFinal: 4_000, ordersShed: 500 });
    const text = formatBudgetTable(budgetTable(idle, [load], 1.9));
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[0]).toMatch(/^level .*final\/s.*B ms\/blk\/val.*c µs\/ord\/val.*interval p50.*predicted.*latency p50/);
    expect(lines[1]).toMatch(/^-+( +-+)+$/);
    expect(lines[2]).toMatch(/^idle /);
    expect(lines[3]).toMatch(/^500\/s single .* 1000 \(500 shed\) /);
    // c = (54,000 − 50 × 33) / 4,000 = 13.09 ms summed: 2,181.3 µs per validator; 400/s × 13.09 ms > 1.9 cores.
    expect(lines[3]).toContain(' 2181.3 ');
    expect(lines[3]).toContain(' overload ');
  });
});
