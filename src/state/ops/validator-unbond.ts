/**
 * Unbond (contract [C-limits-unbonding]; decision 68): a registered, active or jailed
 * validator leaves. It steps UNBOND at once (no longer a candidate, so the next epoch
 * boundary leaves it out of the set; until then the set fixed at the last boundary
 * stands), and its locked bond returns to its native balance at the boundary of epoch
 * (current epoch + unbondingEpochs) (src/state/validators/epoch.ts).
 *
 * Refusals: signature not recovering to `validator` over unbondText (401); not a
 * validator (403 NOT_VALIDATOR); unbonding, exited or tombstoned already (422
 * VALIDATOR_STATE); a candidate whose leaving would leave fewer than activeSetMin
 * candidates (422 ACTIVE_SET_FLOOR: the machine's guard floorKept, judged first here for
 * its error).
 */
import { floorKept } from '../../../machines/validator-lifecycle';
import { unbondDigest, type UnbondBody } from '../../codec/txs/validators';
import type { TxOp } from '../context';
import { forbidden, rejected } from '../errors';
import { signedByValidator } from './signature-checks';
import { epochOf } from '../validators/epoch';
import { candidateCount, isCandidate, stepValidator, validatorRecord } from '../validators/records';

export const unbondOp: TxOp<UnbondBody> = {
  ...signedByValidator(unbondDigest),
  apply(ctx, tx) {
    const { state, params, header } = ctx;
    const address = tx.body.validator;
    const rec = validatorRecord(state, address);
    if (!rec) throw forbidden('NOT_VALIDATOR', `validator: ${address} is not a validator`);
    if (rec.status !== 'registered' && rec.status !== 'active' && rec.status !== 'jailed') {
      throw rejected('VALIDATOR_STATE', `validator: ${address} is ${rec.status} and cannot unbond`);
    }
    const c = params.consensus;
    const candidatesAfter = candidateCount(state) - (isCandidate(rec.status) ? 1 : 0);
    const event = { type: 'UNBOND', epoch: epochOf(header.height, c.epochLengthBlocks), unbondingEpochs: c.unbondingEpochs, candidatesAfter, activeSetMin: c.activeSetMin } as const;
    if (isCandidate(rec.status) && !floorKept(event)) {
      throw rejected('ACTIVE_SET_FLOOR', `validator: leaving would leave ${candidatesAfter} candidates, below the active set floor ${c.activeSetMin}`);
    }
    stepValidator(state, address, event);
  },
};
