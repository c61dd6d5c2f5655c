/**
 * The position machine's fast stepper (`stepPosition`, compiled from the machine by
 * machines/stepper.ts, the function the perps engine calls for every position change)
 * agrees with xstate's `transition()`: for every state × every kind of event, refused
 * ones included, over a fixed grid, every xstate/graph shortest path, and random
 * states, contexts and events. The grid takes every drawn transition, so it is not
 * vacuous.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viaXstate as viaXstateOf } from './via-xstate';
import { getShortestPaths, toDirectedGraph } from 'xstate/graph';
import {
  EMPTY_POSITION_CONTEXT,
  positionMachine,
  stepPosition,
  type OpenFacts,
  type PositionContext,
  type PositionEvent,
  type PositionStateName,
} from '../../machines/position';

const STATES: readonly PositionStateName[] = ['none', 'open', 'closed', 'liquidated'];
const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const facts = (f: Partial<OpenFacts> = {}): OpenFacts => ({ perpListed: true, hasPrice: true, fresh: true, leverage: 10, maxLeverage: 50, margin: 100n, minMargin: 1n, size: 5n, ...f });
const ctx = (c: Partial<PositionContext> = {}): PositionContext => ({ isLong: true, size: 10n, entryPrice: 3000n, margin: 100n, leverage: 10, takeProfit: 0n, stopLoss: 0n, maintenanceMarginBps: 100, ...c });

/** xstate's answer: undefined when refused (transition() then returns the same snapshot, checked). */
const viaXstate = (value: PositionStateName, context: PositionContext, event: PositionEvent) => viaXstateOf<PositionContext>(positionMachine, value, context, event);

/** Every kind of event, each with arguments its guards take and refuse. */
const EVENTS: PositionEvent[] = [
  { type: 'OPEN', facts: facts(), position: ctx({ size: 5n }) },
  { type: 'OPEN', facts: facts({ fresh: false }), position: ctx({ size: 5n }) },
  { type: 'OPEN', facts: facts({ hasPrice: false }), position: ctx() },
  { type: 'OPEN', facts: facts({ leverage: 51 }), position: ctx() },
  { type: 'OPEN', facts: facts({ margin: 0n }), position: ctx() },
  { type: 'OPEN', facts: facts({ size: 0n }), position: ctx() },
  { type: 'CLOSE', size: 4n, fresh: true },
  { type: 'CLOSE', size: 0n, fresh: true },
  { type: 'CLOSE', size: 99n, fresh: true },
  { type: 'CLOSE', size: 4n, fresh: false },
  { type: 'CLOSE', size: 9n, fresh: true, collateral: 100n, minMargin: 20n },
  { type: 'CLOSE', size: 8n, fresh: true, collateral: 100n, minMargin: 20n },
  { type: 'ADL', size: 3n },
  { type: 'ADL', size: 10n },
  { type: 'ADL', size: 9n, collateral: 100n, minMargin: 20n },
  { type: 'SET_TPSL', takeProfit: 3200n, stopLoss: 2800n },
  { type: 'SET_TPSL', takeProfit: 2800n, stopLoss: 3200n },
  { type: 'SET_TPSL', takeProfit: 0n, stopLoss: 0n },
  { type: 'SET_TPSL', takeProfit: -1n, stopLoss: 0n },
  { type: 'TICK_SECOND', price: 3300n, fresh: true },
  { type: 'TICK_SECOND', price: 2700n, fresh: true },
  { type: 'TICK_SECOND', price: 3000n, fresh: true },
  { type: 'TICK_SECOND', price: 3300n, fresh: false },
  { type: 'CHECK_BLOCK', price: 2000n, fresh: true, liquidatable: true },
  { type: 'CHECK_BLOCK', price: 2000n, fresh: false, liquidatable: true },
  { type: 'CHECK_BLOCK', price: 3000n, fresh: true, liquidatable: false },
];

const CONTEXTS: PositionContext[] = [
  { ...EMPTY_POSITION_CONTEXT },
  ctx(),
  ctx({ isLong: false }),
  ctx({ takeProfit: 3200n, stopLoss: 2800n }),
  ctx({ isLong: false, takeProfit: 2800n, stopLoss: 3200n }),
];

const guardName = (g: unknown): string => (typeof g === 'string' ? g : '-');

