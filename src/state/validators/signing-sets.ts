/**
 * Which validators were to sign each recent height, as execution knows it (decision 72):
 * the downtime count (src/state/validators/downtime.ts) asks for the set that signed the
 * parent of the block being executed, and double-sign evidence
 * (src/state/ops/double-sign-evidence.ts) for the set of the offence's height.
 *
 * The set that signs height h is activeValidators() at the start of block h: the genesis
 * set until something changes it, then whatever the end of block h − 1 left (an epoch
 * boundary, a jailing, a tombstoning). The end of every block compares the set that
 * signs the next height with the last one recorded and, when the members differ (a
 * power change alone does not count), appends `{ fromHeight, validators }` to the
 * `signingSets` meta record. Nothing is written while the set stands, so the genesis
 * state and every block before the first change keep their roots. Entries that no
 * height still answerable needs (older than consensus.evidenceMaxAgeBlocks) are
 * dropped when the next entry is appended: the record holds at most the changes of
 * one evidence window plus one.
 */
import type { GenesisValidator } from '../../genesis/types';
import type { Address } from '../../util/bytes';
import type { ChainParams } from '../records';
import { InvariantError, type State } from '../state';
import { activeValidators } from './set';

/** How far below a block evidence may reach: consensus.evidenceMaxAgeBlocks, by default one epoch. */
export function evidenceMaxAgeBlocks(params: ChainParams): number {
  return params.consensus.evidenceMaxAgeBlocks ?? params.consensus.epochLengthBlocks;
}

/** The set that signs from `fromHeight` until the next entry's height: addresses ascending. */
interface SigningSetEntry {
  fromHeight: number;
  validators: readonly Address[];
}

const KEY = 'signingSets';

const genesisLists = new WeakMap<object, readonly Address[]>();
const sets = new WeakMap<object, ReadonlySet<Address>>();

/** The genesis set's addresses (bond > 0, as activeValidators() reads it), ascending. */
function genesisSigners(state: State): readonly Address[] {
  const list = state.meta.get('validators') as readonly GenesisValidator[] | undefined;
  if (!list) return [];
  let out = genesisLists.get(list);
  if (!out) {
    out = Object.freeze(
      list
        .filter((v) => v.bondWei > 0n)
        .map((v) => v.address.toLowerCase() as Address)
        .sort(),
    );
    genesisLists.set(list, out);
  }
  return out;
}

export function signingSetHistory(state: State): readonly SigningSetEntry[] {
  return (state.meta.get(KEY) as readonly SigningSetEntry[] | undefined) ?? [];
}

function asSet(list: readonly Address[]): ReadonlySet<Address> {
  let s = sets.get(list);
  if (!s) sets.set(list, (s = new Set(list)));
  return s;
}

/**
 * The validators that were to sign `height`, asked while executing block `blockHeight`.
 * Answerable for heights from blockHeight − evidenceMaxAgeBlocks to blockHeight (the
 * history keeps no more); a caller asking outside that range is a bug.
 */
export function signingSetAt(state: State, params: ChainParams, height: number, blockHeight: number): ReadonlySet<Address> {
  if (height < 1 || height > blockHeight || height < blockHeight - evidenceMaxAgeBlocks(params)) {
    throw new InvariantError(`the signing set of height ${height} is not kept at block ${blockHeight}`);
  }
  const history = signingSetHistory(state);
  for (let i = history.length - 1; i >= 0; i--) if (history[i].fromHeight <= height) return asSet(history[i].validators);
  // Before the first recorded change (pruning never drops the entry that covers the oldest answerable height).
  return asSet(genesisSigners(state));
}

function sameMembers(a: readonly Address[], b: readonly { address: Address }[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i].address) return false;
  return true;
}

/** End of block `height`: records the set that signs height + 1 when its members changed. */
export function recordSigningSet(state: State, params: ChainParams, height: number): void {
  const next = activeValidators(state).validators;
  const history = signingSetHistory(state);
  const last = history.length > 0 ? history[history.length - 1].validators : genesisSigners(state);
  if (sameMembers(last, next)) return;
  const kept: SigningSetEntry[] = [...history, { fromHeight: height + 1, validators: next.map((v) => v.address) }];
  // The oldest height any later block may ask about is (height + 1) − evidenceMaxAgeBlocks.
  const oldest = height + 1 - evidenceMaxAgeBlocks(params);
  while (kept.length >= 2 && kept[1].fromHeight <= oldest) kept.shift();
  state.meta.set(KEY, kept);
}
