/**
 * The validator transactions' encoding (src/codec/txs/validators.ts): each body decodes
 * back to itself, one body has one encoding (hash), and a truncated or extended
 * envelope is refused.
 */
import { describe, expect, it } from 'vitest';
import { decodeTx, TxKind } from '../../src/codec/tx';
import { CANDIDATES, register, unbond, unjail } from './harness';

const MAX = 1 << 20;

describe('validator transaction codec', () => {
  it('RegisterValidator, Unbond and Unjail round-trip, with the same bytes and hash', () => {
    for (const tx of [register(CANDIDATES[0]), unbond(CANDIDATES[0].privateKey, 7n), unjail(CANDIDATES[1].privateKey, 9n)]) {
      const back = decodeTx(tx.bytes, MAX);
      expect(back.kind).toBe(tx.kind);
      expect(back.body).toEqual(tx.body);
      expect(back.hash).toEqual(tx.hash);
    }
    expect(decodeTx(register(CANDIDATES[0]).bytes, MAX).kind).toBe(TxKind.RegisterValidator);
  });

  it('refuses trailing bytes and a truncated body', () => {
    const tx = register(CANDIDATES[0]);
    expect(() => decodeTx(Uint8Array.from([...tx.bytes, 0]), MAX)).toThrow();
    expect(() => decodeTx(tx.bytes.subarray(0, tx.bytes.length - 1), MAX)).toThrow();
  });
});
