/**
 * Owner governance in execution (decision 74): every refusal named by issue 21 leaves the
 * state root as it was; the machine's path proposed → approved → ready → executed at
 * block time; halt and resume; a parameter change takes effect from the block after the
 * one that executes it, the same on two states applying the same blocks; AdminSeedValidator
 * by two owners after the timelock. Shows contract [C-auth-governance] (the bridge's
 * owners following the chain's: test/bridge/relayer-sets.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { GovOpKind, GovParam, type GovOperation } from '../../src/codec/txs/governance';
import { operationStateAt } from '../../src/state/governance/operations';
import { governanceCodec } from '../../src/state/governance/record';
import { validatorRecord } from '../../src/state/validators/records';
import { bytesToHex } from '../../src/util/bytes';
import { CANDIDATES, seedFor, TOKEN } from '../validators/harness';
import { failure, GovChain, OWNERS, ROUTINE_MS, HIGH_IMPACT_MS, TRADER } from './harness';

const [A, B, C] = OWNERS;
const feeChange = (value: bigint): GovOperation => ({ kind: GovOpKind.SetParam, param: GovParam.TakerFeeBps, value });
const ok = (r: { status: string; code?: string; message?: string }) => expect(r.status, `${r.code}: ${r.message}`).toBe('ok');
const root = (g: GovChain) => bytesToHex(g.state.root());
const seedOf = (k: (typeof CANDIDATES)[number], fields: { name?: string } = {}): Extract<GovOperation, { kind: GovOpKind.AdminSeedValidator }> => ({
  kind: GovOpKind.AdminSeedValidator,
  ...seedFor(k, { name: 'seeded-1', endpoint: 'seeded1.example.org:26656', bondWei: 5_000n * TOKEN, ...fields }),
});

/** A proposal by A approved by B; the chain at the approving block. */
function approved(g: GovChain, op: GovOperation = feeChange(7n)) {
  const p = g.propose(A, op);
  ok(g.one(p.tx));
  ok(g.one(g.approve(B, p.id)));
  return { id: p.id, approvedAtMs: g.timeMs };
}

describe('governance operations are refused with a clear error and no state change', () => {
  /** Applies `tx` in a block and checks the refusal, and that the block changed nothing but the head (and the signer's nonce). */
  const snapshot = (g: GovChain) =>
    JSON.stringify({ ops: g.state.governance.sortedKeys().map((k) => g.state.governance.get(k)), params: g.state.params(), halt: g.state.meta.get('halt') ?? null }, (_k, v) => (typeof v === 'bigint' ? String(v) : v));

  /** Applies `tx` in a block and checks the refusal, and that the governance records, the parameters and the halt are as before. */
  function refusedWithoutChange(g: GovChain, tx: ReturnType<GovChain['approve']>, status: number, code: string) {
    const before = snapshot(g);
    const r = g.one(tx);
    expect(failure(r)).toEqual({ status, code });
    expect(snapshot(g)).toBe(before);
    return r;
  }

  it('one signature: the proposal alone never executes, even long after the timelock', () => {
    const g = new GovChain();
    const p = g.propose(A, feeChange(7n));
    ok(g.one(p.tx));
    refusedWithoutChange(g, g.execute(A, p.id), 422, 'OPERATION_STATE');
    g.block([], g.timeMs + ROUTINE_MS * 2);
    refusedWithoutChange(g, g.execute(C, p.id), 422, 'OPERATION_STATE');
    // The proposer's own approval is not a second signature.
    refusedWithoutChange(g, g.approve(A, p.id), 403, 'SAME_OWNER');
    expect(g.state.governance.get(p.id)!.state).toBe('proposed');
  });

  it("a non-owner's proposal, approval, execution or cancel", () => {
    const g = new GovChain();
    const p = g.propose(TRADER, feeChange(7n));
    refusedWithoutChange(g, p.tx, 403, 'NOT_GOVERNANCE_OWNER');
    expect(g.state.governance.size).toBe(0);
    const { id } = approved(g);
    for (const t of [g.approve(TRADER, id), g.execute(TRADER, id), g.cancel(TRADER, id)]) refusedWithoutChange(g, t, 403, 'NOT_GOVERNANCE_OWNER');
  });

  it('executed before its timelock: refused until the block time reaches readyAtMs, then taken', () => {
    const g = new GovChain();
    const { id, approvedAtMs } = approved(g);
    expect(g.state.governance.get(id)!.context.readyAtMs).toBe(approvedAtMs + ROUTINE_MS);
    refusedWithoutChange(g, g.execute(C, id), 422, 'TIMELOCK_NOT_PASSED');
    // One millisecond before: still refused.
    const early = g.one(g.execute(C, id), approvedAtMs + ROUTINE_MS - 1);
    expect(failure(early)).toEqual({ status: 422, code: 'TIMELOCK_NOT_PASSED' });
    ok(g.one(g.execute(C, id), approvedAtMs + ROUTINE_MS));
    const rec = g.state.governance.get(id)!;
    expect(rec).toMatchObject({ state: 'executed', proposer: A.address, approver: B.address, closedBy: C.address, executedHeight: g.state.head().height });
  });

  it('executed twice, approved twice, or acted on after cancel', () => {
    const g = new GovChain();
    const { id, approvedAtMs } = approved(g);
    refusedWithoutChange(g, g.approve(C, id), 422, 'OPERATION_STATE');
    ok(g.one(g.execute(A, id), approvedAtMs + ROUTINE_MS));
    refusedWithoutChange(g, g.execute(B, id), 422, 'OPERATION_STATE');
    refusedWithoutChange(g, g.cancel(B, id), 422, 'OPERATION_STATE');
    const second = approved(g, feeChange(9n));
    ok(g.one(g.cancel(C, second.id)));
    expect(g.state.governance.get(second.id)).toMatchObject({ state: 'approved', cancelRequestedBy: C.address });
    ok(g.one(g.cancel(A, second.id)));
    expect(g.state.governance.get(second.id)).toMatchObject({ state: 'cancelled', closedBy: A.address });
    refusedWithoutChange(g, g.execute(A, second.id), 422, 'OPERATION_STATE');
  });

  it('replayed with another chain id: the transaction of another chain, or a signature made for one', () => {
    const g = new GovChain();
    const other = g.chainId + 1;
    refusedWithoutChange(g, g.propose(A, feeChange(7n), { txChainId: other }).tx, 400, 'WRONG_CHAIN');
    refusedWithoutChange(g, g.propose(A, feeChange(7n), { signChainId: other }).tx, 401, 'INVALID_SIGNATURE');
    const p = g.propose(A, feeChange(7n));
    ok(g.one(p.tx));
    refusedWithoutChange(g, g.approve(B, p.id, { signChainId: other }), 401, 'INVALID_SIGNATURE');
    // An operation proposed on another chain has another id: unknown here.
    const foreign = g.propose(A, feeChange(7n), { signChainId: other });
    expect(foreign.id).not.toBe(p.id);
    refusedWithoutChange(g, g.approve(B, foreign.id), 404, 'UNKNOWN_OPERATION');
    expect(g.state.governance.get(p.id)!.state).toBe('proposed');
  });

  it('a parameter out of range, or a seed validator of bad fields, is refused by its shape', () => {
    const g = new GovChain();
    refusedWithoutChange(g, g.propose(A, feeChange(10_001n)).tx, 400, 'INVALID_OPERATION');
    refusedWithoutChange(g, g.propose(A, seedOf(CANDIDATES[1], { name: 'two words' })).tx, 400, 'INVALID_VALIDATOR');
    refusedWithoutChange(g, g.propose(A, { ...seedOf(CANDIDATES[1]), ecdsaPubkey: CANDIDATES[2].ecdsaPubkey }).tx, 400, 'INVALID_VALIDATOR');
  });
});

