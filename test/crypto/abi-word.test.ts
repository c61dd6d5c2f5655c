/**
 * The one encoder of 32-byte ABI words (src/crypto/abi-word.ts) the signed formats share:
 * every word equals viem's abi.encode of the same value, and a value outside its width is
 * refused rather than wrapped.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeAbiParameters, getAddress } from 'viem';
import { addressWord, uintWord, writeUintWord } from '../../src/crypto/abi-word';
import { bytesToHex, type Address } from '../../src/util/bytes';

const WIDTHS = [8, 32, 64, 128, 256];

describe('ABI words', () => {
  it("a uintN is viem's abi.encode of it, written in place the same", () => {
    fc.assert(
      fc.property(fc.constantFrom(...WIDTHS), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (bits, raw) => {
        const v = raw & ((1n << BigInt(bits)) - 1n);
        const word = uintWord(v, bits);
        expect(bytesToHex(word)).toBe(encodeAbiParameters([{ type: `uint${bits}` }], [v]));
        const buf = new Uint8Array(96);
        writeUintWord(buf, 32, v);
        expect(bytesToHex(buf.subarray(32, 64))).toBe(bytesToHex(word));
        expect(buf.subarray(0, 32).every((b) => b === 0) && buf.subarray(64).every((b) => b === 0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a negative value or one of its width or more, naming it', () => {
    expect(() => uintWord(-1n, 256, 'nonce')).toThrow(/nonce: -1 is not a uint256/);
    expect(() => uintWord(1n << 256n)).toThrow(RangeError);
    expect(() => uintWord(256n, 8, 'side')).toThrow(/side: 256 is not a uint8/);
    expect(bytesToHex(uintWord(255n, 8))).toBe(`0x${'0'.repeat(62)}ff`);
  });

  it("an address is viem's abi.encode of it, whatever its hex case", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const lower = bytesToHex(bytes) as Address;
        const expected = encodeAbiParameters([{ type: 'address' }], [lower]);
        expect(bytesToHex(addressWord(lower))).toBe(expected);
        expect(bytesToHex(addressWord(getAddress(lower)))).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });
});
