/**
 * The onboarding machine's fast stepper (`stepOnboarding`, compiled from the machine by
 * machines/stepper.ts, the function every applicant status change goes through:
 * src/onboarding/applicants.ts) agrees with xstate's `transition()` for every state ×
 * context × event, refused ones included, and the grid takes every drawn transition;
 * each transition of the contract's table does what it says.
 */
import { describe, expect, it } from 'vitest';
import { viaXstate as viaXstateOf } from './via-xstate';
import { toDirectedGraph } from 'xstate/graph';
import {
  EMPTY_ONBOARDING_CONTEXT,
  ONBOARDING_STATES,
  onboardingMachine,
  stepOnboarding,
  type OnboardingContext,
  type OnboardingEvent,
  type OnboardingStateName,
} from '../../machines/onboarding';


const viaXstate = (value: OnboardingStateName, context: OnboardingContext, event: OnboardingEvent) => viaXstateOf<OnboardingContext>(onboardingMachine, value, context, event);

const EVENTS: OnboardingEvent[] = [
  { type: 'APPLY', ts: 1_000 },
  { type: 'APPROVE', ts: 2_000 },
  { type: 'REJECT', ts: 3_000 },
];
const CONTEXTS: OnboardingContext[] = [
  { ...EMPTY_ONBOARDING_CONTEXT },
  { appliedTs: 500, approvedTs: null, rejectedTs: null, tokenIssued: false },
  { appliedTs: 500, approvedTs: 700, rejectedTs: null, tokenIssued: true },
];

describe('stepOnboarding agrees with transition()', () => {
  it('for every state × context × event, refused ones included, and the grid takes every drawn transition', () => {
    const taken = new Set<string>();
    let refused = 0;
    for (const value of ONBOARDING_STATES) {
      for (const context of CONTEXTS) {
        for (const event of EVENTS) {
          const want = viaXstate(value, context, event);
          expect(stepOnboarding(value, context, event), `${value} ${JSON.stringify(context)} ${event.type}`).toEqual(want);
          if (want === undefined) refused++;
          else taken.add(`${value}|${event.type}|${want.value}`);
        }
      }
    }
    const drawn = new Set<string>();
    for (const node of toDirectedGraph(onboardingMachine).children) {
      for (const e of node.edges) drawn.add(`${e.source.key}|${e.label.text}|${e.target.key}`.replace(/onboarding\./g, ''));
    }
    expect([...taken].sort()).toEqual([...drawn].sort());
    expect(drawn.size).toBe(3);
    expect(refused).toBeGreaterThan(0);
  });
});

describe('the contract table, transition by transition', () => {
  const pending = stepOnboarding('not_found', { ...EMPTY_ONBOARDING_CONTEXT }, { type: 'APPLY', ts: 1_000 });

  it('not_found → pending on apply, recording when', () => {
    expect(pending).toEqual({ value: 'pending', context: { appliedTs: 1_000, approvedTs: null, rejectedTs: null, tokenIssued: false } });
  });

  it('pending → approved on the operator approval, issuing the token', () => {
    expect(stepOnboarding('pending', pending!.context, { type: 'APPROVE', ts: 2_000 })).toEqual({
      value: 'approved',
      context: { appliedTs: 1_000, approvedTs: 2_000, rejectedTs: null, tokenIssued: true },
    });
  });

  it('pending → rejected when the operator declines; no token', () => {
    expect(stepOnboarding('pending', pending!.context, { type: 'REJECT', ts: 3_000 })).toEqual({
      value: 'rejected',
      context: { appliedTs: 1_000, approvedTs: null, rejectedTs: 3_000, tokenIssued: false },
    });
  });

  it('nothing else: a second apply, a review before applying, any event after the decision', () => {
    const ctx = pending!.context;
    expect(stepOnboarding('pending', ctx, { type: 'APPLY', ts: 5 })).toBeUndefined();
    expect(stepOnboarding('not_found', ctx, { type: 'APPROVE', ts: 5 })).toBeUndefined();
    expect(stepOnboarding('not_found', ctx, { type: 'REJECT', ts: 5 })).toBeUndefined();
    for (const done of ['approved', 'rejected'] as const) {
      for (const event of EVENTS) expect(stepOnboarding(done, ctx, event), `${done} ${event.type}`).toBeUndefined();
    }
  });
});
