/**
 * Execution rules of the native order kinds (NativePlace, NativeCancel, NativeModify,
 * NativeCancelByCloid): EIP-712 PlaceOrder / CancelOrder / ModifyOrder / CancelByCloid
 * signed by the owner or its session key; with options the type gains a trailing
 * `string options` member (src/signing/eip712-orders.ts). All go through
 * src/state/orders/execution.ts (modify: src/state/orders/modify.ts), as the REST order
 * kinds do (rest-orders.ts).
 */
import { verifyTyped } from './signature-checks';
import type { NativeCancelBody, NativeCancelByCloidBody, NativeModifyBody, NativePlaceBody } from '../../codec/txs/orders';
import { optionsText } from '../../signing/action-options';
import { hashOrderMessage, type OrderPrimaryType } from '../../signing/eip712-orders';
import { verifySigner } from '../../crypto/secp256k1';
import type { ActionOptions } from '../../codec/txs/options';
import type { Address } from '../../util/bytes';
import type { TxOp } from '../context';
import { requireAgentMayOrder } from '../accounts/agents';
import { badRequest, unauthorized } from '../errors';
import { cancelByCloid, cancelOrder, placeOrder, validateOrder } from '../orders/execution';
import { modifyOrder, requireAgentModify } from '../orders/modify';
import { ACTION_OPTIONS, orderOptions, PLACE_OPTIONS, requireOptions } from './rest-orders';
import { authorityOf, isAgentSigner } from '../accounts/subaccounts';

/*
 * Who may sign a native order or cancel is the `trader` signer rule (src/state/accounts/sessions.ts,
 * applied to every kind in ops/index.ts): the owner, or the owner's session key while it
 * is live at the block's time. An order signed by the session key is an agent order:
 * isAgent = signer ≠ owner, and placeOrder checks it against the owner's agent mode and caps.
 */

/** The typed message signed by `signer`, its options text appended as `string options` when not empty. */
function verifyOrderTyped(chainId: number, type: OrderPrimaryType, message: Record<string, unknown>, options: ActionOptions | undefined, signature: Uint8Array, signer: Address): Address {
  if (!verifySigner(hashOrderMessage(chainId, type, message, optionsText(options)), signature, signer)) throw unauthorized(`signature: does not recover to ${signer}`);
  return signer;
}

export const nativePlaceOp: TxOp<NativePlaceBody> = {
  shape(b) {
    if (b.side > 1) throw badRequest('INVALID_SIDE', 'side: must be Buy or Sell');
    if (b.orderType > 1) throw badRequest('INVALID_TYPE', 'order_type: must be Market or Limit');
    if (b.size === 0n) throw badRequest('INVALID_AMOUNT', 'size: must be positive');
    requireOptions(b.options, PLACE_OPTIONS, '', b.orderType as 0 | 1);
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
    if (optionsText(b.options) === '') return verifyTyped(chainId, 'PlaceOrder', message, b.signature, b.signer);
    return verifyOrderTyped(chainId, 'PlaceOrder', message, b.options, b.signature, b.signer);
  },
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  authorize(state, b, signer) {
    // A session key's order answers to its authority's agent mode (a sub-account's: its master's; decision 94).
    if (isAgentSigner(state, b.owner, signer)) requireAgentMayOrder(state, authorityOf(state, b.owner));
  },
  apply(ctx, tx, signer) {
    const b = tx.body;
    placeOrder(ctx, {
      owner: b.owner, signer, pairId: b.pairId, side: b.side as 0 | 1, orderType: b.orderType as 0 | 1, price: b.price, size: b.size,
      leverage: b.leverage, isAgent: isAgentSigner(ctx.state, b.owner, signer), ...orderOptions(b.options),
    });
  },
};

export const nativeCancelOp: TxOp<NativeCancelBody> = {
  shape: (b) => requireOptions(b.options, ACTION_OPTIONS),
  verify: (tx, chainId) => verifyOrderTyped(chainId, 'CancelOrder', { owner: tx.body.owner, orderId: tx.body.orderId, nonce: tx.body.nonce }, tx.body.options, tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    cancelOrder(ctx, tx.body.owner, tx.body.orderId);
  },
};

export const nativeModifyOp: TxOp<NativeModifyBody> = {
  shape(b) {
    if (b.orderId === 0n) throw badRequest('INVALID_ORDER_ID', 'order_id: must be a positive order id');
    if (b.price === 0n) throw badRequest('INVALID_PRICE', 'price: must be positive');
    if (b.size === 0n) throw badRequest('INVALID_AMOUNT', 'size: must be positive');
    requireOptions(b.options, ACTION_OPTIONS);
  },
  verify(tx, chainId) {
    const b = tx.body;
    return verifyOrderTyped(chainId, 'ModifyOrder', { owner: b.owner, orderId: b.orderId, price: b.price, size: b.size, nonce: b.nonce }, b.options, b.signature, b.signer);
  },
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  authorize(state, b, signer) {
    // A session key's modify answers to its authority's agent mode and caps, before the nonce (decision 102).
    requireAgentModify(state, { owner: b.owner, signer, orderId: b.orderId, price: b.price, size: b.size });
  },
  apply(ctx, tx, signer) {
    const b = tx.body;
    modifyOrder(ctx, { owner: b.owner, signer, orderId: b.orderId, price: b.price, size: b.size });
  },
};

export const nativeCancelByCloidOp: TxOp<NativeCancelByCloidBody> = {
  shape: (b) => requireOptions(b.options, ACTION_OPTIONS),
  verify: (tx, chainId) => verifyOrderTyped(chainId, 'CancelByCloid', { owner: tx.body.owner, cloid: tx.body.cloid, nonce: tx.body.nonce }, tx.body.options, tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    cancelByCloid(ctx, tx.body.owner, tx.body.cloid);
  },
};
