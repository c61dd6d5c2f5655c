/**
 * The onboarding service's node-client concern (decision 79): registers approved
 * candidates through the network's node, one registration at a time (each reads the
 * node's peers and waits for its transaction to be final: src/onboarding/node-client.ts).
 * When the node cannot be reached and the request never left (connection refused, no
 * route, no such host), it tries again after a pause that doubles, up to `attempts` in
 * all; the runtime's stop ends a pause at once. A registration that waited in the
 * mailbox past its start deadline (NODE_CLIENT_START_WITHIN_MS) is dropped rather than
 * sent after its caller gave up waiting (503 SERVICE_BUSY). Any other answer, the node's refusals
 * included, goes back to the asker as it came.
 *
 * A refusal answers its asker and the actor goes on; anything else is a fault, and the
 * runtime restarts the actor.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs, type BackoffOptions } from '../../machines/actor-lifecycle';
import type { NodeRegistrar } from '../../src/onboarding/book';
import { retryable } from '../../src/onboarding/node-client';
import type { ActorBehavior } from '../actor';
import type { NodeClientMsg } from './messages';
import { expired, isRefusal } from './refusal';

/** The node-client actor's dependencies: the node, and how often and how patiently to try it. */
export interface NodeClientActorDeps {
  node: NodeRegistrar;
  attempts: number;
  backoff: BackoffOptions;
}

export function nodeClientBehavior(deps: NodeClientActorDeps): ActorBehavior<NodeClientMsg> {
  return {
    async handle(msg, ctx) {
      if (expired(msg)) return; // waited past its start: not sent after its caller gave up
      for (let attempt = 1; ; attempt++) {
        try {
          return msg.reply.resolve(await deps.node.register(msg.endpoint, msg.tx));
        } catch (err) {
          if (retryable(err) && attempt < deps.attempts && !ctx.signal.aborted) {
            const delayMs = backoffDelayMs(attempt, deps.backoff);
            ctx.log.warn({ err, attempt, delayMs }, 'the network node cannot be reached; trying again');
            await sleep(delayMs, undefined, { signal: ctx.signal }).catch(() => undefined); // stop ends the pause
            continue;
          }
          if (!isRefusal(err)) throw err;
          return msg.reply.reject(err);
        }
      }
    },
  };
}
