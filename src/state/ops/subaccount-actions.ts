/**
 * Execution rules of the sub-account kinds (issue 24, decision 93): SubAccountCreate opens
 * the master's next sub-account (address derived from master and index,
 * src/state/accounts/subaccounts.ts), SubAccountTransfer moves free USDC between the master and one
 * of its sub-accounts, never leaving the account it leaves below the margin its orderbook
 * positions require (422 MARGIN_REQUIRED, the withdrawal's rule). Both are owner-only (SIGNER_RULES, src/state/accounts/sessions.ts): the
 * master signs, never its session key. Both take the options trailer with expiresAfter
 * only (src/codec/txs/options.ts), whose expiry the rule of src/state/action-expiry.ts checks.
 */
import type { ActionOptions } from '../../codec/txs/options';
import type { SubAccountCreateBody, SubAccountTransferBody } from '../../codec/txs/subaccounts';
import { hashSubAccountMessage } from '../../signing/eip712-subaccounts';
import { verifySigner } from '../../crypto/secp256k1';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import { deriveSubAccount, maxSubAccounts, subAccountsOf, SUB_ACCOUNT_NAME_RE } from '../accounts/subaccounts';
import { credit, debitFree } from '../accounts/vault';
import { requireMarginAfter } from '../perps/margin';

/** USDC amounts fit a u128 (the largest any balance field takes on the wire). */
const MAX_TRANSFER_USDC = (1n << 128n) - 1n;

/** Only expiresAfter: a sub-account action places no order (400 INVALID_OPTIONS naming the option). */
function expiresAfterOnly(o: ActionOptions | undefined): void {
  if (!o) return;
  for (const key of ['cloid', 'tif', 'reduceOnly'] as const) {
    if (o[key] !== undefined) throw badRequest('INVALID_OPTIONS', `${key}: a sub-account action takes expiresAfter only`);
  }
}

/** Shape of a SubAccountCreate (400), shared with the API route. */
function subAccountCreateShape(b: Pick<SubAccountCreateBody, 'name' | 'options'>): void {
  if (!SUB_ACCOUNT_NAME_RE.test(b.name)) throw badRequest('INVALID_NAME', 'name: 1 to 32 characters of A-Z a-z 0-9 _ - .');
  expiresAfterOnly(b.options);
}

/** Shape of a SubAccountTransfer (400), shared with the API route. */
function subAccountTransferShape(b: Pick<SubAccountTransferBody, 'owner' | 'subAccount' | 'usdc' | 'options'>): void {
  if (b.subAccount === b.owner) throw badRequest('INVALID_WALLET', 'subAccount: must differ from the owner');
  if (b.usdc <= 0n || b.usdc > MAX_TRANSFER_USDC) throw badRequest('INVALID_AMOUNT', 'usdc: must be a positive amount of USDC units (6 decimals)');
  expiresAfterOnly(b.options);
}

export const subAccountCreateOp: TxOp<SubAccountCreateBody> = {
  shape: subAccountCreateShape,
  verify(tx, chainId) {
    const b = tx.body;
    const digest = hashSubAccountMessage(chainId, 'SubAccountCreate', { owner: b.owner, name: b.name, nonce: b.nonce }, b.options);
    if (!verifySigner(digest, b.signature, b.owner)) throw unauthorized(`signature: does not recover to ${b.owner}`);
    return b.owner;
  },
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    const { owner, name } = tx.body;
    const state = ctx.state;
    if (state.subAccounts.has(owner)) throw rejected('SUB_ACCOUNT_NESTED', `owner ${owner} is a sub-account: it cannot open sub-accounts`);
    const existing = subAccountsOf(state, owner);
    const limit = maxSubAccounts(ctx.params);
    if (existing.length >= limit) throw rejected('SUB_ACCOUNT_LIMIT', `owner ${owner} already has ${existing.length} sub-accounts (at most ${limit})`);
    const lower = name.toLowerCase();
    if (existing.some((s) => s.name.toLowerCase() === lower)) throw rejected('SUB_ACCOUNT_NAME_TAKEN', `name: ${owner} already has a sub-account named ${name}`);
    const index = existing.length;
    const subAccount = deriveSubAccount(owner, index);
    // Derived from a keccak: a record there already would be a collision, never a normal state.
    if (state.subAccounts.has(subAccount)) throw new Error(`sub-account address ${subAccount} already recorded`);
    state.subAccounts.set(subAccount, { master: owner, name, index, createdMs: ctx.header.timestampMs });
    ctx.emit({ type: 'SubAccountCreated', master: owner, subAccount, name, index });
  },
};

export const subAccountTransferOp: TxOp<SubAccountTransferBody> = {
  shape: subAccountTransferShape,
  verify(tx, chainId) {
    const b = tx.body;
    const message = { owner: b.owner, subAccount: b.subAccount, deposit: b.deposit, usdc: b.usdc, nonce: b.nonce };
    if (!verifySigner(hashSubAccountMessage(chainId, 'SubAccountTransfer', message, b.options), b.signature, b.owner)) throw unauthorized(`signature: does not recover to ${b.owner}`);
    return b.owner;
  },
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    const { owner, subAccount, deposit, usdc } = tx.body;
    const rec = ctx.state.subAccounts.get(subAccount);
    if (!rec) throw new TxError(404, 'UNKNOWN_SUB_ACCOUNT', `subAccount: ${subAccount} is not a sub-account`);
    if (rec.master !== owner) throw forbidden('NOT_MASTER', `subAccount: ${subAccount} is not a sub-account of ${owner}`);
    const [from, to] = deposit ? [owner, subAccount] : [subAccount, owner];
    debitFree(ctx.state, from, usdc);
    // Collateral leaving an account keeps the withdrawal's margin rule (decision 163): its
    // orderbook positions' losses may still draw on the free balance it leaves (a refusal
    // rolls the debit back with the transaction).
    requireMarginAfter(ctx.state, from, 0n, ctx.header.timestampMs, 'usdc');
    credit(ctx.state, to, usdc);
    ctx.emit({ type: 'SubAccountTransferred', master: owner, subAccount, deposit, usdc });
  },
};
