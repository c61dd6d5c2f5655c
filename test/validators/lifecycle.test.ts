/**
 * The lifecycle in execution (contract [C-state-validator], [C-limits-epoch],
 * [C-limits-active-set], [C-limits-power-cap], [C-limits-unbonding]; decision 68): a
 * registration becomes active at the next epoch boundary and not before; the set is the
 * highest bonds up to activeSetMax with powers capped by water-filling (decision 158: a
 * property over random bonds here, the cap's own in power-cap.test.ts); Unbond leaves the set at the next boundary and returns the
 * bond after the unbonding window; the floor holds; two states applying the same blocks
 * reach the same roots; the genesis state holds no validator record.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { TableId } from '../../src/state/records';
import { genesisState } from '../../src/state/genesis';
import { cappedPowers, rankCandidates } from '../../src/state/validators/epoch';
import { validatorRecord } from '../../src/state/validators/records';
import { activeValidators } from '../../src/state/validators/set';
import type { Tx } from '../../src/codec/tx';
import { applyNext, applyTo, CANDIDATES, DEVNET_KEYS, EPOCH, FUNDED_WEI, freshState, register, testGenesis, TOKEN, unbond } from './harness';

const GENESIS_BOND = 10_000n * TOKEN;
const genesisAddrs = () => testGenesis().validators.map((v) => v.address.toLowerCase() as Address);
const genesisPriv = (i: number) => hexToBytes(DEVNET_KEYS.validators[i].ecdsaPrivateKey);

describe('epoch boundaries', () => {
  it('a registration becomes active at the next boundary, not before; its power is capped at a fifth of the five’s power', () => {
    const state = freshState();
    const [a] = CANDIDATES;
    applyNext(state, [register(a, { bond: 50_000n * TOKEN })]);
    applyTo(state, EPOCH - 1);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    expect(validatorRecord(state, a.address)!.status).toBe('registered');
    applyNext(state); // height EPOCH: the boundary
    const set = activeValidators(state);
    expect(validatorRecord(state, a.address)!.status).toBe('active');
    // Five validators: the share is max(15 %, 1/5); water-filling brings the 50,000 bond down to the others' 10,000.
    expect(set.validators.map((v) => v.address)).toEqual([...genesisAddrs(), a.address].sort());
    expect(set.byAddress.get(a.address)!.power).toBe(GENESIS_BOND);
    expect(set.totalPower).toBe(5n * GENESIS_BOND);
    for (const g of genesisAddrs()) expect(set.byAddress.get(g)!.power).toBe(GENESIS_BOND);
    // Genesis validators kept active with nothing changed write no record.
    expect(state.validators.size).toBe(1);
  });

  it('the set holds at most activeSetMax, highest bonds first, ties by address; one left out goes back to registered', () => {
    const state = freshState();
    // Six candidates, two below the genesis bonds: 4 + 6 = 10 candidates for 6 seats.
    const bonds = [20_000n, 30_000n, 5_000n, 20_000n, 6_000n, 40_000n].map((b) => b * TOKEN);
    applyNext(state, bonds.map((bond, i) => register(CANDIDATES[i], { bond })));
    applyTo(state, EPOCH);
    const seated = new Set(activeValidators(state).validators.map((v) => v.address));
    expect(seated.size).toBe(6);
    // The four candidates of 20,000+ and the two genesis validators of lowest address.
    const expected = rankCandidates([
      ...genesisAddrs().map((address) => ({ address: address, bondWei: GENESIS_BOND })),
      ...bonds.map((bondWei, i) => ({ address: CANDIDATES[i].address, bondWei })),
    ])
      .slice(0, 6)
      .map((c) => c.address);
    expect([...seated].sort()).toEqual([...expected].sort());
    const leftOut = genesisAddrs().filter((g) => !seated.has(g));
    expect(leftOut.length).toBe(2);
    for (const g of leftOut) expect(validatorRecord(state, g)!.status).toBe('registered');
    expect(validatorRecord(state, CANDIDATES[2].address)!.status).toBe('registered');
  });

  it('property: over random bonds, the set is the top activeSetMax by (bond desc, address asc), with cappedPowers’ powers: each min(bond, one level), none above the share', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1_000, max: 200_000 }), { minLength: 0, maxLength: 8 }), fc.integer({ min: 4, max: 9 }), (tokens, setMax) => {
        const state = freshState(testGenesis({ activeSetMax: setMax }));
        const bonds = tokens.map((t) => BigInt(t) * TOKEN);
        applyNext(state, bonds.map((bond, i) => register(CANDIDATES[i], { bond })));
        applyTo(state, EPOCH);
        const all = [
          ...genesisAddrs().map((address) => ({ address: address, bondWei: GENESIS_BOND })),
          ...bonds.map((bondWei, i) => ({ address: CANDIDATES[i].address, bondWei })),
        ];
        const top = rankCandidates(all).slice(0, setMax);
        const set = activeValidators(state);
        expect(set.validators.length).toBe(Math.min(setMax, all.length));
        expect(set.validators.map((v) => v.address)).toEqual(top.map((t) => t.address).sort());
        const n = BigInt(top.length);
        const level = set.validators.reduce((m, v) => (v.power > m ? v.power : m), 0n);
        for (const t of top) {
          const p = set.byAddress.get(t.address)!.power;
          expect(p).toBe(t.bondWei < level ? t.bondWei : level);
          // The share: max(15 %, 1/n) of the set's power.
          expect(p * 10_000n * n).toBeLessThanOrEqual(set.totalPower * (1500n * n > 10_000n ? 1500n * n : 10_000n));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('cappedPowers: water-filling to the share, at least 1', () => {
    const a = '0x00000000000000000000000000000000000000aa' as const;
    const b = '0x00000000000000000000000000000000000000bb' as const;
    // Two members: the share is 1/2, so the larger comes down to the smaller.
    expect(cappedPowers([{ address: a, bondWei: 900n }, { address: b, bondWei: 100n }], 1500)).toEqual([{ address: a, power: 100n }, { address: b, power: 100n }]);
    expect(cappedPowers([{ address: a, bondWei: 1n }], 1)).toEqual([{ address: a, power: 1n }]);
  });
});

describe('Unbond', () => {
  it('leaves the set at the next boundary and returns the bond at the boundary unbondingEpochs later', () => {
    const state = freshState();
    const [a] = CANDIDATES;
    applyNext(state, [register(a, { bond: 50_000n * TOKEN })]);
    applyTo(state, EPOCH); // active from here
    const r = applyNext(state, [unbond(a.privateKey)]).receipts[0]; // height EPOCH + 1, epoch 1
    expect(r).toMatchObject({ status: 'ok', kind: 'Unbond' });
    expect(validatorRecord(state, a.address)).toMatchObject({ status: 'unbonding', context: { unbondingDoneEpoch: 3 } });
    // Still in the set fixed at the last boundary until the next one.
    expect(activeValidators(state).byAddress.has(a.address)).toBe(true);
    applyTo(state, 2 * EPOCH);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    expect(state.account(a.address).nativeWei).toBe(FUNDED_WEI - 50_000n * TOKEN);
    applyTo(state, 3 * EPOCH - 1);
    expect(validatorRecord(state, a.address)!.status).toBe('unbonding');
    applyNext(state); // boundary of epoch 3
    expect(validatorRecord(state, a.address)).toMatchObject({ status: 'exited', context: { bondWei: 0n, lockedWei: 0n } });
    expect(state.account(a.address).nativeWei).toBe(FUNDED_WEI);
    expect(state.totals.bondLockedWei).toBe(0n);
    // An exited address stays taken.
    expect(applyNext(state, [register(a, { nonce: 3n })]).receipts[0].code).toBe('VALIDATOR_EXISTS');
  });

  it('refuses what the floor, the state or the signer do not allow, changing nothing', () => {
    const state = freshState();
    const [a, b] = CANDIDATES;
    // Four genesis candidates and activeSetMin 4: none may leave.
    const r1 = applyNext(state, [unbond(genesisPriv(0), 1n), unbond(b.privateKey, 1n)]).receipts;
    expect(r1.map((x) => [x.code, x.errorStatus])).toEqual([
      ['ACTIVE_SET_FLOOR', 422],
      ['NOT_VALIDATOR', 403],
    ]);
    expect(state.validators.size).toBe(0);
    // With a fifth candidate, one genesis validator may leave (nothing of its bond was locked), then no other.
    applyNext(state, [register(a)]);
    const r2 = applyNext(state, [unbond(genesisPriv(0), 2n), unbond(genesisPriv(1), 1n), unbond(genesisPriv(0), 3n)]).receipts;
    expect(r2.map((x) => x.code ?? x.status)).toEqual(['ok', 'ACTIVE_SET_FLOOR', 'VALIDATOR_STATE']);
    // Signed by another key for this validator: 401.
    const forged = unbond(b.privateKey, 5n, a.address);
    expect(applyNext(state, [forged]).receipts[0]).toMatchObject({ code: 'INVALID_SIGNATURE', errorStatus: 401 });
    expect(validatorRecord(state, a.address)!.status).toBe('registered');
  });
});

describe('determinism and genesis', () => {
  it('two states applying the same blocks reach the same root at every height', () => {
    const a = freshState();
    const b = freshState();
    const blocks: Tx[][] = [[register(CANDIDATES[0], { bond: 60_000n * TOKEN }), register(CANDIDATES[1], { bond: 2_000n * TOKEN })], [], [], [], [], [unbond(CANDIDATES[0].privateKey)]];
    for (let h = 0; h < 4 * EPOCH; h++) {
      const txs = blocks[h] ?? [];
      const ra = applyNext(a, txs);
      const rb = applyNext(b, txs);
      expect(ra.stateRoot).toEqual(rb.stateRoot);
    }
    expect(validatorRecord(a, CANDIDATES[0].address)!.status).toBe('exited');
  });

  it('the genesis state holds no validator record and no fixed set: its root is what it was before validators had records', () => {
    const { changes, state } = genesisState(testGenesis(), new Uint8Array(32));
    expect(changes.filter((c) => c.key[0] === TableId.Validator)).toEqual([]);
    expect(state.meta.get('activeSet')).toBeUndefined();
    expect(activeValidators(state).validators.map((v) => v.power)).toEqual([GENESIS_BOND, GENESIS_BOND, GENESIS_BOND, GENESIS_BOND]);
  });
});
