/**
 * EIP-712 typed data of the native order actions of issue 24 (decisions 87, 88), in the
 * exchange's domain (src/crypto/eip712.ts). Kept apart from the contract's own table
 * (EIP712_TYPES: exactly the types contract [D-signatures-native] gives), as the
 * governance types are (src/crypto/eip712-governance.ts):
 *   - ModifyOrder(address owner,uint256 orderId,uint256 price,uint256 size,uint256 nonce)
 *   - CancelByCloid(address owner,bytes16 cloid,uint256 nonce)
 *   - options: when an action carries options (src/codec/txs/options.ts) its type gains
 *     a trailing `string options` member holding optionsText (src/crypto/action-options.ts),
 *     same type name, so a different type hash; without options the type is unchanged.
 *     This applies to the contract's PlaceOrder and CancelOrder too.
 * Members are `address`, `uintN`, `bytes16` (left-aligned in its word) and `string`
 * (keccak256 of its UTF-8); test/trading/order-options.test.ts checks the digests
 * against viem's hashTypedData, and test/api/order-features.test.ts signs with viem.
 */
import { hexToBytes, utf8, type Address, type Hex } from '../util/bytes';
import { domainSeparator, EIP712_TYPES } from './eip712';
import { keccak256 } from './keccak';

interface Member {
  readonly name: string;
  readonly type: string;
}

export const ORDER_EIP712_TYPES = {
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

export interface ModifyOrderMessage {
  owner: Address;
  orderId: bigint;
  price: bigint;
  size: bigint;
  nonce: bigint;
}
export interface CancelByCloidMessage {
  owner: Address;
  cloid: Hex;
  nonce: bigint;
}

const OPTIONS_MEMBER: Member = Object.freeze({ name: 'options', type: 'string' });

/** The members signed: the type's own, plus `string options` when `optionsText` is not empty. */
export function orderTypeMembers(primaryType: OrderPrimaryType, optionsText: string): readonly Member[] {
  const base: readonly Member[] = ORDER_EIP712_TYPES[primaryType];
  return optionsText === '' ? base : [...base, OPTIONS_MEMBER];
}

/** The viem `types` object for signTypedData (message gets `options: optionsText` when not empty). */
export function orderTypedDataTypes(primaryType: OrderPrimaryType, optionsText: string): Record<string, Member[]> {
  return { [primaryType]: orderTypeMembers(primaryType, optionsText).map((m) => ({ ...m })) };
}

function word(value: unknown, bits: number, field: string): Uint8Array {
  if (typeof value !== 'bigint') throw new TypeError(`${field}: expected a bigint`);
  if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`${field}: ${value} is not a uint${bits}`);
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function memberWord(m: Member, v: unknown): Uint8Array {
  const out = new Uint8Array(32);
  if (m.type === 'address') {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new TypeError(`${m.name}: not an address`);
    out.set(hexToBytes(v as Hex), 12);
    return out;
  }
  if (m.type === 'bytes16') {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{32}$/.test(v)) throw new TypeError(`${m.name}: not 16 bytes of hex`);
    out.set(hexToBytes(v as Hex), 0);
    return out;
  }
  if (m.type === 'string') {
    if (typeof v !== 'string') throw new TypeError(`${m.name}: not a string`);
    return keccak256(utf8.encode(v));
  }
  return word(v, Number(m.type.slice(4)), m.name);
}

/** The EIP-712 digest (0x1901 ‖ domain separator ‖ hashStruct) of an order action, with its options text. */
export function hashOrderMessage(chainId: number, primaryType: OrderPrimaryType, message: Record<string, unknown>, optionsText: string): Uint8Array {
  const members = orderTypeMembers(primaryType, optionsText);
  const typeString = `${primaryType}(${members.map((m) => `${m.type} ${m.name}`).join(',')})`;
  const buf = new Uint8Array(32 * (members.length + 1));
  buf.set(keccak256(utf8.encode(typeString)), 0);
  const values = optionsText === '' ? message : { ...message, options: optionsText };
  members.forEach((m, i) => buf.set(memberWord(m, values[m.name]), 32 * (i + 1)));
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(domainSeparator(chainId), 2);
  digest.set(keccak256(buf), 34);
  return keccak256(digest);
}
