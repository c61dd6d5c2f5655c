/** Exchange REST digests: packing rules, nonce handling, and the signing hash. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePacked, hashMessage, keccak256 as viemKeccak256, toHex } from 'viem';
import { bytesToHex, concatBytes, utf8 } from '../../src/util/bytes';
import {
  batchDigest,
  cancelAllDigest,
  cancelDigest,
  placeOrderDigest,
  restSigningHash,
  verifyRestSignature,
} from '../../src/signing/exchange-digest';
import { keccak256 } from '../../src/crypto/keccak';
import { privateKeyToAddress, sign, signCompact64 } from '../../src/crypto/secp256k1';
import { bigintTo32 } from '../crypto/helpers';

const S = 'string' as const;

// Shows contract [C-auth-rest], [D-signatures-rest].
describe('exchange REST digests', () => {
  it('place: a fixed vector, byte by byte', () => {
    const nonce = 1700000000123n;
    const packed = concatBytes(utf8.encode('ETHbuylimit2500.50.25'), bigintTo32(nonce));
    expect(packed.length).toBe(21 + 32);
    const digest = placeOrderDigest({ symbol: 'ETH', side: 'buy', type: 'limit', price: '2500.5', amount: '0.25', nonce });
    expect(bytesToHex(digest)).toBe(bytesToHex(keccak256(packed)));
    expect(bytesToHex(digest)).toBe(
      viemKeccak256(encodePacked([S, S, S, S, S, 'uint256'], ['ETH', 'buy', 'limit', '2500.5', '0.25', nonce])),
    );
  });

  it('values are hashed exactly as sent (no trimming or number normalization)', () => {
    const base = { symbol: 'ETH', side: 'buy', type: 'limit', price: '2500.5', amount: '1', nonce: 1n };
    const h = bytesToHex(placeOrderDigest(base));
    expect(bytesToHex(placeOrderDigest({ ...base, price: '2500.50' }))).not.toBe(h);
    expect(bytesToHex(placeOrderDigest({ ...base, symbol: 'eth' }))).not.toBe(h);
    expect(bytesToHex(placeOrderDigest({ ...base, amount: ' 1' }))).not.toBe(h);
    expect(bytesToHex(placeOrderDigest({ ...base, nonce: 2n }))).not.toBe(h);
  });

  it('absent fields hash as "" and a number nonce equals the bigint nonce', () => {
    expect(bytesToHex(placeOrderDigest({ symbol: 'SOL', side: 'sell', nonce: 42 }))).toBe(
      bytesToHex(placeOrderDigest({ symbol: 'SOL', side: 'sell', type: '', price: '', amount: '', nonce: 42n })),
    );
    expect(bytesToHex(cancelDigest(undefined, 7))).toBe(bytesToHex(cancelDigest('', 7n)));
  });

  it('batch: orderSummary concatenates symbol+side+price+amount per order, no separator', () => {
    const orders = [
      { symbol: 'ETH', side: 'buy', price: '2500', amount: '1' },
      { symbol: 'BTC', side: 'sell', price: '60000', amount: '0.1' },
    ];
    const expected = keccak256(concatBytes(utf8.encode('batchETHbuy25001BTCsell600000.1'), bigintTo32(9n)));
    expect(bytesToHex(batchDigest(orders, 9n))).toBe(bytesToHex(expected));
    expect(bytesToHex(batchDigest([], 9n))).toBe(bytesToHex(keccak256(concatBytes(utf8.encode('batch'), bigintTo32(9n)))));
    // Order matters.
    expect(bytesToHex(batchDigest([...orders].reverse(), 9n))).not.toBe(bytesToHex(expected));
  });

  it('cancel and cancel-all use their literals', () => {
    expect(bytesToHex(cancelDigest('123', 5n))).toBe(bytesToHex(keccak256(concatBytes(utf8.encode('cancel123'), bigintTo32(5n)))));
    expect(bytesToHex(cancelAllDigest(5n))).toBe(bytesToHex(keccak256(concatBytes(utf8.encode('cancel-all'), bigintTo32(5n)))));
  });

  it('packed encoding is ambiguous across operations: the API must validate fields (documents the hazard)', () => {
    // encodePacked has no separators, so a cancel of order id "-all" IS a cancel-all and a
    // place of symbol "batchETH" can equal a batch. Order ids must be decimal and symbols
    // known pairs before a digest is checked; these equalities are the reason why.
    expect(bytesToHex(cancelDigest('-all', 5n))).toBe(bytesToHex(cancelAllDigest(5n)));
    expect(bytesToHex(placeOrderDigest({ symbol: 'batchETH', side: 'buy', price: '1', amount: '2', nonce: 5n }))).toBe(
      bytesToHex(batchDigest([{ symbol: 'ETH', side: 'buy', price: '1', amount: '2' }], 5n)),
    );
  });

  it('rejects bad nonces and non-string fields', () => {
    for (const bad of [-1n, 1n << 256n, -1, 1.5, Number.NaN, 2 ** 53, '5', undefined, null]) {
      expect(() => cancelAllDigest(bad as never), String(bad)).toThrow();
      expect(() => placeOrderDigest({ symbol: 'ETH', nonce: bad as never })).toThrow();
    }
    expect(() => cancelAllDigest((1n << 256n) - 1n)).not.toThrow();
    expect(() => cancelAllDigest(Number.MAX_SAFE_INTEGER)).not.toThrow();
    expect(() => placeOrderDigest({ symbol: 5 as never, nonce: 1n })).toThrow(TypeError);
    expect(() => batchDigest([{ symbol: 'ETH', price: 2500 as never }], 1n)).toThrow(TypeError);
    expect(() => batchDigest('ETH' as never, 1n)).toThrow(TypeError);
  });

  it('restSigningHash is the EIP-191 hash of the 32 raw bytes; signatures verify in both forms', () => {
    const pk = bigintTo32(0x5eedn);
    const trader = privateKeyToAddress(pk);
    const digest = cancelDigest('77', 1n);
    const signingHash = restSigningHash(digest);
    expect(bytesToHex(signingHash)).toBe(hashMessage({ raw: digest }));
    expect(bytesToHex(signingHash)).not.toBe(hashMessage(toHex(digest)));
    expect(verifyRestSignature(digest, sign(signingHash, pk), trader)).toBe(true);
    expect(verifyRestSignature(digest, signCompact64(signingHash, pk), trader)).toBe(true);
    expect(verifyRestSignature(digest, sign(digest, pk), trader)).toBe(false); // forgot the EIP-191 step
    expect(verifyRestSignature(cancelDigest('78', 1n), sign(signingHash, pk), trader)).toBe(false);
    expect(verifyRestSignature(digest, '0xdead', trader)).toBe(false);
    expect(() => restSigningHash(new Uint8Array(31))).toThrow(TypeError);
  });

  it('equal viem encodePacked for any strings: multi-byte, long, and lone surrogates split across fields', () => {
    // The digests encode the fields as one string; surrogate halves that pair up across a
    // field boundary must still hash as viem hashes the separate fields.
    const field = fc.oneof(fc.string({ maxLength: 40, unit: 'binary' }), fc.constantFrom('\uD83D', '\uDE00', 'é', '€', ''), fc.string({ minLength: 300, maxLength: 1500 }));
    const nonce = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
    fc.assert(
      fc.property(fc.array(field, { minLength: 5, maxLength: 5 }), nonce, ([symbol, side, type, price, amount], n) => {
        const ref = viemKeccak256(encodePacked([S, S, S, S, S, 'uint256'], [symbol, side, type, price, amount, n]));
        expect(bytesToHex(placeOrderDigest({ symbol, side, type, price, amount, nonce: n }))).toBe(ref);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.array(fc.array(field, { minLength: 4, maxLength: 4 }), { maxLength: 10 }), nonce, (items, n) => {
        const orders = items.map(([symbol, side, price, amount]) => ({ symbol, side, price, amount }));
        const flat = items.flat();
        const ref = viemKeccak256(encodePacked([S, ...flat.map(() => S), 'uint256'], ['batch', ...flat, n]));
        expect(bytesToHex(batchDigest(orders, n))).toBe(ref);
      }),
      { numRuns: 300 },
    );
    expect(bytesToHex(cancelDigest('\uDE00x', 3n))).toBe(viemKeccak256(encodePacked([S, S, 'uint256'], ['cancel', '\uDE00x', 3n])));
  });
});
