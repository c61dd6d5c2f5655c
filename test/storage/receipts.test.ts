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
