/**
 * The onboarding service's downloads concern (decision 78): each download of an artifact
 * (the node binary, the genesis, the boot bundle: loaded once at the service's start,
 * src/onboarding/artifacts.ts) goes through the token's rule (src/onboarding/tokens.ts
 * `downloadRefusal`) against the token's record, read through the store actor, and is
 * marked used there once its response went out whole.
 *
 * A claim that passes is held until its finish: a second claim of the same artifact with
 * the same token waits (parked here, its HTTP request open) and is checked after the
 * first one's finish, so it sees the artifact used (410 TOKEN_USED) or, when the first
 * was cut off, takes its place. Holds and parked claims are bounded
 * (actors/onboarding/limits.ts): past either, 503 SERVICE_BUSY. Finishes have their own
 * lane, served first, so a full lane of claims never keeps a hold from being released.
 *
 * A refusal answers its asker and the actor goes on; a fault restarts it: the holds of
 * the failed instance are forgotten (a finish that arrives for one still marks the
 * artifact used by the token's hash) and its parked claims are answered 503 to try again.
 */
import { ApiError } from '../../src/api/envelope';
import { downloadRefusal, TOKEN_PATTERN, tokenHash, type ArtifactKind, type TokenRecord } from '../../src/onboarding/tokens';
import type { ActorBehavior, ActorRef } from '../actor';
import type { LaneSpec } from '../inbox';
import { ONBOARDING_DOWNLOAD_CLAIMS_MSGS, ONBOARDING_DOWNLOAD_FINISHES_MSGS } from './limits';
import type { ClaimedDownload, DownloadsMsg, OnboardingStoreMsg } from './messages';
import { askBy, expired, isRefusal } from './refusal';

type ClaimMsg = Extract<DownloadsMsg, { type: 'claim' }>;
type FinishMsg = Extract<DownloadsMsg, { type: 'finish' }>;

/** The downloads actor's lanes: finishes first, then claims. */
export const DOWNLOADS_LANES: Record<DownloadsMsg['type'], LaneSpec> = {
  finish: { capacityMsgs: ONBOARDING_DOWNLOAD_FINISHES_MSGS, policy: 'drop-newest', priority: true },
  claim: { capacityMsgs: ONBOARDING_DOWNLOAD_CLAIMS_MSGS, policy: 'drop-newest' },
};

/** The downloads actor's dependencies. */
export interface DownloadsActorDeps {
  store: ActorRef<OnboardingStoreMsg>;
  nowMs: () => number;
  heldMax: number;
  parkedMax: number;
}

const busy = (why: string) => new ApiError(503, 'SERVICE_BUSY', `${why}; try again shortly`, 1);

export function downloadsBehavior(deps: DownloadsActorDeps): ActorBehavior<DownloadsMsg> {
  const { store } = deps;
  /** Claims passed and not finished: key (token hash and artifact) → claim id. */
  const held = new Map<string, number>();
  /** Claims waiting for the held one of their key, oldest first. */
  const parked = new Map<string, ClaimMsg[]>();
  let parkedCount = 0;
  let lastId = 0;

  const tokenRecord = (hash: string) => askBy<OnboardingStoreMsg, TokenRecord | undefined>(store, (reply, startByMs) => ({ type: 'token', hash, reply, startByMs }));

  /** Checks a claim against the token's record; holds the key when it passes. */
  async function check(msg: ClaimMsg, key: string, hash: string | undefined): Promise<void> {
    if (expired(msg)) return; // its asker stopped waiting (a parked claim too): nothing is held for it
    try {
      const record = hash === undefined ? undefined : await tokenRecord(hash);
      const refusal = downloadRefusal(msg.token, record, msg.artifact, deps.nowMs());
      if (refusal !== null) throw new ApiError(refusal.status, refusal.code, refusal.message);
      const id = ++lastId;
      held.set(key, id);
      msg.reply.resolve({ id, hash: hash!, address: record!.address } satisfies ClaimedDownload);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      msg.reply.reject(err);
    }
  }

  async function claim(msg: ClaimMsg): Promise<void> {
    if (expired(msg)) return;
    const hash = TOKEN_PATTERN.test(msg.token) ? tokenHash(msg.token) : undefined;
    const key = `${hash ?? 'malformed'}:${msg.artifact}`;
    if (held.has(key)) {
      if (parkedCount >= deps.parkedMax) return msg.reply.reject(busy(`${parkedCount} downloads are waiting behind others of the same token`));
      parked.set(key, [...(parked.get(key) ?? []), msg]);
      parkedCount++;
      return;
    }
    if (held.size >= deps.heldMax) return msg.reply.reject(busy(`${held.size} downloads are in progress, the most this service serves at once`));
    await check(msg, key, hash);
  }

  /** Marks the artifact used (when served), releases the hold, and checks the claims parked behind it. */
  async function finish(msg: FinishMsg): Promise<void> {
    const key = `${msg.hash}:${msg.artifact}`;
    try {
      if (msg.served) await markUsed(msg.hash, msg.artifact);
      msg.reply.resolve();
    } catch (err) {
      if (!isRefusal(err)) throw err;
      msg.reply.reject(err); // a mark not written leaves the artifact unused: the at-least-once side (decision 78)
    } finally {
      if (held.get(key) === msg.id) held.delete(key);
    }
    const queue = parked.get(key) ?? [];
    while (!held.has(key) && queue.length > 0) {
      parkedCount--;
      await check(queue.shift()!, key, msg.hash);
    }
    if (queue.length === 0) parked.delete(key);
  }

  async function markUsed(hash: string, artifact: ArtifactKind): Promise<void> {
    const now = await tokenRecord(hash);
    if (now === undefined) throw new Error(`token record ${hash} vanished during a download`);
    const record: TokenRecord = { ...now, used: { ...now.used, [artifact]: deps.nowMs() } };
    await askBy<OnboardingStoreMsg, void>(store, (reply, startByMs) => ({ type: 'write', writes: [{ put: 'token', hash, record }], reply, startByMs }));
  }

  return {
    async handle(msg) {
      if (msg.type === 'claim') await claim(msg);
      else await finish(msg);
    },

    stop() {
      for (const queue of parked.values()) for (const msg of queue) msg.reply.reject(busy('the downloads stopped or restarted'));
      parked.clear();
      parkedCount = 0;
    },
  };
}
