/**
 * The session machine (machines/session.ts): pure transitions with time as event data,
 * its guard functions, every drawn transition walked by xstate/graph paths, and the
 * stepper execution calls (`stepSession`) agreeing with `transition()` for every state
 * × event, refused ones included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getSimplePaths, toDirectedGraph } from 'xstate/graph';
import {
  createRefusal,
  isLive,
  SESSION_STATES,
  sessionMachine,
  sessionRefusal,
  stepSession,
  type SessionContext,
  type SessionEvent,
  type SessionStateName,
} from '../../machines/session';
import { machines } from '../../machines/index';

type Snapshot = SnapshotFrom<typeof sessionMachine>;

const K1 = '0x1111111111111111111111111111111111111111' as const;
const K2 = '0x2222222222222222222222222222222222222222' as const;
const MAX = 5_000;
const create = (sessionKey: `0x${string}`, nowMs: number, expiresAtMs: number, nonce = 1n): SessionEvent => ({ type: 'CREATE', sessionKey, expiresAtMs, nowMs, maxDurationMs: MAX, nonce });
const revoke = (nowMs: number): SessionEvent => ({ type: 'REVOKE', nowMs });
const tick = (nowMs: number): SessionEvent => ({ type: 'TICK', nowMs });

/** JSON with bigints (nonces) as tagged strings: the graph utilities serialize snapshots and events. */
const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
const serialization = {
  serializeState: (s: Snapshot) => stringify({ value: s.value, context: s.context }),
  serializeEvent: (e: SessionEvent) => stringify(e),
};

const init = (): Snapshot => initialTransition(sessionMachine)[0];

function run(events: SessionEvent[], from = init()): Snapshot[] {
  const out: Snapshot[] = [];
  let s = from;
  for (const e of events) {
    [s] = transition(sessionMachine, s, e);
    out.push(s);
  }
  return out;
}
const last = (xs: Snapshot[]) => xs[xs.length - 1];

function declaredEdges(): Set<string> {
  const edges = new Set<string>();
  for (const child of toDirectedGraph(sessionMachine).children) {
    for (const edge of child.edges) edges.add(`${edge.source.key}|${edge.label.text}|${edge.target.key}`);
  }
  return edges;
}

describe('session guards', () => {
  it('CREATE: expiry after now and at most maxDurationMs ahead (both bounds exact)', () => {
    expect(createRefusal({ nowMs: 100, expiresAtMs: 100, maxDurationMs: MAX })).toBe('EXPIRY_NOT_AFTER_NOW');
    expect(createRefusal({ nowMs: 100, expiresAtMs: 101, maxDurationMs: MAX })).toBeNull();
    expect(createRefusal({ nowMs: 100, expiresAtMs: 100 + MAX, maxDurationMs: MAX })).toBeNull();
    expect(createRefusal({ nowMs: 100, expiresAtMs: 101 + MAX, maxDurationMs: MAX })).toBe('EXPIRY_TOO_FAR');
  });

  it('live strictly before expiry', () => {
    expect(isLive({ expiresAtMs: 1000 }, 999)).toBe(true);
    expect(isLive({ expiresAtMs: 1000 }, 1000)).toBe(false);
  });

  it('sessionRefusal: only the current key of an active, live session may trade', () => {
    const ctx = { sessionKey: K1, expiresAtMs: 1000 };
    expect(sessionRefusal('active', ctx, K1, 999)).toBeNull();
    expect(sessionRefusal('active', ctx, K1, 1000)).toBe('SESSION_EXPIRED');
    expect(sessionRefusal('active', ctx, K2, 10)).toBe('NOT_AUTHORIZED');
    expect(sessionRefusal('revoked', ctx, K1, 10)).toBe('SESSION_REVOKED');
    expect(sessionRefusal('expired', ctx, K1, 10)).toBe('SESSION_EXPIRED');
    expect(sessionRefusal('none', { sessionKey: null, expiresAtMs: 0 }, K1, 10)).toBe('NOT_AUTHORIZED');
  });

  it('sessionRefusal agrees with the machine: a TICK at the same time leaves `active` exactly when the key may trade', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000 }), fc.integer({ min: 1, max: MAX }), fc.integer({ min: 0, max: 20_000 }), (now, dur, later) => {
        const [active] = run([create(K1, now, now + dur)]);
        const [after] = transition(sessionMachine, active, tick(now + later));
        const may = sessionRefusal(active.value as SessionStateName, active.context, K1, now + later) === null;
        expect(after.value === 'active').toBe(may);
      }),
    );
  });
});

