/**
 * Execution rules of the native order kinds (NativePlace, NativeCancel): EIP-712
 * PlaceOrder / CancelOrder signed by the owner or its session key. Both go through
 * src/state/order-execution.ts, as the REST order kinds do (rest-orders.ts).
 */
import { verifyTyped } from './signature-checks';
import type { NativeCancelBody, NativePlaceBody } from '../../codec/txs/orders';
import type { TxOp } from '../context';
import { requireAgentMayOrder } from '../agents';
import { badRequest } from '../errors';
import { cancelOrder, placeOrder, validateOrder } from '../order-execution';

/*
 * Who may sign a native order or cancel is the `trader` signer rule (src/state/sessions.ts,
 * applied to every kind in ops/index.ts): the owner, or the owner's session key while it
 * is live at the block's time. An order signed by the session key is an agent order:
 * isAgent = signer ≠ owner, and placeOrder checks it against the owner's agent mode and caps.
 */

export const nativePlaceOp: TxOp<NativePlaceBody> = {
  shape(b) {
    if (b.side > 1) throw badRequest('INVALID_SIDE', 'side: must be Buy or Sell');
    if (b.orderType > 1) throw badRequest('INVALID_TYPE', 'order_type: must be Market or Limit');
    if (b.size === 0n) throw badRequest('INVALID_AMOUNT', 'size: must be positive');
  },
  bounds(state, b) {
    const pair = state.pairs.get(String(b.pairId));
    if (!pair) throw badRequest('UNKNOWN_PAIR', `pair_id: no pair ${b.pairId}`);
    validateOrder(pair, { side: b.side as 0 | 1, orderType: b.orderType as 0 | 1, price: b.price, size: b.size, leverage: b.leverage }, 'size');
  },
  verify(tx, chainId) {
    const b = tx.body;
    const message = {
      owner: b.owner, pairId: BigInt(b.pairId), side: BigInt(b.side), orderType: BigInt(b.orderType), price: b.price, size: b.size,
      leverage: BigInt(b.leverage), nonce: b.nonce,
    };
    return verifyTyped(chainId, 'PlaceOrder', message, b.signature, b.signer);
  },
  nonce: (b) => b.nonce,
  authorize(state, b, signer) {
    if (signer !== b.owner) requireAgentMayOrder(state, b.owner);
  },
  apply(ctx, tx, signer) {
    const b = tx.body;
    placeOrder(ctx, {
      owner: b.owner, signer, pairId: b.pairId, side: b.side as 0 | 1, orderType: b.orderType as 0 | 1, price: b.price, size: b.size,
      leverage: b.leverage, isAgent: signer !== b.owner,
    });
  },
};

export const nativeCancelOp: TxOp<NativeCancelBody> = {
  verify: (tx, chainId) => verifyTyped(chainId, 'CancelOrder', { owner: tx.body.owner, orderId: tx.body.orderId, nonce: tx.body.nonce }, tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    cancelOrder(ctx, tx.body.owner, tx.body.orderId);
  },
};
