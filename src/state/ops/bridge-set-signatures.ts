/**
 * BridgeSetSignatures (issue 37 item 1; decision 151): a validator's signatures over the
 * bridge validator sets the chain recorded (src/state/bridge/sets.ts), kept on the set's
 * record for the relayer to pass to the contract's updateValidatorSet.
 *   - shape: canonical item list (400 INVALID_ATTESTATION);
 *   - verify: the transaction's signature recovers to `validator` (401);
 *   - admit and apply: the network has a bridge (422 BRIDGE_DISABLED), every set is
 *     recorded and kept (422 REJECTED), `validator` is in the set before it, the
 *     one the contract checks the set against (403 NOT_VALIDATOR; a validator that left
 *     the active set still signs its successor), every signature recovers to `validator`
 *     over that set's message bound to this chain and its bridge (401: the whole
 *     transaction refused), and at least one item is new (409 ATTESTATION_STALE).
 */
import { setItemListProblem, bridgeSetSignaturesSigningHash, type BridgeSetSignaturesBody } from '../../codec/txs/bridge-set';
import { verifySigner } from '../../crypto/secp256k1';
import { bridgeSetSigningHash } from '../../signing/bridge-withdrawal';
import { bytesToHex, type Address } from '../../util/bytes';
import { bridgeParams } from '../bridge/reads';
import { addSetSignature, bridgeSet, bridgeSetMessage } from '../bridge/sets';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import type { State } from '../state';

function countedItems(state: State, b: BridgeSetSignaturesBody, signer: Address): { setNonce: bigint; signature: Uint8Array }[] {
  if (!bridgeParams(state)) throw rejected('BRIDGE_DISABLED', 'set signatures: this network has no bridge (genesis bridge section absent)');
  const counted: { setNonce: bigint; signature: Uint8Array }[] = [];
  for (const it of b.items) {
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
    for (const it of counted) addSetSignature(ctx.state, it.setNonce, signer, bytesToHex(it.signature));
    ctx.emit({ type: 'BridgeSetSignatures', validator: signer, items: tx.body.items.length, counted: counted.length });
  },
};
