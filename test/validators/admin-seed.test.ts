/**
 * AdminSeedValidator's execution entry (contract [C-state-validator] observer →
 * registered by the operator, [C-res-validator-fields]; decision 72): a validator added
 * as registered with its bond locked from the operator's (or its own) balance, seated at
 * the next boundary, its bond returned to whoever paid it when unbonding ends; the
 * checks of RegisterValidator refuse bad fields, duplicates and unfunded bonds, and a
 * refusal writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { TxError } from '../../src/state/errors';
import type { State } from '../../src/state/state';
import { adminSeedValidator, type AdminSeedValidator } from '../../src/state/validators/admin-seed';
import { validatorRecord } from '../../src/state/validators/records';
import { activeValidators } from '../../src/state/validators/set';
import type { Address } from '../../src/util/bytes';
import { applyNext, applyTo, CANDIDATES, EPOCH, FUNDED_WEI, freshState, register, testGenesis, TOKEN, unbond } from './harness';

const BOND = 20_000n * TOKEN;
const [v, operator, other] = CANDIDATES;
const genesisAddr = testGenesis().validators[0].address.toLowerCase() as Address;

const seedOf = (fields: Partial<AdminSeedValidator> = {}): AdminSeedValidator => ({
  validator: v.address,
  name: 'seeded-1',
  endpoint: 'seed1.example.org:26656',
  ecdsaPubkey: v.ecdsaPubkey,
  vrfPubkey: v.vrfPubkey,
  bondWei: BOND,
  funder: operator.address,
  ...fields,
});

function refused(state: State, seed: AdminSeedValidator): TxError {
  const before = { validators: [...state.validators.entries()], accounts: [...state.accounts.entries()], root: state.root() };
  let err: unknown;
  try {
    adminSeedValidator(state, state.params(), seed, state.head().height + 1);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(TxError);
  // Nothing written: the tables hold what they held, and no key is dirty.
  expect({ validators: [...state.validators.entries()], accounts: [...state.accounts.entries()], root: state.root() }).toEqual(before);
  expect(state.journal.dirty.size).toBe(0);
  return err as TxError;
}

describe('adminSeedValidator', () => {
  it('adds a registered validator with the operator-funded bond locked, seated at the next boundary, and returns the bond to the operator on exit', () => {
    const state = freshState();
    const rec = adminSeedValidator(state, state.params(), seedOf(), 1);
    expect(rec).toMatchObject({ address: v.address, status: 'registered', name: 'seeded-1', funder: operator.address, registeredHeight: 1, context: { bondWei: BOND, lockedWei: BOND } });
    expect(state.account(operator.address).nativeWei).toBe(FUNDED_WEI - BOND);
    expect(state.account(v.address).nativeWei).toBe(FUNDED_WEI);
    state.flush(); // as the end of a block would: the next blocks follow a clean state
    applyTo(state, EPOCH);
    expect(validatorRecord(state, v.address)!.status).toBe('active');
    expect(activeValidators(state).byAddress.has(v.address)).toBe(true);
    // Unbond (signed by the validator), then the window of 2 epochs: the bond goes to the operator.
    expect(applyNext(state, [unbond(v.privateKey, 1n)]).receipts[0].status).toBe('ok');
    applyTo(state, 3 * EPOCH);
    expect(validatorRecord(state, v.address)!.status).toBe('exited');
    expect(state.account(operator.address).nativeWei).toBe(FUNDED_WEI);
    expect(state.account(v.address).nativeWei).toBe(FUNDED_WEI);
  });

  it('a self-funded seed records no funder', () => {
    const state = freshState();
    const rec = adminSeedValidator(state, state.params(), seedOf({ funder: v.address }), 1);
    expect(rec.funder).toBeUndefined();
    expect(state.account(v.address).nativeWei).toBe(FUNDED_WEI - BOND);
  });

  it('refuses what RegisterValidator refuses, and writes nothing', () => {
    const state = freshState();
    applyNext(state, [register(other, { bond: BOND })]);
    const cases: [Partial<AdminSeedValidator>, number, string, RegExp][] = [
      [{ name: 'two words' }, 400, 'INVALID_VALIDATOR', /^name:/],
      [{ endpoint: 'no-port' }, 400, 'INVALID_VALIDATOR', /^endpoint:/],
      [{ ecdsaPubkey: other.ecdsaPubkey }, 400, 'INVALID_VALIDATOR', /^ecdsa_pubkey: derives to/],
      [{ bondWei: 999n * TOKEN }, 400, 'INVALID_AMOUNT', /outside/],
      [{ bondWei: BOND + 1n }, 400, 'INVALID_AMOUNT', /whole number/],
      [{ validator: other.address, ecdsaPubkey: other.ecdsaPubkey }, 409, 'VALIDATOR_EXISTS', /already a validator \(registered\)/],
      [{ validator: genesisAddr, ecdsaPubkey: testGenesis().validators[0].ecdsaPubkey }, 409, 'VALIDATOR_EXISTS', /already a validator \(active\)/],
      [{ vrfPubkey: other.vrfPubkey }, 409, 'VALIDATOR_EXISTS', /^vrf_pubkey:/],
      [{ funder: CANDIDATES[10].address }, 422, 'INSUFFICIENT_FUNDS', /funder/],
    ];
    for (const [fields, status, code, message] of cases) {
      const err = refused(state, seedOf(fields));
      expect([err.status, err.code], JSON.stringify(fields, (_k, x) => (typeof x === 'bigint' ? String(x) : x))).toEqual([status, code]);
      expect(err.message).toMatch(message);
    }
  });
});
