/**
 * The relayer's submitter rotation (actors/bridge/relayer.ts, decision 84 (e)): over the
 * active validators ascending by address, withdrawal `id`'s designated submitter is index
 * `id mod n`; every other validator is at a distinct distance 1..n−1 from it (so their
 * takeovers are staggered), the distances wrap around, and a key outside the set never
 * relays.
 */
import { describe, expect, it } from 'vitest';
import { submitterDistance } from '../../actors/bridge/relayer';
import type { Address } from '../../src/util/bytes';

const set = ['0x01', '0x02', '0x03', '0x04', '0x05', '0x06'].map((p) => ({ address: `${p}${'0'.repeat(38)}` as Address }));

describe('the submitter rotation', () => {
  it('designates index id mod n, and gives the others distinct distances 1..n-1, wrapping', () => {
    for (const id of [0n, 1n, 5n, 6n, 13n, 2n ** 70n + 3n]) {
      const distances = set.map((v) => submitterDistance(set, v.address, id)!);
      expect(distances[Number(id % 6n)]).toBe(0);
      expect([...distances].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    }
    // id 4: the fifth is designated, the sixth next, then the first (wrap-around).
    expect(set.map((v) => submitterDistance(set, v.address, 4n))).toEqual([2, 3, 4, 5, 0, 1]);
  });

  it('a key outside the set, or an empty set, never relays', () => {
    expect(submitterDistance(set, `0x${'9'.repeat(40)}` as Address, 1n)).toBeUndefined();
    expect(submitterDistance([], set[0].address, 1n)).toBeUndefined();
  });

  it('one validator is always the designated submitter', () => {
    for (const id of [0n, 1n, 99n]) expect(submitterDistance(set.slice(0, 1), set[0].address, id)).toBe(0);
  });
});