describe('block time drives the machine', () => {
  it('an approved operation is ready at readyAtMs and expires timelockHighImpactMs after, unexecuted', () => {
    const g = new GovChain();
    const { id, approvedAtMs } = approved(g);
    const rec = g.state.governance.get(id)!;
    expect(operationStateAt(rec, approvedAtMs + ROUTINE_MS - 1).state).toBe('approved');
    expect(operationStateAt(rec, approvedAtMs + ROUTINE_MS).state).toBe('ready');
    const expiry = rec.context.expiresAtMs;
    expect(expiry).toBe(rec.context.proposedAtMs + ROUTINE_MS + HIGH_IMPACT_MS);
    expect(operationStateAt(rec, expiry).state).toBe('expired');
    const r = g.one(g.execute(A, id), expiry);
    expect(failure(r)).toEqual({ status: 422, code: 'OPERATION_STATE' });
    // The refused transaction stored nothing: the record is as approved, expired only as read at a time.
    expect(g.state.governance.get(id)!.state).toBe('approved');
  });
});

describe('halt and resume', () => {
  it('a halt approved by a second owner executes at once and stops orders later in the same block, and withdrawals; cancels and the faucet go on', () => {
    const g = new GovChain();
    const halt = g.propose(A, { kind: GovOpKind.Halt });
    ok(g.one(halt.tx));
    const before = g.order(TRADER);
    const res = g.block([before, g.approve(C, halt.id), g.order(TRADER), g.withdraw(TRADER, 5_000_000n), g.faucet(TRADER.address, 1_000_000n)]).receipts;
    ok(res[0]);
    ok(res[1]);
    expect(g.state.governance.get(halt.id)).toMatchObject({ state: 'executed', approver: C.address, closedBy: C.address });
    expect(failure(res[2])).toEqual({ status: 422, code: 'CHAIN_HALTED' });
    expect(failure(res[3])).toEqual({ status: 422, code: 'CHAIN_HALTED' });
    ok(res[4]);
    expect(g.state.meta.get('halt')).toEqual({ operationId: halt.id, height: g.state.head().height });
    // Still halted in the next block.
    expect(failure(g.one(g.order(TRADER)))).toEqual({ status: 422, code: 'CHAIN_HALTED' });

    // Resume goes through the routine timelock.
    const resume = g.propose(B, { kind: GovOpKind.Resume });
    ok(g.one(resume.tx));
    ok(g.one(g.approve(A, resume.id)));
    const approvedAt = g.timeMs;
    expect(failure(g.one(g.execute(A, resume.id)))).toEqual({ status: 422, code: 'TIMELOCK_NOT_PASSED' });
    expect(failure(g.one(g.order(TRADER)))).toEqual({ status: 422, code: 'CHAIN_HALTED' });
    ok(g.one(g.execute(B, resume.id), approvedAt + ROUTINE_MS));
    expect(g.state.meta.get('halt')).toBeUndefined();
    ok(g.one(g.order(TRADER)));
    ok(g.one(g.withdraw(TRADER, 5_000_000n)));
  });

  it('a halt moves no funds: the accounts and the supply are as before it', () => {
    const g = new GovChain();
    const accounts = () => [...g.state.accounts.sortedKeys()].map((k) => [k, g.state.accounts.get(k)]);
    const before = { accounts: accounts(), supply: g.state.supply(), owners: g.state.params().owners };
    const halt = g.propose(A, { kind: GovOpKind.Halt });
    ok(g.one(halt.tx));
    ok(g.one(g.approve(B, halt.id)));
    expect({ accounts: accounts(), supply: g.state.supply(), owners: g.state.params().owners }).toEqual(before);
  });
});