describe('session machine, driven by the pure transition function', () => {
  it('starts in none with an empty context', () => {
    const s = init();
    expect(s.value).toBe('none');
    expect(s.context).toEqual({ sessionKey: null, expiresAtMs: 0, createdAtMs: 0, nonce: 0n });
  });

  it('none → active → revoked → active (create again)', () => {
    const steps = run([create(K1, 10, 1_000, 7n), revoke(20), create(K2, 30, 2_000, 8n)]);
    expect(steps.map((s) => s.value)).toEqual(['active', 'revoked', 'active']);
    expect(steps[0].context).toEqual({ sessionKey: K1, expiresAtMs: 1_000, createdAtMs: 10, nonce: 7n });
    expect(last(steps).context).toEqual({ sessionKey: K2, expiresAtMs: 2_000, createdAtMs: 30, nonce: 8n });
  });

  it('a create while active replaces the session (one per owner)', () => {
    const steps = run([create(K1, 0, 1_000, 1n), create(K2, 5, 3_000, 2n)]);
    expect(last(steps).value).toBe('active');
    expect(last(steps).context).toMatchObject({ sessionKey: K2, expiresAtMs: 3_000, createdAtMs: 5, nonce: 2n });
  });

  it('expires by time given as event data, exactly at expiresAtMs', () => {
    const [active] = run([create(K1, 0, 1_000)]);
    expect(transition(sessionMachine, active, tick(999))[0].value).toBe('active');
    expect(transition(sessionMachine, active, tick(1_000))[0].value).toBe('expired');
    // A revoke after the expiry finds it expired, not revoked.
    expect(transition(sessionMachine, active, revoke(1_000))[0].value).toBe('expired');
    expect(transition(sessionMachine, active, revoke(999))[0].value).toBe('revoked');
  });

  it('refuses a create outside the window and a revoke without a session: same snapshot back', () => {
    const s = init();
    for (const e of [create(K1, 100, 100), create(K1, 0, MAX + 1), revoke(0), tick(0)]) {
      expect(s.can(e)).toBe(false);
      expect(transition(sessionMachine, s, e)[0]).toBe(s);
    }
    const revoked = last(run([create(K1, 0, 100), revoke(1)]));
    for (const e of [revoke(2), tick(1_000)]) expect(revoked.can(e)).toBe(false);
  });

  it('has nothing for a runtime to execute (assigns only)', () => {
    let s = init();
    for (const e of [create(K1, 0, 100), create(K2, 1, 200), revoke(5), create(K1, 6, 300), tick(400)]) {
      const [next, actions] = transition(sessionMachine, s, e);
      expect(actions).toEqual([]);
      s = next;
    }
    expect(s.value).toBe('expired');
  });

  it('restores from {value, context} as execution stores it', () => {
    const stored = { value: 'active' as const, context: { sessionKey: K1, expiresAtMs: 500, createdAtMs: 1, nonce: 3n } };
    const s = sessionMachine.resolveState(stored);
    expect(s.value).toBe('active');
    expect(transition(sessionMachine, s, tick(500))[0].value).toBe('expired');
  });

  it('is listed in the machines registry', () => {
    expect(machines.session).toBe(sessionMachine);
  });
});

