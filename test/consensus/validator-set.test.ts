import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/codec/binary';
import { keccak256 } from '../../src/crypto/keccak';
import { bytesToHex } from '../../src/util/bytes';
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

  it('draws positions on demand: any order of questions gives the full draw, which matches its definition', () => {
    // The definition (the file comment): position i is drawn from those left, weighted by
    // power, with keccak256(domain ‖ seed ‖ u64 height ‖ u32 i) mod the power left.
    const reference = (vs: readonly { address: Address; power: bigint }[], height: number, seed: Uint8Array) => {
      const left = [...vs];
      let leftPower = left.reduce((a, v) => a + v.power, 0n);
      const order: Address[] = [];
      for (let i = 0; left.length > 0; i++) {
        const draw = keccak256(new Writer(96).string('exchange-chain/proposer/v1').bytes(seed).u64(height).u32(i).finish());
        const target = BigInt(bytesToHex(draw)) % leftPower;
        let acc = 0n;
        let pick = left.length - 1;
        for (let j = 0; j < left.length; j++) {
          acc += left[j].power;
          if (target < acc) {
            pick = j;
            break;
          }
        }
        const [chosen] = left.splice(pick, 1);
        order.push(chosen.address);
        leftPower -= chosen.power;
      }
      return order;
    };
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 20n }), { minLength: 1, maxLength: 9 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.array(fc.nat(40), { maxLength: 12 }),
        (powers, seed, height, rounds) => {
          const vs = powers.map((power, i) => ({ address: addr(i), power }));
          const want = reference(new ValidatorSet(vs).validators, height, seed);
          const lazy = new ValidatorSet(vs);
          for (const r of rounds) expect(lazy.proposer(height, r, Uint8Array.from(seed)).address).toBe(want[r % want.length]);
          expect(lazy.proposerOrder(height, seed).map((v) => v.address)).toEqual(want);
          for (const r of rounds) expect(lazy.proposer(height, r, seed).address).toBe(want[r % want.length]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
