/**
 * Oracle prices in state (docs/oracle.md, contract [D-orders-oracle]: validators
 * sign price observations, the chain uses the voting-power-weighted median).
 *
 * - Each validator's latest accepted observation sits in TableId.OracleObservation
 *   (src/state/ops/oracle-observation.ts accepts it).
 * - At the end of every block, endBlockOracle computes per pair the weighted median of
 *   the fresh observations, when those carry more than 2/3 of the voting power
 *   (decision 31, the oracle quorum), and stores it in TableId.OracleMedian.
 * - oraclePrice reads it back with its freshness at a given time. Perp execution pauses
 *   opening, TP/SL and liquidation on a market whose price is not fresh.
 *
 * Everything is integer and iterates in a defined order (pairs by id, validators by
 * address), so every validator stores the same medians.
 */
import type { Address } from '../util/bytes';
import type { OracleObservationRecord } from './records';
import type { State } from './state';
import { activeValidators, type ValidatorSetView } from './validators/set';

/**
 * The pair's current oracle median: `price` ×1e6; `timestampMs` the time by which the
 * quorum behind it had observed (quorumTimestamp); `fresh` = that is within
 * oracle.maxStalenessMs of nowMs. Undefined until a first median formed.
 */
export function oraclePrice(state: State, pairId: number, nowMs: number): { price: bigint; timestampMs: number; fresh: boolean } | undefined {
  const rec = state.oracleMedians.get(String(pairId));
  if (!rec) return undefined;
  return { price: rec.price, timestampMs: rec.timestampMs, fresh: isFresh(rec.timestampMs, nowMs, state.params().oracle.maxStalenessMs) };
}

/** Records the median of a pair (journaled, part of the state root). */
export function setOracleMedian(state: State, pairId: number, price: bigint, timestampMs: number): void {
  if (!Number.isSafeInteger(pairId) || pairId < 0) throw new RangeError(`oracle median: pair id ${pairId}`);
  if (price <= 0n) throw new RangeError(`oracle median of pair ${pairId} must be positive, got ${price}`);
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) throw new RangeError(`oracle median timestamp ${timestampMs}`);
  state.oracleMedians.set(String(pairId), { price, timestampMs });
}

/**
 * What the medians were last computed from, per State: the pairs, the validator set (its
 * view object, one per stored set) and the fresh observation records (immutable: a new
 * observation is a new object). The medians depend on nothing else, and endBlockOracle
 * alone writes them, so a block with the same inputs would store nothing new and skips
 * the computation. A cache only: a State without an entry (a restart) computes, and
 * writes the same.
 */
const lastMedianInputs = new WeakMap<State, unknown[]>();

