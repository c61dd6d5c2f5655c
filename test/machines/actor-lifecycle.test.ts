import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getSimplePaths, toDirectedGraph } from 'xstate/graph';
import {
  ACTOR_LIFECYCLE_STATES,
  actorLifecycleMachine,
  backoffDelayMs,
  type ActorLifecycleEvent,
  type ActorLifecycleInput,
} from '../../machines/actor-lifecycle';
import { machines } from '../../machines/index';

type Snapshot = SnapshotFrom<typeof actorLifecycleMachine>;

const START = { type: 'START' } as const;
const RETRY = { type: 'RETRY' } as const;
const STOP = { type: 'STOP' } as const;
const STOPPED = { type: 'STOPPED' } as const;
const started = (atMs = 0): ActorLifecycleEvent => ({ type: 'STARTED', atMs });
const fail = (atMs = 0, error = 'boom'): ActorLifecycleEvent => ({ type: 'FAIL', error, atMs });

function init(input: ActorLifecycleInput = {}): Snapshot {
  return initialTransition(actorLifecycleMachine, input)[0];
}

/** Applies events in order with the pure transition function; returns every snapshot after the first. */
function run(snapshot: Snapshot, events: ActorLifecycleEvent[]): Snapshot[] {
  const out: Snapshot[] = [];
  let s = snapshot;
  for (const event of events) {
    [s] = transition(actorLifecycleMachine, s, event);
    out.push(s);
  }
  return out;
}

function last(snapshots: Snapshot[]): Snapshot {
  const s = snapshots.at(-1);
  if (s === undefined) throw new Error('no snapshot');
  return s;
}

/** Every transition drawn in the machine definition, as "source|EVENT|target". */
function declaredEdges(): Set<string> {
  const edges = new Set<string>();
  for (const child of toDirectedGraph(actorLifecycleMachine).children) {
    for (const edge of child.edges) edges.add(`${edge.source.key}|${edge.label.text}|${edge.target.key}`);
  }
  return edges;
}

describe('backoffDelayMs', () => {
  const opts = { initialMs: 100, maxMs: 5_000 };

  it('doubles from initialMs and caps at maxMs', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelayMs(n, opts));
    expect(delays).toEqual([0, 100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
  });

  it('stays at maxMs for huge streaks (no overflow to Infinity or NaN)', () => {
    expect(backoffDelayMs(1_100, opts)).toBe(5_000);
    expect(backoffDelayMs(Number.MAX_SAFE_INTEGER, opts)).toBe(5_000);
    expect(backoffDelayMs(2_000, { initialMs: 0, maxMs: 10 })).toBe(0);
  });

  it('rejects invalid input', () => {
    expect(() => backoffDelayMs(-1, opts)).toThrow(RangeError);
    expect(() => backoffDelayMs(1.5, opts)).toThrow(RangeError);
    expect(() => backoffDelayMs(Number.NaN, opts)).toThrow(RangeError);
    expect(() => backoffDelayMs(1, { initialMs: -1, maxMs: 10 })).toThrow(RangeError);
    expect(() => backoffDelayMs(1, { initialMs: 1, maxMs: Number.NaN })).toThrow(RangeError);
  });

  it('is deterministic, non-decreasing in the streak and bounded by maxMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (n, initialMs, extraMs) => {
          const o = { initialMs, maxMs: initialMs + extraMs };
          const d = backoffDelayMs(n, o);
          expect(d).toBe(backoffDelayMs(n, o));
          expect(d).toBeLessThanOrEqual(o.maxMs);
          expect(backoffDelayMs(n + 1, o)).toBeGreaterThanOrEqual(d);
          if (n >= 1) expect(d).toBeGreaterThanOrEqual(Math.min(initialMs, o.maxMs));
        },
      ),
    );
  });
});

