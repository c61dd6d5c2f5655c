/**
 * The stored record of a sub-account (TableId.SubAccount, decision 93): its master, name,
 * creation index and time, keyed by the sub-account's address. Kept apart from
 * src/state/accounts/subaccounts.ts (the rules) so that the state's table list imports no rule.
 */
import type { Address } from '../../util/bytes';
import { jsonCodec, type RecordCodec } from '../table';

export interface SubAccountRecord {
  master: Address;
  name: string;
  /** The master's 0-based creation index, the one the address is derived from. */
  index: number;
  /** Block time of creation. */
  createdMs: number;
}

export const subAccountCodec: RecordCodec<SubAccountRecord> = jsonCodec<SubAccountRecord>(
  (r) => r,
  (j) => ({ master: j.master, name: j.name, index: j.index, createdMs: j.createdMs }),
);