describe('session machine, every path (xstate/graph)', () => {
  // Two keys, valid and invalid creates, live and late revokes and ticks.
  const events: SessionEvent[] = [
    create(K1, 0, 1_000, 1n),
    create(K2, 100, 2_000, 2n),
    create(K1, 100, 100, 3n), // expiry not after now
    create(K2, 0, MAX + 1, 4n), // too far
    revoke(500),
    revoke(5_000),
    tick(500),
    tick(5_000),
  ];

  it('draws exactly the expected transitions', () => {
    expect([...declaredEdges()].sort()).toEqual(
      ['none|CREATE|active', 'active|CREATE|active', 'active|REVOKE|revoked', 'active|REVOKE|expired', 'active|TICK|expired', 'revoked|CREATE|active', 'expired|CREATE|active'].sort(),
    );
  });

  it('reaches every state by a shortest path, and replaying the path lands on the same snapshot', () => {
    const paths = getShortestPaths(sessionMachine, { events, ...serialization });
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(SESSION_STATES));
    for (const path of paths) {
      const end = last([init(), ...run(path.steps.map((s) => s.event))]);
      expect(end.value).toBe(path.state.value);
      expect(end.context).toEqual(path.state.context);
    }
  });

  it('covers every drawn transition, both REVOKE branches included, and no other', () => {
    const adjacency = getAdjacencyMap(sessionMachine, { events, ...serialization });
    const taken = new Set<string>();
    for (const vertex of Object.values(adjacency)) {
      for (const { event, state } of Object.values(vertex.transitions) as { event: SessionEvent; state: Snapshot }[]) {
        if (!vertex.state.can(event)) {
          expect(state.value).toBe(vertex.state.value);
          expect(state.context).toEqual(vertex.state.context);
          continue;
        }
        taken.add(`${vertex.state.value}|${event.type}|${state.value}`);
      }
    }
    expect([...taken].sort()).toEqual([...declaredEdges()].sort());
  });

  it('walks every simple path; each step replays with transition() and only drawn transitions are taken', () => {
    const small: SessionEvent[] = [create(K1, 0, 1_000, 1n), create(K2, 10, 1_000, 2n), create(K1, 0, 0, 3n), revoke(500), revoke(5_000), tick(5_000)];
    const paths = getSimplePaths(sessionMachine, { events: small, ...serialization });
    expect(paths.length).toBeGreaterThan(4);
    const taken = new Set<string>();
    for (const path of paths) {
      let prev = init();
      for (const step of path.steps) {
        if (prev.can(step.event)) taken.add(`${prev.value}|${step.event.type}|${step.state.value}`);
        const [next] = transition(sessionMachine, prev, step.event);
        expect(next.value).toBe(step.state.value);
        prev = next;
      }
    }
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(SESSION_STATES));
    expect([...taken].sort()).toEqual([...declaredEdges()].sort());
  });
});

describe('stepSession, the stepper execution calls, agrees with transition()', () => {
  /** xstate's answer: undefined when refused (the same snapshot comes back, checked). */
  function viaXstate(value: SessionStateName, context: SessionContext, event: SessionEvent) {
    const s: Snapshot = sessionMachine.resolveState({ value, context });
    const [next] = transition(sessionMachine, s, event);
    if (!s.can(event)) {
      expect(next.value).toBe(value);
      expect(next.context).toEqual(context);
      return undefined;
    }
    return { value: next.value, context: next.context };
  }

  const contexts: SessionContext[] = [
    { sessionKey: null, expiresAtMs: 0, createdAtMs: 0, nonce: 0n },
    { sessionKey: K1, expiresAtMs: 1_000, createdAtMs: 0, nonce: 1n },
  ];
  const events: SessionEvent[] = [
    create(K1, 0, 1_000, 1n), create(K2, 100, 2_000, 2n), create(K1, 100, 100, 3n), create(K2, 0, MAX + 1, 4n),
    revoke(500), revoke(1_000), revoke(5_000), tick(999), tick(1_000), tick(5_000),
  ];

  it('for every state × context × event, refused ones included, taking every drawn transition', () => {
    const taken = new Set<string>();
    let refused = 0;
    for (const value of SESSION_STATES) {
      for (const context of contexts) {
        for (const event of events) {
          const want = viaXstate(value, context, event);
          expect(stepSession(value, context, event), `${value} ${stringify(context)} ${stringify(event)}`).toEqual(want);
          if (want) taken.add(`${value}|${event.type}|${want.value}`);
          else refused++;
        }
      }
    }
    expect([...taken].sort()).toEqual([...declaredEdges()].sort());
    expect(refused).toBeGreaterThan(0);
  });

  it('on random runs', () => {
    const key = fc.constantFrom(K1, K2);
    const now = fc.integer({ min: 0, max: 3 * MAX });
    const event: fc.Arbitrary<SessionEvent> = fc.oneof(
      fc.record({ type: fc.constant('CREATE' as const), sessionKey: key, expiresAtMs: fc.integer({ min: 0, max: 4 * MAX }), nowMs: now, maxDurationMs: fc.constant(MAX), nonce: fc.bigInt({ min: 0n, max: 9n }) }),
      fc.record({ type: fc.constant('REVOKE' as const), nowMs: now }),
      fc.record({ type: fc.constant('TICK' as const), nowMs: now }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (evs) => {
        let at: { value: SessionStateName; context: SessionContext } = { value: 'none', context: { sessionKey: null, expiresAtMs: 0, createdAtMs: 0, nonce: 0n } };
        for (const e of evs) {
          const want = viaXstate(at.value, at.context, e);
          const got = stepSession(at.value, at.context, e);
          expect(got).toEqual(want);
          if (got) at = got;
        }
      }),
      { numRuns: 500 },
    );
  });
});
