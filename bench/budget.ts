/**
 * The network budget (issue 25, docs/performance.md "Network budget (issue 25)"): from
 * the raw samples of each level of the network bench (each validator process's CPU
 * over the level's window, the blocks it committed and their proposer timestamps, each
 * request's submit-to-final latency, the orders final), the table of B, c, the block
 * interval, latency and the interval the budget formula predicts, side by side.
 *
 * The model: over a window, the six validators' CPU ≈ blocks × B + orders × c, with B
 * the CPU of one block and c the CPU of one order, each summed over the validators. A
 * machine with `usableCores` cores left for the validators then commits a block every
 * I ≈ B / (usableCores − rate × c) when the CPU is what limits it (docs/consensus.md,
 * "why the interval grows so fast with the rate"). B comes from the idle level (no
 * orders); a loaded level's c is its CPU beyond its blocks × B, per final order.
 *
 * Pure: no I/O, so test/bench/budget.test.ts checks the arithmetic without a network.
 */

/** The p-quantile of `xs` (the sample at floor(n·p) of the sorted list); NaN for none. */
export const quantile = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};

/** What one level of the bench measured, raw. */
export interface LevelSample {
  /** Offered orders per second (0: idle). */
  offeredOrdersPerSec: number;
  /** Orders per request: 1 (POST /v1/order) or 10 (a signed POST /v1/order/batch). */
  perRequest: number;
  /** The level's window, wall seconds: CPU, blocks and final orders all count over it. */
  seconds: number;
  /** Each validator process's CPU over the window, ms (from /proc/<pid>/stat). */
  cpuMsByValidator: number[];
  /**
   * Proposer timestamps (ms), in height order, of the last block before the window and of
   * each block committed in it: n + 1 stamps for n blocks, so n intervals.
   */
  blockTimestampsMs: number[];
  /** Submit-to-final latency of each request answered final, ms. */
  latenciesMs: number[];
  /** Orders the level was to offer (offered rate × its duration). */
  ordersOffered: number;
  /** Orders final (answered 200 and not refused inside a batch). */
  ordersFinal: number;
  /** Orders not sent because the client already had a second of requests waiting (the network fell behind). */
  ordersShed: number;
  /** CPU of the load process itself over the window, ms (it shares the machine). */
  loadCpuMs: number;
}

/** One row of the budget table. Per-validator figures are the sums over validators ÷ their number. */
export interface BudgetRow {
  level: string;
  offeredOrdersPerSec: number;
  perRequest: number;
  seconds: number;
  blocks: number;
  ordersFinal: number;
  /** Offered but not final: shed by the client, refused, or failed. */
  ordersNotFinal: number;
  ordersShed: number;
  ordersPerSecFinal: number;
  /** B per validator, ms: the idle level's CPU per block (every row uses the idle B). */
  cpuMsPerBlockPerValidator: number;
  /** The same for each validator (the idle level's), ms. */
  cpuMsPerBlockByValidator: number[];
  /** c per validator, µs: (CPU − blocks × B) ÷ final orders, over the six ÷ 6; null at idle or with no order final. */
  cpuUsPerOrderPerValidator: number | null;
  /** Block interval from consecutive proposer timestamps, ms. */
  intervalMsMedian: number;
  intervalMsP99: number;
  /** (last − first timestamp) ÷ blocks: what the formula, an average, is to match. */
  intervalMsMean: number;
  /** B / (usableCores − rate × c), ms, with B and c summed over the validators and the final rate; null when the orders alone need every usable core. */
  predictedIntervalMs: number | null;
  latencyMsP50: number;
  latencyMsP99: number;
  /** The validators' CPU over the window ÷ its wall time: cores they used. */
  validatorCores: number;
  /** The load process's CPU ÷ wall time. */
  loadCores: number;
}

export interface BudgetTable {
  validators: number;
  usableCores: number;
  /** B summed over the validators, ms. */
  cpuMsPerBlock: number;
  rows: BudgetRow[];
}

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Intervals between consecutive timestamps. */
const intervalsOf = (stamps: readonly number[]): number[] => stamps.slice(1).map((t, i) => t - stamps[i]);

/**
 * The budget table from the idle level and the loaded ones. `usableCores`: the cores the
 * validators may have (the issue's 1.9 on two: the load process and the system take the rest).
 */
