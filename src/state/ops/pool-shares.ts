/**
 * Execution rules of the liquidity pool's kinds: PoolDeposit buys pool shares, PoolWithdraw
 * redeems them (src/state/perps/pool.ts, with the lock-up). EIP-712, owner-only: they move
 * funds, and a session key can only trade.
 */
import { verifyTyped } from './signature-checks';
import type { PoolDepositBody, PoolWithdrawBody } from '../../codec/txs/perps';
import type { TxOp } from '../context';
import { badRequest } from '../errors';
import { poolDeposit, poolWithdraw } from '../perps/pool';

export const poolDepositOp: TxOp<PoolDepositBody> = {
  shape(b) {
    if (b.amount === 0n) throw badRequest('INVALID_AMOUNT', 'amount: must be positive');
  },
  verify: (tx, chainId) => verifyTyped(chainId, 'PoolDeposit', { owner: tx.body.owner, amount: tx.body.amount, nonce: tx.body.nonce }, tx.body.signature, tx.body.signer, tx.body.options),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    poolDeposit(ctx, tx.body.owner, tx.body.amount);
  },
};

export const poolWithdrawOp: TxOp<PoolWithdrawBody> = {
  shape(b) {
    if (b.shares === 0n) throw badRequest('INVALID_SHARES', 'shares: must be positive');
  },
  verify: (tx, chainId) => verifyTyped(chainId, 'PoolWithdraw', { owner: tx.body.owner, shares: tx.body.shares, nonce: tx.body.nonce }, tx.body.signature, tx.body.signer, tx.body.options),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    poolWithdraw(ctx, tx.body.owner, tx.body.shares);
  },
};
