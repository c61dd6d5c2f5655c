/** Keccak-256 and EIP-191 against published vectors and viem. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hashMessage } from 'viem';
import { bytesToHex, utf8 } from '../../src/util/bytes';
import { keccak256, keccak256Hex } from '../../src/crypto/keccak';
import { hashPersonalMessage } from '../../src/crypto/eip191';

describe('keccak256', () => {
  it('published vectors (Keccak, not FIPS SHA3-256)', () => {
    expect(keccak256Hex(new Uint8Array(0))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256Hex(utf8.encode('abc'))).toBe('0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    // The ERC-20 Transfer event topic.
    expect(keccak256Hex(utf8.encode('Transfer(address,address,uint256)'))).toBe(
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
    expect(keccak256(new Uint8Array(0)).length).toBe(32);
  });
});

describe('hashPersonalMessage (EIP-191)', () => {
  it('published vector: "hello world"', () => {
    expect(bytesToHex(hashPersonalMessage('hello world'))).toBe(
      '0xd9eba16ed0ecae432b71fe008c98cc872bb4cc214d3220a36f365326cf807d68',
    );
  });

  it('length is the UTF-8 byte length; strings are text even if they look like hex', () => {
    const s = 'héllo ✓ 🚀';
    expect(bytesToHex(hashPersonalMessage(s))).toBe(
      bytesToHex(keccak256(utf8.encode(`\x19Ethereum Signed Message:\n${utf8.encode(s).length}${s}`))),
    );
    expect(utf8.encode(s).length).not.toBe(s.length);
    expect(bytesToHex(hashPersonalMessage('0x1234'))).toBe(hashMessage('0x1234'));
    expect(bytesToHex(hashPersonalMessage('0x1234'))).not.toBe(hashMessage({ raw: '0x1234' }));
  });

  it('equals viem hashMessage for random text and bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.uint8Array({ maxLength: 300 }), (text, raw) => {
        expect(bytesToHex(hashPersonalMessage(text))).toBe(hashMessage(text));
        expect(bytesToHex(hashPersonalMessage(raw))).toBe(hashMessage({ raw }));
      }),
      { numRuns: 500 },
    );
  });
});

describe('native keccak agrees with the noble reference', () => {
  it('on thousands of random inputs of every length class, including empty and multi-block', async () => {
    const { keccak256, keccak256Noble } = await import('../../src/crypto/keccak');
    const { randomBytes } = await import('node:crypto');
    const lengths = [0, 1, 31, 32, 33, 135, 136, 137, 200, 272, 1000, 5000];
    for (let i = 0; i < 3000; i++) {
      const input = new Uint8Array(randomBytes(lengths[i % lengths.length] + (i % 7)));
      expect(Buffer.from(keccak256(input)).toString('hex')).toBe(Buffer.from(keccak256Noble(input)).toString('hex'));
    }
    // A subarray view (non-zero byteOffset) hashes its own bytes only.
    const big = new Uint8Array(randomBytes(100));
    expect(keccak256(big.subarray(10, 60))).toEqual(keccak256Noble(big.slice(10, 60)));
  });
});
