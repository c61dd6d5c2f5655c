/**
 * The penalties of the lifecycle as execution entry points (contract [C-state-validator],
 * [C-limits-slashing], [C-limits-active-set]; decisions 68, 69): downtime jails and
 * slashes slashDowntimeBps, double-signing tombstones and slashes slashDoubleSignBps.
 * When is decided elsewhere in a block's execution (decision 72): missed commits counted
 * over the downtime window (./downtime.ts) and verified evidence carried in the
 * block (./ops/double-sign-evidence.ts); this file decides what, through the machine
 * (`stepValidator`).
 *
 * A slashed validator leaves the fixed set at once (the `activeSet` record loses it), and
 * the slashed locked tokens are burned: the supply shrinks by them. The others' powers
 * are capped again over what they held (decision 158: cappedPowers with their powers as
 * bonds), so a smaller set keeps the cap's share until the next boundary: no power rises,
 * and one that would now exceed the share comes down. The genesis set, before the first
 * boundary, keeps the genesis powers (the genesis is trusted as it is: decision 68).
 */
import { floorKept } from '../../../machines/validator-lifecycle';
import type { Address } from '../../util/bytes';
import type { ChainParams } from '../records';
import type { State } from '../state';
import { cappedPowers, epochOf } from './epoch';
import { candidateCount, stepValidator, validatorRecord, type ValidatorRecord } from './records';
import { activeValidators } from './set';

/** Why a penalty was not applied: nothing to punish in that state, or the floor. */
type PenaltyRefusal = 'NOT_PUNISHABLE' | 'ACTIVE_SET_FLOOR';

interface PenaltyResult {
  /** The record after the penalty, or the refusal. */
  record: ValidatorRecord | null;
  refusal: PenaltyRefusal | null;
  /** Locked native tokens burned, wei. */
  burnedWei: bigint;
}

function burnAndUnseat(state: State, address: Address, before: ValidatorRecord, after: ValidatorRecord): bigint {
  const burned = before.context.lockedWei - after.context.lockedWei;
  if (burned > 0n) {
    const s = state.supply();
    state.meta.set('supply', { usdc: s.usdc, nativeWei: s.nativeWei - burned });
  }
  const set = activeValidators(state);
  if (set.byAddress.has(address)) {
    const rest = set.validators.filter((v) => v.address !== address);
    // The genesis set votes with the genesis bonds until the first boundary (decision 68): it loses the member only.
    const fixedByBoundary = state.meta.get('activeSet') !== undefined;
    const powers = fixedByBoundary ? cappedPowers(rest.map((v) => ({ address: v.address, bondWei: v.power })), state.params().consensus.votingPowerCapBps) : rest;
    state.meta.set('activeSet', powers);
  }
  return burned;
}

/**
 * Downtime: an active validator is jailed until `unbondingEpochs` after the current
 * epoch and loses slashDowntimeBps of its bond, unless that would leave fewer than
 * activeSetMin candidates (then nothing happens: jailing never takes the set below its
 * floor).
 */
export function jailForDowntime(state: State, params: ChainParams, address: Address, height: number): PenaltyResult {
  const c = params.consensus;
  const before = validatorRecord(state, address);
  if (!before || before.status !== 'active') return { record: null, refusal: 'NOT_PUNISHABLE', burnedWei: 0n };
  const event = {
    type: 'JAIL_DOWNTIME',
    epoch: epochOf(height, c.epochLengthBlocks),
    jailEpochs: c.unbondingEpochs,
    slashBps: c.slashDowntimeBps,
    candidatesAfter: candidateCount(state) - 1,
    activeSetMin: c.activeSetMin,
  } as const;
  if (!floorKept(event)) return { record: null, refusal: 'ACTIVE_SET_FLOOR', burnedWei: 0n };
  const after = stepValidator(state, address, event);
  return { record: after, refusal: null, burnedWei: burnAndUnseat(state, address, before, after) };
}

/**
 * Double-signing: a registered, active, jailed or unbonding validator is tombstoned for
 * good and loses slashDoubleSignBps of its bond. The floor does not hold it back: a
 * proven equivocator never signs again.
 */
export function tombstoneForDoubleSign(state: State, params: ChainParams, address: Address): PenaltyResult {
  const before = validatorRecord(state, address);
  if (!before || !['registered', 'active', 'jailed', 'unbonding'].includes(before.status)) return { record: null, refusal: 'NOT_PUNISHABLE', burnedWei: 0n };
  const after = stepValidator(state, address, { type: 'DOUBLE_SIGN', slashBps: params.consensus.slashDoubleSignBps });
  return { record: after, refusal: null, burnedWei: burnAndUnseat(state, address, before, after) };
}
