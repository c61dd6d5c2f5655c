/**
 * AdminSeedValidator's execution entry (contract [C-state-validator] observer →
 * registered by the owners, [C-res-validator-fields]; decisions 72, 160): a validator
 * added as registered with its bond locked from an owner's (or its own) balance, seated
 * at the next boundary, its bond returned to whoever paid it when unbonding ends; the
 * checks of RegisterValidator refuse bad fields, duplicates and unfunded bonds, a funder
 * neither the validator nor an owner is refused, the validator's signature over its
 * seeding is required (another key, another chain, a field changed after signing are
 * refused), and a refusal writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { TxError } from '../../src/state/errors';
import type { State } from '../../src/state/state';
import { adminSeedValidator, type AdminSeedValidator } from '../../src/state/validators/admin-seed';
import { validatorRecord } from '../../src/state/validators/records';
import { activeValidators } from '../../src/state/validators/set';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { applyNext, applyTo, CANDIDATES, chainId, DEVNET_KEYS, EPOCH, FUNDED_WEI, freshState, register, seedFor, testGenesis, TOKEN, unbond } from './harness';

const BOND = 20_000n * TOKEN;
const [v, stranger, other] = CANDIDATES;
const base = testGenesis();
const genesisAddr = base.validators[0].address.toLowerCase() as Address;
/** Owner-1 pays seeded bonds here: funded like a candidate. */
const owner = base.owners.addresses[0].toLowerCase() as Address;
const genesis = { ...base, accounts: base.accounts.map((a) => (a.address.toLowerCase() === owner ? { ...a, nativeWei: FUNDED_WEI } : a)) };

const seedOf = (fields: Partial<Omit<AdminSeedValidator, 'candidateSignature'>> = {}, after: Partial<AdminSeedValidator> = {}): AdminSeedValidator =>
  seedFor(v, { bondWei: BOND, funder: owner, ...fields }, after);

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
  it('adds a registered validator with the owner-funded bond locked, seated at the next boundary, and returns the bond to the owner on exit', () => {
    const state = freshState(genesis);
    const rec = adminSeedValidator(state, state.params(), seedOf(), 1);
    expect(rec).toMatchObject({ address: v.address, status: 'registered', name: 'seeded-1', funder: owner, registeredHeight: 1, context: { bondWei: BOND, lockedWei: BOND } });
    expect(state.account(owner).nativeWei).toBe(FUNDED_WEI - BOND);
    expect(state.account(v.address).nativeWei).toBe(FUNDED_WEI);
    state.flush(); // as the end of a block would: the next blocks follow a clean state
    applyTo(state, EPOCH);
    expect(validatorRecord(state, v.address)!.status).toBe('active');
    expect(activeValidators(state).byAddress.has(v.address)).toBe(true);
    // Unbond (signed by the validator), then the window of 2 epochs: the bond goes to the owner.
    expect(applyNext(state, [unbond(v.privateKey, 1n)]).receipts[0].status).toBe('ok');
    applyTo(state, 3 * EPOCH);
    expect(validatorRecord(state, v.address)!.status).toBe('exited');
    expect(state.account(owner).nativeWei).toBe(FUNDED_WEI);
    expect(state.account(v.address).nativeWei).toBe(FUNDED_WEI);
  });

  it('a self-funded seed records no funder', () => {
    const state = freshState();
    const rec = adminSeedValidator(state, state.params(), seedOf({ funder: v.address }), 1);
    expect(rec.funder).toBeUndefined();
    expect(state.account(v.address).nativeWei).toBe(FUNDED_WEI - BOND);
  });

  it('refuses what RegisterValidator refuses, a stranger funder, a seeding the validator did not sign, and writes nothing', () => {
    const state = freshState(genesis);
    applyNext(state, [register(other, { bond: BOND })]);
    const cases: [Partial<AdminSeedValidator>, number, string, RegExp][] = [
      [{ name: 'two words' }, 400, 'INVALID_VALIDATOR', /^name:/],
      [{ endpoint: 'no-port' }, 400, 'INVALID_VALIDATOR', /^endpoint:/],
      [{ ecdsaPubkey: other.ecdsaPubkey }, 400, 'INVALID_VALIDATOR', /^ecdsa_pubkey: derives to/],
      [{ bondWei: 999n * TOKEN }, 400, 'INVALID_AMOUNT', /outside/],
      [{ bondWei: BOND + 1n }, 400, 'INVALID_AMOUNT', /whole number/],
      [{ vrfPubkey: other.vrfPubkey }, 409, 'VALIDATOR_EXISTS', /^vrf_pubkey:/],
      // Decision 160: a funder neither the validator nor an owner (a stranger with funds).
      [{ funder: stranger.address }, 400, 'INVALID_OPERATION', /^operation\.funder: .* neither the validator nor an owner/],
    ];
    for (const [fields, status, code, message] of cases) {
      const err = refused(state, seedOf(fields));
      expect([err.status, err.code], JSON.stringify(fields, (_k, x) => (typeof x === 'bigint' ? String(x) : x))).toEqual([status, code]);
      expect(err.message).toMatch(message);
    }
    // Addresses already taken, each seeding signed by its own key.
    const g0 = DEVNET_KEYS.validators[0];
    const genesisKey = { ...v, privateKey: hexToBytes(g0.ecdsaPrivateKey), address: genesisAddr, ecdsaPubkey: base.validators[0].ecdsaPubkey };
    for (const [seed, message] of [
      [seedFor(other, { bondWei: BOND, funder: owner }), /already a validator \(registered\)/],
      [seedFor(genesisKey, { bondWei: BOND, funder: owner }), /already a validator \(active\)/],
    ] as const) {
      const err = refused(state, seed);
      expect([err.status, err.code]).toEqual([409, 'VALIDATOR_EXISTS']);
      expect(err.message).toMatch(message);
    }
    // The validator's signature: missing (another key signed), over another chain, or over other fields.
    const unsigned: [AdminSeedValidator, string][] = [
      [seedFor(v, { bondWei: BOND, funder: owner }, {}, stranger.privateKey), 'another key'],
      [seedFor(v, { bondWei: BOND, funder: owner }, {}, v.privateKey, chainId + 1), 'another chain'],
      [seedOf({}, { endpoint: 'elsewhere.example.org:26656' }), 'endpoint changed after signing'],
      [seedOf({ funder: v.address }, { funder: owner }), 'funder changed after signing'],
    ];
    for (const [seed, why] of unsigned) {
      const err = refused(state, seed);
      expect([err.status, err.code], why).toEqual([401, 'INVALID_SIGNATURE']);
      expect(err.message).toMatch(/candidateSignature/);
    }
    // Funds are checked at the state: a self-funded validator whose balance is below the bond.
    const poor = refused(state, seedFor(CANDIDATES[9], { bondWei: BOND }));
    expect([poor.status, poor.code]).toEqual([422, 'INSUFFICIENT_FUNDS']);
    expect(poor.message).toMatch(/funder/);
  });
});
