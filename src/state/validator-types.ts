/**
 * The validator record's type and encoding (TableId.Validator), apart from the functions
 * that read and step it (src/state/validator-records.ts) so that state.ts can declare the
 * table without an import circle.
 */
import type { ValidatorContext, ValidatorStateName } from '../../machines/validator-lifecycle';
import type { Address, Hex } from '../util/bytes';
import { metaCodec } from './records';
import type { RecordCodec } from './table';

/** A state a stored record holds: `observer` is the absence of a record. */
export type ValidatorStatus = Exclude<ValidatorStateName, 'observer'>;

export interface ValidatorIdentity {
  /** Lower-case address, derived from the ECDSA key. */
  address: Address;
  /** One word of [A-Za-z0-9_-], 1 to 32 characters (contract [C-res-validator-fields]). */
  name: string;
  /** host:port of the validator's gossip endpoint. */
  endpoint: string;
  /** Compressed secp256k1 public key, 0x and 66 lower-case hex. */
  ecdsaPubkey: Hex;
  /** Ed25519 VRF public key, 0x and 64 lower-case hex. */
  vrfPubkey: Hex;
}

export interface ValidatorRecord extends ValidatorIdentity {
  status: ValidatorStatus;
  context: ValidatorContext;
  /** Height of the block that registered it (0 for a genesis validator). */
  registeredHeight: number;
}

/** Validator records are few and rarely written: canonical JSON like the meta records. */
export const validatorCodec = metaCodec as RecordCodec<ValidatorRecord>;

