/**
 * The operator gate (decision 159) and the seeding's consent (decision 160) in
 * execution: ApproveValidator, signed by the network's operator (genesis
 * owners.operator), records an approval that RegisterValidator requires (403
 * NOT_AUTHORIZED without it or once it expired) and consumes; anyone else's approval is
 * 403 NOT_OPERATOR; an expiry not after the block or past 30 days is 422; the owners'
 * SetOperator replaces the operator after the high-impact timelock; an AdminSeedValidator
 * proposal with a stranger as funder or without the validator's signature is refused at
 * the proposal. The attacks themselves are test/exploits/.
 */
import { describe, expect, it } from 'vitest';
import { GovOpKind, type GovOperation } from '../../src/codec/txs/governance';
import { approvalOf, APPROVAL_VALIDITY_MS_MAX } from '../../src/state/validators/approvals';
import { validatorRecord } from '../../src/state/validators/records';
import { failure, GovChain, HIGH_IMPACT_MS, OWNERS } from '../governance/harness';
import { applyNext, approve, CANDIDATES, freshState, OPERATOR_KEY, register, seedFor, T0, TOKEN } from './harness';

const [a, b, c] = CANDIDATES;
const status = (r: { status: string; errorStatus?: number; code?: string }) => [r.status, r.errorStatus, r.code];

describe('ApproveValidator and the registration it admits', () => {
  it('the operator approves, the candidate registers once, and the approval is consumed', () => {
    const state = freshState(undefined, { approved: false });
    expect(status(applyNext(state, [register(a)]).receipts[0])).toEqual(['failed', 403, 'NOT_AUTHORIZED']);
    expect(applyNext(state, [approve(a.address)]).receipts[0].status).toBe('ok');
    expect(approvalOf(state, a.address)).toMatchObject({ operator: expect.any(String), expiresAtMs: T0 + 86_400_000 });
    // The register's nonce 1 was consumed by its refusal: the candidate signs a new one.
    expect(applyNext(state, [register(a, { nonce: 2n })]).receipts[0].status).toBe('ok');
    expect(validatorRecord(state, a.address)?.status).toBe('registered');
    expect(approvalOf(state, a.address)).toBeUndefined();
  });

  it('an approval signed by anyone but the operator is 403 NOT_OPERATOR; an owner who is not the operator too', () => {
    const state = freshState(undefined, { approved: false });
    expect(status(applyNext(state, [approve(a.address, {}, b.privateKey)]).receipts[0])).toEqual(['failed', 403, 'NOT_OPERATOR']);
    expect(status(applyNext(state, [approve(a.address, {}, OWNERS[1].priv)]).receipts[0])).toEqual(['failed', 403, 'NOT_OPERATOR']);
    expect(approvalOf(state, a.address)).toBeUndefined();
  });

  it('an approval expires: registration after its expiry is 403; an expiry not after the block or past 30 days is 422 INVALID_EXPIRY', () => {
    const state = freshState(undefined, { approved: false });
    const now = state.head().timestampMs;
    expect(status(applyNext(state, [approve(a.address, { expiresAtMs: now + 1000, nonce: 1n })]).receipts[0])).toEqual(['failed', 422, 'INVALID_EXPIRY']);
    expect(status(applyNext(state, [approve(a.address, { expiresAtMs: now + 3000 + APPROVAL_VALIDITY_MS_MAX, nonce: 2n })]).receipts[0])).toEqual(['failed', 422, 'INVALID_EXPIRY']);
    expect(applyNext(state, [approve(a.address, { expiresAtMs: now + 5000, nonce: 3n })]).receipts[0].status).toBe('ok');
    applyNext(state);
    applyNext(state); // block time now + 5000: expired
    const r = applyNext(state, [register(a)]).receipts[0];
    expect(status(r)).toEqual(['failed', 403, 'NOT_AUTHORIZED']);
    expect(r.message).toMatch(/expired/);
  });

  it('an approval of an existing validator is 409 VALIDATOR_EXISTS', () => {
    const state = freshState();
    applyNext(state, [register(c)]);
    expect(status(applyNext(state, [approve(c.address)]).receipts[0])).toEqual(['failed', 409, 'VALIDATOR_EXISTS']);
  });
});

describe('SetOperator and the seeding by the owners', () => {
  it('SetOperator, after the high-impact timelock, moves the gate to the new operator', () => {
    const g = new GovChain();
    const [A, B] = OWNERS;
    const op: GovOperation = { kind: GovOpKind.SetOperator, operator: b.address };
    const p = g.propose(A, op);
    expect(g.one(p.tx).status).toBe('ok');
    expect(g.one(g.approve(B, p.id)).status).toBe('ok');
    const ready = g.timeMs + HIGH_IMPACT_MS;
    expect(g.one(g.execute(A, p.id), ready).status).toBe('ok');
    expect(g.state.params().owners.operator).toBe(b.address);
    const old = approve(a.address, { expiresAtMs: ready + 86_400_000, nonce: 2n }, OPERATOR_KEY);
    expect(failure(g.one(old))).toEqual({ status: 403, code: 'NOT_OPERATOR' });
    expect(g.one(approve(a.address, { expiresAtMs: ready + 86_400_000, nonce: 1n }, b.privateKey)).status).toBe('ok');
  });

  it('an AdminSeedValidator proposal with a stranger as funder, or without the validator’s signature, is refused at the proposal', () => {
    const g = new GovChain();
    const stranger = { kind: GovOpKind.AdminSeedValidator, ...seedFor(a, { funder: c.address, bondWei: 5_000n * TOKEN }) } as const;
    expect(failure(g.one(g.propose(OWNERS[0], stranger).tx))).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    const forged = { kind: GovOpKind.AdminSeedValidator, ...seedFor(a, {}, {}, c.privateKey) } as const;
    expect(failure(g.one(g.propose(OWNERS[0], forged).tx))).toEqual({ status: 401, code: 'INVALID_SIGNATURE' });
    const consented = { kind: GovOpKind.AdminSeedValidator, ...seedFor(a, { funder: OWNERS[0].address }) } as const;
    expect(g.one(g.propose(OWNERS[0], consented).tx).status).toBe('ok');
  });
});