describe('actor-lifecycle machine, driven by the pure transition function', () => {
  it('starts idle with an empty context', () => {
    const s = init({ maxRestarts: { count: 3, windowMs: 1_000 } });
    expect(s.value).toBe('idle');
    expect(s.context).toMatchObject({ restarts: 0, consecutiveFailures: 0, lastError: undefined, failureTimesMs: [] });
  });

  it('runs and stops: idle → starting → running → stopping → stopped (final)', () => {
    const steps = run(init(), [START, started(5), STOP, STOPPED]);
    expect(steps.map((s) => s.value)).toEqual(['starting', 'running', 'stopping', 'stopped']);
    expect(steps[1]?.context.startedAtMs).toBe(5);
    expect(last(steps).status).toBe('done');
  });

  it('restarts: running → failed → backoff → starting → running, counting the restart', () => {
    const steps = run(init(), [START, started(0), fail(10, 'Error: bad tx'), STOPPED, RETRY, started(20)]);
    expect(steps.map((s) => s.value)).toEqual(['starting', 'running', 'failed', 'backoff', 'starting', 'running']);
    const failed = steps[2] as Snapshot;
    expect(failed.context).toMatchObject({ restarts: 0, consecutiveFailures: 1, lastError: 'Error: bad tx' });
    expect(failed.context.startedAtMs).toBeUndefined();
    expect(last(steps).context).toMatchObject({ restarts: 1, consecutiveFailures: 1, startedAtMs: 20 });
  });

  it('lengthens the streak while instances fail fast, resets it after a healthy run', () => {
    const input = { resetAfterMs: 1_000 };
    const cycle = (startAt: number, failAt: number): ActorLifecycleEvent[] => [started(startAt), fail(failAt), STOPPED, RETRY];
    const steps = run(init(input), [START, ...cycle(0, 10), ...cycle(20, 30), fail(40) /* start() threw */, STOPPED, RETRY]);
    const streak = steps.filter((s) => s.value === 'failed').map((s) => s.context.consecutiveFailures);
    expect(streak).toEqual([1, 2, 3]);
    const after = run(last(steps), [started(100), fail(100 + 1_000)]);
    expect(last(after).context.consecutiveFailures).toBe(1);
    const almost = run(last(steps), [started(100), fail(100 + 999)]);
    expect(last(almost).context.consecutiveFailures).toBe(4);
  });

  it('never resets the streak without resetAfterMs', () => {
    const steps = run(init(), [START, started(0), fail(1e9), STOPPED, RETRY, started(1e9), fail(1e12)]);
    expect(last(steps).context.consecutiveFailures).toBe(2);
  });

  it('gives up when failures in the window exceed maxRestarts.count', () => {
    const input = { maxRestarts: { count: 2, windowMs: 1_000 } };
    const cycle = (t: number): ActorLifecycleEvent[] => [started(t), fail(t + 1), STOPPED, RETRY];
    const two = run(init(input), [START, ...cycle(0), ...cycle(100)]);
    expect(last(two).value).toBe('starting');
    expect(last(two).context.restarts).toBe(2);
    const third = run(last(two), [started(200), fail(201)]);
    expect(last(third).value).toBe('failed');
    const [gaveUp] = transition(actorLifecycleMachine, last(third), STOPPED);
    expect(gaveUp.value).toBe('gaveUp');
    expect(gaveUp.status).toBe('done');
    expect(gaveUp.context.restarts).toBe(2); // the third failure is not a restart
  });

  it('keeps restarting when the failures are spread wider than the window', () => {
    const input = { maxRestarts: { count: 2, windowMs: 1_000 } };
    const events: ActorLifecycleEvent[] = [START];
    for (let i = 0; i < 50; i++) events.push(started(i * 600), fail(i * 600 + 1), STOPPED, RETRY);
    const steps = run(init(input), events);
    expect(steps.some((s) => s.value === 'gaveUp')).toBe(false);
    expect(last(steps).context.restarts).toBe(50);
    // Only what can matter to the guard is kept.
    expect(last(steps).context.failureTimesMs.length).toBeLessThanOrEqual(3);
  });

  it('with count 0 gives up on the first failure, also a failing start', () => {
    const steps = run(init({ maxRestarts: { count: 0, windowMs: 1 } }), [START, fail(0), STOPPED]);
    expect(steps.map((s) => s.value)).toEqual(['starting', 'failed', 'gaveUp']);
  });

  it('stops from every live state by the shortest safe route', () => {
    expect(run(init(), [STOP]).map((s) => s.value)).toEqual(['stopped']);
    expect(run(init(), [START, STOP, STOPPED]).map((s) => s.value)).toEqual(['starting', 'stopping', 'stopped']);
    const inFailed = run(init(), [START, started(), fail(), STOP, STOPPED]);
    expect(inFailed.map((s) => s.value)).toEqual(['starting', 'running', 'failed', 'stopping', 'stopped']);
    const inBackoff = run(init(), [START, started(), fail(), STOPPED, STOP]);
    expect(inBackoff.map((s) => s.value)).toEqual(['starting', 'running', 'failed', 'backoff', 'stopped']);
  });

  it('records a failure while stopping without leaving stopping', () => {
    const steps = run(init(), [START, started(), STOP, fail(0, 'close failed'), STOPPED]);
    expect(steps.map((s) => s.value)).toEqual(['starting', 'running', 'stopping', 'stopping', 'stopped']);
    expect(steps[3]?.context.lastError).toBe('close failed');
    expect(steps[3]?.context.restarts).toBe(0);
  });

  it('ignores events a state does not accept (same snapshot back)', () => {
    const running = last(run(init(), [START, started()]));
    for (const event of [START, RETRY, STOPPED, started(1)]) {
      expect(running.can(event)).toBe(false);
      expect(transition(actorLifecycleMachine, running, event)[0]).toBe(running);
    }
    const stopped = last(run(init(), [STOP]));
    for (const event of [START, STOP, RETRY, STOPPED, fail()]) expect(stopped.can(event)).toBe(false);
  });

  it('has no side effects to execute: assigns are applied, nothing is left for the runtime', () => {
    let s = init({ maxRestarts: { count: 5, windowMs: 10 } });
    for (const event of [START, started(), fail(), STOPPED, RETRY, started(), STOP, STOPPED]) {
      const [next, actions] = transition(actorLifecycleMachine, s, event);
      expect(actions).toEqual([]);
      s = next;
    }
  });

  it('restores from a persisted snapshot and continues', () => {
    const input = { maxRestarts: { count: 1, windowMs: 1_000 } };
    const backoff = last(run(init(input), [START, started(0), fail(1), STOPPED]));
    const persisted = JSON.parse(JSON.stringify(actorLifecycleMachine.getPersistedSnapshot(backoff)));
    const actor = createActor(actorLifecycleMachine, { snapshot: persisted, input });
    actor.start();
    expect(actor.getSnapshot().value).toBe('backoff');
    actor.send(RETRY);
    actor.send(started(2));
    actor.send(fail(3));
    actor.send(STOPPED);
    expect(actor.getSnapshot().value).toBe('gaveUp');
    expect(actor.getSnapshot().context.restarts).toBe(1);
    actor.stop();
  });

  it('is listed in the machines registry', () => {
    expect(machines['actor-lifecycle']).toBe(actorLifecycleMachine);
  });
});

