/**
 * A native-token transfer from an Ethereum transaction. Ethereum's rules where they
 * apply: the nonce equals the sender's transaction count; the sender pays
 * 21,000 gas at the chain's gas price (genesis fees.gasPriceWei; EIP-1559 fee caps must
 * cover it, a legacy gas price must be at least it); the upfront cost
 * value + gasLimit × price must be covered. The fee goes to the fee account.
 */
import type { EthTxBody } from '../../codec/txs/eth';
import type { TxOp } from '../context';
import { badRequest, rejected, TxError } from '../errors';
import { ethSender, parseEthTransfer, TRANSFER_GAS } from '../eth-tx';

export const ethTxOp: TxOp<EthTxBody> = {
  shape(b, params) {
    const t = parseEthTransfer(b.raw, params.chainId);
    if (t.gas < TRANSFER_GAS) throw badRequest('INTRINSIC_GAS_TOO_LOW', `gas: a transfer needs ${TRANSFER_GAS}, got ${t.gas}`);
    if (t.maxFeePerGas < params.fees.gasPriceWei) {
      throw badRequest('FEE_TOO_LOW', `gas price ${t.maxFeePerGas} is below the chain's ${params.fees.gasPriceWei} wei`);
    }
  },
  verify: (tx, chainId) => ethSender(parseEthTransfer(tx.body.raw, chainId)),
  apply(ctx, tx, sender) {
    const { state, params } = ctx;
    const t = parseEthTransfer(tx.body.raw, params.chainId);
    const from = state.account(sender);
    if (t.nonce !== from.txCount) throw new TxError(409, 'NONCE_MISMATCH', `nonce ${t.nonce}, the sender's transaction count is ${from.txCount}`);
    const price = params.fees.gasPriceWei;
    if (from.nativeWei < t.value + t.gas * price) {
      throw rejected('INSUFFICIENT_FUNDS', `balance ${from.nativeWei} wei is below value + gas × price = ${t.value + t.gas * price}`);
    }
    const fee = TRANSFER_GAS * price;
    state.accounts.set(sender, { ...from, nativeWei: from.nativeWei - t.value - fee, txCount: from.txCount + 1 });
    const to = state.account(t.to);
    state.accounts.set(t.to, { ...to, nativeWei: to.nativeWei + t.value });
    const fa = state.account(params.feeAccount);
    state.accounts.set(params.feeAccount, { ...fa, nativeWei: fa.nativeWei + fee });
    ctx.emit({ type: 'Transfer', from: sender, to: t.to, value: t.value, gasUsed: TRANSFER_GAS, effectiveGasPrice: price });
  },
};
