/**
 * The governance-operation machine's fast stepper (`stepGovernanceOperation`, compiled
 * from the machine by machines/stepper.ts, the function every operation's state change
 * goes through: src/state/governance/operations.ts) agrees with xstate's `transition()`: for every
 * state × context × event, refused ones included, over a grid that takes every drawn
 * transition, along every xstate/graph shortest path, and for random sequences; and the
 * drawing says what decision 74 says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viaXstate as viaXstateOf } from './via-xstate';
import { getShortestPaths, toDirectedGraph } from 'xstate/graph';
import {
  EMPTY_GOVERNANCE_CONTEXT,
  GOVERNANCE_STATES,
  governanceOperationMachine,
  stepGovernanceOperation,
  type GovernanceContext,
  type GovernanceEvent,
  type GovernanceStateName,
} from '../../machines/governance-operation';


const viaXstate = (value: GovernanceStateName, context: GovernanceContext, event: GovernanceEvent) => viaXstateOf<GovernanceContext>(governanceOperationMachine, value, context, event);

const EVENTS: GovernanceEvent[] = [
  { type: 'PROPOSE', nowMs: 1000, timelockMs: 500, expiresAtMs: 5000 },
  { type: 'APPROVE', nowMs: 1200 },
  { type: 'TICK', nowMs: 1300 },
  { type: 'TICK', nowMs: 1700 },
  { type: 'TICK', nowMs: 5000 },
  { type: 'EXECUTE', nowMs: 1800 },
  { type: 'CANCEL', nowMs: 1800 },
];

const CONTEXTS: GovernanceContext[] = [
  { ...EMPTY_GOVERNANCE_CONTEXT },
  { proposedAtMs: 1000, timelockMs: 500, readyAtMs: 1700, expiresAtMs: 5000, executedAtMs: 0 },
];

const guardName = (g: unknown): string => (typeof g === 'string' ? g : '-');

describe('stepGovernanceOperation agrees with transition()', () => {
  it('for every state × context × event of the grid, refused ones included, and the grid takes every drawn transition', () => {
    const taken = new Set<string>();
    for (const value of GOVERNANCE_STATES) {
      for (const context of CONTEXTS) {
        for (const event of EVENTS) {
          const want = viaXstate(value, context, event);
          const got = stepGovernanceOperation(value, context, event);
          expect(got, `${value} ${JSON.stringify(context)} ${JSON.stringify(event)}`).toEqual(want);
          if (want !== undefined) {
            const [t] = governanceOperationMachine.getTransitionData(governanceOperationMachine.resolveState({ value, context }), event);
            taken.add(`${value}|${event.type}|${guardName(t.guard)}|${want.value}`);
          }
        }
      }
    }
    const drawn = new Set<string>();
    for (const node of toDirectedGraph(governanceOperationMachine).children) {
      for (const e of node.edges) drawn.add(`${e.source.key}|${e.label.text}|${guardName((e.transition as { guard?: unknown }).guard)}|${e.target.key}`);
    }
    expect([...taken].sort()).toEqual([...drawn].sort());
  });

  it('along every shortest path xstate/graph finds, reaching every state', () => {
    const paths = getShortestPaths(governanceOperationMachine, { events: EVENTS, serializeState: (s) => String(s.value), serializeEvent: (e) => JSON.stringify(e) });
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(GOVERNANCE_STATES));
    for (const path of paths) {
      let at = { value: 'none' as GovernanceStateName, context: { ...EMPTY_GOVERNANCE_CONTEXT } };
      for (const st of path.steps) {
        if ((st.event.type as string) === 'xstate.init') continue;
        const next = stepGovernanceOperation(at.value, at.context, st.event);
        expect(next).toBeDefined();
        expect(next).toEqual(viaXstate(at.value, at.context, st.event));
        at = next!;
      }
      expect(at.value).toBe(path.state.value);
    }
  });

  it('for random states, contexts and event sequences', () => {
    const ms = fc.integer({ min: 0, max: 10_000 });
    const context = fc.record({ proposedAtMs: ms, timelockMs: ms, readyAtMs: ms, expiresAtMs: ms, executedAtMs: ms });
    const event: fc.Arbitrary<GovernanceEvent> = fc.oneof(
      fc.record({ type: fc.constant('PROPOSE' as const), nowMs: ms, timelockMs: ms, expiresAtMs: ms }),
      fc.record({ type: fc.constant('APPROVE' as const), nowMs: ms }),
      fc.record({ type: fc.constant('TICK' as const), nowMs: ms }),
      fc.record({ type: fc.constant('EXECUTE' as const), nowMs: ms }),
      fc.record({ type: fc.constant('CANCEL' as const), nowMs: ms }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...GOVERNANCE_STATES), context, fc.array(event, { minLength: 1, maxLength: 10 }), (value, c, events) => {
        let at: { value: GovernanceStateName; context: GovernanceContext } = { value, context: c };
        for (const e of events) {
          const got = stepGovernanceOperation(at.value, at.context, e);
          expect(got).toEqual(viaXstate(at.value, at.context, e));
          if (got) at = got;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('what the drawing says', () => {
  const step = (v: GovernanceStateName, c: GovernanceContext, e: GovernanceEvent) => stepGovernanceOperation(v, c, e);

  it('PROPOSE fixes the timelock and expiry; APPROVE starts the timelock at the approving block time', () => {
    const p = step('none', EMPTY_GOVERNANCE_CONTEXT, { type: 'PROPOSE', nowMs: 1000, timelockMs: 500, expiresAtMs: 5000 })!;
    expect(p).toEqual({ value: 'proposed', context: { proposedAtMs: 1000, timelockMs: 500, readyAtMs: 0, expiresAtMs: 5000, executedAtMs: 0 } });
    const a = step(p.value, p.context, { type: 'APPROVE', nowMs: 1200 })!;
    expect(a).toEqual({ value: 'approved', context: { ...p.context, readyAtMs: 1700 } });
    // Ready exactly when the block time reaches readyAtMs, not a millisecond before.
    expect(step(a.value, a.context, { type: 'TICK', nowMs: 1699 })!.value).toBe('approved');
    expect(step(a.value, a.context, { type: 'TICK', nowMs: 1700 })!.value).toBe('ready');
    // Execute only from ready.
    expect(step(a.value, a.context, { type: 'EXECUTE', nowMs: 1800 })).toBeUndefined();
    const r = step(a.value, a.context, { type: 'TICK', nowMs: 1700 })!;
    expect(step(r.value, r.context, { type: 'EXECUTE', nowMs: 1800 })).toEqual({ value: 'executed', context: { ...r.context, executedAtMs: 1800 } });
  });

  it('a pending operation expires at its expiry, before it can become ready; final states take nothing', () => {
    const c = { proposedAtMs: 1000, timelockMs: 500, readyAtMs: 1700, expiresAtMs: 5000, executedAtMs: 0 };
    for (const v of ['proposed', 'approved', 'ready'] as const) {
      expect(step(v, c, { type: 'TICK', nowMs: 4999 })!.value).not.toBe('expired');
      expect(step(v, c, { type: 'TICK', nowMs: 5000 })!.value).toBe('expired');
      expect(step(v, c, { type: 'CANCEL', nowMs: 0 })!.value).toBe('cancelled');
    }
    for (const v of ['executed', 'cancelled', 'expired'] as const) for (const e of EVENTS) expect(step(v, c, e)).toBeUndefined();
    // Approve once only: approved and ready take no second APPROVE.
    expect(step('approved', c, { type: 'APPROVE', nowMs: 1 })).toBeUndefined();
    expect(step('ready', c, { type: 'APPROVE', nowMs: 1 })).toBeUndefined();
  });
});
