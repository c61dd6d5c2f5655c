/**
 * EIP-712 typed data of the native order actions of issue 24 (decisions 87, 88), in the
 * exchange's domain (src/signing/eip712.ts). Kept apart from the contract's own table
 * (EIP712_TYPES: exactly the types contract [D-signatures-native] gives), as the
 * governance types are (src/signing/eip712-governance.ts):
 *   - ModifyOrder(address owner,uint256 orderId,uint256 price,uint256 size,uint256 nonce)
 *   - CancelByCloid(address owner,bytes16 cloid,uint256 nonce)
 *   - options: when an action carries options (src/codec/txs/options.ts) its type gains
 *     a trailing `string options` member holding optionsText (src/signing/action-options.ts),
 *     same type name, so a different type hash; without options the type is unchanged.
 *     This applies to the contract's PlaceOrder and CancelOrder too.
 * Members are `address`, `uintN`, `bytes16` (left-aligned in its word) and `string`
 * (keccak256 of its UTF-8); test/trading/order-options.test.ts checks the digests
 * against viem's hashTypedData, and test/api/order-features.test.ts signs with viem.
 */
import { EIP712_TYPES } from './eip712';
import { typedDigest, viemTypes, withOptionsMember, type Eip712Member } from './eip712-struct';

type Member = Eip712Member;

const ORDER_EIP712_TYPES = {
  PlaceOrder: EIP712_TYPES.PlaceOrder,
  CancelOrder: EIP712_TYPES.CancelOrder,
  ModifyOrder: [
    { name: 'owner', type: 'address' },
    { name: 'orderId', type: 'uint256' },
    { name: 'price', type: 'uint256' },
    { name: 'size', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  CancelByCloid: [
    { name: 'owner', type: 'address' },
    { name: 'cloid', type: 'bytes16' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const satisfies Record<string, readonly Member[]>;

export type OrderPrimaryType = keyof typeof ORDER_EIP712_TYPES;

/** The members signed: the type's own, plus `string options` when `optionsText` is not empty. */
function orderTypeMembers(primaryType: OrderPrimaryType, optionsText: string): readonly Member[] {
  return withOptionsMember(ORDER_EIP712_TYPES[primaryType], optionsText);
}

/** The viem `types` object for signTypedData (message gets `options: optionsText` when not empty). */
export function orderTypedDataTypes(primaryType: OrderPrimaryType, optionsText: string): Record<string, Member[]> {
  return viemTypes(primaryType, orderTypeMembers(primaryType, optionsText));
}

/** The EIP-712 digest (0x1901 ‖ domain separator ‖ hashStruct) of an order action, with its options text. */
export function hashOrderMessage(chainId: number, primaryType: OrderPrimaryType, message: Record<string, unknown>, optionsText: string): Uint8Array {
  return typedDigest(chainId, primaryType, orderTypeMembers(primaryType, optionsText), optionsText === '' ? message : { ...message, options: optionsText });
}
