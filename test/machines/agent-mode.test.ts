/**
 * The agent-mode machine (machines/agent-mode.ts): modes and caps as parallel regions,
 * the order guards execution calls directly (checked against `snapshot.can(ORDER)`),
 * each cap at its boundary, and every drawn transition walked by xstate/graph paths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getSimplePaths, toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import {
  AGENT_MODES,
  agentModeMachine,
  capsRefusal,
  ORDER_GUARDS,
  orderNeedsMargin,
  orderRefusal,
  ordersAllowedWithoutFacts,
  reduceOnlyRefusal,
  type AgentCaps,
  type AgentEvent,
  type AgentModeName,
  type AgentStateValue,
  type OrderFacts,
} from '../../machines/agent-mode';
import { machines } from '../../machines/index';

type Snapshot = SnapshotFrom<typeof agentModeMachine>;

const caps: AgentCaps = { maxLeverageBps: 50_000n, allowedOrderTypes: 0b10, maxInputPerTrade: 1_000n, maxTotalPosition: 10n };
const order = (o: Partial<OrderFacts> = {}): OrderFacts => ({ orderType: 1, leverage: 1, margin: 0n, positionBefore: 0n, positionAfter: 1n, ...o });
const ORDER = (o: Partial<OrderFacts> = {}): AgentEvent => ({ type: 'ORDER', order: order(o) });
const SET_MODE = (mode: number): AgentEvent => ({ type: 'SET_MODE', mode });
const SET_CAPS = (c: AgentCaps = caps): AgentEvent => ({ type: 'SET_CAPS', caps: c });

const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
const serialization = {
  serializeState: (s: Snapshot) => stringify({ value: s.value, context: s.context }),
  serializeEvent: (e: AgentEvent) => stringify(e),
};

const init = (): Snapshot => initialTransition(agentModeMachine)[0];
const value = (s: Snapshot) => s.value as AgentStateValue;
const step = (s: Snapshot, e: AgentEvent) => transition(agentModeMachine, s, e)[0];
const at = (mode: AgentModeName, c: AgentCaps | null): Snapshot =>
  agentModeMachine.resolveState({ value: { mode, caps: c ? 'set' : 'notSet' }, context: { caps: c } });

/** Drawn transitions of both regions, as "state|EVENT|target". */
function declaredEdges(): Set<string> {
  const edges = new Set<string>();
  const walk = (n: DirectedGraphNode) => {
    for (const e of n.edges) edges.add(`${e.source.key}|${e.label.text}|${e.target.key}`);
    n.children.forEach(walk);
  };
  walk(toDirectedGraph(agentModeMachine));
  return edges;
}

/** The region transition a taken event is: SET_CAPS moves the caps region, the rest the mode region. */
function regionEdge(from: Snapshot, e: AgentEvent, to: Snapshot): string {
  return e.type === 'SET_CAPS' ? `${value(from).caps}|SET_CAPS|${value(to).caps}` : `${value(from).mode}|${e.type}|${value(to).mode}`;
}

