/**
 * Sub-account addresses, the digest binding a REST action to a sub-account, and the
 * EIP-712 typed data of sub-accounts (issue 24, decisions 93–94), in the exchange's domain
 * (src/crypto/eip712.ts: name ExchangeSession, version 1, the chain id, the verifying
 * contract 0x…1002). Kept apart from the contract's table (EIP712_TYPES holds exactly the
 * contract's flat types) because these carry a `string` and a `bool` member:
 *   SubAccountCreate(address owner,string name,uint256 nonce)
 *   SubAccountTransfer(address owner,address subAccount,bool deposit,uint256 usdc,uint256 nonce)
 * With action options (src/crypto/action-options.ts) the type gains a trailing
 * `string options` member (same name, so another type hash): the options are signed
 * only when present. A string member is encoded as keccak256 of its UTF-8 bytes, a bool
 * as a 0/1 word (EIP-712 encodeData); test/subaccounts/typed-data.test.ts checks the
 * digests against viem's hashTypedData.
 */
import type { ActionOptions } from '../codec/txs/options';
import { bytesToHex, hexToBytes, utf8, type Address } from '../util/bytes';
import { optionsText } from './action-options';
import { domainSeparator } from './eip712';
import { keccak256 } from './keccak';

const DERIVE_PREFIX = utf8.encode('exchange-subaccount');
const ACTION_PREFIX = utf8.encode('exchange-subaccount-action');

/** The address of a master's sub-account number `index`: keccak256(abi.encodePacked("exchange-subaccount", address master, uint256 index)), its last 20 bytes. */
export function deriveSubAccount(master: Address, index: number): Address {
  const buf = new Uint8Array(DERIVE_PREFIX.length + 20 + 32);
  buf.set(DERIVE_PREFIX, 0);
  buf.set(hexToBytes(master), DERIVE_PREFIX.length);
  new DataView(buf.buffer).setUint32(buf.length - 4, index);
  return bytesToHex(keccak256(buf).subarray(12)) as Address;
}

/**
 * The index whose derived address is `account` among `master`'s first `limit`, else -1.
 * One buffer and a byte compare per index: the REST signature check runs it on every
 * signature that does not recover to the trader (src/state/subaccounts.ts restSigner).
 */
export function derivedIndexOf(master: Address, account: Address, limit: number): number {
  const want = hexToBytes(account);
  const buf = new Uint8Array(DERIVE_PREFIX.length + 20 + 32);
  buf.set(DERIVE_PREFIX, 0);
  buf.set(hexToBytes(master), DERIVE_PREFIX.length);
  const view = new DataView(buf.buffer);
  for (let index = 0; index < limit; index++) {
    view.setUint32(buf.length - 4, index);
    const h = keccak256(buf);
    let same = true;
    for (let i = 0; i < 20 && same; i++) same = h[12 + i] === want[i];
    if (same) return index;
  }
  return -1;
}

/** The digest a master signs for a REST action of its sub-account: keccak256(abi.encodePacked("exchange-subaccount-action", address subAccount, bytes32 digest)). */
export function subAccountActionDigest(subAccount: Address, digest: Uint8Array): Uint8Array {
  const buf = new Uint8Array(ACTION_PREFIX.length + 20 + 32);
  buf.set(ACTION_PREFIX, 0);
  buf.set(hexToBytes(subAccount), ACTION_PREFIX.length);
  buf.set(digest, ACTION_PREFIX.length + 20);
  return keccak256(buf);
}

const CREATE_MEMBERS = [
  { name: 'owner', type: 'address' },
  { name: 'name', type: 'string' },
  { name: 'nonce', type: 'uint256' },
] as const;

const TRANSFER_MEMBERS = [
  { name: 'owner', type: 'address' },
  { name: 'subAccount', type: 'address' },
  { name: 'deposit', type: 'bool' },
  { name: 'usdc', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
] as const;

const OPTIONS_MEMBER = { name: 'options', type: 'string' } as const;

type Member = { readonly name: string; readonly type: 'address' | 'string' | 'bool' | 'uint256' };

/** The viem `types` object of a sub-account action, with or without the options member. */
export function subAccountTypes(primaryType: SubAccountPrimaryType, withOptions: boolean): Record<string, Member[]> {
  const base: readonly Member[] = primaryType === 'SubAccountCreate' ? CREATE_MEMBERS : TRANSFER_MEMBERS;
  return { [primaryType]: withOptions ? [...base, OPTIONS_MEMBER] : [...base] };
}

export type SubAccountPrimaryType = 'SubAccountCreate' | 'SubAccountTransfer';

export interface SubAccountCreateMessage {
  owner: Address;
  name: string;
  nonce: bigint;
}

export interface SubAccountTransferMessage {
  owner: Address;
  subAccount: Address;
  deposit: boolean;
  usdc: bigint;
  nonce: bigint;
}

export interface SubAccountMessages {
  SubAccountCreate: SubAccountCreateMessage;
  SubAccountTransfer: SubAccountTransferMessage;
}

const typeHashes = new Map<string, Uint8Array>();
function typeHashOf(primaryType: SubAccountPrimaryType, withOptions: boolean): Uint8Array {
  const key = `${primaryType}:${withOptions}`;
  let h = typeHashes.get(key);
  if (!h) {
    const members = subAccountTypes(primaryType, withOptions)[primaryType];
    h = keccak256(utf8.encode(`${primaryType}(${members.map((m) => `${m.type} ${m.name}`).join(',')})`));
    typeHashes.set(key, h);
  }
  return h;
}

function word(value: bigint, field: string): Uint8Array {
  if (value < 0n || value >= 1n << 256n) throw new RangeError(`${field}: ${value} is not a uint256`);
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function encodeMember(m: Member, v: unknown): Uint8Array {
  switch (m.type) {
    case 'address': {
      if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new TypeError(`${m.name}: not an address`);
      const out = new Uint8Array(32);
      out.set(Buffer.from(v.slice(2), 'hex'), 12);
      return out;
    }
    case 'string':
      if (typeof v !== 'string') throw new TypeError(`${m.name}: not a string`);
      return keccak256(utf8.encode(v));
    case 'bool':
      if (typeof v !== 'boolean') throw new TypeError(`${m.name}: not a boolean`);
      return word(v ? 1n : 0n, m.name);
    case 'uint256':
      if (typeof v !== 'bigint') throw new TypeError(`${m.name}: not a bigint`);
      return word(v, m.name);
  }
}

/**
 * The EIP-712 digest (0x1901 ‖ domain separator ‖ hashStruct) the owner signs; with
 * options that are not empty the struct has the trailing `string options` member.
 */
export function hashSubAccountMessage<P extends SubAccountPrimaryType>(chainId: number, primaryType: P, message: SubAccountMessages[P], options?: ActionOptions): Uint8Array {
  const text = optionsText(options);
  const withOptions = text !== '';
  const members = subAccountTypes(primaryType, withOptions)[primaryType];
  const values: Record<string, unknown> = { ...message, ...(withOptions ? { options: text } : {}) };
  const buf = new Uint8Array(32 * (members.length + 1));
  buf.set(typeHashOf(primaryType, withOptions), 0);
  members.forEach((m, i) => buf.set(encodeMember(m, values[m.name]), 32 * (i + 1)));
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(domainSeparator(chainId), 2);
  digest.set(keccak256(buf), 34);
  return keccak256(digest);
}
