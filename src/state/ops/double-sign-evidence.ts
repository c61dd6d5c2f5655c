/**
 * DoubleSignEvidence (contract [D-validators-evidence], [C-state-validator] → tombstoned,
 * [C-limits-slashing]; decision 72): two conflicting votes signed by one validator
 * tombstone it for good with slashDoubleSignBps of its bond slashed (the locked part
 * burned), through tombstoneForDoubleSign (src/state/validators/penalties.ts).
 *
 * Refusals, in order, each changing nothing (there is no nonce to consume):
 *   - the votes do not conflict by their content: different signers, different
 *     (height, round, type), the same block hash, or not in canonical order (400
 *     INVALID_EVIDENCE);
 *   - either signature does not recover to the validator named (401 INVALID_SIGNATURE);
 *   - the votes' height is above the including block (422 EVIDENCE_IN_FUTURE) or more
 *     than consensus.evidenceMaxAgeBlocks (by default one
 *     epoch) below it (422 EVIDENCE_TOO_OLD);
 *   - the signer was not in the set that signs that height as execution recorded it
 *     (src/state/validators/signing-sets.ts; 403 NOT_VALIDATOR);
 *   - the signer is already tombstoned (409 ALREADY_TOMBSTONED: the same or other
 *     evidence was executed before), or has exited with its bond (422 VALIDATOR_STATE).
 * The door (the mempool) makes the same state checks against the last committed block,
 * so hopeless evidence never reaches a block; apply() makes them again at the block.
 * The receipt's signer is the offender: the signatures are its.
 */
import { voteEvidenceShapeProblem } from '../../consensus/evidence';
import { voteSigningHash } from '../../consensus/messages';
import type { DoubleSignEvidenceBody } from '../../codec/txs/evidence';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import type { TxOp } from '../context';
import type { ChainParams } from '../records';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import type { State } from '../state';
import { tombstoneForDoubleSign } from '../validators/penalties';
import { validatorRecord } from '../validators/records';
import { evidenceMaxAgeBlocks, signingSetAt } from '../validators/signing-sets';

/** The state's refusal of evidence executed in block `blockHeight`, or null. */
function evidenceRefusal(state: State, params: ChainParams, b: DoubleSignEvidenceBody, blockHeight: number): TxError | null {
  const { validator, height } = b.evidence.voteA;
  if (height > blockHeight) return rejected('EVIDENCE_IN_FUTURE', `evidence: votes for height ${height}, above this block ${blockHeight}`);
  const maxAge = evidenceMaxAgeBlocks(params);
  if (blockHeight - height > maxAge) {
    return rejected('EVIDENCE_TOO_OLD', `evidence: votes for height ${height} are ${blockHeight - height} blocks below block ${blockHeight}, more than ${maxAge}`);
  }
  if (!signingSetAt(state, params, height, blockHeight).has(validator)) {
    return forbidden('NOT_VALIDATOR', `evidence: ${validator} was not in the validator set of height ${height}`);
  }
  const rec = validatorRecord(state, validator);
  if (rec?.status === 'tombstoned') return new TxError(409, 'ALREADY_TOMBSTONED', `evidence: ${validator} is already tombstoned`);
  if (!rec || rec.status === 'exited') return rejected('VALIDATOR_STATE', `evidence: ${validator} is ${rec?.status ?? 'not a validator'}, with no bond left to slash`);
  return null;
}

export const doubleSignEvidenceOp: TxOp<DoubleSignEvidenceBody> = {
  shape(b) {
    const problem = voteEvidenceShapeProblem(b.evidence);
    if (problem) throw badRequest('INVALID_EVIDENCE', `evidence: ${problem}`);
  },
  verify(tx, chainId) {
    const { voteA: a, voteB: b } = tx.body.evidence;
    if (!verifySigner(voteSigningHash(chainId, a), a.signature, a.validator)) throw unauthorized(`signature: the first vote does not recover to ${a.validator}`);
    if (!verifySigner(voteSigningHash(chainId, b), b.signature, b.validator)) throw unauthorized(`signature: the second vote does not recover to ${b.validator}`);
    return a.validator;
  },
  admit(state, b) {
    const refusal = evidenceRefusal(state, state.params(), b, state.head().height + 1);
    if (refusal) throw refusal;
  },
  apply(ctx, tx) {
    const b = tx.body;
    const refusal = evidenceRefusal(ctx.state, ctx.params, b, ctx.header.height);
    if (refusal) throw refusal;
    const offender: Address = b.evidence.voteA.validator;
    const bondBefore = validatorRecord(ctx.state, offender)!.context.bondWei;
    const res = tombstoneForDoubleSign(ctx.state, ctx.params, offender);
    // Every state the refusals above let through is one DOUBLE_SIGN takes.
    if (!res.record) throw new Error(`evidence against ${offender}: tombstoning refused (${res.refusal})`);
    ctx.emit({
      type: 'ValidatorTombstoned',
      validator: offender,
      height: b.evidence.voteA.height,
      slashedWei: bondBefore - res.record.context.bondWei,
      burnedWei: res.burnedWei,
    });
  },
};
