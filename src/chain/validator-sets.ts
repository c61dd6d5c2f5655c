/**
 * The validator set that signs each height, as consensus needs it: "the set that signs
 * height h" is activeValidators() of the state after block h − 1 (src/state/validators/set.ts:
 * the genesis set until the first epoch boundary, then the `activeSet` record each
 * boundary fixes, from which jailing and tombstoning remove a validator at once).
 *
 * The node needs two sets at any time: the next height's (from its state at the head:
 * vote counting, the proposer draw) and the head's own (the next block's lastCommit is
 * the commit of the head, signed by the head's set). Once the head moves, the state no
 * longer holds the head's set, so the Chain keeps it, in memory and in the store beside
 * the head (encodeValidatorSet), and a restarted node knows it too.
 */
import { Reader, Writer } from '../codec/binary';
import { keccak256 } from '../crypto/keccak';
import { ValidatorSet } from '../consensus/validator-set';
import { VALIDATORS_MAX } from '../consensus/limits';
import type { ValidatorSetView } from '../state/validators/set';

const SET_VERSION = 1;

/** One ValidatorSet per state view: views are immutable and cached per record, so the proposer-order cache lives as long as the set. */
const sets = new WeakMap<ValidatorSetView, ValidatorSet>();

/** The consensus ValidatorSet of an executed set (the state's view). */
export function consensusSet(view: ValidatorSetView): ValidatorSet {
  let set = sets.get(view);
  if (set === undefined) {
    set = new ValidatorSet(view.validators);
    sets.set(view, set);
  }
  return set;
}

/**   u8 version | u32 n | n × (address(20) | big power) */
export function encodeValidatorSet(set: ValidatorSet): Uint8Array {
  const w = new Writer(8 + set.size * 40).u8(SET_VERSION).u32(set.size);
  for (const v of set.validators) w.address(v.address).big(v.power);
  return w.finish();
}

/** keccak256 of each set's encoding, kept per set (a set is immutable). */
const hashes = new WeakMap<ValidatorSet, Uint8Array>();

/**
 * keccak256(encodeValidatorSet(set)): what a header's validatorsHash commits to (decision
 * 128). Computed once per set: a node asks for it at every block.
 */
export function validatorsHash(set: ValidatorSet): Uint8Array {
  let hash = hashes.get(set);
  if (hash === undefined) {
    hash = keccak256(encodeValidatorSet(set));
    hashes.set(set, hash);
  }
  return hash;
}

export function decodeValidatorSet(bytes: Uint8Array): ValidatorSet {
  const r = new Reader(bytes);
  if (r.u8() !== SET_VERSION) throw new Error('unknown validator set version');
  const n = r.u32();
  if (n > VALIDATORS_MAX) throw new Error(`validator set of ${n} exceeds ${VALIDATORS_MAX}`);
  const validators = Array.from({ length: n }, () => ({ address: r.address().toLowerCase() as `0x${string}`, power: r.big() }));
  r.end();
  return new ValidatorSet(validators);
}
