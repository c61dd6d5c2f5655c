/**
 * EIP-712 with action options (issue 24, decision 90) for the contract's own types
 * (EIP712_TYPES: sessions, agent settings, withdraw, pool): when an action carries
 * options, its type gains a trailing `string options` member holding optionsText
 * (src/crypto/action-options.ts), same type name, so a different type hash:
 *   Withdraw(address owner,uint256 amount,address destination,uint256 nonce,string options)
 * Without options the digest is hashTypedMessage's, unchanged. The order types do the
 * same in src/crypto/eip712-orders.ts. test/timers/expires-after.test.ts checks the
 * digests against viem's hashTypedData.
 */
import type { ActionOptions } from '../codec/txs/options';
import { hexToBytes, utf8, type Hex } from '../util/bytes';
import { optionsText } from './action-options';
import { domainSeparator, EIP712_TYPES, hashTypedMessage, type Eip712Messages, type Eip712PrimaryType } from './eip712';
import { keccak256 } from './keccak';

const OPTIONS_MEMBER = Object.freeze({ name: 'options', type: 'string' } as const);

/** The members signed: the type's own, plus `string options` when there are options. */
export function typeMembersWithOptions(primaryType: Eip712PrimaryType, options: ActionOptions | undefined): readonly { name: string; type: string }[] {
  const base: readonly { name: string; type: string }[] = EIP712_TYPES[primaryType];
  return optionsText(options) === '' ? base : [...base, OPTIONS_MEMBER];
}

/** The viem `types` for signTypedData of `primaryType` with these options (the message then carries `options: optionsText`). */
export function typedDataTypesWithOptions(primaryType: Eip712PrimaryType, options: ActionOptions | undefined): Record<string, { name: string; type: string }[]> {
  return { [primaryType]: typeMembersWithOptions(primaryType, options).map((m) => ({ ...m })) };
}

function memberWord(type: string, name: string, v: unknown): Uint8Array {
  const out = new Uint8Array(32);
  if (type === 'address') {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new TypeError(`${name}: expected a 0x address of 20 bytes`);
    out.set(hexToBytes(v as Hex), 12);
    return out;
  }
  if (type === 'string') return keccak256(utf8.encode(v as string));
  const bits = BigInt(type.slice(4));
  if (typeof v !== 'bigint') throw new TypeError(`${name}: expected a bigint (${type})`);
  if (v < 0n || v >= 1n << bits) throw new RangeError(`${name}: ${v} out of range for ${type}`);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
}

/** The EIP-712 digest of `message` with `options`: hashTypedMessage's when there are none. */
export function hashTypedWithOptions<P extends Eip712PrimaryType>(chainId: number, primaryType: P, message: Eip712Messages[P], options: ActionOptions | undefined): Uint8Array {
  const text = optionsText(options);
  if (text === '') return hashTypedMessage(chainId, primaryType, message);
  const members = typeMembersWithOptions(primaryType, options);
  const values: Record<string, unknown> = { ...(message as unknown as Record<string, unknown>), options: text };
  const buf = new Uint8Array(32 * (members.length + 1));
  buf.set(keccak256(utf8.encode(`${primaryType}(${members.map((m) => `${m.type} ${m.name}`).join(',')})`)), 0);
  members.forEach((m, i) => buf.set(memberWord(m.type, `${primaryType}.${m.name}`, values[m.name]), 32 * (i + 1)));
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(domainSeparator(chainId), 2);
  digest.set(keccak256(buf), 34);
  return keccak256(digest);
}
