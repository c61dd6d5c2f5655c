/**
 * One owner's session key (contract [C-state-session-*], [D-time-block]), as a pure XState
 * machine. Pure: no I/O, no clock, no randomness. Time enters only as event data
 * (`nowMs`, the block's timestamp), so every validator computes the same state.
 *
 *          CREATE [createAllowed]                  REVOKE [live]
 *   none ─────────────────────────▶ active ─────────────────────▶ revoked
 *                                   │  ▲ │
 *             CREATE [createAllowed]│  │ │ TICK [expiredAt] / REVOKE [expiredAt]
 *            (replaces the session) └──┘ ▼
 *                                      expired
 *   revoked, expired ─CREATE [createAllowed]─▶ active
 *
 * One session per owner: a CREATE while active replaces the key, expiry and nonce.
 * A session is live while nowMs < expiresAtMs; at expiresAtMs it is expired.
 *
 * Execution (src/state/ops/session-keys.ts) stores the snapshot's value and context in the
 * chain state (TableId.Session) and applies CREATE and REVOKE with `stepSession`, the
 * fast stepper compiled from this machine (machines/stepper.ts; agreement with
 * `transition()`: test/machines/session.test.ts). No TICK is stored: time passes
 * without transactions, so a read at the block's time (src/state/accounts/sessions.ts
 * `sessionStateAt`) steps a TICK at that time through `stepSession` and uses the state
 * it leaves. Orders do not transition the machine: their authorization is the guard
 * function `sessionRefusal` on that state.
 */
import { assertEvent, setup } from 'xstate';
import { assignUpdates, compileFlatStepper, type ContextUpdate, type FlatStep } from './stepper';

type Addr = `0x${string}`;

export type SessionStateName = 'none' | 'active' | 'revoked' | 'expired';
export const SESSION_STATES: readonly SessionStateName[] = ['none', 'active', 'revoked', 'expired'];

export interface SessionContext {
  /** The authorized key (lower-case address); null before the first CREATE. */
  sessionKey: Addr | null;
  /** Block time at which the session stops being valid, Unix ms. */
  expiresAtMs: number;
  /** Block time of the CREATE, Unix ms. */
  createdAtMs: number;
  /** Nonce of the owner's SessionCreate. */
  nonce: bigint;
}

export type SessionEvent =
  | { type: 'CREATE'; sessionKey: Addr; expiresAtMs: number; nowMs: number; maxDurationMs: number; nonce: bigint }
  | { type: 'REVOKE'; nowMs: number }
  | { type: 'TICK'; nowMs: number };

export type CreateEvent = Extract<SessionEvent, { type: 'CREATE' }>;

export const EMPTY_SESSION_CONTEXT: Readonly<SessionContext> = Object.freeze({ sessionKey: null, expiresAtMs: 0, createdAtMs: 0, nonce: 0n });

/** Why a CREATE is refused: its expiry is not after now, or more than maxDurationMs ahead. */
export type CreateRefusal = 'EXPIRY_NOT_AFTER_NOW' | 'EXPIRY_TOO_FAR';

/** Guard of CREATE: null when allowed. */
export function createRefusal(e: Pick<CreateEvent, 'expiresAtMs' | 'nowMs' | 'maxDurationMs'>): CreateRefusal | null {
  if (e.expiresAtMs <= e.nowMs) return 'EXPIRY_NOT_AFTER_NOW';
  if (e.expiresAtMs - e.nowMs > e.maxDurationMs) return 'EXPIRY_TOO_FAR';
  return null;
}

/** Guard of TICK and REVOKE: a session is live strictly before its expiry. */
export function isLive(ctx: Pick<SessionContext, 'expiresAtMs'>, nowMs: number): boolean {
  return nowMs < ctx.expiresAtMs;
}

/** Why `signer` may not trade for the owner now (403 codes), null when it may. */
export type SessionRefusal = 'NOT_AUTHORIZED' | 'SESSION_REVOKED' | 'SESSION_EXPIRED';

/**
 * The per-order authorization guard: the state the machine is in (stored value) and
 * the block time. An unknown key, or an owner without a session, is NOT_AUTHORIZED; the
 * current key of a revoked or expired session gets the specific code.
 */
export function sessionRefusal(value: SessionStateName, ctx: Pick<SessionContext, 'sessionKey' | 'expiresAtMs'>, signer: Addr, nowMs: number): SessionRefusal | null {
  if (value === 'none' || ctx.sessionKey !== signer) return 'NOT_AUTHORIZED';
  if (value === 'revoked') return 'SESSION_REVOKED';
  if (value === 'expired' || !isLive(ctx, nowMs)) return 'SESSION_EXPIRED';
  return null;
}

/** The context update each action makes: the machine's `assign` and `stepSession` both call these. */
const SESSION_UPDATES = {
  startSession: (_context, event) => {
    assertEvent(event, 'CREATE');
    return { sessionKey: event.sessionKey, expiresAtMs: event.expiresAtMs, createdAtMs: event.nowMs, nonce: event.nonce };
  },
} as const satisfies Record<string, ContextUpdate<SessionContext, SessionEvent>>;

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actions: assignUpdates(SESSION_UPDATES),
  guards: {
    createAllowed: ({ event }) => {
      assertEvent(event, 'CREATE');
      return createRefusal(event) === null;
    },
    live: ({ context, event }) => {
      assertEvent(event, ['REVOKE', 'TICK']);
      return isLive(context, event.nowMs);
    },
    expiredAt: ({ context, event }) => {
      assertEvent(event, ['REVOKE', 'TICK']);
      return !isLive(context, event.nowMs);
    },
  },
}).createMachine({
  id: 'session',
  initial: 'none',
  context: () => ({ ...EMPTY_SESSION_CONTEXT }),
  states: {
    none: {
      on: { CREATE: { guard: 'createAllowed', target: 'active', actions: 'startSession' } },
    },
    active: {
      on: {
        // One session per owner: a new one replaces the current one.
        CREATE: { guard: 'createAllowed', target: 'active', reenter: true, actions: 'startSession' },
        REVOKE: [
          { guard: 'live', target: 'revoked' },
          // Revoking what time has already ended finds it expired.
          { guard: 'expiredAt', target: 'expired' },
        ],
        TICK: { guard: 'expiredAt', target: 'expired' },
      },
    },
    revoked: {
      on: { CREATE: { guard: 'createAllowed', target: 'active', actions: 'startSession' } },
    },
    expired: {
      on: { CREATE: { guard: 'createAllowed', target: 'active', actions: 'startSession' } },
    },
  },
});

export type SessionMachine = typeof sessionMachine;

export type SessionStep = FlatStep<SessionStateName, SessionContext>;

/**
 * What `event` does to a session in state `value` with `context`: the state and context
 * xstate's `transition()` would leave, or undefined when the machine refuses it.
 * Compiled once from the machine.
 */
export const stepSession = compileFlatStepper<SessionStateName, SessionContext, SessionEvent>(sessionMachine, SESSION_UPDATES);
