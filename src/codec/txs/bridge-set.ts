/**
 * BridgeSetSignatures (issue 37 items 1 and 3; decision 151): a validator's signatures
 * over the bridge validator sets and owner sets the chain recorded
 * (src/state/bridge/sets.ts), which the contract's updateValidatorSet and updateOwners
 * recover. No nonce, no fee, like WithdrawalSignatures: one signature per (validator,
 * set) is the replay protection.
 *   `address validator | u32 n | n × (u8 kind | big nonce | 65 signature) | 65 tx signature`
 *   kind 1: a validator set (its set nonce), 2: an owner set (its owner-set nonce). Items
 *   strictly ascending by (kind, nonce), nonces from 1, 1..MAX_SET_SIGNATURES of them.
 *   Signed with the validator's consensus key over a tagged hash bound to this chain's id.
 */
import { keccak256 } from '../../crypto/keccak';
import type { Address } from '../../util/bytes';
import { CodecError, Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';
import { checkV } from './bridge';

export enum BridgeSetKind {
  Validators = 1,
  Owners = 2,
}

export interface BridgeSetSignatureItem {
  kind: BridgeSetKind;
  /** The set's nonce (a validator set's, or an owner set's). */
  setNonce: bigint;
  /** 65 bytes: the validator's EIP-191 signature over the set's digest (src/signing/bridge-withdrawal.ts bridgeSetDigest, bridgeOwnersDigest). */
  signature: Uint8Array;
}

export interface BridgeSetSignaturesBody {
  validator: Address;
  /** Strictly ascending by setNonce. */
  items: BridgeSetSignatureItem[];
  /** The transaction's own signature (r‖s‖v, v 27/28) over bridgeSetSignaturesSigningHash. */
  signature: Uint8Array;
}

export const MAX_SET_SIGNATURES = 16;
const SET_SIGNATURES_TAG = 'exchange-chain/bridge-set-signatures/v1';

export function setItemListProblem(items: readonly BridgeSetSignatureItem[]): string | null {
  if (items.length === 0) return 'at least one set signature';
  if (items.length > MAX_SET_SIGNATURES) return `at most ${MAX_SET_SIGNATURES} set signatures, got ${items.length}`;
  for (let i = 0; i < items.length; i++) {
    if (items[i].signature.length !== 65) return `items[${i}]: signature must be 65 bytes`;
    if (items[i].kind !== BridgeSetKind.Validators && items[i].kind !== BridgeSetKind.Owners) return `items[${i}]: kind must be 1 (validators) or 2 (owners)`;
    if (items[i].setNonce < 1n) return `items[${i}]: set nonces start at 1`;
    const prev = items[i - 1];
    if (prev && (items[i].kind < prev.kind || (items[i].kind === prev.kind && items[i].setNonce <= prev.setNonce))) return `items[${i}]: items must be strictly ascending by (kind, nonce)`;
  }
  return null;
}

function writeItems(w: Writer, body: Omit<BridgeSetSignaturesBody, 'signature'>): Writer {
  w.address(body.validator).u32(body.items.length);
  for (const it of body.items) w.u8(it.kind).big(it.setNonce).fixed(it.signature, 65);
  return w;
}

export function bridgeSetSignaturesSigningHash(chainId: number, body: Omit<BridgeSetSignaturesBody, 'signature'>): Uint8Array {
  return keccak256(writeItems(new Writer(64 + body.items.length * 80).string(SET_SIGNATURES_TAG).u32(chainId), body).finish());
}

export function signBridgeSetSignatures(
  chainId: number,
  unsigned: Omit<BridgeSetSignaturesBody, 'signature'>,
  signer: { sign(digest: Uint8Array): Uint8Array },
): BridgeSetSignaturesBody {
  const problem = setItemListProblem(unsigned.items);
  if (problem) throw new CodecError('NON_CANONICAL', problem);
  return { ...unsigned, signature: signer.sign(bridgeSetSignaturesSigningHash(chainId, unsigned)) };
}

registerTxKind<BridgeSetSignaturesBody>({
  kind: TxKind.BridgeSetSignatures,
  name: 'BridgeSetSignatures',
  encodeBody(w, b) {
    const problem = setItemListProblem(b.items);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    checkV(b.signature, 'transaction signature');
    for (const it of b.items) checkV(it.signature, 'set signature');
    writeItems(w, b).fixed(b.signature, 65);
  },
  decodeBody(r) {
    const validator = r.address();
    const n = r.u32();
    if (n === 0 || n > MAX_SET_SIGNATURES) throw new CodecError('RANGE', `set signature count ${n} outside 1..${MAX_SET_SIGNATURES}`);
    const items: BridgeSetSignatureItem[] = [];
    for (let i = 0; i < n; i++) {
      const kind = r.u8() as BridgeSetKind;
      const setNonce = r.big();
      const signature = r.fixed(65);
      checkV(signature, 'set signature');
      items.push({ kind, setNonce, signature });
    }
    const problem = setItemListProblem(items);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    const signature = r.fixed(65);
    checkV(signature, 'transaction signature');
    return { validator, items, signature };
  },
});
