import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError, Reader, Writer } from '../../src/codec/binary';

describe('canonical binary codec', () => {
  it('round-trips bigints of every width and rejects leading zeros', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (v) => {
        const bytes = new Writer().big(v).finish();
        const r = new Reader(bytes);
        expect(r.big()).toBe(v);
        r.end();
      }),
    );
    // 0x01 0x00 is the non-canonical spelling of zero; 0x02 0x00 0x05 of five.
    expect(() => new Reader(Uint8Array.of(2, 0, 5)).big()).toThrow(/leading zero/);
    expect(() => new Writer().big(-1n)).toThrow(CodecError);
    expect(() => new Writer().big(1n << 256n)).toThrow(/256 bits/);
  });

  it('writes every bigint as its minimal big-endian bytes, on both sides of the fast paths', () => {
    // Reference: length byte, then the minimal big-endian magnitude.
    const reference = (v: bigint) => {
      const bytes: number[] = [];
      for (let x = v; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
      return Uint8Array.from([bytes.length, ...bytes]);
    };
    const edges: bigint[] = [0n, 1n, 255n, 256n];
    for (const bits of [8, 16, 24, 32, 40, 47, 48, 49, 52, 53, 54, 56, 63, 64, 65, 96, 120, 127, 128, 129, 255]) {
      const p = 1n << BigInt(bits);
      edges.push(p - 1n, p, p + 1n);
    }
    edges.push(BigInt(Number.MAX_SAFE_INTEGER) - 1n, BigInt(Number.MAX_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER) + 1n, (1n << 256n) - 1n);
    const check = (v: bigint) => {
      const bytes = new Writer().big(v).finish();
      expect(bytes).toEqual(reference(v));
      const r = new Reader(bytes);
      expect(r.big()).toBe(v);
      r.end();
    };
    for (const v of edges) check(v);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 1n << 64n }), check), { numRuns: 2_000 });
    fc.assert(fc.property(fc.integer({ min: 1, max: 256 }).chain((bits) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })), check), { numRuns: 2_000 });
  });

  it('round-trips signed bigints and rejects negative zero', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 200n), max: 1n << 200n }), (v) => {
        const r = new Reader(new Writer().sbig(v).finish());
        expect(r.sbig()).toBe(v);
        r.end();
      }),
    );
    expect(() => new Reader(Uint8Array.of(1, 0)).sbig()).toThrow(/negative zero/);
    expect(() => new Reader(Uint8Array.of(2, 1, 1)).sbig()).toThrow(/sign byte/);
  });

  it('rejects trailing bytes, truncation, bad booleans, oversized fields and bad UTF-8', () => {
    const ok = new Writer().u32(7).finish();
    const withTrailing = Uint8Array.of(...ok, 0);
    const r = new Reader(withTrailing);
    r.u32();
    expect(() => r.end()).toThrow(/trailing/);
    expect(() => new Reader(Uint8Array.of(0, 0)).u32()).toThrow(/ends early/);
    expect(() => new Reader(Uint8Array.of(2)).bool()).toThrow(/0 or 1/);
    expect(() => new Reader(new Writer().bytes(new Uint8Array(100)).finish()).bytes(50)).toThrow(/exceeds/);
    expect(() => new Reader(new Writer().bytes(Uint8Array.of(0xff, 0xfe)).finish()).string()).toThrow(/UTF-8/);
  });

  it('round-trips addresses in lower case and u64 only up to 2^53', () => {
    const a = '0x00112233445566778899aabbccddeeff00112233';
    expect(new Reader(new Writer().address(a).finish()).address()).toBe(a);
    const big = new Uint8Array(8).fill(0xff);
    expect(() => new Reader(big).u64()).toThrow(/2\^53/);
  });
});

describe('Writer scratch buffers', () => {
  it('interleaved and nested writers keep their own bytes, and finished results are never reused', () => {
    const outer = new Writer().u32(1).string('outer-');
    const inner = new Writer().u32(2).string('inner');
    const innerBytes = inner.finish();
    outer.bytes(innerBytes).string('x'.repeat(10_000)); // grows past the scratch size
    const outerBytes = outer.finish();
    const again = new Writer().u32(3).finish(); // takes a scratch back from the pool
    expect([...again]).toEqual([0, 0, 0, 3]);
    const r = new Reader(outerBytes);
    expect(r.u32()).toBe(1);
    expect(r.string(100)).toBe('outer-');
    const ir = new Reader(r.bytes(100));
    expect(ir.u32()).toBe(2);
    expect(ir.string(100)).toBe('inner');
    expect(r.string(20_000)).toBe('x'.repeat(10_000));
    // Mutating a result must not show in the next encoding (results are copies).
    innerBytes.fill(0xee);
    expect([...new Writer().u8(7).finish()]).toEqual([7]);
  });

  it('a finished writer refuses further writes and a second finish', () => {
    const w = new Writer().u8(1);
    w.finish();
    expect(() => w.u8(2)).toThrow(/after finish/);
    expect(() => w.finish()).toThrow(/finished twice/);
  });

  it('strings are length-prefixed UTF-8 exactly as TextEncoder encodes them, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const utf8 = new TextEncoder().encode(s);
        const out = new Writer(8).string(s).finish();
        expect(new DataView(out.buffer).getUint32(0)).toBe(utf8.length);
        expect([...out.subarray(4)]).toEqual([...utf8]);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads strings back as written, and any bytes exactly as a fatal TextDecoder does (the short ASCII path included)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 14 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 40 })), (s) => {
        const canonical = new TextDecoder().decode(new TextEncoder().encode(s)); // lone surrogates become U+FFFD
        expect(new Reader(new Writer(8).string(s).finish()).string()).toBe(canonical);
      }),
      { numRuns: 1000 },
    );
    const fatal = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 16 }), (bytes) => {
        const r = new Reader(new Writer(8).bytes(bytes).finish());
        let want: string | undefined;
        try {
          want = fatal.decode(bytes);
        } catch {
          want = undefined;
        }
        if (want === undefined) expect(() => r.string()).toThrow(/UTF-8/);
        else expect(r.string()).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });
});
