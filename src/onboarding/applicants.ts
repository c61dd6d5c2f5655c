/**
 * The applicants' records and what an application does to them (contract
 * [C-state-onboarding], [C-onboard-apply], [C-onboard-status]; decision 75). Pure: no
 * I/O; the store (src/onboarding/store.ts) reads and writes what these functions return.
 *
 * Every change of an applicant's status is one step of machines/onboarding.ts
 * (`stepOnboarding`, the stepper compiled from the machine): an application steps APPLY
 * from the stored state (`not_found` for an address without a record), and an event the
 * machine refuses is the service's refusal, 409 VALIDATOR_EXISTS for a second
 * application. The operator's review steps APPROVE or REJECT the same way
 * (`reviewApplicant`, decision 78): the machine refusing it (the applicant is not
 * pending) is 409 APPLICANT_STATE. No if-chain here decides what a status allows.
 */
import { EMPTY_ONBOARDING_CONTEXT, stepOnboarding, type OnboardingContext, type OnboardingStateName } from '../../machines/onboarding';
import { TxError } from '../state/errors';
import type { Application } from './fields';

/** What the store keeps per address: the form as accepted, and the machine's state value and context. */
export interface ApplicantRecord {
  application: Application;
  status: Exclude<OnboardingStateName, 'not_found'>;
  context: OnboardingContext;
}

/** GET /api/onboarding/status/{address}: the contract's four fields. */
export interface StatusView {
  address: string;
  status: OnboardingStateName;
  token_issued: boolean;
  /** Unix ms of the approval; null unless approved. */
  approved_ts: number | null;
}

/**
 * The record an application leaves, stepping APPLY from `existing` (undefined: the
 * address is not_found). Throws 409 VALIDATOR_EXISTS when the machine refuses it.
 */
export function applyApplication(existing: ApplicantRecord | undefined, application: Application, nowMs: number): ApplicantRecord {
  const value: OnboardingStateName = existing?.status ?? 'not_found';
  const context = existing?.context ?? { ...EMPTY_ONBOARDING_CONTEXT };
  const step = stepOnboarding(value, context, { type: 'APPLY', ts: nowMs });
  if (step === undefined) {
    throw new TxError(409, 'VALIDATOR_EXISTS', `address ${application.address} has already applied (status ${value}); an address applies once`);
  }
  if (step.value === 'not_found') throw new Error('onboarding machine: APPLY left an applicant not_found');
  return { application, status: step.value, context: step.context };
}

/**
 * The record the operator's review leaves (APPROVE or REJECT at `nowMs`). Throws 404
 * NOT_FOUND for an address that never applied and 409 APPLICANT_STATE when the machine
 * refuses the event (the applicant was already approved or rejected).
 */
export function reviewApplicant(existing: ApplicantRecord | undefined, address: string, event: 'APPROVE' | 'REJECT', nowMs: number): ApplicantRecord {
  if (existing === undefined) throw new TxError(404, 'NOT_FOUND', `address ${address} has not applied`);
  const step = stepOnboarding(existing.status, existing.context, { type: event, ts: nowMs });
  if (step === undefined) {
    throw new TxError(409, 'APPLICANT_STATE', `address ${address} is ${existing.status}: only a pending applicant is approved or rejected`);
  }
  if (step.value === 'not_found') throw new Error(`onboarding machine: ${event} left an applicant not_found`);
  return { application: existing.application, status: step.value, context: step.context };
}

/** One line of the operator's list: the form and where the machine has it. */
export interface ApplicantView {
  address: string;
  name: string;
  endpoint: string;
  email: string;
  status: Exclude<OnboardingStateName, 'not_found'>;
  applied_ts: number;
  approved_ts: number | null;
  rejected_ts: number | null;
  token_issued: boolean;
}

export function applicantView(record: ApplicantRecord): ApplicantView {
  const { application: a, context: c } = record;
  return {
    address: a.address,
    name: a.name,
    endpoint: a.endpoint,
    email: a.email,
    status: record.status,
    applied_ts: c.appliedTs,
    approved_ts: c.approvedTs,
    rejected_ts: c.rejectedTs,
    token_issued: c.tokenIssued,
  };
}

export function statusView(address: string, record: ApplicantRecord | undefined): StatusView {
  if (record === undefined) return { address, status: 'not_found', token_issued: false, approved_ts: null };
  return { address, status: record.status, token_issued: record.context.tokenIssued, approved_ts: record.context.approvedTs };
}
