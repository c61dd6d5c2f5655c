/**
 * One applicant's onboarding (contract [C-state-onboarding], [C-onboard-apply],
 * [C-onboard-status]; decision 75), as a pure XState machine the onboarding service
 * executes. Pure: no I/O, no clock; the time of each step enters as event data (the
 * service's wall clock: onboarding is not consensus, and no node executes it).
 *
 *              APPLY                 APPROVE
 *  not_found ───────▶ pending ─────────────────▶ approved
 *                        │
 *                        │ REJECT
 *                        ▼
 *                     rejected
 *
 * `not_found` is an address the service has no record of: stored records never hold it;
 * an application steps APPLY from it. `approved` and `rejected` take no event, and
 * `pending` takes no second APPLY: a second application of the same address is refused
 * (the service answers 409), whatever the first one's outcome. APPROVE is the operator's
 * approval, which the contract ties to issuing the one-time download link, so it sets
 * `tokenIssued`; REJECT is the operator declining.
 *
 * Execution (src/onboarding/applicants.ts `applyApplication`) stores the state value and
 * context per address and applies every change through `stepOnboarding`, the stepper
 * compiled from this machine (machines/stepper.ts; agreement with `transition()`:
 * test/machines/onboarding.test.ts). APPLY is stepped by POST /api/validators/apply,
 * APPROVE and REJECT by the operator's review (`reviewApplicant`, decision 78).
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

export type OnboardingStateName = 'not_found' | 'pending' | 'approved' | 'rejected';
export const ONBOARDING_STATES: readonly OnboardingStateName[] = ['not_found', 'pending', 'approved', 'rejected'];

export interface OnboardingContext {
  /** When the application was accepted, Unix ms; 0 before. */
  appliedTs: number;
  /** When the operator approved it, Unix ms; null unless approved. */
  approvedTs: number | null;
  /** When the operator declined it, Unix ms; null unless rejected. */
  rejectedTs: number | null;
  /** Whether the one-time download link was issued (on approval). */
  tokenIssued: boolean;
}

export type OnboardingEvent = { type: 'APPLY'; ts: number } | { type: 'APPROVE'; ts: number } | { type: 'REJECT'; ts: number };

export const EMPTY_ONBOARDING_CONTEXT: Readonly<OnboardingContext> = Object.freeze({ appliedTs: 0, approvedTs: null, rejectedTs: null, tokenIssued: false });

/** The context update each action makes: the machine's `assign` and the stepper both call these. */
const ONBOARDING_UPDATES = {
  recordApplication: (_context, event) => {
    assertEvent(event, 'APPLY');
    return { appliedTs: event.ts, approvedTs: null, rejectedTs: null, tokenIssued: false };
  },
  approve: (_context, event) => {
    assertEvent(event, 'APPROVE');
    return { approvedTs: event.ts, tokenIssued: true };
  },
  reject: (_context, event) => {
    assertEvent(event, 'REJECT');
    return { rejectedTs: event.ts };
  },
} as const satisfies Record<string, ContextUpdate<OnboardingContext, OnboardingEvent>>;

export const onboardingMachine = setup({
  types: {
    context: {} as OnboardingContext,
    events: {} as OnboardingEvent,
  },
  actions: assignUpdates(ONBOARDING_UPDATES),
}).createMachine({
  id: 'onboarding',
  initial: 'not_found',
  context: () => ({ ...EMPTY_ONBOARDING_CONTEXT }),
  states: {
    not_found: {
      on: { APPLY: { target: 'pending', actions: 'recordApplication' } },
    },
    pending: {
      on: {
        APPROVE: { target: 'approved', actions: 'approve' },
        REJECT: { target: 'rejected', actions: 'reject' },
      },
    },
    approved: {},
    rejected: {},
  },
});

export type OnboardingMachine = typeof onboardingMachine;

export type OnboardingStep = FlatStep<OnboardingStateName, OnboardingContext>;

/**
 * What `event` does to an applicant in state `value` with `context`: the state and
 * context xstate's `transition()` would leave, or undefined when the machine refuses it.
 */
export const stepOnboarding = compileFlatStepper<OnboardingStateName, OnboardingContext, OnboardingEvent>(onboardingMachine, ONBOARDING_UPDATES);
