/**
 * Chain events and error codes are types the checker holds every emit and throw site
 * to: an unknown event kind, a missing or mistyped field, an unknown error code, or a
 * code of the wrong class does not compile (each `@ts-expect-error` below fails the
 * typecheck the day the type would let it through). At run time: the sinks accept
 * whatever they are given (the type is the only guard), the narrowing helpers find
 * what was emitted, and every code docs/api.md's error tables name is an ErrorCode.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { receiptRejection, type ExecContext, type Receipt } from '../../src/state/context';
import { ERROR_CODES, isErrorCode, rejected, TxError } from '../../src/state/errors';
import { findEvent, findLastEvent, type ChainEvent } from '../../src/state/events';

const OWNER = '0x1111111111111111111111111111111111111111';

describe('typed chain events', () => {
  it('refuses an unknown kind, a missing field and a mistyped one at an emit site', () => {
    const events: ChainEvent[] = [];
    const emit: ExecContext['emit'] = (e) => void events.push(e);
    emit({ type: 'BadDebt', owner: OWNER, pairId: 1, usdc: 5n });
    // @ts-expect-error: no event kind OrderVanished
    emit({ type: 'OrderVanished', orderId: '1' });
    // @ts-expect-error: a BadDebt without its usdc
    emit({ type: 'BadDebt', owner: OWNER, pairId: 1 });
    // @ts-expect-error: pairId is a number
    emit({ type: 'BadDebt', owner: OWNER, pairId: '1', usdc: 5n });
    // @ts-expect-error: OrderUpdated has no field price
    emit({ type: 'OrderUpdated', orderId: '1', owner: OWNER, pairId: 1, status: 'open', filled: 0n, remaining: 1n, price: 1n });
    // @ts-expect-error: not a reason the engine cancels for
    emit({ type: 'OrderUpdated', orderId: '1', owner: OWNER, pairId: 1, status: 'cancelled', filled: 0n, remaining: 1n, reason: 'whim' });
    emit({ type: 'OrderUpdated', orderId: '1', owner: OWNER, pairId: 1, status: 'cancelled', filled: 0n, remaining: 1n, reason: 'user' });
    // The sink itself takes anything: only the type stood in the way.
    expect(events.map((e) => e.type)).toEqual(['BadDebt', 'OrderVanished', 'BadDebt', 'BadDebt', 'OrderUpdated', 'OrderUpdated', 'OrderUpdated']);
    // Narrowed reads: the field types come from the kind.
    const debt = findEvent(events, 'BadDebt');
    const usdc: bigint | undefined = debt?.usdc;
    expect(usdc).toBe(5n);
    expect(findLastEvent(events, 'OrderUpdated', (e) => e.status === 'cancelled')?.reason).toBe('user');
    expect(findEvent(events, 'TradeExecuted')).toBeUndefined();
  });
});

describe('typed error codes', () => {
  it('refuses an unknown code and a code of the wrong class at a throw site', () => {
    // @ts-expect-error: no error code NOT_A_CODE
    const unknown = new TxError(422, 'NOT_A_CODE', 'x');
    // @ts-expect-error: INVALID_PRICE is a shape code (400), not an execution refusal
    const wrongClass = rejected('INVALID_PRICE', 'price: too large');
    // @ts-expect-error: 418 is no status a refusal answers with
    const teapot = new TxError(418, 'INVALID_REQUEST', 'x');
    // @ts-expect-error: a receipt's code is an ErrorCode too
    const receipt: Receipt = { txHash: '0x00', index: 0, kind: 'RestOrder', signer: null, status: 'failed', code: 'NOPE', events: [] };
    // At run time these are what they were told to be: the type is the guard.
    expect([unknown.code, wrongClass.status, teapot.status, receipt.code]).toEqual(['NOT_A_CODE', 422, 418, 'NOPE']);
    expect(isErrorCode(unknown.code)).toBe(false);
    expect(isErrorCode(wrongClass.code)).toBe(true);
  });

  it('carries one Rejection from the door to the receipt', () => {
    const err = rejected('INSUFFICIENT_BALANCE', 'free balance 1 is below 2 USDC units');
    const receipt: Receipt = { txHash: '0x00', index: 0, kind: 'RestOrder', signer: null, status: 'failed', code: err.code, message: err.message, errorStatus: err.status, events: [] };
    expect(receiptRejection(receipt)).toEqual(err.rejection());
    expect(receiptRejection({ ...receipt, status: 'ok', code: undefined, message: undefined, errorStatus: undefined })).toBeNull();
  });

  it('names every code docs/api.md lists in its error tables', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((l) => /^\|\s*[45]\d\d\s*\|/.test(l));
    const documented = new Set(rows.flatMap((l) => [...l.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1])));
    expect(documented.size).toBeGreaterThan(40);
    expect([...documented].filter((c) => !isErrorCode(c))).toEqual([]);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
});
