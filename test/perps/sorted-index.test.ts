/**
 * The sorted index behind liquidation and TP/SL checks (src/state/perps/sorted-index.ts)
 * against a plain sorted array: random inserts, removes and scans, with tiny chunks so
 * splits and empty chunks happen.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedIndex } from '../../src/state/perps/sorted-index';

const byKeyId = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];

describe('SortedIndex', () => {
  it('matches a sorted array under random inserts, removes and scans', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.oneof(
          fc.record({ op: fc.constant('add' as const), key: fc.integer({ min: -50, max: 50 }), id: fc.nat(40) }),
          fc.record({ op: fc.constant('del' as const), pick: fc.nat() }),
          fc.record({ op: fc.constant('scan' as const), bound: fc.integer({ min: -60, max: 60 }), limit: fc.integer({ min: 1, max: 30 }) }),
        ), { maxLength: 200 }),
        (chunk, ops) => {
          const ix = new SortedIndex(chunk);
          let ref: [number, number][] = [];
          for (const o of ops) {
            if (o.op === 'add') {
              if (ref.some(([k, i]) => k === o.key && i === o.id)) continue;
              ix.insert(o.key, o.id);
              ref.push([o.key, o.id]);
              ref.sort(byKeyId);
            } else if (o.op === 'del') {
              if (!ref.length) {
                expect(ix.remove(1, 1)).toBe(false);
                continue;
              }
              const [k, i] = ref[o.pick % ref.length];
              expect(ix.remove(k, i)).toBe(true);
              expect(ix.remove(k, i)).toBe(false);
              ref = ref.filter(([a, b]) => a !== k || b !== i);
            } else {
              expect(ix.ascendingTo(o.bound, o.limit)).toEqual(ref.filter(([k]) => k <= o.bound).slice(0, o.limit).map(([, i]) => i));
              expect(ix.descendingTo(o.bound, o.limit)).toEqual([...ref].reverse().filter(([k]) => k >= o.bound).slice(0, o.limit).map(([, i]) => i));
            }
            expect(ix.size).toBe(ref.length);
          }
          expect(ix.entries()).toEqual(ref);
        },
      ),
      { numRuns: 300 },
    );
  });
});
