/**
 * The execution entry of AdminSeedValidator (contract [C-state-validator] observer →
 * registered "by … the operator's AdminSeedValidator … with a bond … funded by itself or
 * the operator", [C-res-validator-fields]; decisions 72, 160): the owners add a validator
 * as registered, its bond locked from the native balance of `funder`: the validator's
 * own, or an owner's (decision 160: never a stranger's account). No transaction kind
 * carries it: the AdminSeedValidator governance operation calls this when it executes,
 * after two owners signed and its timelock passed (src/state/governance/operations.ts,
 * decision 74).
 *
 * The checks (seedShape, at proposal and again here): every field's format and the bond
 * range as RegisterValidator's (400, src/state/ops/validator-registration.ts
 * registrationShape); the funder the validator or an owner in force (400
 * INVALID_OPERATION); the validator's EIP-191 signature over seedingText with this
 * chain's id (src/codec/txs/validators.ts), its consent to these keys, bond and funder
 * (401 INVALID_SIGNATURE). Then, at the state: any validator already holding the
 * address or a key (409 VALIDATOR_EXISTS), the funder's balance below the bond (422
 * INSUFFICIENT_FUNDS). A refusal throws TxError and writes nothing. A bond paid by
 * someone else records `funder`, to whom unbonding returns it
 * (src/state/validators/epoch.ts). No operator approval is asked: two owners and the
 * timelock are the owners' own gate.
 */
import type { AdminSeedValidator } from '../../codec/txs/governance';
import { seedingDigest } from '../../codec/txs/validators';
import { verifySigner } from '../../crypto/secp256k1';
import { hexToBytes, type Address, type Hex } from '../../util/bytes';
import { badRequest, rejected, unauthorized } from '../errors';
import { duplicateValidatorRefusal, registrationShape } from '../ops/validator-registration';
import type { ChainParams } from '../records';
import type { State } from '../state';
import { stepValidator, type ValidatorRecord } from './records';

export type { AdminSeedValidator } from '../../codec/txs/governance';

/** The seeding's stateless checks (400, 401), at proposal and at execution, against `params` (owners, chain id). */
export function seedShape(seed: AdminSeedValidator, params: ChainParams): void {
  const validator = seed.validator.toLowerCase() as Address;
  const funder = seed.funder.toLowerCase() as Address;
  registrationShape(
    { candidate: validator, vrfPubkey: seed.vrfPubkey, ecdsaPubkey: seed.ecdsaPubkey, name: seed.name, endpoint: seed.endpoint, bond: seed.bondWei, nonce: 0n, signature: new Uint8Array(0) },
    params,
  );
  const owners = params.owners.addresses.map((o) => o.toLowerCase());
  if (funder !== validator && !owners.includes(funder)) {
    throw badRequest('INVALID_OPERATION', `operation.funder: ${funder} is neither the validator nor an owner; a seeded bond comes from one of them`);
  }
  if (!verifySigner(seedingDigest(params.chainId, seed), hexToBytes(seed.candidateSignature), validator)) {
    throw unauthorized(`operation.candidateSignature: does not recover to the validator ${validator} over chain ${params.chainId}'s seeding text; the validator signs its seeding (npm run node -- validator seed-sign)`);
  }
}

export function adminSeedValidator(state: State, params: ChainParams, seed: AdminSeedValidator, height: number): ValidatorRecord {
  // Again at execution: an owner change since the proposal counts.
  seedShape(seed, params);
  const validator = seed.validator.toLowerCase() as Address;
  const funder = seed.funder.toLowerCase() as Address;
  const fields = {
    candidate: validator,
    vrfPubkey: seed.vrfPubkey.toLowerCase() as Hex,
    ecdsaPubkey: seed.ecdsaPubkey.toLowerCase() as Hex,
  };
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
