/**
 * One EIP-712 struct encoder for the flat types of the exchange domain beyond the
 * contract's own table (src/signing/eip712.ts): the order actions, the governance
 * operations, the sub-account actions, and any type with the trailing `string options`
 * member of action options (decision 87). Members are flat: `address`, `bool`, `uintN`,
 * `bytesN` (left-aligned in its word) and `string` (keccak256 of its UTF-8). Each
 * caller keeps its own member table, the single source of its type string, its viem
 * `types` object and this encoding; the digests are checked against viem's
 * hashTypedData in the callers' tests.
 */
import { hexToBytes, utf8, type Address, type Hex } from '../util/bytes';
import { addressWord, uintWord } from '../crypto/abi-word';
import { domainSeparator } from './eip712';
import { keccak256 } from '../crypto/keccak';

export interface Eip712Member {
  readonly name: string;
  readonly type: string;
}

/** The trailing member a type gains when its action carries options (src/signing/action-options.ts). */
export const OPTIONS_MEMBER: Eip712Member = Object.freeze({ name: 'options', type: 'string' });

/** `members`, plus `string options` when `optionsText` is not empty. */
export function withOptionsMember(members: readonly Eip712Member[], optionsText: string): readonly Eip712Member[] {
  return optionsText === '' ? members : [...members, OPTIONS_MEMBER];
}

/** The viem `types` object of one flat type. */
export function viemTypes(primaryType: string, members: readonly Eip712Member[]): Record<string, { name: string; type: string }[]> {
  return { [primaryType]: members.map((m) => ({ name: m.name, type: m.type })) };
}

function uintMember(v: unknown, bits: number, field: string): Uint8Array {
  if (typeof v !== 'bigint') throw new TypeError(`${field}: expected a bigint (uint${bits})`);
  return uintWord(v, bits, field);
}

/** The 32-byte word of one member's value. */
export function memberWord(type: string, v: unknown, field: string): Uint8Array {
  if (type === 'address') {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new TypeError(`${field}: expected a 0x address of 20 bytes`);
    return addressWord(v as Address);
  }
  if (type === 'string') {
    if (typeof v !== 'string') throw new TypeError(`${field}: expected a string`);
    return keccak256(utf8.encode(v));
  }
  if (type === 'bool') {
    if (typeof v !== 'boolean') throw new TypeError(`${field}: expected a boolean`);
    return uintWord(v ? 1n : 0n, 8, field);
  }
  const bytes = /^bytes([1-9]|[12][0-9]|3[0-2])$/.exec(type);
  if (bytes) {
    const n = Number(bytes[1]);
    if (typeof v !== 'string' || !new RegExp(`^0x[0-9a-fA-F]{${2 * n}}$`).test(v)) throw new TypeError(`${field}: expected ${n} bytes of hex`);
    const out = new Uint8Array(32);
    out.set(hexToBytes(v as Hex), 0);
    return out;
  }
  const uint = /^uint(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)$/.exec(type);
  if (uint) return uintMember(v, Number(uint[1]), field);
  throw new TypeError(`${field}: EIP-712 member type ${type} is not one this encoder takes`);
}

const typeHashes = new Map<string, Uint8Array>();

/** keccak256 of `Type(member list)`, once per distinct type string. */
export function typeHash(primaryType: string, members: readonly Eip712Member[]): Uint8Array {
  const text = `${primaryType}(${members.map((m) => `${m.type} ${m.name}`).join(',')})`;
  let h = typeHashes.get(text);
  if (!h) typeHashes.set(text, (h = keccak256(utf8.encode(text))));
  return h;
}

/** The digest signed: keccak256(0x1901 ‖ domain separator ‖ hashStruct(values)). */
export function typedDigest(chainId: number, primaryType: string, members: readonly Eip712Member[], values: Record<string, unknown>): Uint8Array {
  const buf = new Uint8Array(32 * (members.length + 1));
  buf.set(typeHash(primaryType, members), 0);
  members.forEach((m, i) => buf.set(memberWord(m.type, values[m.name], `${primaryType}.${m.name}`), 32 * (i + 1)));
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(domainSeparator(chainId), 2);
  digest.set(keccak256(buf), 34);
  return keccak256(digest);
}
