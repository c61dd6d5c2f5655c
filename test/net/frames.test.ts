import fc from 'fast-check';
import * as lp from 'it-length-prefixed';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameError, frame } from '../../src/net/frames';

/** Byte equality without a deep-equal walk of every element (megabytes here). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The stream cut at the given points (sorted, deduplicated). */
const cut = (bytes: Uint8Array, points: number[]) => {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...at, bytes.length]) {
    chunks.push(bytes.subarray(prev, p));
    prev = p;
  }
  return chunks;
};

describe('direct-stream frames', () => {
  it('are byte for byte what it-length-prefixed writes', () => {
    for (const n of [0, 1, 127, 128, 300, 16_383, 16_384, 70_000, 2_097_152]) {
      const data = new Uint8Array(n).map((_, i) => i * 7);
      expect(same(frame(data), lp.encode.single(data).subarray())).toBe(true);
    }
  });

  it('come back whole and in order however the stream is cut', () => {
    const message = fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 16_000, maxLength: 20_000 }));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 40 }), (messages, points) => {
        const d = new FrameDecoder(1 << 20);
        const got: Uint8Array[] = [];
        for (const chunk of cut(concat(messages.map(frame)), points)) got.push(...d.push(chunk).map((m) => m.slice()));
        expect(got.length).toBe(messages.length);
        got.forEach((m, i) => expect(same(m, messages[i])).toBe(true));
        expect(d.pendingBytes).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it('one byte at a time, including a length header split across chunks', () => {
    const big = new Uint8Array(200_000).fill(9);
    const bytes = concat([frame(Uint8Array.of(1, 2)), frame(big), frame(new Uint8Array(0))]);
    const d = new FrameDecoder(1 << 20);
    const got: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i++) got.push(...d.push(bytes.subarray(i, i + 1)));
    expect(got.map((m) => m.length)).toEqual([2, 200_000, 0]);
    expect(got[1].every((b) => b === 9)).toBe(true);
  });

  it('refuse a frame above the limit and a malformed length', () => {
    expect(() => new FrameDecoder(100).push(frame(new Uint8Array(101)).subarray(0, 3))).toThrow(FrameError);
    expect(new FrameDecoder(100).push(frame(new Uint8Array(100)))).toHaveLength(1);
    expect(() => new FrameDecoder(1 << 30).push(Uint8Array.of(0x80, 0x00))).toThrow(/minimal/);
    expect(() => new FrameDecoder(Number.MAX_SAFE_INTEGER).push(new Uint8Array(10).fill(0xff))).toThrow(/too long/);
  });
});
