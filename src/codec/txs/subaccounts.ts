/**
 * Sub-account transactions (issue 24, decision 93): SubAccountCreate and
 * SubAccountTransfer, each the members of its EIP-712 type (src/signing/eip712-subaccounts.ts)
 * plus the signature, then the optional action-options trailer (src/codec/txs/options.ts;
 * only expiresAfter is accepted, the kinds' shape rule says so). Both are signed by the
 * owner (the master) itself: the signer rule is `owner` (src/state/accounts/sessions.ts).
 */
import type { Address } from '../../util/bytes';
import { registerTxKind, TxKind } from '../tx';
import { readOptions, writeOptions, type ActionOptions } from './options';

/** Longest sub-account name in bytes the codec reads (the shape rule allows 1–32 safe characters). */
const SUB_ACCOUNT_NAME_MAX_BYTES = 64;

/** EIP-712 SubAccountCreate {owner, name, nonce}: the owner opens its next sub-account. */
export interface SubAccountCreateBody {
  owner: Address;
  name: string;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** EIP-712 SubAccountTransfer {owner, subAccount, deposit, usdc, nonce}: deposit moves master → sub, else sub → master. */
export interface SubAccountTransferBody {
  owner: Address;
  subAccount: Address;
  deposit: boolean;
  /** USDC units (6 decimals). */
  usdc: bigint;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

registerTxKind<SubAccountCreateBody>({
  kind: TxKind.SubAccountCreate,
  name: 'SubAccountCreate',
  encodeBody(w, b) {
    w.address(b.owner).string(b.name).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const body: SubAccountCreateBody = { owner: r.address(), name: r.string(SUB_ACCOUNT_NAME_MAX_BYTES), nonce: r.big(), signature: r.signature() };
    const options = readOptions(r);
    return Object.keys(options).length > 0 ? { ...body, options } : body;
  },
});

registerTxKind<SubAccountTransferBody>({
  kind: TxKind.SubAccountTransfer,
  name: 'SubAccountTransfer',
  encodeBody(w, b) {
    w.address(b.owner).address(b.subAccount).bool(b.deposit).big(b.usdc).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const body: SubAccountTransferBody = { owner: r.address(), subAccount: r.address(), deposit: r.bool(), usdc: r.big(), nonce: r.big(), signature: r.signature() };
    const options = readOptions(r);
    return Object.keys(options).length > 0 ? { ...body, options } : body;
  },
});
