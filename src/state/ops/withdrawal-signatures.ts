/**
 * WithdrawalSignatures (issue 22 item 3; decision 83): a current validator's signatures
 * over withdrawals' v3 digests (src/signing/bridge-withdrawal.ts), kept on the records
 * for the relayer to pass to the bridge contract.
 *   - shape: canonical item list (400 INVALID_ATTESTATION);
 *   - verify: the transaction's signature recovers to `validator` (401);
 *   - admit and apply: the network has a bridge (422 BRIDGE_DISABLED), the validator is
 *     in the current active set (403 NOT_VALIDATOR), every withdrawal exists (422
 *     UNKNOWN_WITHDRAWAL), every item's signature recovers to `validator` over the
 *     message of that withdrawal and this network's bridge (401: the whole transaction
 *     refused), and at least one item is not late (409 ATTESTATION_STALE). Late: the
 *     withdrawal is final, or already carries this validator's signature.
 * Apply adds the signatures (ascending by validator); a `requested` withdrawal whose
 * signers pass 2/3 of the current power steps SIGNED (machines/withdrawal.ts).
 */
import { itemListProblem, withdrawalSignaturesSigningHash, type WithdrawalSignaturesBody } from '../../codec/txs/bridge';
import { bridgeWithdrawalSigningHash } from '../../signing/bridge-withdrawal';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import { withdrawalMessage } from '../bridge/reads';
import { isFinalWithdrawal, type Withdrawal } from '../bridge/records';
import { requireBridgeValidator } from '../bridge/votes';
import { signIfQuorum, withSignature } from '../bridge/withdrawals';
import type { TxOp } from '../context';
import { badRequest, rejected, TxError, unauthorized } from '../errors';
import type { State } from '../state';

/** The items that count, with their withdrawals, in order; throws what refuses the whole transaction. */
function countedSignatures(state: State, b: WithdrawalSignaturesBody, signer: Address): { w: Withdrawal; signature: Uint8Array }[] {
  requireBridgeValidator(state, signer, 'withdrawal signatures');
  const counted: { w: Withdrawal; signature: Uint8Array }[] = [];
  for (const it of b.items) {
    const w = state.withdrawals.get(String(it.withdrawalId));
    if (!w) throw rejected('UNKNOWN_WITHDRAWAL', `items: no withdrawal ${it.withdrawalId}`);
    if (!verifySigner(bridgeWithdrawalSigningHash(withdrawalMessage(state, w)), it.signature, signer)) {
      throw unauthorized(`items: the signature for withdrawal ${it.withdrawalId} does not recover to ${signer} over its message`);
    }
    if (isFinalWithdrawal(w) || w.signatures.some((s) => s.validator === signer)) continue;
    counted.push({ w, signature: it.signature });
  }
  if (counted.length === 0) throw new TxError(409, 'ATTESTATION_STALE', `items: every withdrawal is final or already signed by ${signer}`);
  return counted;
}

export const withdrawalSignaturesOp: TxOp<WithdrawalSignaturesBody> = {
  shape(b) {
    const problem = itemListProblem(b.items);
    if (problem) throw badRequest('INVALID_ATTESTATION', `items: ${problem}`);
  },
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(withdrawalSignaturesSigningHash(chainId, b), b.signature, b.validator)) throw unauthorized(`signature: the transaction does not recover to ${b.validator}`);
    return b.validator;
  },
  admit(state, b, signer) {
    countedSignatures(state, b, signer);
  },
  apply(ctx, tx, signer) {
    const counted = countedSignatures(ctx.state, tx.body, signer);
    const step = { state: ctx.state, params: ctx.params, nowMs: ctx.header.timestampMs, emit: ctx.emit };
    for (const { w, signature } of counted) {
      const rec = withSignature(w, signer, signature);
      ctx.state.withdrawals.set(String(w.id), rec);
      signIfQuorum(step, rec);
    }
    ctx.emit({ type: 'WithdrawalSignatures', validator: signer, items: tx.body.items.length, counted: counted.length, late: tx.body.items.length - counted.length });
  },
};
