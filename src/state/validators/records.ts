/**
 * Validator records (TableId.Validator): each validator's lifecycle state and context
 * (machines/validator-lifecycle.ts) and its public identity, and the one function that
 * changes a status, `stepValidator`, which asks the machine (contract [C-state-validator],
 * decision 68).
 *
 * Genesis validators have no record until their first status change: their record is
 * read from the genesis list in the `validators` meta record (status `active`, the
 * genesis bond, nothing locked), so the genesis state, and its root, are what they were
 * before validators had records. The first step of a genesis validator writes its record.
 */
import {
  EMPTY_VALIDATOR_CONTEXT,
  stepValidatorLifecycle,
  type ValidatorContext,
  type ValidatorEvent,
  type ValidatorStateName,
} from '../../../machines/validator-lifecycle';
import type { GenesisValidator } from '../../genesis/types';
import type { Address, Hex } from '../../util/bytes';
import { InvariantError, type State } from '../state';
import type { ValidatorIdentity, ValidatorRecord, ValidatorStatus } from './types';

export type { ValidatorRecord } from './types';

const genesisRecords = new WeakMap<object, ReadonlyMap<Address, ValidatorRecord>>();

/** The genesis validators as records (status active, nothing locked), by lower-case address. */
function genesisValidatorRecords(state: State): ReadonlyMap<Address, ValidatorRecord> {
  const list = state.meta.get('validators') as readonly GenesisValidator[] | undefined;
  if (!list) return new Map();
  let map = genesisRecords.get(list);
  if (!map) {
    const m = new Map<Address, ValidatorRecord>();
    for (const v of list) {
      const address = v.address.toLowerCase() as Address;
      m.set(
        address,
        Object.freeze({
          address,
          name: v.name,
          endpoint: v.endpoint,
          ecdsaPubkey: v.ecdsaPubkey.toLowerCase() as Hex,
          vrfPubkey: v.vrfPubkey.toLowerCase() as Hex,
          status: 'active',
          context: Object.freeze({ ...EMPTY_VALIDATOR_CONTEXT, bondWei: v.bondWei }),
          registeredHeight: 0,
        }),
      );
    }
    genesisRecords.set(list, (map = m));
  }
  return map;
}

/** A validator's record, a genesis validator's implicit one included; undefined for an observer. */
export function validatorRecord(state: State, address: Address): ValidatorRecord | undefined {
  return state.validators.get(address) ?? genesisValidatorRecords(state).get(address);
}

/** Every validator's address (records and genesis), ascending: the execution-safe order. */
export function validatorAddresses(state: State): Address[] {
  const all = new Set<string>(state.validators.sortedKeys());
  for (const a of genesisValidatorRecords(state).keys()) all.add(a);
  return ([...all] as Address[]).sort();
}

/** Registered and active validators: those the epoch ranking chooses from. */
export function isCandidate(status: ValidatorStatus): boolean {
  return status === 'registered' || status === 'active';
}

export function candidateCount(state: State): number {
  let n = 0;
  for (const a of validatorAddresses(state)) if (isCandidate(validatorRecord(state, a)!.status)) n++;
  return n;
}

/**
 * Applies `event` to the validator at `address` through the machine and stores what it
 * leaves. REGISTER needs `identity` (the new record's keys). A refusal halts the node:
 * execution checks everything the machine's guards judge before it steps.
 */
export function stepValidator(
  state: State,
  address: Address,
  event: ValidatorEvent,
  identity?: ValidatorIdentity & { funder?: Address },
  height = 0,
): ValidatorRecord {
  const rec = validatorRecord(state, address);
  const value: ValidatorStateName = rec?.status ?? 'observer';
  const step = stepValidatorLifecycle(value, rec?.context ?? EMPTY_VALIDATOR_CONTEXT, event);
  if (!step) throw new InvariantError(`validator ${address}: the lifecycle machine refuses ${event.type} in state ${value}`);
  if (step.value === 'observer') throw new InvariantError(`validator ${address}: ${event.type} left no record`);
  // A step that changes nothing writes nothing (a genesis validator kept active keeps no record).
  if (rec && step.value === rec.status && sameContext(step.context, rec.context)) return rec;
  const base = rec ?? (identity ? { ...identity, registeredHeight: height } : undefined);
  if (!base) throw new InvariantError(`validator ${address}: ${event.type} from ${value} without the validator's identity`);
  const next: ValidatorRecord = {
    address: base.address,
    name: base.name,
    endpoint: base.endpoint,
    ecdsaPubkey: base.ecdsaPubkey,
    vrfPubkey: base.vrfPubkey,
    registeredHeight: base.registeredHeight,
    status: step.value,
    context: step.context,
    ...(base.funder !== undefined ? { funder: base.funder } : {}),
  };
  state.validators.set(address, next);
  return next;
}

function sameContext(a: ValidatorContext, b: ValidatorContext): boolean {
  return a.bondWei === b.bondWei && a.lockedWei === b.lockedWei && a.unbondingDoneEpoch === b.unbondingDoneEpoch && a.jailedUntilEpoch === b.jailedUntilEpoch;
}
