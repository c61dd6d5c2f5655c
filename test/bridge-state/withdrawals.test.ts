/**
 * Bridge withdrawals in execution (issue 22 item 3; decision 83): the request sets
 * validUntilSec and `requested`; the validators' signatures over the v2 digest are
 * checked (a non-validator's, or one over a different amount, recipient, validUntil or
 * bridge, is refused 401, nothing changed); short of 2/3 it stays requested, at the
 * quorum it is signed; attested queued → submitted; paid: the lock ends, the fee goes to
 * the fee account, supply and ledger drop by the amount; void → refunded exactly once (a
 * second void, or a paid after the refund, changes nothing); the machine refuses events
 * in final states; a change of the active set is judged at the end of the block. The
 * reserve check holds after every block (harness applyAt).
 */
import { describe, expect, it } from 'vitest';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signWithdrawalSignatures, WithdrawalVoidReason } from '../../src/codec/txs/bridge';
import { unbondDigest } from '../../src/codec/txs/validators';
import { SECP256K1_N, signCompact64 } from '../../src/crypto/secp256k1';
import { genesisState } from '../../src/state/genesis';
import { hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS } from '../helpers/devnet';
import { bridgeLedger, hasAttested, pendingWithdrawals, reserveCheck, withdrawalsOf } from '../../src/state/bridge/reads';
import { findEvent } from '../../src/state/events';
import { TableId } from '../../src/state/records';
import type { State } from '../../src/state/state';
import type { Address } from '../../src/util/bytes';
import {
  applyAt,
  attestation,
  BASE,
  chainId,
  destination,
  freshState,
  outcomes,
  outsider,
  owner,
  paid,
  POWER,
  queued,
  signaturesTx,
  signers,
  T0,
  txHash,
  voided,
  withdrawalSignature,
  withdrawTx,
} from './harness';

const AMOUNT = 10_000_000n;
const FEE = BASE.fees.withdrawalFeeUsdc;
const feeAccount = BASE.feeAccount;

/** A three-validator chain with one withdrawal of AMOUNT requested at T0 + 1000. */
function withOneWithdrawal(): State {
  const state = freshState([POWER, POWER, POWER]);
  const r = applyAt(state, [withdrawTx(AMOUNT)], T0 + 1000);
  expect(outcomes(r)).toEqual(['ok']);
  return state;
}

const sig = (state: State, i: number, id = 1n) => signaturesTx(signers[i], [{ withdrawalId: id, signature: withdrawalSignature(state, signers[i], id) }]);

/** Signs withdrawal 1 by validators 0..2: signed. */
function signAll(state: State, at: number): void {
  applyAt(state, [sig(state, 0), sig(state, 1), sig(state, 2)], at);
  expect(state.withdrawals.get('1')!.status).toBe('signed');
}

describe('withdrawal request', () => {
  it('locks amount + fee, is requested, and is bound to validUntil = floor((block time + window) / 1000)', () => {
    const state = freshState([POWER, POWER, POWER]);
    const before = state.account(owner);
    applyAt(state, [withdrawTx(AMOUNT)], T0 + 1234);
    const w = state.withdrawals.get('1')!;
    expect(w).toMatchObject({ id: 1n, owner, amount: AMOUNT, fee: FEE, destination, status: 'requested', signatures: [], createdMs: T0 + 1234, updatedMs: T0 + 1234 });
    expect(w.validUntilSec).toBe(BigInt(Math.floor((T0 + 1234 + BASE.bridge!.withdrawalWindowMs) / 1000)));
    expect(state.account(owner).usdcLocked - before.usdcLocked).toBe(AMOUNT + FEE);
    expect(pendingWithdrawals(state).map((x) => x.id)).toEqual([1n]);
    expect(reserveCheck(state).pendingWithdrawals).toBe(AMOUNT + FEE);
  });

  it('without a bridge: the request is refused 422 BRIDGE_DISABLED and locks nothing; signatures are refused 422 BRIDGE_DISABLED', () => {
    const state = freshState([POWER, POWER, POWER], { bridge: false });
    const before = state.account(owner);
    const r = applyAt(state, [withdrawTx(AMOUNT)], T0 + 1000);
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([['BRIDGE_DISABLED', 422]]);
    expect(state.account(owner)).toEqual(before);
    expect(state.withdrawals.size).toBe(0);
    expect(pendingWithdrawals(state)).toEqual([]);
    const bogus = signaturesTx(signers[0], [{ withdrawalId: 1n, signature: signers[0].sign(new Uint8Array(32)) }]);
    expect(applyAt(state, [bogus], T0 + 2000).receipts.map((x) => [x.code, x.errorStatus])).toEqual([['BRIDGE_DISABLED', 422]]);
  });
});

