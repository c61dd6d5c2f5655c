/**
 * The operator's approvals of validator candidates (decision 159): the state's record of
 * each ApproveValidator (src/state/ops/validator-approval.ts) that RegisterValidator
 * (src/state/ops/validator-registration.ts) requires and consumes. One meta record per
 * candidate, `validatorApproval/<address>`, covered by the state root; a newer approval
 * of the same candidate replaces it; a registration deletes it.
 */
import type { Address } from '../../util/bytes';
import type { ChainParams } from '../records';
import type { State } from '../state';

export interface ValidatorApproval {
  /** The operator who signed it (the one in force then). */
  operator: Address;
  /** Block time (Unix ms) from which it admits no registration. */
  expiresAtMs: number;
  /** Height of the block that recorded it. */
  height: number;
}

/** How far past its block time an approval may reach: 30 days. */
export const APPROVAL_VALIDITY_MS_MAX = 30 * 86_400_000;

const key = (candidate: Address) => `validatorApproval/${candidate.toLowerCase()}`;

export function approvalOf(state: State, candidate: Address): ValidatorApproval | undefined {
  return state.meta.get(key(candidate)) as ValidatorApproval | undefined;
}

export function recordApproval(state: State, candidate: Address, approval: ValidatorApproval): void {
  state.meta.set(key(candidate), approval);
}

export function consumeApproval(state: State, candidate: Address): void {
  state.meta.delete(key(candidate));
}

/** The network's operator in force: genesis owners.operator until a SetOperator replaces it. */
export function operatorOf(params: ChainParams): Address {
  return params.owners.operator.toLowerCase() as Address;
}

/**
 * Why `candidate` may not register at block time `timeMs`, or null: no approval recorded,
 * or its expiry reached. An approval signed by an operator since replaced still counts:
 * the operator approved it while in office (SetOperator is the owners' way to stop a
 * compromised operator; they can also let its approvals expire, 30 days at most).
 */
export function approvalRefusal(state: State, candidate: Address, timeMs: number): string | null {
  const a = approvalOf(state, candidate);
  if (a === undefined) return `candidate: ${candidate} has no approval by the network's operator; the operator approves candidates (ApproveValidator, sent by the onboarding service) before they register`;
  if (timeMs >= a.expiresAtMs) return `candidate: the operator's approval of ${candidate} expired at ${a.expiresAtMs} (block time ${timeMs}); ask the operator for a new one`;
  return null;
}
