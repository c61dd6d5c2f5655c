/**
 * The execution entry of AdminSeedValidator (contract [C-state-validator] observer →
 * registered "by … the operator's AdminSeedValidator … with a bond … funded by itself or
 * the operator", [C-res-validator-fields]; decision 72): the operator adds a validator
 * as registered, its bond locked from the native balance of `funder` (the operator's
 * account, or the validator's own). No transaction kind carries it: the AdminSeedValidator
 * governance operation calls this when it executes, after two owners signed and its
 * timelock passed (src/state/governance/operations.ts, decision 74).
 *
 * The same checks as RegisterValidator, without its signature and nonce: every field's
 * format and the bond range (400, src/state/ops/validator-registration.ts
 * registrationShape), any validator already holding the address or a key (409
 * VALIDATOR_EXISTS), the funder's balance below the bond (422 INSUFFICIENT_FUNDS). A
 * refusal throws TxError and writes nothing. A bond paid by someone else records
 * `funder`, to whom unbonding returns it (src/state/validators/epoch.ts).
 */
import type { AdminSeedValidator } from '../../codec/txs/governance';
import type { Address, Hex } from '../../util/bytes';
import { rejected } from '../errors';
import { duplicateValidatorRefusal, registrationShape } from '../ops/validator-registration';
import type { ChainParams } from '../records';
import type { State } from '../state';
import { stepValidator, type ValidatorRecord } from './records';

export type { AdminSeedValidator } from '../../codec/txs/governance';

export function adminSeedValidator(state: State, params: ChainParams, seed: AdminSeedValidator, height: number): ValidatorRecord {
  const validator = seed.validator.toLowerCase() as Address;
  const funder = seed.funder.toLowerCase() as Address;
  const fields = {
    candidate: validator,
    vrfPubkey: seed.vrfPubkey.toLowerCase() as Hex,
    ecdsaPubkey: seed.ecdsaPubkey.toLowerCase() as Hex,
    name: seed.name,
    endpoint: seed.endpoint,
    bond: seed.bondWei,
  };
  registrationShape({ ...fields, nonce: 0n, signature: new Uint8Array(0) }, params);
  const duplicate = duplicateValidatorRefusal(state, fields);
  if (duplicate) throw duplicate;
  const acct = state.account(funder);
  if (acct.nativeWei < seed.bondWei) throw rejected('INSUFFICIENT_FUNDS', `bond: ${seed.bondWei} wei exceeds the funder ${funder}'s native balance ${acct.nativeWei}`);
  state.accounts.set(funder, { ...acct, nativeWei: acct.nativeWei - seed.bondWei });
  return stepValidator(
    state,
    validator,
    { type: 'REGISTER', bondWei: seed.bondWei, lockedWei: seed.bondWei },
    { address: validator, name: seed.name, endpoint: seed.endpoint, ecdsaPubkey: fields.ecdsaPubkey, vrfPubkey: fields.vrfPubkey, ...(funder !== validator ? { funder } : {}) },
    height,
  );
}