describe('withdrawal signatures', () => {
  it('short of 2/3 it stays requested; the quorum signs it; signatures are kept ascending by validator', () => {
    const state = withOneWithdrawal();
    const r1 = applyAt(state, [sig(state, 2), sig(state, 0)], T0 + 2000);
    expect(outcomes(r1)).toEqual(['ok', 'ok']);
    // Exactly 2/3 of the power: still requested.
    expect(state.withdrawals.get('1')!.status).toBe('requested');
    const r2 = applyAt(state, [sig(state, 1)], T0 + 3000);
    const w = state.withdrawals.get('1')!;
    expect(w.status).toBe('signed');
    expect(w.updatedMs).toBe(T0 + 3000);
    expect(w.signatures.map((s) => s.validator)).toEqual([signers[0].address, signers[1].address, signers[2].address].sort());
    expect(findEvent(r2.receipts[0].events, 'WithdrawalSigned')).toEqual({ type: 'WithdrawalSigned', withdrawalId: '1', owner, signatures: 3 });
    // A fourth signature of the same validator is late (409); the funds never moved.
    expect(outcomes(applyAt(state, [sig(state, 1)], T0 + 4000))).toEqual(['ATTESTATION_STALE']);
    expect(state.account(owner).usdcLocked).toBe(AMOUNT + FEE);
  });

  it('refuses a non-validator’s, and signatures over a different amount, recipient, validUntil or bridge (401), changing nothing', () => {
    const state = withOneWithdrawal();
    const outsiderSig = signaturesTx(outsider, [{ withdrawalId: 1n, signature: withdrawalSignature(state, outsider, 1n) }]);
    const over = (tweak: Parameters<typeof withdrawalSignature>[3]) => signaturesTx(signers[0], [{ withdrawalId: 1n, signature: withdrawalSignature(state, signers[0], 1n, tweak) }]);
    // A validator's item signed by another key, under the validator's own tx signature.
    const foreignItem = signaturesTx(signers[0], [{ withdrawalId: 1n, signature: withdrawalSignature(state, signers[1], 1n) }]);
    // The validator's own signature in its high-s twin (s → n − s, v flipped): the contract refuses those, so here too.
    const good = withdrawalSignature(state, signers[0], 1n);
    const highS = Uint8Array.from(good);
    const s = SECP256K1_N - BigInt(`0x${Buffer.from(good.subarray(32, 64)).toString('hex')}`);
    highS.set(Buffer.from(s.toString(16).padStart(64, '0'), 'hex'), 32);
    highS[64] = good[64] === 27 ? 28 : 27;
    const highSTx = signaturesTx(signers[0], [{ withdrawalId: 1n, signature: highS }]);
    const r = applyAt(
      state,
      [
        outsiderSig,
        over((m) => ({ ...m, amount: m.amount + 1n })),
        over((m) => ({ ...m, recipient: '0x00000000000000000000000000000000000000e6' as Address })),
        over((m) => ({ ...m, validUntilSec: m.validUntilSec + 1n })),
        over((m) => ({ ...m, bridge: '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address })),
        over((m) => ({ ...m, externalChainId: 1n })),
        foreignItem,
        highSTx,
      ],
      T0 + 2000,
    );
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([
      ['NOT_VALIDATOR', 403],
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
    ]);
    expect(state.withdrawals.get('1')!.signatures).toEqual([]);
    expect(r.changes.some((c) => c.key[0] === TableId.Withdrawal)).toBe(false);
    // A forged transaction signature: another key claiming to be the validator.
    const forged = { ...signWithdrawalSignatures(chainId, { validator: outsider.address, items: [{ withdrawalId: 1n, signature: withdrawalSignature(state, signers[0], 1n) }] }, outsider), validator: signers[0].address };
    expect(applyAt(state, [encodeTx(chainId, TxKind.WithdrawalSignatures, forged)], T0 + 3000).receipts.map((x) => [x.code, x.errorStatus])).toEqual([['INVALID_SIGNATURE', 401]]);
    // An unknown withdrawal: 422.
    const unknown = signaturesTx(signers[0], [{ withdrawalId: 9n, signature: signers[0].sign(new Uint8Array(32)) }]);
    expect(applyAt(state, [unknown], T0 + 4000).receipts.map((x) => [x.code, x.errorStatus])).toEqual([['UNKNOWN_WITHDRAWAL', 422]]);
  });
});

describe('withdrawal outcomes', () => {
  it('signed → submitted (quorum of queued) → paid: the lock ends, the fee to the fee account, supply and ledger drop by the amount', () => {
    const state = withOneWithdrawal();
    signAll(state, T0 + 2000);
    const feeBefore = state.account(feeAccount).usdcFree;
    const supplyBefore = state.supply().usdc;
    const q = queued(state, 1n, txHash(0x51));
    applyAt(state, [attestation(signers[0], [q]), attestation(signers[1], [q])], T0 + 3000);
    expect(state.withdrawals.get('1')!.status).toBe('signed'); // 2 of 3: exactly 2/3
    const r = applyAt(state, [attestation(signers[2], [q])], T0 + 4000);
    expect(state.withdrawals.get('1')).toMatchObject({ status: 'submitted', queuedTx: txHash(0x51), updatedMs: T0 + 4000 });
    expect(findEvent(r.receipts[0].events, 'WithdrawalSubmitted')).toMatchObject({ withdrawalId: '1', externalTx: `0x${'51'.repeat(32)}` });
    expect(hasAttested(state, signers[0].address, q)).toBe(true); // settled: the machine takes no QUEUED in submitted

    const p = paid(state, 1n, txHash(0x52));
    const r2 = applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [p])), T0 + 5000);
    expect(outcomes(r2)).toEqual(['ok', 'ok', 'ok']);
    expect(state.withdrawals.get('1')).toMatchObject({ status: 'paid', paidTx: txHash(0x52), queuedTx: txHash(0x51) });
    expect(state.account(owner).usdcLocked).toBe(0n);
    expect(state.account(feeAccount).usdcFree - feeBefore).toBe(FEE);
    expect(supplyBefore - state.supply().usdc).toBe(AMOUNT);
    expect(bridgeLedger(state).withdrawalsPaid).toBe(AMOUNT);
    expect(findEvent(r2.receipts[2].events, 'WithdrawalPaid')).toEqual({ type: 'WithdrawalPaid', withdrawalId: '1', owner, amount: AMOUNT, fee: FEE, externalTx: `0x${'52'.repeat(32)}` });
    expect(pendingWithdrawals(state)).toEqual([]);
    expect(reserveCheck(state)).toMatchObject({ difference: 0n, pendingWithdrawals: 0n });
    // Final: stays listed; every later claim is late; nothing moves.
    expect(withdrawalsOf(state, owner).map((w) => [w.id, w.status])).toEqual([[1n, 'paid']]);
    expect(outcomes(applyAt(state, [attestation(signers[0], [voided(1n)]), attestation(signers[1], [paid(state, 1n, txHash(0x53))])], T0 + 6000))).toEqual([
      'ATTESTATION_STALE',
      'ATTESTATION_STALE',
    ]);
    expect(state.bridgeVotes.size).toBe(0);
  });

  it('PAID straight from signed (queueing and payout seen in one scan)', () => {
    const state = withOneWithdrawal();
    signAll(state, T0 + 2000);
    applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [paid(state, 1n)])), T0 + 3000);
    expect(state.withdrawals.get('1')!.status).toBe('paid');
    expect(state.withdrawals.get('1')!.queuedTx).toBeUndefined();
  });

  it('void → refunded exactly once: amount + fee back to free; a second void or a paid after the refund changes nothing', () => {
    const state = withOneWithdrawal();
    const free0 = state.account(owner).usdcFree;
    signAll(state, T0 + 2000);
    const v = voided(1n, WithdrawalVoidReason.Cancelled, txHash(0x77));
    // Votes for paid are pending when the void reaches its quorum: they are cleared with it.
    applyAt(state, [attestation(signers[0], [paid(state, 1n)])], T0 + 2500);
    const r = applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [v])), T0 + 3000);
    expect(state.withdrawals.get('1')).toMatchObject({ status: 'refunded', voidReason: WithdrawalVoidReason.Cancelled, voidTx: txHash(0x77) });
    expect(state.account(owner).usdcFree - free0).toBe(AMOUNT + FEE);
    expect(state.account(owner).usdcLocked).toBe(0n);
    expect(findEvent(r.receipts[2].events, 'WithdrawalRefunded')).toEqual({
      type: 'WithdrawalRefunded',
      withdrawalId: '1',
      owner,
      amount: AMOUNT,
      fee: FEE,
      reason: 'cancelled',
      externalTx: `0x${'77'.repeat(32)}`,
    });
    expect(state.bridgeVotes.size).toBe(0);
    const after = state.account(owner);
    const supply = state.supply().usdc;
    const r2 = applyAt(
      state,
      [attestation(signers[1], [voided(1n)]), ...signers.slice(0, 3).map((s) => attestation(s, [paid(state, 1n)])), attestation(signers[2], [v])],
      T0 + 4000,
    );
    expect(outcomes(r2)).toEqual(['ATTESTATION_STALE', 'ATTESTATION_STALE', 'ATTESTATION_STALE', 'ATTESTATION_STALE', 'ATTESTATION_STALE']);
    expect(state.account(owner)).toEqual(after);
    expect(state.supply().usdc).toBe(supply);
    expect(state.withdrawals.get('1')!.status).toBe('refunded');
    // And signatures for a final withdrawal are late.
    expect(outcomes(applyAt(state, [sig(state, 0)], T0 + 5000))).toEqual(['ATTESTATION_STALE']);
  });

  it('an expired, never-signed withdrawal is refunded by a quorum of Void(Expired)', () => {
    const state = withOneWithdrawal();
    const r = applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [voided(1n)])), T0 + 700_000);
    expect(state.withdrawals.get('1')!.status).toBe('refunded');
    expect(findEvent(r.receipts[2].events, 'WithdrawalRefunded')).toMatchObject({ reason: 'expired', externalTx: `0x${'00'.repeat(32)}` });
  });

  it('claims the machine does not take in the record’s state are late; an unknown withdrawal is refused 422', () => {
    const state = withOneWithdrawal();
    // Requested: neither queued nor paid is taken (the contract cannot have queued it without our signatures).
    const r = applyAt(state, [attestation(signers[0], [queued(state, 1n)]), attestation(signers[0], [paid(state, 1n)]), attestation(signers[0], [queued(state, 2n)])], T0 + 2000);
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([
      ['ATTESTATION_STALE', 409],
      ['ATTESTATION_STALE', 409],
      ['UNKNOWN_WITHDRAWAL', 422],
    ]);
    expect(state.bridgeVotes.size).toBe(0);
  });

  it('withdrawalsOf lists an owner’s withdrawals newest first, final ones included', () => {
    const state = freshState([POWER, POWER, POWER]);
    applyAt(state, [withdrawTx(AMOUNT), withdrawTx(2n * AMOUNT)], T0 + 1000);
    applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [voided(1n)])), T0 + 2000);
    expect(withdrawalsOf(state, owner).map((w) => [w.id, w.status])).toEqual([
      [2n, 'requested'],
      [1n, 'refunded'],
    ]);
    expect(withdrawalsOf(state, destination)).toEqual([]);
  });
});

