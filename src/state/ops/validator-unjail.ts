/**
 * Unjail (contract [C-state-validator] jailed → active by unjail; decision 69): a jailed
 * validator, signing for itself, returns to registered once the jail window has passed
 * (the machine's guard jailServed: the current epoch is at least jailedUntilEpoch), and
 * is seated again by the next epoch boundary's ranking.
 *
 * Refusals: signature not recovering to `validator` over unjailText, so another key
 * cannot unjail it (401); not a validator (403 NOT_VALIDATOR); not jailed (422
 * VALIDATOR_STATE); too early (422 JAIL_NOT_SERVED).
 */
import { jailServed } from '../../../machines/validator-lifecycle';
import { unjailDigest, type UnjailBody } from '../../codec/txs/validators';
import type { TxOp } from '../context';
import { forbidden, rejected } from '../errors';
import { signedByValidator } from './signature-checks';
import { epochOf } from '../validators/epoch';
import { stepValidator, validatorRecord } from '../validators/records';

export const unjailOp: TxOp<UnjailBody> = {
  ...signedByValidator(unjailDigest),
  apply(ctx, tx) {
    const address = tx.body.validator;
    const rec = validatorRecord(ctx.state, address);
    if (!rec) throw forbidden('NOT_VALIDATOR', `validator: ${address} is not a validator`);
    if (rec.status !== 'jailed') throw rejected('VALIDATOR_STATE', `validator: ${address} is ${rec.status}, not jailed`);
    const epoch = epochOf(ctx.header.height, ctx.params.consensus.epochLengthBlocks);
    if (!jailServed(rec.context, epoch)) {
      throw rejected('JAIL_NOT_SERVED', `validator: jailed until epoch ${rec.context.jailedUntilEpoch}, this block is in epoch ${epoch}`);
    }
    stepValidator(ctx.state, address, { type: 'UNJAIL', epoch });
  },
};