describe('agent guards (the functions execution calls per order)', () => {
  it('without caps every order is within caps', () => {
    expect(capsRefusal(null, order({ leverage: 50, margin: 10n ** 30n, positionAfter: 10n ** 30n }))).toBeNull();
  });

  it('each cap at its boundary: at the cap accepted, one unit over refused', () => {
    // leverage × 10000 ≤ max_leverage
    expect(capsRefusal(caps, order({ leverage: 5 }))).toBeNull();
    expect(capsRefusal({ ...caps, maxLeverageBps: 49_999n }, order({ leverage: 5 }))).toBe('CAP_LEVERAGE');
    expect(capsRefusal(caps, order({ leverage: 6 }))).toBe('CAP_LEVERAGE');
    // bit orderType of allowed_order_types
    expect(capsRefusal(caps, order({ orderType: 1 }))).toBeNull();
    expect(capsRefusal(caps, order({ orderType: 0 }))).toBe('CAP_ORDER_TYPE');
    expect(capsRefusal({ ...caps, allowedOrderTypes: 0b01 }, order({ orderType: 0 }))).toBeNull();
    // margin ≤ max_input_per_trade
    expect(capsRefusal(caps, order({ margin: 1_000n }))).toBeNull();
    expect(capsRefusal(caps, order({ margin: 1_001n }))).toBe('CAP_INPUT');
    // |position after| ≤ max_total_position, either sign
    expect(capsRefusal(caps, order({ positionAfter: 10n }))).toBeNull();
    expect(capsRefusal(caps, order({ positionAfter: -10n }))).toBeNull();
    expect(capsRefusal(caps, order({ positionAfter: 11n }))).toBe('CAP_POSITION');
    expect(capsRefusal(caps, order({ positionAfter: -11n }))).toBe('CAP_POSITION');
  });

  it('reduce-only: shrinks the absolute position without flipping; closing to zero is a reduction', () => {
    expect(reduceOnlyRefusal({ positionBefore: 10n, positionAfter: 4n })).toBeNull();
    expect(reduceOnlyRefusal({ positionBefore: 10n, positionAfter: 0n })).toBeNull();
    expect(reduceOnlyRefusal({ positionBefore: -10n, positionAfter: -1n })).toBeNull();
    expect(reduceOnlyRefusal({ positionBefore: 10n, positionAfter: -1n })).toBe('AGENT_REDUCE_ONLY'); // flip
    expect(reduceOnlyRefusal({ positionBefore: 10n, positionAfter: 11n })).toBe('AGENT_REDUCE_ONLY'); // grows
    expect(reduceOnlyRefusal({ positionBefore: -10n, positionAfter: 3n })).toBe('AGENT_REDUCE_ONLY');
    expect(reduceOnlyRefusal({ positionBefore: 0n, positionAfter: 1n })).toBe('AGENT_REDUCE_ONLY');
    expect(reduceOnlyRefusal({ positionBefore: 0n, positionAfter: -1n })).toBe('AGENT_REDUCE_ONLY');
  });

  it('orderRefusal is the machine: snapshot.can(ORDER) ⇔ orderRefusal(...) === null, for any mode, caps and order', () => {
    const capsArb = fc.option(
      fc.record({
        maxLeverageBps: fc.bigInt({ min: 0n, max: 600_000n }),
        allowedOrderTypes: fc.integer({ min: 0, max: 3 }),
        maxInputPerTrade: fc.bigInt({ min: 0n, max: 5_000n }),
        maxTotalPosition: fc.bigInt({ min: 0n, max: 50n }),
      }),
      { nil: null },
    );
    const factsArb = fc.record({
      orderType: fc.constantFrom(0 as const, 1 as const),
      leverage: fc.integer({ min: 1, max: 50 }),
      margin: fc.bigInt({ min: 0n, max: 6_000n }),
      positionBefore: fc.bigInt({ min: -40n, max: 40n }),
      positionAfter: fc.bigInt({ min: -60n, max: 60n }),
    });
    fc.assert(
      fc.property(fc.constantFrom(...AGENT_MODES), capsArb, factsArb, (mode, c, facts) => {
        const s = at(mode, c);
        expect(s.can({ type: 'ORDER', order: facts })).toBe(orderRefusal(mode, c, facts) === null);
      }),
      { numRuns: 2_000 },
    );
  });

  it('mode OFF refuses every order, with or without caps', () => {
    for (const c of [null, caps]) {
      expect(orderRefusal('off', c, order())).toBe('AGENT_MODE_OFF');
      expect(at('off', c).can(ORDER())).toBe(false);
    }
  });

  it('caps apply in REDUCE_ONLY too (a reduction of the wrong type is still refused)', () => {
    const reduce = order({ orderType: 0, positionBefore: 5n, positionAfter: 2n });
    expect(orderRefusal('reduceOnly', null, reduce)).toBeNull();
    expect(orderRefusal('reduceOnly', caps, reduce)).toBe('CAP_ORDER_TYPE');
  });
});

