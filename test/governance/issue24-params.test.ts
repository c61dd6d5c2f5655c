/**
 * Owner governance over issue 24's parameters:
 *  - the maker fee stays at most the taker fee (decision 113): a SetParam raising the
 *    maker fee above the taker fee, or lowering the taker fee below the maker fee, is
 *    refused at proposal 400 INVALID_OPERATION naming the parameter, and again at
 *    execution against the parameters then in force;
 *  - limits.maxSubAccounts, limits.scheduleCancelsPerDay and limits.twapSliceIntervalMs
 *    are governable (decision 114): ranges refused at proposal, and once executed each
 *    rules the next block (a lowered sub-account limit keeps the existing sub-accounts
 *    trading; a running TWAP keeps its slice count and spaces its later slices by the new
 *    interval).
 */
import { describe, expect, it } from 'vitest';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { GovOpKind, GovParam, type GovOperation } from '../../src/codec/txs/governance';
import { hashSubAccountMessage } from '../../src/signing/eip712-subaccounts';
import { placeOrderDigest, restSigningHash } from '../../src/signing/exchange-digest';
import { sign } from '../../src/crypto/secp256k1';
import { scheduleCancelDigest, twapPlaceDigest } from '../../src/signing/timer-digest';
import { deriveSubAccount, subAccountActionDigest } from '../../src/state/accounts/subaccounts';
import type { Address } from '../../src/util/bytes';
import { failure, GovChain, OWNERS, TRADER, type Signer } from './harness';

const [A, B, C] = OWNERS;
const ok = (r: { status: string; code?: string; message?: string }) => expect(r.status, `${r.code}: ${r.message}`).toBe('ok');
const setParam = (param: GovParam, value: bigint): GovOperation => ({ kind: GovOpKind.SetParam, param, value });

/** Proposed by A, approved by B, executed by C once its timelock has passed. */
function pass(g: GovChain, op: GovOperation): void {
  const p = g.propose(A, op);
  ok(g.one(p.tx));
  ok(g.one(g.approve(B, p.id)));
  ok(g.one(g.execute(C, p.id), g.state.governance.get(p.id)!.context.readyAtMs));
}

