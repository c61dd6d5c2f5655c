/**
 * The twap machine's fast stepper (`stepTwapMachine`, compiled from the machine by
 * machines/stepper.ts, the function every TWAP state change goes through:
 * src/state/timers/twap.ts stepTwap) agrees with xstate's `transition()`: for every state ×
 * context × event of a grid that takes every drawn transition, along every xstate/graph
 * shortest path, and for random sequences; and the drawing says what decision 91 says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getShortestPaths, toDirectedGraph } from 'xstate/graph';
import { stepTwapMachine, TWAP_STATES, twapMachine, type TwapContext, type TwapEvent, type TwapStateName } from '../../machines/twap';
import { viaXstate as viaXstateOf } from './via-xstate';

const viaXstate = (value: TwapStateName, context: TwapContext, event: TwapEvent) => viaXstateOf<TwapContext>(twapMachine, value, context, event);

const ctx = (over: Partial<TwapContext> = {}): TwapContext => ({ size: 100n, slicesTotal: 3, slicesDone: 0, slicesMissed: 0, filled: 0n, notional: 0n, nextSliceMs: 1000, updatedMs: 1000, ...over });

const EVENTS: TwapEvent[] = [
  { type: 'SLICE', nowMs: 2000, filled: 10n, notional: 20n, nextSliceMs: 3000 },
  { type: 'SLICE', nowMs: 2000, filled: 100n, notional: 200n, nextSliceMs: 3000 },
  { type: 'MISS', nowMs: 2000, code: 'NO_LIQUIDITY', nextSliceMs: 3000 },
  { type: 'REFUSED', nowMs: 2000, code: 'INSUFFICIENT_BALANCE' },
  { type: 'CANCEL', nowMs: 2000 },
];

const CONTEXTS: TwapContext[] = [ctx(), ctx({ slicesDone: 1, slicesMissed: 1, filled: 40n }), ctx({ slicesTotal: 1 })];

describe('stepTwapMachine agrees with transition()', () => {
  it('for every state × context × event of the grid, refused ones included, and the grid takes every drawn transition', () => {
    const taken = new Set<string>();
    for (const value of TWAP_STATES) {
      for (const context of CONTEXTS) {
        for (const event of EVENTS) {
          const want = viaXstate(value, context, event);
          expect(stepTwapMachine(value, context, event), `${value} ${event.type}`).toEqual(want);
          if (want !== undefined) taken.add(`${value}|${event.type}|${want.value}`);
        }
      }
    }
    const drawn = new Set<string>();
    for (const node of toDirectedGraph(twapMachine).children) for (const e of node.edges) drawn.add(`${e.source.key}|${e.label.text}|${e.target.key}`);
    expect([...taken].sort()).toEqual([...drawn].sort());
  });

  it('along every shortest path xstate/graph finds, reaching every state', () => {
    const paths = getShortestPaths(twapMachine, { events: EVENTS, serializeState: (s) => String(s.value), serializeEvent: (e) => JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) });
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(TWAP_STATES));
    for (const path of paths) {
      let at: { value: TwapStateName; context: TwapContext } = { value: 'running', context: path.steps[0]?.state.context as TwapContext };
      for (const st of path.steps) {
        if ((st.event.type as string) === 'xstate.init') continue;
        const next = stepTwapMachine(at.value, at.context, st.event);
        expect(next).toEqual(viaXstate(at.value, at.context, st.event));
        at = next!;
      }
      expect(at.value).toBe(path.state.value);
    }
  });

  it('for random contexts and event sequences', () => {
    const ms = fc.integer({ min: 0, max: 10_000 });
    const amount = fc.bigInt({ min: 0n, max: 200n });
    const event: fc.Arbitrary<TwapEvent> = fc.oneof(
      fc.record({ type: fc.constant('SLICE' as const), nowMs: ms, filled: amount, notional: amount, nextSliceMs: ms }),
      fc.record({ type: fc.constant('MISS' as const), nowMs: ms, code: fc.constantFrom('NO_LIQUIDITY', 'ORACLE_STALE'), nextSliceMs: ms }),
      fc.record({ type: fc.constant('REFUSED' as const), nowMs: ms, code: fc.constant('INSUFFICIENT_BALANCE') }),
      fc.record({ type: fc.constant('CANCEL' as const), nowMs: ms }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...TWAP_STATES), fc.integer({ min: 1, max: 6 }), fc.array(event, { minLength: 1, maxLength: 10 }), (value, slicesTotal, events) => {
        let at: { value: TwapStateName; context: TwapContext } = { value, context: ctx({ slicesTotal }) };
        for (const e of events) {
          const got = stepTwapMachine(at.value, at.context, e);
          expect(got).toEqual(viaXstate(at.value, at.context, e));
          if (got) at = got;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('what the drawing says (decision 91)', () => {
  const step = stepTwapMachine;

  it('slices add up while running; the last slice, or one that fills the size, completes it', () => {
    const a = step('running', ctx(), EVENTS[0])!;
    expect(a).toMatchObject({ value: 'running', context: { slicesDone: 1, filled: 10n, notional: 20n, nextSliceMs: 3000, updatedMs: 2000 } });
    expect(step('running', ctx(), EVENTS[1])).toMatchObject({ value: 'completed', context: { filled: 100n, nextSliceMs: 0 } });
    expect(step('running', ctx({ slicesDone: 2 }), EVENTS[0])).toMatchObject({ value: 'completed', context: { slicesDone: 3 } });
  });

  it('a missed slice counts and carries on, and completes the TWAP when it was the last', () => {
    expect(step('running', ctx(), EVENTS[2])).toMatchObject({ value: 'running', context: { slicesMissed: 1, lastCode: 'NO_LIQUIDITY' } });
    expect(step('running', ctx({ slicesDone: 1, slicesMissed: 1 }), EVENTS[2])).toMatchObject({ value: 'completed', context: { slicesMissed: 2, nextSliceMs: 0 } });
  });

  it('REFUSED fails it, CANCEL cancels it; the final states take no event', () => {
    expect(step('running', ctx(), EVENTS[3])).toMatchObject({ value: 'failed', context: { lastCode: 'INSUFFICIENT_BALANCE', nextSliceMs: 0 } });
    expect(step('running', ctx(), EVENTS[4])).toMatchObject({ value: 'cancelled', context: { nextSliceMs: 0 } });
    for (const v of ['completed', 'failed', 'cancelled'] as const) for (const e of EVENTS) expect(step(v, ctx(), e)).toBeUndefined();
  });
});
