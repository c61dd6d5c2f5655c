/**
 * The validator record's type and encoding (TableId.Validator), apart from the functions
 * that read and step it (src/state/validators/records.ts) so that state.ts can declare the
 * table without an import circle.
 */
import type { ValidatorContext, ValidatorStateName } from '../../../machines/validator-lifecycle';
import { Reader, Writer } from '../../codec/binary';
import type { Address, Hex } from '../../util/bytes';
import { metaCodec } from '../records';
import type { RecordCodec } from '../table';

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
  /**
   * Who paid the bond when it is not the validator itself (AdminSeedValidator, funded by
   * the operator: src/state/validators/admin-seed.ts); the bond returns there when
   * unbonding ends. Absent for a self-bonded or genesis validator.
   */
  funder?: Address;
}

/** Validator records are few and rarely written: canonical JSON like the meta records. */
export const validatorCodec = metaCodec as RecordCodec<ValidatorRecord>;


/**
 * An active validator's missed commits within the downtime window (TableId.Downtime,
 * src/state/validators/downtime.ts): runs [first, last] of consecutive heights whose
 * commit lacks its signature, ascending, disjoint, none entirely below the window. A
 * validator that missed nothing in the window has no record.
 */
export interface DowntimeRecord {
  runs: readonly (readonly [number, number])[];
}

/** `u32 n | n × (u64 first | u64 last)`. */
export const downtimeCodec: RecordCodec<DowntimeRecord> = {
  encode: (d) => {
    const w = new Writer(4 + d.runs.length * 16).u32(d.runs.length);
    for (const [first, last] of d.runs) w.u64(first).u64(last);
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const n = r.u32();
    const runs: [number, number][] = [];
    for (let i = 0; i < n; i++) runs.push([r.u64(), r.u64()]);
    r.end();
    return { runs };
  },
};
