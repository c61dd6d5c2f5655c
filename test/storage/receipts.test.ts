import v8 from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeReceipts, encodeReceipts } from '../../src/storage/db';
import type { ChainEvent, Receipt } from '../../src/state/context';

/** The store keeps any record: these tests give it shapes no event kind has. */
const anyEvent = (e: Record<string, unknown>) => e as unknown as ChainEvent;

describe('stored receipts', () => {
  it('round-trip every bigint exactly, nested, negative and wide', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(1n << 255n), max: 1n << 255n }), { maxLength: 5 }), fc.string(), (values, text) => {
        const receipts: Receipt[] = [
          { txHash: '0xab', index: 0, kind: 'RestOrder', signer: null, status: 'ok', events: [anyEvent({ type: 'X', values, nested: { v: values[0] ?? 0n, text } })] },
          { txHash: '0xcd', index: 1, kind: 'Faucet', signer: '0x01', status: 'failed', code: 'NONCE_USED', message: text, errorStatus: 409, events: [] },
        ];
        expect(decodeReceipts(encodeReceipts(receipts))).toEqual(receipts);
      }),
    );
  });

  it('a string that merely looks like a tag stays a string', () => {
    const receipts: Receipt[] = [{ txHash: '0x', index: 0, kind: 'k', signer: null, status: 'ok', events: [anyEvent({ type: 'T', s: '$big', o: { $big: 'x', other: 1 } })] }];
    expect(decodeReceipts(encodeReceipts(receipts))).toEqual(receipts);
  });
});

describe('stored receipts: the format', () => {
  const receipts: Receipt[] = [
    { txHash: '0xab', index: 0, kind: 'RestOrder', signer: '0x01', status: 'ok', events: [anyEvent({ type: 'TradeExecuted', size: 10n ** 16n, usdc: -(2n ** 200n), nested: { v: 0n } })] },
  ];

  it('is tagged 0x01 (shaped V8 serialization) and reads back exactly', () => {
    const bytes = encodeReceipts(receipts);
    expect(bytes[0]).toBe(0x01);
    expect(decodeReceipts(bytes)).toEqual(receipts);
  });

  it('still reads the plain V8 serialization of session-5 data folders', () => {
    const plain = v8.serialize(receipts);
    expect(plain[0]).toBe(0xff);
    expect(decodeReceipts(new Uint8Array(plain.buffer, plain.byteOffset, plain.byteLength))).toEqual(receipts);
  });

  it('still reads the JSON receipts an older data folder holds', () => {
    const legacy = new TextEncoder().encode(JSON.stringify(receipts, (_k, v) => (typeof v === 'bigint' ? { $big: v.toString() } : v)));
    expect(legacy[0]).toBe(0x5b);
    expect(decodeReceipts(legacy)).toEqual(receipts);
  });
});

describe('stored receipts: field names and repeated strings factored out', () => {
  const scalar = fc.oneof(
    fc.constantFrom('0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb', 'ETH', 'BTC', 'open', 'filled', ''),
    fc.string({ maxLength: 8 }),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true }),
    fc.bigInt({ min: -(1n << 200n), max: 1n << 200n }),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
  );
  // Nested values are stored as they are; some look like the encoding's own parts.
  const nested = fc.oneof(fc.array(scalar, { maxLength: 4 }), fc.record({ n: fc.integer() }), fc.record({ k: fc.array(fc.string()), r: fc.constant([]) }), fc.dictionary(fc.string({ maxLength: 4 }), scalar, { maxKeys: 3 }));
  const event = fc.dictionary(fc.constantFrom('type', 'orderId', 'owner', 'symbol', 'price', 'size', 'status', 'side', 'n', 'k', 'r', 'x'), fc.oneof(scalar, nested), { maxKeys: 8 });
  const receipt = fc.record({
    txHash: fc.constantFrom('0xab', '0xcd', '0xab'),
    index: fc.nat(50),
    kind: fc.constantFrom('RestOrder', 'RestBatch'),
    signer: fc.option(fc.constantFrom('0x00000000000000000000000000000000000000aa', '0x01'), { nil: null }),
    status: fc.constantFrom('ok' as const, 'failed' as const),
    events: fc.array(event, { maxLength: 6 }),
  });

  it('property: any block of receipts reads back exactly', () => {
    fc.assert(
      fc.property(fc.array(receipt, { maxLength: 8 }), (rs) => {
        expect(decodeReceipts(encodeReceipts(rs as unknown as Receipt[]))).toEqual(rs);
      }),
      { numRuns: 300 },
    );
  });

  it('objects with more than 31 fields: strings past the 31st are stored inline and still read back', () => {
    const wide: { type: string; [k: string]: unknown } = { type: 'Wide' };
    for (let i = 0; i < 40; i++) wide[`f${i}`] = i % 2 ? 'same' : -i;
    const rs: Receipt[] = [{ txHash: '0x', index: 0, kind: 'k', signer: null, status: 'ok', events: [anyEvent(wide), anyEvent({ ...wide })] }];
    expect(decodeReceipts(encodeReceipts(rs))).toEqual(rs);
  });

  it('a block of batched orders takes well under half the bytes of plain V8 serialization', () => {
    const owner = '0x1111111111111111111111111111111111111111';
    const rs: Receipt[] = [];
    for (let t = 0; t < 24; t++) {
      const events: { type: string; [k: string]: unknown }[] = [];
      for (let o = 0; o < 10; o++) {
        const orderId = String(1000 + t * 10 + o);
        events.push({ type: 'OrderPlaced', orderId, owner, symbol: 'ETH', pairId: 1, side: 0, orderType: 1, price: 3_000_000_000n, size: 10n ** 17n, leverage: 1, isAgent: false });
        events.push({ type: 'OrderUpdated', orderId, owner, symbol: 'ETH', status: 'open', filled: 0n, remaining: 10n ** 17n });
      }
      rs.push({ txHash: `0x${String(t).padStart(64, '0')}`, index: t, kind: 'RestBatch', signer: owner as `0x${string}`, status: 'ok', events: events.map(anyEvent) });
    }
    const shaped = encodeReceipts(rs).length;
    const plain = v8.serialize(rs).length;
    expect(decodeReceipts(encodeReceipts(rs))).toEqual(rs);
    expect(shaped).toBeLessThan(plain * 0.45);
  });
});
