/**
 * Lifecycle of one supervised actor (actors/actor.ts). Pure: no I/O, no clock, no
 * randomness. Time enters only as data (`atMs` on STARTED and FAIL, read by the
 * runtime from a monotonic clock), and the backoff delay is computed by the runtime
 * with `backoffDelayMs` and reported back as RETRY, so the machine has no `after`.
 *
 *   idle ─START─▶ starting ─STARTED─▶ running
 *                   │  ▲                 │
 *                 FAIL │ RETRY          FAIL
 *                   ▼  │                 ▼
 *                 failed ◀───────────────┘
 *                   │ STOPPED (failed instance released)
 *                   ├─ restart limit exceeded in window ─▶ gaveUp (final)
 *                   └─ otherwise ─▶ backoff ─RETRY─▶ starting
 *
 *   STOP: idle, backoff ─▶ stopped (nothing is running);
 *         starting, running, failed ─▶ stopping ─STOPPED─▶ stopped (final)
 *
 * Runtime duties per state: `starting` build a fresh behaviour and run its start();
 * `running` handle messages; `failed` release the failed behaviour, then STOPPED;
 * `backoff` wait backoffDelayMs(consecutiveFailures), then RETRY; `stopping` let the
 * current message finish, release the behaviour, then STOPPED.
 */
import { assertEvent, assign, setup } from 'xstate';

export interface RestartLimit {
  /** Restarts allowed inside any window of `windowMs`; one failure more gives up. */
  count: number;
  windowMs: number;
}

export interface ActorLifecycleInput {
  /** Absent: restart forever. */
  maxRestarts?: RestartLimit;
  /**
   * An instance that ran this long before failing was healthy: its failure starts a
   * new streak (consecutiveFailures back to 1) instead of lengthening the backoff.
   * Absent: streaks never reset.
   */
  resetAfterMs?: number;
}

export interface ActorLifecycleContext {
  /** Restarts scheduled since the actor was created (never reset). */
  restarts: number;
  /** Length of the current failure streak; drives the backoff delay. */
  consecutiveFailures: number;
  lastError: string | undefined;
  /** `atMs` of the failures inside the restart window, oldest first; empty without a limit. */
  failureTimesMs: number[];
  /** `atMs` of the STARTED of the instance now running; undefined when none runs. */
  startedAtMs: number | undefined;
  maxRestarts: RestartLimit | undefined;
  resetAfterMs: number | undefined;
}

export type ActorLifecycleEvent =
  | { type: 'START' }
  | { type: 'STARTED'; atMs: number }
  | { type: 'FAIL'; error: string; atMs: number }
  | { type: 'RETRY' }
  | { type: 'STOP' }
  | { type: 'STOPPED' };

export type ActorLifecycleState =
  | 'idle'
  | 'starting'
  | 'running'
  | 'failed'
  | 'backoff'
  | 'stopping'
  | 'stopped'
  | 'gaveUp';

export const ACTOR_LIFECYCLE_STATES: readonly ActorLifecycleState[] = [
  'idle',
  'starting',
  'running',
  'failed',
  'backoff',
  'stopping',
  'stopped',
  'gaveUp',
];

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/**
 * Delay before the next start after `consecutiveFailures` failures in a row:
 * initialMs · 2^(n−1), capped at maxMs; 0 when nothing failed. No jitter, so a
 * simulation replays exactly.
 */
export function backoffDelayMs(consecutiveFailures: number, opts: BackoffOptions): number {
  const { initialMs, maxMs } = opts;
  if (!Number.isSafeInteger(consecutiveFailures) || consecutiveFailures < 0) {
    throw new RangeError(`consecutiveFailures must be a non-negative integer, got ${consecutiveFailures}`);
  }
  if (!Number.isFinite(initialMs) || initialMs < 0) throw new RangeError(`initialMs must be >= 0, got ${initialMs}`);
  if (!Number.isFinite(maxMs) || maxMs < 0) throw new RangeError(`maxMs must be >= 0, got ${maxMs}`);
  if (consecutiveFailures === 0) return 0;
  // The exponent is clamped so the factor stays finite (0 · Infinity would be NaN);
  // initialMs · 2^1023 may still be Infinity, which Math.min turns into maxMs.
  const factor = 2 ** Math.min(consecutiveFailures - 1, 1023);
  return Math.min(maxMs, initialMs * factor);
}

