/**
 * Which errors an onboarding actor answers to its asker and goes on after, and which are
 * its own faults (the runtime restarts it): the line every behaviour of actors/onboarding
 * draws the same way.
 */
import { ApiError } from '../../src/api/envelope';
import { TxError } from '../../src/state/errors';
import { ActorError } from '../actor';

/** A refusal: the envelope's (the machine's step, a bound, a token's rule, the node's answer), or a dependency busy, stopped or restarting. */
export function isRefusal(err: unknown): boolean {
  return err instanceof TxError || err instanceof ApiError || err instanceof ActorError;
}
