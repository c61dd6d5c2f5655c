/**
 * The governance operation record's type and encoding (TableId.Governance) and the halt
 * record (meta `halt`), apart from src/state/governance/operations.ts so that the state's table list
 * imports no execution (decision 74).
 */
import type { GovernanceContext, GovernanceStateName } from '../../../machines/governance-operation';
import type { GovOperation } from '../../codec/txs/governance';
import type { Address, Hex } from '../../util/bytes';
import { metaCodec } from '../records';
import type { RecordCodec } from '../table';

export interface GovernanceRecord {
  id: Hex;
  operation: GovOperation;
  proposer: Address;
  /** The second owner; null until approved. */
  approver: Address | null;
  /** Who cancelled or executed it; null otherwise. */
  closedBy: Address | null;
  /**
   * The owner whose cancel stands alone, waiting for a second owner's (decision 162);
   * absent while none does. Absent rather than null so that the records written before
   * the rule encode as they did.
   */
  cancelRequestedBy?: Address;
  state: Exclude<GovernanceStateName, 'none'>;
  context: GovernanceContext;
  proposedHeight: number;
  /** Height of the block that executed it; 0 until executed. */
  executedHeight: number;
}

/** Canonical JSON with tagged bigints, like the meta records: few and rarely written. */
export const governanceCodec = metaCodec as RecordCodec<GovernanceRecord>;

/** The halt in force (meta record `halt`). */
export interface HaltRecord {
  operationId: Hex;
  height: number;
}