describe('agent-mode machine, driven by the pure transition function', () => {
  it('starts ACTIVE with caps not set', () => {
    const s = init();
    expect(s.value).toEqual({ mode: 'active', caps: 'notSet' });
    expect(s.context).toEqual({ caps: null });
    expect(s.can(ORDER({ leverage: 50, margin: 10n ** 20n }))).toBe(true);
  });

  it('SET_MODE 0, 1, 2 from any mode, above 2 changes nothing', () => {
    for (const from of AGENT_MODES) {
      for (const [n, to] of AGENT_MODES.entries()) expect(value(step(at(from, null), SET_MODE(n))).mode).toBe(to);
      const s = at(from, caps);
      expect(s.can(SET_MODE(3))).toBe(false);
      expect(step(s, SET_MODE(3))).toBe(s);
    }
  });

  it('SET_CAPS sets, then replaces, the caps; mode is untouched', () => {
    const off = step(init(), SET_MODE(0));
    const set = step(off, SET_CAPS());
    expect(set.value).toEqual({ mode: 'off', caps: 'set' });
    expect(set.context.caps).toEqual(caps);
    const other = { ...caps, maxInputPerTrade: 7n };
    const again = step(set, SET_CAPS(other));
    expect(again.value).toEqual({ mode: 'off', caps: 'set' });
    expect(again.context.caps).toEqual(other);
  });

  it('an order changes nothing: accepted orders re-enter the same mode', () => {
    const s = step(init(), SET_CAPS());
    const after = step(s, ORDER({ margin: 5n }));
    expect(after.value).toEqual(s.value);
    expect(after.context).toEqual(s.context);
  });

  it('has nothing for a runtime to execute', () => {
    let s = init();
    for (const e of [SET_CAPS(), SET_MODE(1), ORDER({ positionBefore: 5n, positionAfter: 1n }), SET_MODE(0), SET_MODE(2)]) {
      const [next, actions] = transition(agentModeMachine, s, e);
      expect(actions.filter((a) => !String(a.type).startsWith('xstate.'))).toEqual([]);
      s = next;
    }
  });

  it('is listed in the machines registry', () => {
    expect(machines['agent-mode']).toBe(agentModeMachine);
  });
});

