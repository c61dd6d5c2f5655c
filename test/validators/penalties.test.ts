/**
 * Jailing, unjailing and tombstoning in execution (contract [C-state-validator],
 * [C-limits-slashing], [C-limits-active-set]; decision 69): the entry points the
 * consensus wiring will call (jailForDowntime, tombstoneForDoubleSign) and the Unjail
 * transaction: 0.1% and 5% slashed from the bond, the locked part burned from the
 * supply, the validator out of the fixed set at once, jailing held back by the floor,
 * unjail refused too early, by another key or when not jailed, and a tombstone final.
 */
import { describe, expect, it } from 'vitest';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { jailForDowntime, tombstoneForDoubleSign } from '../../src/state/validators/penalties';
import { validatorRecord } from '../../src/state/validators/records';
import { activeValidators } from '../../src/state/validators/set';
import { applyNext, applyTo, CANDIDATES, DEVNET_KEYS, EPOCH, freshState, register, testGenesis, TOKEN, unbond, unjail } from './harness';

const BOND = 50_000n * TOKEN;
const [a, b] = CANDIDATES;
const genesisAddr = (i: number) => testGenesis().validators[i].address.toLowerCase() as Address;

/** Candidate a registered with BOND and seated at the first boundary: five candidates. */
function seated() {
  const state = freshState();
  applyNext(state, [register(a, { bond: BOND })]);
  applyTo(state, EPOCH);
  expect(validatorRecord(state, a.address)!.status).toBe('active');
  return state;
}

describe('jailForDowntime', () => {
  it('jails an active validator, slashes 0.1% of its bond (the locked part burned) and unseats it at once', () => {
    const state = seated();
    const supplyBefore = state.supply().nativeWei;
    const res = jailForDowntime(state, state.params(), a.address, EPOCH + 1);
    expect(res.refusal).toBeNull();
    expect(res.burnedWei).toBe(BOND / 1000n);
    expect(res.record).toMatchObject({ status: 'jailed', context: { bondWei: BOND - BOND / 1000n, lockedWei: BOND - BOND / 1000n, jailedUntilEpoch: 3 } });
    expect(state.supply().nativeWei).toBe(supplyBefore - BOND / 1000n);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    // The invariants hold at the end of the block, and the next boundary does not seat it.
    applyTo(state, 2 * EPOCH);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    expect(validatorRecord(state, a.address)!.status).toBe('jailed');
  });

  it('is held back by the floor, and punishes only an active validator', () => {
    const state = freshState();
    const before = activeValidators(state);
    expect(jailForDowntime(state, state.params(), genesisAddr(0), 1)).toEqual({ record: null, refusal: 'ACTIVE_SET_FLOOR', burnedWei: 0n });
    expect(jailForDowntime(state, state.params(), a.address, 1).refusal).toBe('NOT_PUNISHABLE');
    expect(state.validators.size).toBe(0);
    expect(activeValidators(state)).toBe(before);
  });
});

describe('Unjail', () => {
  it('is refused too early, by another key and when not jailed; after the window the validator is registered and seated at the next boundary', () => {
    const state = seated();
    jailForDowntime(state, state.params(), a.address, EPOCH + 1); // jailed until epoch 3
    const r1 = applyNext(state, [unjail(a.privateKey, 2n), unjail(b.privateKey, 1n, a.address), unjail(hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey), 1n)]).receipts;
    expect(r1.map((x) => [x.code, x.errorStatus])).toEqual([
      ['JAIL_NOT_SERVED', 422],
      ['INVALID_SIGNATURE', 401],
      ['VALIDATOR_STATE', 422],
    ]);
    // Height 3·EPOCH − 1 is the last block of epoch 2: still too early.
    applyTo(state, 3 * EPOCH - 2);
    expect(applyNext(state, [unjail(a.privateKey, 3n)]).receipts[0].code).toBe('JAIL_NOT_SERVED');
    // The boundary block 3·EPOCH starts epoch 3: the unjail passes, and its end-of-block ranking seats it.
    expect(applyNext(state, [unjail(a.privateKey, 4n)]).receipts[0].status).toBe('ok');
    expect(validatorRecord(state, a.address)!.status).toBe('active');
    expect(activeValidators(state).byAddress.has(a.address)).toBe(true);
  });
});

describe('tombstoneForDoubleSign', () => {
  it('tombstones for good with 5% slashed and burned; nothing brings it back', () => {
    const state = seated();
    const supplyBefore = state.supply().nativeWei;
    const res = tombstoneForDoubleSign(state, state.params(), a.address);
    expect(res.record).toMatchObject({ status: 'tombstoned', context: { bondWei: BOND - BOND / 20n, lockedWei: BOND - BOND / 20n } });
    expect(state.supply().nativeWei).toBe(supplyBefore - BOND / 20n);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    const r = applyNext(state, [unjail(a.privateKey, 2n), unbond(a.privateKey, 3n)]).receipts;
    expect(r.map((x) => x.code)).toEqual(['VALIDATOR_STATE', 'VALIDATOR_STATE']);
    expect(tombstoneForDoubleSign(state, state.params(), a.address).refusal).toBe('NOT_PUNISHABLE');
    applyTo(state, 3 * EPOCH);
    expect(validatorRecord(state, a.address)!.status).toBe('tombstoned');
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
  });

  it('does not wait for the floor: the next boundary seats the candidates there are', () => {
    const state = freshState(); // four genesis validators, activeSetMin 4
    expect(tombstoneForDoubleSign(state, state.params(), genesisAddr(2)).record!.status).toBe('tombstoned');
    expect(activeValidators(state).validators.length).toBe(3);
    applyTo(state, EPOCH);
    expect(activeValidators(state).validators.map((v) => v.address)).toEqual([0, 1, 3].map(genesisAddr).sort());
  });

  it('reaches an unbonding validator too: its bond still answers', () => {
    const state = seated();
    applyNext(state, [unbond(a.privateKey, 2n)]);
    expect(tombstoneForDoubleSign(state, state.params(), a.address).record!.status).toBe('tombstoned');
    // No bond comes back at the end of the window.
    applyTo(state, 4 * EPOCH);
    expect(validatorRecord(state, a.address)!.context.lockedWei).toBe(BOND - BOND / 20n);
  });
});