describe('a change of the active set', () => {
  it('signs at the end of the block whose epoch boundary drops a non-signer: the signers now pass 2/3', () => {
    const g = genesisWith3(3);
    const state = genesisState(g, new Uint8Array(32)).state;
    applyAt(state, [withdrawTx(AMOUNT)], T0 + 1000); // height 1
    // Height 2: validators 0 and 1 sign (exactly 2/3: requested); validator 2 unbonds.
    const key2 = hexToBytes(DEVNET_KEYS.validators[2].ecdsaPrivateKey);
    const unsigned = { validator: signers[2].address, nonce: 1n };
    const unbond = encodeTx(chainId, TxKind.Unbond, { ...unsigned, signature: signCompact64(unbondDigest(chainId, unsigned), key2) });
    const r2 = applyAt(state, [sig(state, 0), sig(state, 1), unbond], T0 + 2000);
    expect(outcomes(r2)).toEqual(['ok', 'ok', 'ok']);
    expect(state.withdrawals.get('1')!.status).toBe('requested');
    // Height 3 is the epoch boundary: validator 2 leaves the set, and the two signers hold all of its power.
    const r3 = applyAt(state, [], T0 + 3000);
    expect(state.withdrawals.get('1')!.status).toBe('signed');
    expect(findEvent(r3.blockEvents, 'WithdrawalSigned')).toMatchObject({ withdrawalId: '1', signatures: 2 });
  });
});

/** Three equal devnet validators with a 3-block epoch (the set is re-ranked at heights 3, 6, …). */
function genesisWith3(epochLengthBlocks: number) {
  const validators = BASE.validators.slice(0, 3).map((v) => ({ ...v, bondWei: POWER }));
  return { ...BASE, validators, consensus: { ...BASE.consensus, activeSetMin: 1, epochLengthBlocks, unbondingEpochs: 1 } };
}
