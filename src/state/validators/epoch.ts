/**
 * The epoch boundary (contract [C-limits-epoch], [C-limits-active-set],
 * [C-limits-power-cap], [C-limits-unbonding]; decision 68): at the end of every block
 * whose height is a multiple of consensus.epochLengthBlocks, after the transactions,
 *   1. unbonding validators whose window has passed step UNBONDING_DONE (exited) and get
 *      their locked bond back in their native balance (the operator's, for a validator
 *      it seeded and funded: `funder`);
 *   2. the candidates (registered and active) are ranked by bond, highest first, ties by
 *      address ascending; the first activeSetMax are selected, and every candidate steps
 *      EPOCH_BOUNDARY with `selected` (registered → active, active left out → registered);
 *   3. the selected set's voting powers are computed (`cappedPowers`, decision 158) and stored as the
 *      `activeSet` meta record, which activeValidators() returns from the next block on.
 *      The record is written only when the set or a power differs from the current one.
 * Pure and deterministic: bigint arithmetic, addresses iterated in ascending order.
 */
import type { Address } from '../../util/bytes';
import type { ChainParams } from '../records';
import type { State } from '../state';
import { isCandidate, stepValidator, validatorAddresses, validatorRecord } from './records';
import { activeValidators, type ActiveValidator } from './set';
import { credit } from '../accounts/vault';

/**
 * The epoch of a height: floor(height / L). The boundary block k·L starts epoch k: its
 * end-of-block step fixes the set that signs from height k·L + 1.
 */
export function epochOf(height: number, epochLengthBlocks: number): number {
  return Math.floor(height / epochLengthBlocks);
}

function isEpochBoundary(height: number, epochLengthBlocks: number): boolean {
  return height > 0 && height % epochLengthBlocks === 0;
}

/**
 * Voting power of each selected validator (decision 158, replacing decision 68's one
 * pass): no power exceeds the share s of the set's total power, where
 *   s = max(capBps / 10,000, 1 / n)   for a set of n,
 * found by water-filling in bigint: with k validators capped at level L and the others'
 * bonds summing to F, a capped power is s of the total when L = s·(F + k·L), that is
 * L = floor(s·F / (1 − s·k)); every bond above L is capped too and L computed again,
 * until no uncapped bond exceeds it (at most n rounds: each caps one more, and the
 * (k+1)-th is only capped while s·(k+1) < 1, so the division is by a positive number).
 * Flooring keeps L ≤ s·(F + k·L), so the bound holds exactly in integers.
 *
 * The 1/n floor is the small set's rule: with fewer than 10,000 / capBps validators the
 * share capBps cannot hold (the shares would sum below 1), and the cap becomes an equal
 * share: with 4 members no power exceeds 25 %, with 5 20 %, with 6 about 16.7 %, from 7
 * on 15 % (the genesis capBps). The parameters keep capBps ≤ VOTING_POWER_CAP_BPS_MAX
 * (src/genesis/sections.ts), so no validator of a set of 4 or more reaches 1/3. Each power is at least 1 (s·n ≥ 1 keeps L ≥ 1 for
 * positive bonds); the result depends only on the bonds, not their order.
 */
export function cappedPowers(bonds: readonly { address: Address; bondWei: bigint }[], capBps: number): ActiveValidator[] {
  const n = BigInt(bonds.length);
  if (n === 0n) return [];
  // s = num / den, the larger of capBps / 10,000 and 1 / n.
  const [num, den] = BigInt(capBps) * n >= 10_000n ? [BigInt(capBps), 10_000n] : [1n, n];
  const sorted = bonds.map((b) => b.bondWei).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let free = 0n;
  for (const b of sorted) free += b;
  let capped = 0n;
  let level = free; // no bond exceeds the total: nothing capped until the first round says so
  for (const b of sorted) {
    level = (num * free) / (den - num * capped);
    if (b <= level) break;
    // b is above the level: it is capped, and the level is found again without it.
    free -= b;
    capped++;
  }
  if (level < 1n) level = 1n;
  return bonds.map((b) => ({ address: b.address, power: b.bondWei < level ? b.bondWei : level }));
}

/** Candidates ranked for the active set: bond descending, then address ascending. */
export function rankCandidates<T extends { address: Address; bondWei: bigint }>(candidates: readonly T[]): T[] {
  return [...candidates].sort((a, b) => (a.bondWei > b.bondWei ? -1 : a.bondWei < b.bondWei ? 1 : a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** The end-of-block validator step; does nothing off a boundary. */
export function endBlockValidators(state: State, params: ChainParams, height: number): void {
  const c = params.consensus;
  if (!isEpochBoundary(height, c.epochLengthBlocks)) return;
  const epoch = epochOf(height, c.epochLengthBlocks);
  const addresses = validatorAddresses(state);

  // 1. Bonds whose unbonding window has passed go back to their validators.
  for (const address of addresses) {
    const rec = validatorRecord(state, address)!;
    if (rec.status !== 'unbonding' || epoch < rec.context.unbondingDoneEpoch) continue;
    const returned = rec.context.lockedWei;
    stepValidator(state, address, { type: 'UNBONDING_DONE', epoch });
    // To whoever paid it: the validator, or the operator who seeded it (AdminSeedValidator).
    if (returned > 0n) credit(state, rec.funder ?? address, 0n, returned);
  }

  // 2. The ranking: the first activeSetMax candidates by bond.
  const candidates = addresses
    .map((a) => validatorRecord(state, a)!)
    .filter((r) => isCandidate(r.status))
    .map((r) => ({ address: r.address, bondWei: r.context.bondWei }));
  // Unbonding and jailing refuse to take the candidates below activeSetMin (machine guard
  // floorKept); tombstoning does not wait for the floor (decision 69), so a boundary after
  // one may find fewer: it seats every candidate there is.
  const selected = rankCandidates(candidates).slice(0, c.activeSetMax);
  const chosen = new Set(selected.map((s) => s.address));
  for (const cand of candidates) stepValidator(state, cand.address, { type: 'EPOCH_BOUNDARY', selected: chosen.has(cand.address) });

  // 3. The set and its powers, stored when they change.
  const next = cappedPowers(
    [...selected].sort((a, b) => (a.address < b.address ? -1 : 1)),
    c.votingPowerCapBps,
  );
  const current = activeValidators(state).validators;
  const same = current.length === next.length && current.every((v, i) => v.address === next[i].address && v.power === next[i].power);
  if (!same) state.meta.set('activeSet', next);
}
