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
import { verifySigner } from '../../crypto/secp256k1';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, unauthorized } from '../errors';
import { epochOf } from '../validator-epoch';
import { stepValidator, validatorRecord } from '../validator-records';

const U64_MAX = (1n << 64n) - 1n;

export const unjailOp: TxOp<UnjailBody> = {
  shape(b) {
    if (b.nonce > U64_MAX) throw badRequest('INVALID_NONCE', `nonce: ${b.nonce} is not a u64`);
  },
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(unjailDigest(chainId, b), b.signature, b.validator)) throw unauthorized(`the unjail signature does not recover to ${b.validator}`);
    return b.validator;
  },
  nonce: (b) => b.nonce,
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
