/** The engine's two containers against the obvious implementations. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdIndex } from '../../src/state/orderbook/idindex';
import { SortedLevels } from '../../src/state/orderbook/levels';

describe('IdIndex', () => {
  it('behaves like a Map under random set / delete / get, through growth and shrinking', () => {
    const key = fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, 2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1));
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(fc.constant('set' as const), key) },
      { weight: 4, arbitrary: fc.tuple(fc.constant('del' as const), key) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('bulk' as const), fc.integer({ min: 0, max: 2500 })) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const idx = new IdIndex<number>();
        const map = new Map<number, number>();
        let v = 0;
        for (const [t, k] of ops) {
          if (t === 'set') {
            idx.set(k, ++v);
            map.set(k, v);
          } else if (t === 'del') {
            expect(idx.delete(k)).toBe(map.delete(k));
          } else {
            // a run of sequential ids (the engine's real pattern), then delete most of them
            for (let i = 0; i < k; i++) {
              idx.set(10_000 + i, i);
              map.set(10_000 + i, i);
            }
            for (let i = 0; i < k; i += i % 7 === 0 ? 1 : 2) expect(idx.delete(10_000 + i)).toBe(map.delete(10_000 + i));
          }
          expect(idx.size).toBe(map.size);
        }
        for (const [k, val] of map) expect(idx.get(k)).toBe(val);
        for (const [, k] of ops) expect(idx.get(k as number)).toBe(map.get(k as number));
        expect(idx.get(123_456_789)).toBe(map.get(123_456_789));
      }),
      { numRuns: 200 },
    );
  });
});

describe('SortedLevels', () => {
  it('keeps unique keys sorted through inserts, removals and popBest, for any chunk size', () => {
    const op = fc.oneof(
      fc.tuple(fc.constant('ins' as const), fc.integer({ min: -200, max: 200 })),
      fc.tuple(fc.constant('rm' as const), fc.nat()),
      fc.tuple(fc.constant('pop' as const), fc.constant(0)),
    );
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.array(op, { maxLength: 400 }), (chunk, ops) => {
        const sl = new SortedLevels<{ key: number }>(chunk);
        const model: { key: number }[] = [];
        for (const [t, x] of ops) {
          if (t === 'ins') {
            if (model.some((m) => m.key === x)) {
              expect(() => sl.insert({ key: x })).toThrow();
              continue;
            }
            const item = { key: x };
            sl.insert(item);
            model.push(item);
            model.sort((a, b) => a.key - b.key);
          } else if (t === 'rm') {
            if (model.length === 0) continue;
            const item = model.splice(x % model.length, 1)[0];
            sl.remove(item);
            expect(() => sl.remove(item)).toThrow();
          } else {
            if (model.length === 0) {
              expect(sl.best()).toBeUndefined();
              continue;
            }
            expect(sl.best()).toBe(model[model.length - 1]);
            sl.popBest();
            model.pop();
          }
          expect(sl.length).toBe(model.length);
          expect(sl.chunks.flat()).toEqual(model);
          for (const c of sl.chunks) {
            expect(c.length).toBeGreaterThan(0);
            expect(c.length).toBeLessThanOrEqual(chunk);
          }
          expect(sl.best()).toBe(model[model.length - 1]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
