/**
 * BridgeSetSignatures (issue 37 items 1 and 3; decisions 149, 151): a validator's
 * signatures over the bridge validator sets and owner sets the chain recorded
 * (src/state/bridge/sets.ts), kept on the set's record for the relayer to pass to the
 * contract's updateValidatorSet and updateOwners.
 *   - shape: canonical item list (400 INVALID_ATTESTATION);
 *   - verify: the transaction's signature recovers to `validator` (401);
 *   - admit and apply: the network has a bridge (422 BRIDGE_DISABLED), every set is
 *     recorded and kept (422 REJECTED), `validator` is in the set before it, the
 *     one the contract checks the set against (403 NOT_VALIDATOR; a validator that left
 *     the active set still signs its successor); for an owner set, in any kept validator
 *     set (the contract checks it against its set in force, one of them), every signature recovers to `validator`
 *     over that set's message bound to this chain and its bridge (401: the whole
 *     transaction refused), and at least one item is new (409 ATTESTATION_STALE).
 */
import { BridgeSetKind, setItemListProblem, bridgeSetSignaturesSigningHash, type BridgeSetSignatureItem, type BridgeSetSignaturesBody } from '../../codec/txs/bridge-set';
import { verifySigner } from '../../crypto/secp256k1';
import { bridgeOwnersSigningHash, bridgeSetSigningHash } from '../../signing/bridge-withdrawal';
import { bytesToHex, type Address } from '../../util/bytes';
import { bridgeParams } from '../bridge/reads';
import { addOwnerSetSignature, addSetSignature, bridgeOwnerSet, bridgeOwnersMessage, bridgeSet, bridgeSetMessage, mayBridgeSign } from '../bridge/sets';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import type { State } from '../state';

function countedItems(state: State, b: BridgeSetSignaturesBody, signer: Address): BridgeSetSignatureItem[] {
  if (!bridgeParams(state)) throw rejected('BRIDGE_DISABLED', 'set signatures: this network has no bridge (genesis bridge section absent)');
  const counted: BridgeSetSignatureItem[] = [];
  for (const it of b.items) {
    if (it.kind === BridgeSetKind.Owners) {
      const owners = bridgeOwnerSet(state, it.setNonce);
      if (!owners) throw rejected('REJECTED', `items: no recorded bridge owner set ${it.setNonce}`);
      if (!mayBridgeSign(state, signer)) throw forbidden('NOT_VALIDATOR', `validator: ${signer} is in no kept bridge validator set`);
      if (!verifySigner(bridgeOwnersSigningHash(bridgeOwnersMessage(state, owners)), it.signature, signer)) {
        throw unauthorized(`items: the signature for bridge owner set ${it.setNonce} does not recover to ${signer} over its message`);
      }
      if (!owners.signatures.some((s) => s.validator === signer)) counted.push(it);
      continue;
    }
    const set = bridgeSet(state, it.setNonce);
    const prev = bridgeSet(state, it.setNonce - 1n);
    if (!set || !prev) throw rejected('REJECTED', `items: no recorded bridge set ${it.setNonce} (or its predecessor)`);
    if (!prev.validators.includes(signer)) throw forbidden('NOT_VALIDATOR', `validator: ${signer} is not in bridge set ${prev.nonce}, which signs set ${set.nonce}`);
    if (!verifySigner(bridgeSetSigningHash(bridgeSetMessage(state, set)), it.signature, signer)) {
      throw unauthorized(`items: the signature for bridge set ${it.setNonce} does not recover to ${signer} over its message`);
    }
    if (set.signatures.some((s) => s.validator === signer)) continue;
    counted.push(it);
  }
  if (counted.length === 0) throw new TxError(409, 'ATTESTATION_STALE', `items: every set is already signed by ${signer}`);
  return counted;
}

export const bridgeSetSignaturesOp: TxOp<BridgeSetSignaturesBody> = {
  shape(b) {
    const problem = setItemListProblem(b.items);
    if (problem) throw badRequest('INVALID_ATTESTATION', `items: ${problem}`);
  },
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(bridgeSetSignaturesSigningHash(chainId, b), b.signature, b.validator)) throw unauthorized(`signature: the transaction does not recover to ${b.validator}`);
    return b.validator;
  },
  admit(state, b, signer) {
    countedItems(state, b, signer);
  },
  apply(ctx, tx, signer) {
    const counted = countedItems(ctx.state, tx.body, signer);
    for (const it of counted) {
      if (it.kind === BridgeSetKind.Owners) addOwnerSetSignature(ctx.state, it.setNonce, signer, bytesToHex(it.signature));
      else addSetSignature(ctx.state, it.setNonce, signer, bytesToHex(it.signature));
    }
    ctx.emit({ type: 'BridgeSetSignatures', validator: signer, items: tx.body.items.length, counted: counted.length });
  },
};
