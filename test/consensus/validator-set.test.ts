import { describe, expect, it } from 'vitest';
import { ValidatorSet } from '../../src/consensus/validator-set';
import type { Address } from '../../src/util/bytes';
import { hash } from './helpers';

const addr = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}` as Address;
const SEED = hash('seed');

describe('ValidatorSet', () => {
  it('sorts by address and refuses duplicates, zero power and bad addresses', () => {
    const set = new ValidatorSet([{ address: addr(2), power: 1n }, { address: addr(0), power: 2n }]);
    expect(set.validators.map((v) => v.address)).toEqual([addr(0), addr(2)]);
    expect(set.indexOf(addr(2))).toBe(1);
    expect(set.powerOf(addr(1))).toBe(0n);
    expect(() => new ValidatorSet([])).toThrow();
    expect(() => new ValidatorSet([{ address: addr(0), power: 1n }, { address: addr(0), power: 1n }])).toThrow(/duplicate/);
    expect(() => new ValidatorSet([{ address: addr(0), power: 0n }])).toThrow(/positive/);
    expect(() => new ValidatorSet([{ address: ('0x' + 'AB'.repeat(20)) as Address, power: 1n }])).toThrow(/lower-case/);
  });

  it('builds from genesis validators, power = bond', () => {
    const set = ValidatorSet.fromGenesis([{ address: addr(0), bondWei: 5n }, { address: addr(1), bondWei: 7n }]);
    expect(set.totalPower).toBe(12n);
  });

  it('proposer selection is deterministic in (seed, height, round)', () => {
    const powers = [1n, 2n, 3n, 4n, 5n, 6n];
    const a = new ValidatorSet(powers.map((power, i) => ({ address: addr(i), power })));
    const b = new ValidatorSet([...powers.map((power, i) => ({ address: addr(i), power }))].reverse());
    for (let h = 1; h < 50; h++) {
      for (let r = 0; r < 8; r++) expect(a.proposer(h, r, SEED)).toEqual(b.proposer(h, r, SEED));
    }
    const heights = Array.from({ length: 40 }, (_, h) => a.proposer(h + 1, 0, SEED).address);
    const otherSeed = Array.from({ length: 40 }, (_, h) => a.proposer(h + 1, 0, hash('other')).address);
    expect(heights).not.toEqual(otherSeed);
  });

  it('rotates through every validator within n rounds of a height', () => {
    const set = new ValidatorSet([1n, 50n, 3n, 9n, 2n, 7n].map((power, i) => ({ address: addr(i), power })));
    for (let h = 1; h < 100; h++) {
      const round0to5 = new Set(Array.from({ length: 6 }, (_, r) => set.proposer(h, r, SEED).address));
      expect(round0to5.size).toBe(6);
      expect(set.proposer(h, 6, SEED)).toEqual(set.proposer(h, 0, SEED));
    }
  });

  it('round 0 proposers follow voting power', () => {
    const powers = [10n, 20n, 30n, 40n];
    const set = new ValidatorSet(powers.map((power, i) => ({ address: addr(i), power })));
    const counts = new Map<Address, number>();
    const N = 20_000;
    for (let h = 1; h <= N; h++) {
      const p = set.proposer(h, 0, SEED).address;
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    for (const [i, power] of powers.entries()) {
      const share = (counts.get(addr(i)) ?? 0) / N;
      const want = Number(power) / 100;
      // Binomial standard deviation is below 0.0035 here: 5 sigma.
      expect(Math.abs(share - want)).toBeLessThan(0.0175);
    }
  });

  it('a validator with all the power is always the proposer; equal powers share evenly', () => {
    const solo = new ValidatorSet([{ address: addr(0), power: 1n }]);
    expect(solo.proposer(9, 3, SEED).address).toBe(addr(0));
    const six = new ValidatorSet(Array.from({ length: 6 }, (_, i) => ({ address: addr(i), power: 10n })));
    const counts = new Array(6).fill(0);
    for (let h = 1; h <= 6000; h++) counts[six.indexOf(six.proposer(h, 0, SEED).address)]++;
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });
});