describe('agent-mode machine, every path (xstate/graph)', () => {
  const events: AgentEvent[] = [
    SET_MODE(0),
    SET_MODE(1),
    SET_MODE(2),
    SET_MODE(3),
    SET_CAPS(),
    ORDER({ positionBefore: 5n, positionAfter: 2n }), // reduces, within caps
    ORDER({ positionBefore: 0n, positionAfter: 2n }), // opens, within caps
    ORDER({ leverage: 9, positionBefore: 5n, positionAfter: 2n }), // reduces, over the leverage cap
  ];

  it('draws exactly the expected transitions', () => {
    const modeEdges = AGENT_MODES.flatMap((from) => AGENT_MODES.map((to) => `${from}|SET_MODE|${to}`));
    expect([...declaredEdges()].sort()).toEqual(
      [...modeEdges, 'reduceOnly|ORDER|reduceOnly', 'active|ORDER|active', 'notSet|SET_CAPS|set', 'set|SET_CAPS|set'].sort(),
    );
  });

  it('reaches every combination of mode and caps by a shortest path', () => {
    const paths = getShortestPaths(agentModeMachine, { events, ...serialization });
    const reached = new Set(paths.map((p) => `${value(p.state).mode}/${value(p.state).caps}`));
    expect(reached).toEqual(new Set(AGENT_MODES.flatMap((m) => [`${m}/notSet`, `${m}/set`])));
    for (const path of paths) {
      let s = init();
      for (const st of path.steps) s = step(s, st.event);
      expect(s.value).toEqual(path.state.value);
      expect(s.context).toEqual(path.state.context);
    }
  });

  it('covers every drawn transition (and only those); refused events leave the snapshot as it was', () => {
    const adjacency = getAdjacencyMap(agentModeMachine, { events, ...serialization });
    const taken = new Set<string>();
    let refused = 0;
    for (const vertex of Object.values(adjacency)) {
      for (const { event, state } of Object.values(vertex.transitions) as { event: AgentEvent; state: Snapshot }[]) {
        if (!vertex.state.can(event)) {
          refused++;
          expect(state.value).toEqual(vertex.state.value);
          expect(state.context).toEqual(vertex.state.context);
          if (event.type === 'ORDER') {
            const v = value(vertex.state);
            expect(orderRefusal(v.mode, vertex.state.context.caps, event.order)).not.toBeNull();
          }
          continue;
        }
        taken.add(regionEdge(vertex.state, event, state));
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect([...taken].sort()).toEqual([...declaredEdges()].sort());
  });

  it('walks every simple path, replaying each step with transition()', () => {
    const small: AgentEvent[] = [SET_MODE(0), SET_MODE(1), SET_MODE(2), SET_CAPS(), SET_CAPS({ ...caps, maxInputPerTrade: 1n }), ORDER({ positionBefore: 5n, positionAfter: 2n })];
    const paths = getSimplePaths(agentModeMachine, { events: small, ...serialization });
    expect(paths.length).toBeGreaterThan(6);
    const taken = new Set<string>();
    for (const path of paths) {
      let prev = init();
      for (const st of path.steps) {
        if (prev.can(st.event)) taken.add(regionEdge(prev, st.event, st.state));
        const next = step(prev, st.event);
        expect(next.value).toEqual(st.state.value);
        prev = next;
      }
    }
    // Self-loops (an order, or SET_MODE to the current mode) never lead to a new vertex,
    // so simple paths cannot contain them; the adjacency test above covers those.
    const selfLoops = new Set(['reduceOnly|ORDER|reduceOnly', 'active|ORDER|active', 'off|SET_MODE|off', 'reduceOnly|SET_MODE|reduceOnly', 'active|SET_MODE|active']);
    expect([...taken].sort()).toEqual([...declaredEdges()].filter((e) => !selfLoops.has(e)).sort());
  });
});

describe('ORDER asked of the drawing', () => {
  it('ORDER_GUARDS is read from the machine: no ORDER in off, and(reducesWithoutFlip, withinCaps) in reduceOnly, withinCaps in active', () => {
    expect(ORDER_GUARDS).toEqual({ off: null, reduceOnly: ['reducesWithoutFlip', 'withinCaps'], active: ['withinCaps'] });
  });

  it('the shortcuts execution takes agree with the machine: orders allowed without facts are allowed whatever the order; margin unread changes nothing', () => {
    const facts = fc.record({
      orderType: fc.constantFrom(0 as const, 1 as const),
      leverage: fc.integer({ min: 1, max: 60 }),
      margin: fc.bigInt({ min: 0n, max: 2_000n }),
      positionBefore: fc.bigInt({ min: -20n, max: 20n }),
      positionAfter: fc.bigInt({ min: -20n, max: 20n }),
    });
    fc.assert(
      fc.property(fc.constantFrom(...AGENT_MODES), fc.option(fc.constant(caps), { nil: null }), facts, fc.bigInt({ min: 0n, max: 2_000n }), (mode, c, o, otherMargin) => {
        const s = at(mode, c);
        if (ordersAllowedWithoutFacts(mode, c)) expect(s.can({ type: 'ORDER', order: o })).toBe(true);
        if (!orderNeedsMargin(mode, c)) expect(s.can({ type: 'ORDER', order: { ...o, margin: otherMargin } })).toBe(s.can({ type: 'ORDER', order: o }));
      }),
      { numRuns: 500 },
    );
    expect(ordersAllowedWithoutFacts('active', null)).toBe(true);
    expect(ordersAllowedWithoutFacts('active', caps)).toBe(false);
    expect(ordersAllowedWithoutFacts('off', null)).toBe(false);
    expect(ordersAllowedWithoutFacts('reduceOnly', null)).toBe(false);
  });
});
