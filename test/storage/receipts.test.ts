import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeReceipts, encodeReceipts } from '../../src/storage/db';
import type { Receipt } from '../../src/state/context';

describe('stored receipts', () => {
  it('round-trip every bigint exactly, nested, negative and wide', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(1n << 255n), max: 1n << 255n }), { maxLength: 5 }), fc.string(), (values, text) => {
        const receipts: Receipt[] = [
          { txHash: '0xab', index: 0, kind: 'RestOrder', signer: null, status: 'ok', events: [{ type: 'X', values, nested: { v: values[0] ?? 0n, text } }] },
          { txHash: '0xcd', index: 1, kind: 'Faucet', signer: '0x01', status: 'failed', code: 'NONCE_USED', message: text, errorStatus: 409, events: [] },
        ];
        expect(decodeReceipts(encodeReceipts(receipts))).toEqual(receipts);
      }),
    );
  });

  it('a string that merely looks like a tag stays a string', () => {
    const receipts: Receipt[] = [{ txHash: '0x', index: 0, kind: 'k', signer: null, status: 'ok', events: [{ type: 'T', s: '$big', o: { $big: 'x', other: 1 } }] }];
    expect(decodeReceipts(encodeReceipts(receipts))).toEqual(receipts);
  });
});

describe('stored receipts: the format', () => {
  const receipts: Receipt[] = [
    { txHash: '0xab', index: 0, kind: 'RestOrder', signer: '0x01', status: 'ok', events: [{ type: 'TradeExecuted', size: 10n ** 16n, usdc: -(2n ** 200n), nested: { v: 0n } }] },
  ];

  it('is V8 serialization (version tag first) and reads back exactly', () => {
    const bytes = encodeReceipts(receipts);
    expect(bytes[0]).toBe(0xff);
    expect(decodeReceipts(bytes)).toEqual(receipts);
  });

  it('still reads the JSON receipts an older data folder holds', () => {
    const legacy = new TextEncoder().encode(JSON.stringify(receipts, (_k, v) => (typeof v === 'bigint' ? { $big: v.toString() } : v)));
    expect(legacy[0]).toBe(0x5b);
    expect(decodeReceipts(legacy)).toEqual(receipts);
  });
});