function refusedProposal(g: GovChain, op: GovOperation, message: RegExp): void {
  const r = g.one(g.propose(A, op).tx);
  expect(failure(r)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
  expect(r.message).toMatch(message);
}

describe('the maker fee stays at most the taker fee (decision 113)', () => {
  it('refuses at proposal a maker fee above the taker fee and a taker fee below the maker fee; equal is accepted', () => {
    const g = new GovChain();
    const taker = BigInt(g.state.params().fees.takerFeeBps);
    refusedProposal(g, setParam(GovParam.MakerFeeBps, taker + 1n), new RegExp(`fees\\.makerFeeBps must be at most fees\\.takerFeeBps \\(${taker}\\), got ${taker + 1n}`));
    pass(g, setParam(GovParam.MakerFeeBps, taker));
    expect(BigInt(g.state.params().fees.makerFeeBps)).toBe(taker);
    refusedProposal(g, setParam(GovParam.TakerFeeBps, taker - 1n), new RegExp(`fees\\.takerFeeBps must be at least fees\\.makerFeeBps \\(${taker}\\)`));
    // Raising both, taker first, is the way up.
    pass(g, setParam(GovParam.TakerFeeBps, taker + 2n));
    pass(g, setParam(GovParam.MakerFeeBps, taker + 2n));
    expect(g.state.params().fees).toMatchObject({ makerFeeBps: Number(taker + 2n), takerFeeBps: Number(taker + 2n) });
  });

  it('is checked again at execution: a maker raise proposed before a taker cut is refused once the cut executed', () => {
    const g = new GovChain();
    const taker = BigInt(g.state.params().fees.takerFeeBps);
    expect(taker).toBeGreaterThan(1n);
    const raise = g.propose(A, setParam(GovParam.MakerFeeBps, taker));
    const cut = g.propose(A, setParam(GovParam.TakerFeeBps, taker - 1n));
    ok(g.one(raise.tx));
    ok(g.one(cut.tx));
    ok(g.one(g.approve(B, raise.id)));
    ok(g.one(g.approve(B, cut.id)));
    ok(g.one(g.execute(C, cut.id), g.state.governance.get(raise.id)!.context.readyAtMs + 1000));
    const r = g.one(g.execute(C, raise.id));
    expect(failure(r)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    expect(r.message).toMatch(/fees\.makerFeeBps must be at most fees\.takerFeeBps/);
    expect(g.state.params().fees.makerFeeBps).toBe(0);
  });
});

// ---- issue 24's limits ---------------------------------------------------------------

let nonce = 1_000n;
const bound = (by: Signer, trader: Address, digest: Uint8Array) => sign(restSigningHash(subAccountActionDigest(trader, digest)), by.priv);

function createSub(g: GovChain, by: Signer, name: string): Tx {
  const n = nonce++;
  const d = hashSubAccountMessage(g.chainId, 'SubAccountCreate', { owner: by.address, name, nonce: n });
  return encodeTx(g.chainId, TxKind.SubAccountCreate, { owner: by.address, name, nonce: n, signature: sign(d, by.priv) });
}
function fundSub(g: GovChain, by: Signer, subAccount: Address, usdc: bigint): Tx {
  const n = nonce++;
  const d = hashSubAccountMessage(g.chainId, 'SubAccountTransfer', { owner: by.address, subAccount, deposit: true, usdc, nonce: n });
  return encodeTx(g.chainId, TxKind.SubAccountTransfer, { owner: by.address, subAccount, deposit: true, usdc, nonce: n, signature: sign(d, by.priv) });
}
function restBuyFor(g: GovChain, by: Signer, trader: Address): Tx {
  const fields = { symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01', nonce: nonce++ };
  return encodeTx(g.chainId, TxKind.RestOrder, { trader, ...fields, signature: bound(by, trader, placeOrderDigest(fields)) });
}
function schedule(g: GovChain, by: Signer, timeMs: number): Tx {
  const n = nonce++;
  const t = BigInt(timeMs);
  return encodeTx(g.chainId, TxKind.ScheduleCancel, { trader: by.address, timeMs: t, nonce: n, signature: sign(restSigningHash(scheduleCancelDigest(t, n)), by.priv) });
}
function twap(g: GovChain, by: Signer, minutes: number): Tx {
  const fields = { symbol: 'ETH', side: 'buy', amount: '0.1', minutes, randomize: false, nonce: nonce++ };
  return encodeTx(g.chainId, TxKind.TwapPlace, { trader: by.address, ...fields, signature: sign(restSigningHash(twapPlaceDigest(fields)), by.priv) });
}

describe('issue 24\u2019s limits are governable (decision 114)', () => {
  it('refuses each out of its range at proposal, naming it', () => {
    const g = new GovChain();
    for (const [param, value, message] of [
      [GovParam.MaxSubAccounts, 0n, /limits\.maxSubAccounts must be from 1 to 32/],
      [GovParam.MaxSubAccounts, 33n, /limits\.maxSubAccounts must be from 1 to 32/],
      [GovParam.ScheduleCancelsPerDay, 0n, /limits\.scheduleCancelsPerDay must be from 1 to 10000/],
      [GovParam.ScheduleCancelsPerDay, 10_001n, /limits\.scheduleCancelsPerDay/],
      [GovParam.TwapSliceIntervalMs, 99n, /limits\.twapSliceIntervalMs must be from 100 to 3600000/],
      [GovParam.TwapSliceIntervalMs, 3_600_001n, /limits\.twapSliceIntervalMs/],
    ] as const) {
      refusedProposal(g, setParam(param, value), message);
    }
  });

  it('limits.maxSubAccounts: a lowered limit refuses new sub-accounts; the existing ones keep trading', () => {
    const g = new GovChain();
    const [s0, s1] = [0, 1].map((i) => deriveSubAccount(TRADER.address, i));
    ok(g.one(createSub(g, TRADER, 'one')));
    ok(g.one(createSub(g, TRADER, 'two')));
    ok(g.one(fundSub(g, TRADER, s1, 1_000_000_000n)));
    pass(g, setParam(GovParam.MaxSubAccounts, 1n));
    expect(g.state.params().limits.maxSubAccounts).toBe(1);
    const r = g.one(createSub(g, TRADER, 'three'));
    expect(failure(r)).toEqual({ status: 422, code: 'SUB_ACCOUNT_LIMIT' });
    // Index 1 is beyond the new limit, yet it exists: the master still trades for it.
    ok(g.one(restBuyFor(g, TRADER, s1)));
    expect([...(g.state.ownerOrders.get(s1) ?? [])]).toHaveLength(1);
    expect(s0).not.toBe(s1);
    pass(g, setParam(GovParam.MaxSubAccounts, 3n));
    ok(g.one(createSub(g, TRADER, 'three')));
  });

  it('limits.scheduleCancelsPerDay: once executed, the next schedule past it is refused SCHEDULE_LIMIT', () => {
    const g = new GovChain();
    pass(g, setParam(GovParam.ScheduleCancelsPerDay, 1n));
    expect(g.state.params().limits.scheduleCancelsPerDay).toBe(1);
    // The UTC day of the block time: keep both schedules inside the day of the head.
    const dayStart = g.timeMs - (g.timeMs % 86_400_000);
    const at = Math.max(g.timeMs + 1000, dayStart + 1000);
    expect(at).toBeLessThan(dayStart + 86_400_000 - 120_000);
    ok(g.one(schedule(g, TRADER, at + 60_000), at));
    const r = g.one(schedule(g, TRADER, at + 90_000), at + 1000);
    expect(failure(r)).toEqual({ status: 422, code: 'SCHEDULE_LIMIT' });
  });

  it('limits.twapSliceIntervalMs: a new TWAP is sliced by it; a running one keeps its slice count and spaces its later slices by it', () => {
    const g = new GovChain();
    const running = g.one(twap(g, TRADER, 5));
    ok(running);
    const runningId = (running.events.find((e) => e.type === 'TwapPlaced') as { twapId: string }).twapId;
    const before = g.state.twaps.get(runningId)!;
    expect(before.context.slicesTotal).toBe(10); // 5 minutes at the default 30 s
    pass(g, setParam(GovParam.TwapSliceIntervalMs, 60_000n));
    expect(g.state.params().limits.twapSliceIntervalMs).toBe(60_000);
    const placed = g.one(twap(g, TRADER, 5));
    ok(placed);
    const newId = (placed.events.find((e) => e.type === 'TwapPlaced') as { twapId: string; slicesTotal: number });
    expect(newId.slicesTotal).toBe(5);
    // The running TWAP: the slice due next is taken, and the one after is due 60 s after it.
    const rec = g.state.twaps.get(runningId)!;
    expect(rec.context.slicesTotal).toBe(10);
    const due = rec.context.nextSliceMs;
    g.block([], Math.max(due, g.timeMs + 1));
    const after = g.state.twaps.get(runningId)!;
    expect(after.context.nextSliceMs).toBe(due + 60_000);
  });
});
