/**
 * A withdrawal request (contract [D-vault-withdraw]; decision 30): owner-signed EIP-712
 * Withdraw; `amount` is what the destination receives, at least the minimum withdrawal;
 * amount + fee move from free to locked when the request is final, where they stay until
 * the withdrawal is paid on the external chain or refunded (machines/withdrawal.ts,
 * src/state/bridge/withdrawals.ts; decision 83). On a network with a bridge it carries
 * validUntilSec = floor((block time + bridge.withdrawalWindowMs) / 1000): the last
 * second the contract queues or pays it. A network without a bridge (no genesis `bridge`
 * section) has nobody to pay it and no contract to expire it, so a request there is
 * refused 422 BRIDGE_DISABLED before anything is locked (decision 163): it would otherwise
 * lock amount + fee forever.
 */
import { verifyTyped } from './signature-checks';
import type { WithdrawBody } from '../../codec/txs/withdraw';
import type { TxOp } from '../context';
import { badRequest, rejected } from '../errors';
import { requireMarginAfter } from '../perps/margin';

export const withdrawOp: TxOp<WithdrawBody> = {
  shape(b, params) {
    if (b.amount < params.fees.minWithdrawalUsdc) {
      throw badRequest('BELOW_MINIMUM', `amount: the minimum withdrawal is ${params.fees.minWithdrawalUsdc} USDC units`);
    }
  },
  verify: (tx, chainId) =>
    verifyTyped(chainId, 'Withdraw', { owner: tx.body.owner, amount: tx.body.amount, destination: tx.body.destination, nonce: tx.body.nonce }, tx.body.signature, tx.body.signer, tx.body.options),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const { state, params } = ctx;
    const b = tx.body;
    if (!params.bridge) throw rejected('BRIDGE_DISABLED', 'this network has no bridge (genesis bridge section absent): nothing could pay a withdrawal');
    const fee = params.fees.withdrawalFeeUsdc;
    const a = state.account(b.owner);
    if (a.usdcFree < b.amount + fee) {
      throw rejected('INSUFFICIENT_BALANCE', `free balance ${a.usdcFree} is below amount + fee = ${b.amount + fee} USDC units`);
    }
    // Never below the margin requirement: what orderbook positions' losses may still take from free balance.
    requireMarginAfter(state, b.owner, b.amount + fee, ctx.header.timestampMs, 'amount');
    const id = (state.meta.get('nextWithdrawalId') as bigint | undefined) ?? 1n;
    state.meta.set('nextWithdrawalId', id + 1n);
    state.accounts.set(b.owner, { ...a, usdcFree: a.usdcFree - b.amount - fee, usdcLocked: a.usdcLocked + b.amount + fee });
    const nowMs = ctx.header.timestampMs;
    const validUntilSec = BigInt(Math.floor((nowMs + params.bridge.withdrawalWindowMs) / 1000));
    state.withdrawals.set(String(id), {
      id,
      owner: b.owner,
      amount: b.amount,
      fee,
      destination: b.destination,
      createdMs: nowMs,
      validUntilSec,
      status: 'requested',
      signatures: [],
      updatedMs: nowMs,
    });
    ctx.emit({ type: 'WithdrawalRequested', withdrawalId: String(id), owner: b.owner, amount: b.amount, fee, destination: b.destination });
  },
};
