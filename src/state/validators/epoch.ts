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
 *   3. the selected set's voting powers are computed (`cappedPowers`) and stored as the
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
 * Voting power of each selected validator (decision 68): with T the sum of the selected
 * bonds, cap = max(1, floor(T × capBps / 10,000)) and power = min(bond, cap). One pass,
 * no iteration: the cap is a share of the bonded total, so a validator's power never
 * exceeds capBps of the set's bonds (with fewer than 10,000 / capBps validators every
 * power may be capped, and each then holds an equal share).
 */
export function cappedPowers(bonds: readonly { address: Address; bondWei: bigint }[], capBps: number): ActiveValidator[] {
  let total = 0n;
  for (const b of bonds) total += b.bondWei;
  let cap = (total * BigInt(capBps)) / 10_000n;
  if (cap < 1n) cap = 1n;
  return bonds.map((b) => ({ address: b.address, power: b.bondWei < cap ? b.bondWei : cap }));
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
