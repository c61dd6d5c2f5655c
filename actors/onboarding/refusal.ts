/**
 * What every behaviour of actors/onboarding does the same way: which errors it answers to
 * its asker and goes on after (a refusal) and which are its own faults (the runtime
 * restarts it), and the deadline each request carries (actors/onboarding/messages.ts
 * `startByMs`): asked with one, dropped unhandled when reached after it.
 */
import { ApiError } from '../../src/api/envelope';
import { TxError } from '../../src/state/errors';
import { ActorError, type ActorRef, type Reply } from '../actor';
import { ONBOARDING_ASK_TIMEOUT_MS, ONBOARDING_STEP_MS_MAX } from './limits';

/** A refusal: the envelope's (the machine's step, a bound, a token's rule, the node's answer), or a dependency busy, stopped or restarting. */
export function isRefusal(err: unknown): boolean {
  return err instanceof TxError || err instanceof ApiError || err instanceof ActorError;
}

/** The deadlines' clock: monotonic, so a wall-clock step moves none. */
const monotonicMs = (): number => performance.now();

/**
 * `actor.ask` with the request's deadline: `make` gets the reply and `startByMs` (now +
 * `startWithinMs`); the asker waits `timeoutMs` in all, by default ONBOARDING_STEP_MS_MAX
 * more than the deadline leaves, so a request begun in time is answered.
 */
export function askBy<M, R>(
  actor: Pick<ActorRef<M>, 'ask'>,
  make: (reply: Reply<R>, startByMs: number) => M,
  timeoutMs: number = ONBOARDING_ASK_TIMEOUT_MS,
  startWithinMs: number = Math.max(0, timeoutMs - ONBOARDING_STEP_MS_MAX),
): Promise<R> {
  return actor.ask<R>((reply) => make(reply, monotonicMs() + startWithinMs), timeoutMs);
}

/** True (and the reply refused, a no-op once the asker timed out) when `msg` is reached after its deadline: drop it unhandled. */
export function expired(msg: { startByMs: number; reply: Reply<never> }): boolean {
  if (monotonicMs() <= msg.startByMs) return false;
  msg.reply.reject(new ActorError('ASK_TIMEOUT', 'not begun before its deadline; nothing was done'));
  return true;
}
