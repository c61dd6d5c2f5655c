/**
 * The validator set as execution sees it: every execution rule that asks "is this a
 * validator, with what power?" goes through activeValidators().
 *
 * Until the first epoch boundary it is the genesis set, read from the `validators` meta
 * record genesisState writes, with the bond in wei as power (as ValidatorSet.fromGenesis
 * in src/consensus). From then on it is the set the last boundary fixed
 * (src/state/validators/epoch.ts), stored in the `activeSet` meta record with each
 * validator's capped voting power (decision 68); a jailed or tombstoned validator is
 * removed from that record at once (decision 69). Both are covered by the state root.
 */
import type { GenesisValidator } from '../../genesis/types';
import type { Address } from '../../util/bytes';
import type { State } from '../state';

export interface ActiveValidator {
  readonly address: Address;
  readonly power: bigint;
}

export interface ValidatorSetView {
  /** Sorted by address (lower-case), no duplicates, power > 0. */
  readonly validators: readonly ActiveValidator[];
  readonly totalPower: bigint;
  readonly byAddress: ReadonlyMap<Address, ActiveValidator>;
}

const EMPTY: ValidatorSetView = Object.freeze({ validators: Object.freeze([]), totalPower: 0n, byAddress: new Map() });

/** Derived views by record object: records are immutable values, so a new set is a new object. */
const views = new WeakMap<object, ValidatorSetView>();

/** The validators active at the state's current height. */
export function activeValidators(state: State): ValidatorSetView {
  const fixed = state.meta.get('activeSet') as readonly ActiveValidator[] | undefined;
  const rec = fixed ?? (state.meta.get('validators') as readonly GenesisValidator[] | undefined);
  if (!rec) return EMPTY;
  let view = views.get(rec);
  if (!view) {
    const validators = rec
      .map((v) => Object.freeze({ address: v.address.toLowerCase() as Address, power: 'power' in v ? v.power : v.bondWei }))
      .filter((v) => v.power > 0n)
      .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    const byAddress = new Map<Address, ActiveValidator>();
    let totalPower = 0n;
    for (const v of validators) {
      if (byAddress.has(v.address)) throw new Error(`validator ${v.address} listed twice in state`);
      byAddress.set(v.address, v);
      totalPower += v.power;
    }
    view = Object.freeze({ validators: Object.freeze(validators), totalPower, byAddress });
    views.set(rec, view);
  }
  return view;
}
