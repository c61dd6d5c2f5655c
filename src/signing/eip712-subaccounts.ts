/**
 * Sub-account addresses, the digest binding a REST action to a sub-account, and the
 * EIP-712 typed data of sub-accounts (issue 24, decisions 93–94), in the exchange's domain
 * (src/signing/eip712.ts: name ExchangeSession, version 1, the chain id, the verifying
 * contract 0x…1002). Kept apart from the contract's table (EIP712_TYPES holds exactly the
 * contract's flat types) because these carry a `string` and a `bool` member:
 *   SubAccountCreate(address owner,string name,uint256 nonce)
 *   SubAccountTransfer(address owner,address subAccount,bool deposit,uint256 usdc,uint256 nonce)
 * With action options (src/signing/action-options.ts) the type gains a trailing
 * `string options` member (same name, so another type hash): the options are signed
 * only when present. A string member is encoded as keccak256 of its UTF-8 bytes, a bool
 * as a 0/1 word (EIP-712 encodeData); test/subaccounts/typed-data.test.ts checks the
 * digests against viem's hashTypedData.
 */
import type { ActionOptions } from '../codec/txs/options';
import { bytesToHex, hexToBytes, utf8, type Address } from '../util/bytes';
import { optionsText } from './action-options';
import { typedDigest } from './eip712-struct';
import { keccak256 } from '../crypto/keccak';

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
 * signature that does not recover to the trader (src/state/accounts/subaccounts.ts restSigner).
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

/**
 * The EIP-712 digest (0x1901 ‖ domain separator ‖ hashStruct) the owner signs; with
 * options that are not empty the struct has the trailing `string options` member.
 */
export function hashSubAccountMessage<P extends SubAccountPrimaryType>(chainId: number, primaryType: P, message: SubAccountMessages[P], options?: ActionOptions): Uint8Array {
  const text = optionsText(options);
  const members = subAccountTypes(primaryType, text !== '')[primaryType];
  return typedDigest(chainId, primaryType, members, { ...message, ...(text !== '' ? { options: text } : {}) });
}