describe('a parameter change', () => {
  it('takes effect from the block after its execution, the same on two states applying the same blocks', () => {
    const g1 = new GovChain();
    const g2 = new GovChain();
    const op: GovOperation = { kind: GovOpKind.SetParam, param: GovParam.WithdrawalFeeUsdc, value: 3_000_000n };
    const p = g1.propose(A, op);
    const ap = g1.approve(B, p.id);
    const ex = g1.execute(C, p.id);
    const w1 = g1.withdraw(TRADER, 5_000_000n);
    const w2 = g1.withdraw(TRADER, 5_000_000n);
    const plan: [typeof p.tx[], number][] = [
      [[p.tx], 1000],
      [[ap], 2000],
      [[ex, w1], 2000 + ROUTINE_MS],
      [[w2], 3000 + ROUTINE_MS],
    ];
    const t0 = g1.timeMs;
    for (const [txs, dt] of plan) {
      const r1 = g1.block(txs, t0 + dt);
      const r2 = g2.block(txs, t0 + dt);
      expect(r1.receipts.map((r) => r.status)).toEqual(txs.map(() => 'ok'));
      expect(root(g1)).toBe(root(g2));
      expect(r1.receipts).toEqual(r2.receipts);
    }
    const fees = [...g1.state.withdrawals.sortedKeys()].map((k) => g1.state.withdrawals.get(k)!.fee);
    // The withdrawal in the executing block pays the old fee (1 USDC), the next the new one.
    expect(fees).toEqual([1_000_000n, 3_000_000n]);
    expect(g1.state.params().fees.withdrawalFeeUsdc).toBe(3_000_000n);
  });
});

describe('AdminSeedValidator by two owners after the timelock', () => {
  it('registers the validator, funded by the funder named', () => {
    const g = new GovChain();
    const k = CANDIDATES[0];
    const { id, approvedAtMs } = approved(g, seedOf(k));
    expect(validatorRecord(g.state, k.address)).toBeUndefined();
    ok(g.one(g.execute(A, id), approvedAtMs + ROUTINE_MS));
    expect(validatorRecord(g.state, k.address)).toMatchObject({ status: 'registered', name: 'seeded-1' });
    expect(validatorRecord(g.state, k.address)!.context.lockedWei).toBe(5_000n * TOKEN);
  });

  it('an execution the state refuses (the validator exists by then) changes nothing and leaves the operation ready to cancel', () => {
    const g = new GovChain();
    const k = CANDIDATES[1];
    const first = approved(g, seedOf(k));
    const second = approved(g, seedOf(k, { name: 'seeded-2' }));
    ok(g.one(g.execute(A, first.id), second.approvedAtMs + ROUTINE_MS));
    const r = g.one(g.execute(A, second.id));
    expect(failure(r)).toEqual({ status: 409, code: 'VALIDATOR_EXISTS' });
    expect(validatorRecord(g.state, k.address)!.name).toBe('seeded-1');
    expect(operationStateAt(g.state.governance.get(second.id)!, g.timeMs).state).toBe('ready');
    ok(g.one(g.cancel(B, second.id)));
    ok(g.one(g.cancel(C, second.id)));
    expect(g.state.governance.get(second.id)!.state).toBe('cancelled');
  });

  it('records decode to what was stored (a restarted node loads them)', () => {
    const g = new GovChain();
    approved(g, seedOf(CANDIDATES[2]));
    approved(g, feeChange(3n));
    for (const id of g.state.governance.sortedKeys()) {
      const rec = g.state.governance.get(id)!;
      expect(governanceCodec.decode(governanceCodec.encode(rec))).toEqual(rec);
    }
  });
});
