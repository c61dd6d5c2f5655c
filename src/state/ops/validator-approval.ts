/**
 * ApproveValidator (decision 159; the operator gate of contract [C-onboard-register]):
 * the network's operator (genesis owners.operator, replaced by the owners' SetOperator)
 * approves a candidate address until a block time, and RegisterValidator of that
 * candidate is refused 403 without it (src/state/ops/validator-registration.ts). The
 * onboarding service sends it when its operator approves an applicant
 * (src/onboarding/approval.ts); `npm run node -- validator approve` sends it by hand.
 *
 * Refusals, in order: the nonce not a u64 (400 INVALID_NONCE); the signature over
 * approvalText not recovering to `operator` (401); the signer not the operator in force
 * at the block (403 NOT_OPERATOR), before the nonce; the expiry not after the block
 * time or more than APPROVAL_VALIDITY_MS_MAX after it (422 INVALID_EXPIRY); the
 * candidate already a validator of any status (409 VALIDATOR_EXISTS). An approval of a
 * candidate approved before replaces the earlier one.
 */
import { approvalDigest, type ApproveValidatorBody } from '../../codec/txs/validators';
import { verifySigner } from '../../crypto/secp256k1';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import { APPROVAL_VALIDITY_MS_MAX, operatorOf, recordApproval } from '../validators/approvals';
import { validatorRecord } from '../validators/records';
import { U64_MAX } from './signature-checks';

export const approveValidatorOp: TxOp<ApproveValidatorBody> = {
  shape(b) {
    if (b.nonce > U64_MAX) throw badRequest('INVALID_NONCE', `nonce: ${b.nonce} is not a u64`);
  },
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(approvalDigest(chainId, b), b.signature, b.operator)) {
      throw unauthorized(`signature: does not recover to the operator ${b.operator} over chain ${chainId}'s approval text`);
    }
    return b.operator;
  },
  nonce: (b) => b.nonce,
  authorize(state, b, signer) {
    const operator = operatorOf(state.params());
    if (signer !== operator) throw forbidden('NOT_OPERATOR', `operator: ${signer} is not the network's operator (${operator}); only it approves validators`);
  },
  apply(ctx, tx, signer) {
    const b = tx.body;
    const now = ctx.header.timestampMs;
    if (b.expiresAtMs <= now || b.expiresAtMs - now > APPROVAL_VALIDITY_MS_MAX) {
      throw rejected('INVALID_EXPIRY', `expiresAtMs: ${b.expiresAtMs} must be after the block time ${now} and at most ${APPROVAL_VALIDITY_MS_MAX} ms after it`);
    }
    const existing = validatorRecord(ctx.state, b.candidate);
    if (existing) throw new TxError(409, 'VALIDATOR_EXISTS', `candidate: ${b.candidate} is already a validator (${existing.status})`);
    recordApproval(ctx.state, b.candidate, { operator: signer, expiresAtMs: b.expiresAtMs, height: ctx.header.height });
  },
};