function sameInputs(a: unknown[] | undefined, b: unknown[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * End of block: per pair (ascending id), the weighted median of the fresh observations
 * that carry a price for it, when they hold more than 2/3 of the total voting power;
 * otherwise the stored median stays as it is and ages until it is no longer fresh.
 * A median never moves back in time, and an unchanged one is not rewritten. Skipped
 * when nothing it reads changed since the last block (lastMedianInputs).
 */
export function endBlockOracle(state: State, blockTimeMs: number): void {
  const f = freshObservations(state, blockTimeMs);
  const pairIds = state.pairs.sortedKeys();
  const inputs: unknown[] = [pairIds.join(), f.set, ...f.fresh.map((x) => x.obs)];
  if (sameInputs(lastMedianInputs.get(state), inputs)) return;
  lastMedianInputs.set(state, inputs);
  for (const m of mediansOf(pairIds, f)) {
    const prev = state.oracleMedians.get(String(m.pairId));
    if (prev && (m.timestampMs < prev.timestampMs || (m.timestampMs === prev.timestampMs && m.price === prev.price))) continue;
    setOracleMedian(state, m.pairId, m.price, m.timestampMs);
  }
}

// ---- the rules, pure ---------------------------------------------------------------

function isFresh(timestampMs: number, nowMs: number, maxStalenessMs: number): boolean {
  return nowMs - timestampMs <= maxStalenessMs;
}

/** One validator's price for one pair, with the validator's power and observation time. */
export interface WeightedPrice {
  validator: Address;
  power: bigint;
  price: bigint;
  timestampMs: number;
}

/** Quorum: strictly more than 2/3 of the total power (`3·p > 2·T`), as consensus. */
export function hasOracleQuorum(power: bigint, totalPower: bigint): boolean {
  return totalPower > 0n && 3n * power > 2n * totalPower;
}

/**
 * The lower weighted median. Sort the entries by price ascending, ties by validator
 * address ascending; with P the sum of their powers, the median is the price of the
 * first entry at which the running power sum S satisfies 2·S ≥ P. So at least half of
 * the power observed a price ≤ the median and more than half observed one ≥ it; with
 * equal powers and an even count it is the lower of the two middle prices.
 */
export function weightedMedian(entries: readonly Pick<WeightedPrice, 'validator' | 'power' | 'price'>[]): bigint {
  if (entries.length === 0) throw new RangeError('weighted median of nothing');
  const sorted = [...entries].sort(byPriceThenValidator);
  let total = 0n;
  for (const e of sorted) {
    if (e.power <= 0n) throw new RangeError(`validator ${e.validator} has non-positive power`);
    total += e.power;
  }
  let running = 0n;
  for (const e of sorted) {
    running += e.power;
    if (2n * running >= total) return e.price;
  }
  throw new Error('unreachable: the running sum reaches the total');
}

/**
 * The time the median speaks for: the newest t such that the observations made at or
 * after t alone hold more than 2/3 of the total power. Entries by timestamp
 * descending (ties by address); null when even all of them are no quorum.
 */
export function quorumTimestamp(entries: readonly WeightedPrice[], totalPower: bigint): number | null {
  const sorted = [...entries].sort((a, b) => b.timestampMs - a.timestampMs || compareAddress(a.validator, b.validator));
  let running = 0n;
  for (const e of sorted) {
    running += e.power;
    if (hasOracleQuorum(running, totalPower)) return e.timestampMs;
  }
  return null;
}

/** Per pair (ascending id), the median the fresh observations support at blockTimeMs; pairs without a quorum are absent. */
export function computeMedians(state: State, blockTimeMs: number): { pairId: number; price: bigint; timestampMs: number }[] {
  return mediansOf(state.pairs.sortedKeys(), freshObservations(state, blockTimeMs));
}

interface FreshObservations {
  set: ValidatorSetView;
  /** The active validators' observations fresh at the block's time, in the set's (address) order. */
  fresh: { validator: Address; power: bigint; obs: OracleObservationRecord }[];
}

function freshObservations(state: State, blockTimeMs: number): FreshObservations {
  const set = activeValidators(state);
  const maxStalenessMs = state.params().oracle.maxStalenessMs;
  const fresh: FreshObservations['fresh'] = [];
  for (const v of set.validators) {
    const obs = state.oracleObservations.get(v.address);
    if (obs && obs.timestampMs <= blockTimeMs && isFresh(obs.timestampMs, blockTimeMs, maxStalenessMs)) fresh.push({ validator: v.address, power: v.power, obs });
  }
  return { set, fresh };
}

/** The medians of `pairKeys` (the pairs table's keys) that `fresh` supports. */
function mediansOf(pairKeys: string[], { set, fresh }: FreshObservations): { pairId: number; price: bigint; timestampMs: number }[] {
  if (set.totalPower === 0n || !fresh.length) return [];
  const pairIds = pairKeys.map(Number).sort((a, b) => a - b);
  const out: { pairId: number; price: bigint; timestampMs: number }[] = [];
  for (const pairId of pairIds) {
    const entries: WeightedPrice[] = [];
    let power = 0n;
    for (const f of fresh) {
      const price = priceOf(f.obs, pairId);
      if (price === undefined) continue;
      entries.push({ validator: f.validator, power: f.power, price, timestampMs: f.obs.timestampMs });
      power += f.power;
    }
    if (!hasOracleQuorum(power, set.totalPower)) continue;
    out.push({ pairId, price: weightedMedian(entries), timestampMs: quorumTimestamp(entries, set.totalPower)! });
  }
  return out;
}

/** Binary search in an observation's ascending price list. */
function priceOf(obs: OracleObservationRecord, pairId: number): bigint | undefined {
  let lo = 0;
  let hi = obs.prices.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const id = obs.prices[mid].pairId;
    if (id < pairId) lo = mid + 1;
    else if (id > pairId) hi = mid - 1;
    else return obs.prices[mid].price;
  }
  return undefined;
}

function byPriceThenValidator(a: { price: bigint; validator: Address }, b: { price: bigint; validator: Address }): number {
  return a.price < b.price ? -1 : a.price > b.price ? 1 : compareAddress(a.validator, b.validator);
}

function compareAddress(a: Address, b: Address): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