describe('stepPosition agrees with transition()', () => {
  it('for every state × context × event of the grid, refused ones included, and the grid takes every drawn transition', () => {
    const taken = new Set<string>();
    let refused = 0;
    for (const value of STATES) {
      for (const context of CONTEXTS) {
        for (const event of EVENTS) {
          const want = viaXstate(value, context, event);
          const got = stepPosition(value, context, event);
          expect(got, `${value} ${stringify(context)} ${stringify(event)}`).toEqual(want);
          if (want === undefined) refused++;
          else {
            const [t] = positionMachine.getTransitionData(positionMachine.resolveState({ value, context }), event);
            taken.add(`${value}|${event.type}|${guardName(t.guard)}|${want.value}`);
          }
        }
      }
    }
    const drawn = new Set<string>();
    for (const node of toDirectedGraph(positionMachine).children) {
      for (const e of node.edges) drawn.add(`${e.source.key}|${e.label.text}|${guardName((e.transition as { guard?: unknown }).guard)}|${e.target.key}`);
    }
    expect([...taken].sort()).toEqual([...drawn].sort());
    // Final states refuse everything; so does every event but OPEN in none.
    expect(refused).toBeGreaterThan(2 * CONTEXTS.length * EVENTS.length);
  });

  it('along every shortest path xstate/graph finds', () => {
    const paths = getShortestPaths(positionMachine, { events: EVENTS, serializeState: (s) => stringify({ v: s.value, c: s.context }), serializeEvent: stringify });
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(STATES));
    for (const path of paths) {
      let at = { value: 'none' as PositionStateName, context: { ...EMPTY_POSITION_CONTEXT } };
      for (const st of path.steps) {
        if ((st.event.type as string) === 'xstate.init') continue; // the path's first step is the initial state
        const next = stepPosition(at.value, at.context, st.event);
        // A path only takes transitions that exist.
        expect(next).toBeDefined();
        at = next!;
      }
      expect(at.value).toBe(path.state.value);
      expect(at.context).toEqual(path.state.context);
    }
  });

  it('for random states, contexts and events', () => {
    const price = fc.bigInt({ min: -1n, max: 6000n });
    const context = fc.record({
      isLong: fc.boolean(),
      size: fc.bigInt({ min: 0n, max: 50n }),
      entryPrice: price,
      margin: fc.bigInt({ min: 0n, max: 500n }),
      leverage: fc.integer({ min: 1, max: 50 }),
      takeProfit: price,
      stopLoss: price,
      maintenanceMarginBps: fc.integer({ min: 0, max: 1000 }),
    });
    const openFacts = fc.record({
      perpListed: fc.boolean(),
      hasPrice: fc.boolean(),
      fresh: fc.boolean(),
      leverage: fc.integer({ min: 0, max: 60 }),
      maxLeverage: fc.constantFrom(20, 50),
      margin: fc.bigInt({ min: 0n, max: 200n }),
      minMargin: fc.bigInt({ min: 0n, max: 100n }),
      size: fc.bigInt({ min: 0n, max: 20n }),
    });
    const size = fc.bigInt({ min: 0n, max: 60n });
    const collateral = fc.option(fc.bigInt({ min: -50n, max: 500n }), { nil: undefined });
    const minMargin = fc.option(fc.bigInt({ min: 0n, max: 100n }), { nil: undefined });
    const event: fc.Arbitrary<PositionEvent> = fc.oneof(
      fc.record({ type: fc.constant('OPEN' as const), facts: openFacts, position: context }),
      fc.record({ type: fc.constant('CLOSE' as const), size, fresh: fc.boolean(), collateral, minMargin }),
      fc.record({ type: fc.constant('ADL' as const), size, collateral, minMargin }),
      fc.record({ type: fc.constant('SET_TPSL' as const), takeProfit: price, stopLoss: price }),
      fc.record({ type: fc.constant('TICK_SECOND' as const), price, fresh: fc.boolean() }),
      fc.record({ type: fc.constant('CHECK_BLOCK' as const), price, fresh: fc.boolean(), liquidatable: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...STATES), context, fc.array(event, { minLength: 1, maxLength: 8 }), (value, c, events) => {
        let at: { value: PositionStateName; context: PositionContext } = { value, context: c };
        for (const e of events) {
          const want = viaXstate(at.value, at.context, e);
          const got = stepPosition(at.value, at.context, e);
          expect(got).toEqual(want);
          if (got) at = got;
        }
      }),
      { numRuns: 1000 },
    );
  });
});
