/**
 * Sub-accounts (issue 24, decisions 93–94): an owner (the master) opens named
 * sub-accounts, moves USDC between itself and them, and trades as them. A sub-account is
 * an address with no private key: the last 20 bytes of
 *   keccak256(abi.encodePacked("exchange-subaccount", address master, uint256 index))
 * for the master's index 0, 1, 2, … in order of creation. It has its own balance, orders,
 * orderbook and perp positions, all keyed by that address like any account's.
 *
 * Storage: TableId.SubAccount, sub-account address → SubAccountRecord {master, name,
 * index, createdMs}. A master's list needs no second index: its sub-accounts are the
 * derived addresses of index 0, 1, … up to the first one that has no record (indexes
 * are given in order and a sub-account is never removed), so the list is read from
 * consensus state in index order.
 *
 * Who may sign for a sub-account (src/state/accounts/sessions.ts asks here): its master, for
 * every trading kind, and the master's live session key for the kinds a session key
 * may trade with (native orders, perps), whose orders are agent orders answering to the
 * master's agent mode and caps. Nobody signs as the sub-account itself (no key exists),
 * so it can neither withdraw, nor open a session, nor have sub-accounts, nor use the
 * pool: its funds leave only by a SubAccountTransfer back to the master.
 *
 * A REST action (POST /v1/order, …) names the account in `trader`, which the exchange
 * REST digests do not cover; for a sub-account the master therefore signs the digest
 * bound to it: keccak256(abi.encodePacked("exchange-subaccount-action", address
 * subAccount, bytes32 digest)), so a signature for one account cannot be replayed for
 * another of the same master (restSigner).
 */
import { recoverAddress, verifySigner } from '../../crypto/secp256k1';
import { derivedIndexOf, deriveSubAccount, subAccountActionDigest } from '../../signing/eip712-subaccounts';
import { restSigningHash } from '../../signing/exchange-digest';
import type { Address } from '../../util/bytes';
import type { ChainParams } from '../records';
import { forbidden, unauthorized } from '../errors';
import type { SubAccountRecord } from './subaccount-record';
import type { State } from '../state';

export { deriveSubAccount, subAccountActionDigest };

/** Sub-accounts a master may open when the genesis says nothing (limits.maxSubAccounts). */
const DEFAULT_MAX_SUB_ACCOUNTS = 10;
/** The largest limits.maxSubAccounts a genesis may set: bounds the stateless derivation checks. */
export const PROTOCOL_MAX_SUB_ACCOUNTS = 32;
/** 1–32 characters: letters, digits, `_`, `-`, `.`; unique per master ignoring letter case. */
export const SUB_ACCOUNT_NAME_RE = /^[A-Za-z0-9_.-]{1,32}$/;

export function maxSubAccounts(params: Pick<ChainParams, 'limits'>): number {
  return params.limits.maxSubAccounts ?? DEFAULT_MAX_SUB_ACCOUNTS;
}

/** Whether `account` is the derived address of one of `master`'s first `limit` indexes (stateless). */
export function isDerivedSubAccount(master: Address, account: Address, limit: number): boolean {
  return master !== account && derivedIndexOf(master, account, limit) >= 0;
}

/** The master of a sub-account, else undefined. */
export function masterOf(state: State, account: Address): Address | undefined {
  return state.subAccounts.get(account)?.master;
}

/** A master's sub-accounts in index order (the derived addresses up to the first without a record). */
export function subAccountsOf(state: State, master: Address): Array<SubAccountRecord & { address: Address }> {
  const out: Array<SubAccountRecord & { address: Address }> = [];
  for (let i = 0; i < PROTOCOL_MAX_SUB_ACCOUNTS; i++) {
    const address = deriveSubAccount(master, i);
    const rec = state.subAccounts.get(address);
    if (!rec || rec.master !== master) break;
    out.push({ address, ...rec });
  }
  return out;
}

/** `{ master }` for a sub-account, else nothing: the account read's extra field (GET /v1/account/{address}). */
export function subAccountMaster(state: State, account: Address): { master?: Address } {
  const master = masterOf(state, account);
  return master === undefined ? {} : { master };
}

/** The account whose session key and agent settings stand for `account`: its master, or itself. */
export function authorityOf(state: State, account: Address): Address {
  return masterOf(state, account) ?? account;
}

/** An agent order: signed by neither the account nor (for a sub-account) its master, so by a session key. */
export function isAgentSigner(state: State, owner: Address, signer: Address): boolean {
  return signer !== owner && signer !== masterOf(state, owner);
}

/** The signer rule's authorize (door and execution, before the nonce): an owner-signed kind signed by someone else must be signed by the account's master (403 otherwise). */
export function requireMasterSigner(state: State, kindName: string, owner: Address, signer: Address): void {
  if (signer !== owner && masterOf(state, owner) !== signer) {
    throw forbidden('OWNER_ONLY', `${kindName} must be signed by the owner ${owner} or its master, not ${signer}`);
  }
}

/**
 * Who signed an exchange REST action for `trader` (src/state/ops/rest-orders.ts): the
 * trader over the digest, or a master whose derived sub-account `trader` is over the
 * bound digest. Stateless (the signature check); that the sub-account exists is the
 * signer rule's authorize, before the nonce. 401 otherwise.
 */
export function restSigner(digest: Uint8Array, signature: Uint8Array, trader: Address): Address {
  if (verifySigner(restSigningHash(digest), signature, trader)) return trader;
  const bound = restSigningHash(subAccountActionDigest(trader, digest));
  for (const recovery of signature.length === 64 ? ([0, 1] as const) : ([undefined] as const)) {
    let candidate: Address | null = null;
    try {
      candidate = recoverAddress(bound, signature, recovery);
    } catch {
      candidate = null;
    }
    if (candidate !== null && isDerivedSubAccount(candidate, trader, PROTOCOL_MAX_SUB_ACCOUNTS)) return candidate;
  }
  throw unauthorized(`signature: does not recover to trader ${trader}`);
}
