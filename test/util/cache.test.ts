import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/util/cache';

describe('BoundedCache', () => {
  it('holds at most max entries, and keeps an entry for the next max/2 − 1 insertions after its last use', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.array(fc.tuple(fc.boolean(), fc.nat(60)), { maxLength: 400 }), (max, ops) => {
        const cache = new BoundedCache<number, number>(max);
        const model = new Map<number, number>(); // last value set per key
        const lastUse = new Map<number, number>(); // key -> index of its last insertion or hit
        let insertions = 0;
        for (const [isSet, key] of ops) {
          if (isSet) {
            cache.set(key, insertions);
            model.set(key, insertions);
            lastUse.set(key, insertions++);
          } else {
            const v = cache.get(key);
            if (v !== undefined) {
              expect(v).toBe(model.get(key)); // never a stale value
              lastUse.set(key, insertions++); // a hit may move it back into the young generation
            }
          }
          expect(cache.size).toBeLessThanOrEqual(max);
          // Counting every set and hit as an insertion overcounts (a set or hit in the young
          // generation moves nothing): the bound checked is the weaker side.
          for (const [k, at] of lastUse) if (insertions - at < max >> 1) expect(cache.has(k), `key ${k}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a bound below 2', () => {
    expect(() => new BoundedCache(1)).toThrow(RangeError);
    expect(() => new BoundedCache(2.5)).toThrow(RangeError);
  });
});
