/**
 * The voting-power cap (contract [C-limits-power-cap]; decision 158): cappedPowers'
 * water-filling, over random bonds (fast-check, seeded): with 4 or more members no power
 * reaches 1/3 of the total, with 7 or more none exceeds 15 % (the genesis capBps), every
 * power is positive, a bond below the level keeps its power, the result does not depend
 * on the bonds' order, and no smaller level would do (the level is the highest that keeps
 * the share). Plus the small sets' rule for four equal bonds, the whale of issue 37, and
 * the cap kept when a jail shrinks a set between boundaries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cappedPowers } from '../../src/state/validators/epoch';
import { VOTING_POWER_CAP_BPS_MAX } from '../../src/genesis/sections';
import type { Address } from '../../src/util/bytes';
import { jailForDowntime } from '../../src/state/validators/penalties';
import { activeValidators } from '../../src/state/validators/set';
import { applyNext, applyTo, CANDIDATES, EPOCH, freshState, register, testGenesis, TOKEN } from './harness';

const CAP_BPS = 1500;
const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as Address;
const setOf = (bonds: readonly bigint[]) => bonds.map((bondWei, i) => ({ address: addr(i + 1), bondWei }));
const total = (ps: readonly { power: bigint }[]) => ps.reduce((s, p) => s + p.power, 0n);

/** Bonds from 1 wei to 2^100 wei, and some sets with one or a few whales. */
const bonds = fc.oneof(
  fc.array(fc.bigInt({ min: 1n, max: 1n << 100n }), { minLength: 1, maxLength: 40 }),
  fc
    .tuple(fc.array(fc.bigInt({ min: 1n, max: 10n ** 24n }), { minLength: 1, maxLength: 30 }), fc.array(fc.bigInt({ min: 10n ** 27n, max: 10n ** 30n }), { minLength: 1, maxLength: 3 }))
    .map(([small, whales]) => [...whales, ...small]),
);

describe('cappedPowers (water-filling)', () => {
  it('property: < 1/3 with ≥ 4 members, ≤ 15 % with ≥ 7, positive, order-independent, the largest level that keeps the share', () => {
    fc.assert(
      fc.property(bonds, fc.integer({ min: 1, max: VOTING_POWER_CAP_BPS_MAX }), fc.infiniteStream(fc.nat()), (bs, capBps, shuffle) => {
        const set = setOf(bs);
        const n = BigInt(set.length);
        for (const cap of [CAP_BPS, capBps]) {
          const powers = cappedPowers(set, cap);
          const t = total(powers);
          const level = powers.reduce((m, p) => (p.power > m ? p.power : m), 0n);
          for (const [i, p] of powers.entries()) {
            expect(p.address).toBe(set[i].address);
            expect(p.power > 0n).toBe(true);
            // Each power is its bond, or the one level when the bond is above it.
            expect(p.power).toBe(set[i].bondWei < level ? set[i].bondWei : level);
            if (n >= 4n) expect(3n * p.power < t, `${p.power} of ${t} with ${n} members`).toBe(true);
            if (n >= 7n && cap === CAP_BPS) expect(p.power * 10_000n <= t * 1500n, `${p.power} of ${t} above 15 %`).toBe(true);
            // The share in general: max(cap, 1/n).
            expect(p.power * 10_000n * n <= t * (BigInt(cap) * n > 10_000n ? BigInt(cap) * n : 10_000n)).toBe(true);
          }
          // Not capped more than needed: one more unit of level would break the share (or no bond is above it).
          const above = set.filter((b) => b.bondWei > level).length;
          if (above > 0) {
            const up = level + 1n;
            const t2 = set.reduce((s, b) => s + (b.bondWei < up ? b.bondWei : up), 0n);
            const s = BigInt(cap) * n > 10_000n ? [BigInt(cap), 10_000n] : [1n, n];
            expect(up * s[1] > t2 * s[0], `level ${level} could be ${up}`).toBe(true);
          }
          // Order-independent: a shuffled input gives each address the same power.
          const it = shuffle[Symbol.iterator]();
          const shuffled = [...set].map((b) => ({ b, k: it.next().value as number })).sort((x, y) => x.k - y.k).map((x) => x.b);
          const again = new Map(cappedPowers(shuffled, cap).map((p) => [p.address, p.power]));
          for (const p of powers) expect(again.get(p.address)).toBe(p.power);
        }
      }),
      { seed: 37, numRuns: 400 },
    );
  });

  it('four equal bonds: a quarter each; four with a whale: the whale comes down to the others', () => {
    const four = cappedPowers(setOf([5n, 5n, 5n, 5n]), CAP_BPS);
    expect(four.map((p) => p.power)).toEqual([5n, 5n, 5n, 5n]);
    const whale = cappedPowers(setOf([200_000_000n, 1_000_000n, 1_000_000n, 1_000_000n]), CAP_BPS);
    expect(whale.map((p) => p.power)).toEqual([1_000_000n, 1_000_000n, 1_000_000n, 1_000_000n]);
  });

  it('seven or more with a whale: the whale holds at most 15 %, the rest keep their bonds', () => {
    const bs = [200_000_000n, ...Array.from({ length: 9 }, () => 1_000_000n)];
    const powers = cappedPowers(setOf(bs), CAP_BPS);
    const t = total(powers);
    // 9,000,000 uncapped: the level L solves L = 0.15 (9,000,000 + L), L = 1,588,235.
    expect(powers[0].power).toBe(1_588_235n);
    expect(powers[0].power * 10_000n <= t * 1500n).toBe(true);
    for (const p of powers.slice(1)) expect(p.power).toBe(1_000_000n);
  });
});

describe('the cap between boundaries', () => {
  it('a jail in a set fixed by a boundary caps the rest again: a whale at 15 % of eight stays at 15 % of seven', () => {
    // Four genesis validators of 10,000, three candidates of 10,000 and a whale of 200,000: eight at the first boundary.
    const state = freshState(testGenesis({ activeSetMax: 21, activeSetMin: 4 }));
    const whale = CANDIDATES[0];
    applyNext(state, [register(whale, { bond: 200_000n * TOKEN }), ...[1, 2, 3].map((i) => register(CANDIDATES[i], { bond: 10_000n * TOKEN }))]);
    applyTo(state, EPOCH);
    const before = activeValidators(state);
    expect(before.validators.length).toBe(8);
    const share = (v: ReturnType<typeof activeValidators>) => Number((v.byAddress.get(whale.address)!.power * 10_000n) / v.totalPower);
    expect(share(before)).toBeLessThanOrEqual(1500);
    const jailed = jailForDowntime(state, state.params(), CANDIDATES[1].address, EPOCH + 1);
    expect(jailed.refusal).toBeNull();
    const after = activeValidators(state);
    expect(after.validators.length).toBe(7);
    expect(share(after)).toBeLessThanOrEqual(1500);
    // Nobody's power rose.
    for (const v of after.validators) expect(v.power <= before.byAddress.get(v.address)!.power).toBe(true);
  });
});