describe('actor-lifecycle machine, every path (xstate/graph)', () => {
  /** Two clocks far apart exercise both sides of the window and reset guards. */
  const events: ActorLifecycleEvent[] = [START, started(0), fail(0), fail(100_000, 'late'), RETRY, STOP, STOPPED];
  const input: ActorLifecycleInput = { maxRestarts: { count: 2, windowMs: 1_000 }, resetAfterMs: 500 };

  it('draws exactly the expected transitions', () => {
    expect([...declaredEdges()].sort()).toEqual(
      [
        'idle|START|starting',
        'idle|STOP|stopped',
        'starting|STARTED|running',
        'starting|FAIL|failed',
        'starting|STOP|stopping',
        'running|FAIL|failed',
        'running|STOP|stopping',
        'failed|STOPPED|gaveUp',
        'failed|STOPPED|backoff',
        'failed|STOP|stopping',
        'backoff|RETRY|starting',
        'backoff|STOP|stopped',
        'stopping|STOPPED|stopped',
        'stopping|FAIL|stopping',
      ].sort(),
    );
  });

  it('reaches every state by a shortest path', () => {
    const paths = getShortestPaths(actorLifecycleMachine, { events, input });
    const reached = new Set(paths.map((p) => p.state.value));
    expect([...reached].sort()).toEqual([...ACTOR_LIFECYCLE_STATES].sort());
    const toGaveUp = paths.filter((p) => p.state.value === 'gaveUp').map((p) => p.steps.length);
    // START, then three (fail, STOPPED) with two (RETRY) between: the limit allows 2 restarts.
    expect(Math.min(...toGaveUp)).toBe(1 + 2 + 2 * 3 + 1);
    for (const path of paths) {
      // Replaying a path with the pure transition function lands on the same snapshot.
      const end = last([init(input), ...run(init(input), path.steps.map((s) => s.event))]);
      expect(end.value).toBe(path.state.value);
      expect(end.context).toEqual(path.state.context);
    }
  });

  it('covers every drawn transition, both guard branches included, and no other', () => {
    const adjacency = getAdjacencyMap(actorLifecycleMachine, { events, input });
    const taken = new Set<string>();
    for (const vertex of Object.values(adjacency)) {
      const edges = Object.values(vertex.transitions) as Array<{ event: ActorLifecycleEvent; state: Snapshot }>;
      for (const { event, state } of edges) {
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

  it('walks every simple path; each ends in a known state and final states end paths', () => {
    // A smaller model (one clock, limit 1) keeps the simple paths few enough to walk all.
    const smallEvents: ActorLifecycleEvent[] = [START, started(0), fail(0), RETRY, STOP, STOPPED];
    const smallInput = { maxRestarts: { count: 1, windowMs: 1_000 } };
    const paths = getSimplePaths(actorLifecycleMachine, { events: smallEvents, input: smallInput });
    expect(paths.length).toBeGreaterThan(20);
    const taken = new Set<string>();
    for (const path of paths) {
      let prev = init(smallInput);
      for (const [i, step] of path.steps.entries()) {
        if (i > 0) expect(['stopped', 'gaveUp']).not.toContain(prev.value);
        if (prev.can(step.event)) taken.add(`${prev.value}|${step.event.type}|${step.state.value}`);
        const [next] = transition(actorLifecycleMachine, prev, step.event);
        expect(next.value).toBe(step.state.value);
        prev = next;
      }
      const fails = path.steps.filter((s) => s.event.type === 'FAIL' && s.state.value === 'failed').length;
      if (path.state.value === 'gaveUp') expect(fails).toBe(2);
      if (path.state.value === 'backoff') expect(fails).toBe(1);
    }
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(ACTOR_LIFECYCLE_STATES));
    expect([...taken].sort()).toEqual([...declaredEdges()].sort());
  });
});