export function budgetTable(idle: LevelSample, loads: readonly LevelSample[], usableCores: number): BudgetTable {
  const validators = idle.cpuMsByValidator.length;
  if (validators === 0) throw new Error('budgetTable: no validator CPU samples');
  for (const l of loads) if (l.cpuMsByValidator.length !== validators) throw new Error('budgetTable: every level samples the same validators');
  const idleBlocks = idle.blockTimestampsMs.length - 1;
  if (idleBlocks < 1) throw new Error('budgetTable: the idle level committed no block');
  // B: each validator's idle CPU per block, and their sum.
  const bByValidator = idle.cpuMsByValidator.map((ms) => ms / idleBlocks);
  const bSumMs = sum(bByValidator);

  const row = (s: LevelSample): BudgetRow => {
    const blocks = Math.max(0, s.blockTimestampsMs.length - 1);
    const intervals = intervalsOf(s.blockTimestampsMs);
    const cpuSumMs = sum(s.cpuMsByValidator);
    const idleLevel = s.offeredOrdersPerSec === 0;
    // c: the CPU the window's blocks would not have taken idle, per final order.
    const cSumMs = !idleLevel && s.ordersFinal > 0 ? (cpuSumMs - blocks * bSumMs) / s.ordersFinal : null;
    const rate = s.ordersFinal / s.seconds;
    const left = usableCores - rate * ((cSumMs ?? 0) / 1000);
    return {
      level: idleLevel ? 'idle' : `${s.offeredOrdersPerSec}/s ${s.perRequest === 1 ? 'single' : `batch×${s.perRequest}`}`,
      offeredOrdersPerSec: s.offeredOrdersPerSec,
      perRequest: s.perRequest,
      seconds: round(s.seconds, 1),
      blocks,
      ordersFinal: s.ordersFinal,
      ordersNotFinal: s.ordersOffered - s.ordersFinal,
      ordersShed: s.ordersShed,
      ordersPerSecFinal: Math.round(rate),
      cpuMsPerBlockPerValidator: round(bSumMs / validators, 2),
      cpuMsPerBlockByValidator: bByValidator.map((b) => round(b, 2)),
      cpuUsPerOrderPerValidator: cSumMs === null ? null : round((cSumMs * 1000) / validators, 1),
      intervalMsMedian: quantile(intervals, 0.5),
      intervalMsP99: quantile(intervals, 0.99),
      intervalMsMean: blocks >= 1 ? round((s.blockTimestampsMs[blocks] - s.blockTimestampsMs[0]) / blocks, 1) : NaN,
      predictedIntervalMs: left > 0 ? round(bSumMs / left, 1) : null,
      latencyMsP50: round(quantile(s.latenciesMs, 0.5), 1),
      latencyMsP99: round(quantile(s.latenciesMs, 0.99), 1),
      validatorCores: round(cpuSumMs / 1000 / s.seconds, 2),
      loadCores: round(s.loadCpuMs / 1000 / s.seconds, 2),
    };
  };
  return { validators, usableCores, cpuMsPerBlock: round(bSumMs, 2), rows: [row(idle), ...loads.map(row)] };
}

/** The table as aligned text: a header line, a rule, one line per level. */
export function formatBudgetTable(t: BudgetTable): string {
  const dash = (x: number | null) => (x === null || Number.isNaN(x) ? '—' : String(x));
  const cols: [string, (r: BudgetRow) => string][] = [
    ['level', (r) => r.level],
    ['final/s', (r) => String(r.ordersPerSecFinal)],
    ['not final', (r) => (r.offeredOrdersPerSec === 0 ? '—' : r.ordersShed > 0 ? `${r.ordersNotFinal} (${r.ordersShed} shed)` : String(r.ordersNotFinal))],
    ['blocks', (r) => String(r.blocks)],
    ['B ms/blk/val', (r) => r.cpuMsPerBlockPerValidator.toFixed(2)],
    ['c µs/ord/val', (r) => dash(r.cpuUsPerOrderPerValidator)],
    ['interval p50', (r) => dash(r.intervalMsMedian)],
    ['p99', (r) => dash(r.intervalMsP99)],
    ['mean', (r) => dash(r.intervalMsMean)],
    ['predicted', (r) => (r.predictedIntervalMs === null ? 'overload' : String(r.predictedIntervalMs))],
    ['latency p50', (r) => (r.offeredOrdersPerSec === 0 ? '—' : dash(r.latencyMsP50))],
    ['p99', (r) => (r.offeredOrdersPerSec === 0 ? '—' : dash(r.latencyMsP99))],
    ['val cores', (r) => r.validatorCores.toFixed(2)],
    ['load cores', (r) => r.loadCores.toFixed(2)],
  ];
  const cells = [cols.map(([h]) => h), ...t.rows.map((r) => cols.map(([, f]) => f(r)))];
  const widths = cols.map((_, j) => Math.max(...cells.map((line) => line[j].length)));
  // The level left-aligned, the figures right-aligned.
  const line = (c: string[]) => c.map((x, j) => (j === 0 ? x.padEnd(widths[j]) : x.padStart(widths[j]))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}