function nextConsecutiveFailures(ctx: ActorLifecycleContext, atMs: number): number {
  const ranHealthy =
    ctx.startedAtMs !== undefined && ctx.resetAfterMs !== undefined && atMs - ctx.startedAtMs >= ctx.resetAfterMs;
  return ranHealthy ? 1 : ctx.consecutiveFailures + 1;
}

function nextFailureTimes(ctx: ActorLifecycleContext, atMs: number): number[] {
  const limit = ctx.maxRestarts;
  if (limit === undefined) return ctx.failureTimesMs;
  const inWindow = ctx.failureTimesMs.filter((t) => atMs - t < limit.windowMs);
  inWindow.push(atMs);
  // Only the newest count + 1 can matter to the guard: the list stays bounded.
  return inWindow.slice(-(limit.count + 1));
}

export const actorLifecycleMachine = setup({
  types: {
    context: {} as ActorLifecycleContext,
    events: {} as ActorLifecycleEvent,
    input: {} as ActorLifecycleInput,
  },
  actions: {
    recordStarted: assign(({ event }) => {
      assertEvent(event, 'STARTED');
      return { startedAtMs: event.atMs };
    }),
    recordFailure: assign(({ context, event }) => {
      assertEvent(event, 'FAIL');
      const { error, atMs } = event;
      return {
        lastError: error,
        consecutiveFailures: nextConsecutiveFailures(context, atMs),
        failureTimesMs: nextFailureTimes(context, atMs),
        startedAtMs: undefined,
      };
    }),
    recordError: assign(({ event }) => {
      assertEvent(event, 'FAIL');
      return { lastError: event.error };
    }),
    countRestart: assign({ restarts: ({ context }) => context.restarts + 1 }),
  },
  guards: {
    restartLimitExceeded: ({ context }) =>
      context.maxRestarts !== undefined && context.failureTimesMs.length > context.maxRestarts.count,
  },
}).createMachine({
  id: 'actor-lifecycle',
  initial: 'idle',
  context: ({ input }) => ({
    restarts: 0,
    consecutiveFailures: 0,
    lastError: undefined,
    failureTimesMs: [],
    startedAtMs: undefined,
    maxRestarts: input?.maxRestarts,
    resetAfterMs: input?.resetAfterMs,
  }),
  states: {
    idle: {
      on: { START: 'starting', STOP: 'stopped' },
    },
    starting: {
      on: {
        STARTED: { target: 'running', actions: 'recordStarted' },
        FAIL: { target: 'failed', actions: 'recordFailure' },
        STOP: 'stopping',
      },
    },
    running: {
      on: {
        FAIL: { target: 'failed', actions: 'recordFailure' },
        STOP: 'stopping',
      },
    },
    failed: {
      on: {
        STOPPED: [
          { guard: 'restartLimitExceeded', target: 'gaveUp' },
          { target: 'backoff', actions: 'countRestart' },
        ],
        STOP: 'stopping',
      },
    },
    backoff: {
      on: { RETRY: 'starting', STOP: 'stopped' },
    },
    stopping: {
      on: {
        STOPPED: 'stopped',
        // Releasing the behaviour threw: remember why, still wait for STOPPED.
        FAIL: { actions: 'recordError' },
      },
    },
    stopped: { type: 'final' },
    gaveUp: { type: 'final' },
  },
});

export type ActorLifecycleMachine = typeof actorLifecycleMachine;
