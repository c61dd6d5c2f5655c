import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateTree } from '../../src/state/tree';

const entry = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.option(fc.uint8Array({ maxLength: 16 }), { nil: null }));

function finalMap(ops: [Uint8Array, Uint8Array | null][]): Map<string, Uint8Array> {
  const m = new Map<string, Uint8Array>();
  for (const [k, v] of ops) {
    const id = Buffer.from(k).toString('hex');
    if (v === null) m.delete(id);
    else m.set(id, v);
  }
  return m;
}

describe('incremental state tree', () => {
  it('the incrementally updated root equals a one-shot rebuild of the final contents', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 200 }), fc.integer({ min: 1, max: 20 }), (ops, every) => {
        const inc = new StateTree();
        ops.forEach(([k, v], i) => {
          inc.update(k, v);
          if (i % every === 0) inc.root(); // roots taken mid-way must not disturb the result
        });
        const fresh = new StateTree();
        const m = finalMap(ops);
        for (const [id, v] of [...m].reverse()) fresh.update(Buffer.from(id, 'hex'), v);
        expect(inc.root()).toEqual(fresh.root());
        expect(inc.size).toBe(m.size);
      }),
      { numRuns: 100 },
    );
  });

  it('a change of any single value changes the root; undoing it restores the root', () => {
    const t = new StateTree();
    for (let i = 0; i < 1000; i++) t.update(Uint8Array.of(i >> 8, i & 255), Uint8Array.of(i & 7));
    const before = t.root();
    t.update(Uint8Array.of(1, 2), Uint8Array.of(99));
    const changed = t.root();
    expect(changed).not.toEqual(before);
    t.update(Uint8Array.of(1, 2), Uint8Array.of(258 & 7));
    expect(t.root()).toEqual(before);
    t.update(Uint8Array.of(9, 9, 9), Uint8Array.of());
    expect(t.root()).not.toEqual(before);
    t.update(Uint8Array.of(9, 9, 9), null);
    expect(t.root()).toEqual(before);
  });

  it('removing every key returns to the root of an empty tree (precomputed empty subtrees are right)', () => {
    const t = new StateTree();
    const empty = new StateTree().root();
    for (let i = 0; i < 300; i++) t.update(Uint8Array.of(i & 255, i >> 8), Uint8Array.of(1));
    expect(t.root()).not.toEqual(empty);
    for (let i = 0; i < 300; i++) t.update(Uint8Array.of(i & 255, i >> 8), null);
    expect(t.root()).toEqual(empty);
  });

  it('an empty value differs from an absent key', () => {
    const a = new StateTree();
    const b = new StateTree();
    a.update(Uint8Array.of(1), new Uint8Array());
    expect(a.root()).not.toEqual(b.root());
  });
});

describe('state tree: the root is part of consensus', () => {
  it('gives the roots it has always given (golden vectors: a change to the hashing is a chain fork)', () => {
    const t = new StateTree();
    expect(Buffer.from(t.root()).toString('hex')).toBe('b65906575bf94fb8c2940976bb95c9931bf1098dfe40ffcd95245fb2cc488bb1');
    for (let i = 0; i < 5000; i++) t.update(Uint8Array.of(i >> 8, i & 255, 7), Uint8Array.of(i & 255, (i * 7) & 255, 1));
    expect(Buffer.from(t.root()).toString('hex')).toBe('da9c06063d9924cae939fb010b4335914cc8fedcfc4c9a38c4b149ed4bd27b64');
    for (let i = 0; i < 5000; i += 3) t.update(Uint8Array.of(i >> 8, i & 255, 7), i % 2 ? null : Uint8Array.of(9));
    expect(Buffer.from(t.root()).toString('hex')).toBe('a40a4b5ed49c21f60f35ad9066d839f63246b05b860d8dde7872cf18eec05c52');
  });
});
