/**
 * The onboarding service's review concern: every change of an applicant's status, and
 * the operator's nonces (decisions 75, 78). Execution asks the machine: each step is
 * `applyApplication` or `reviewApplicant` (src/onboarding/applicants.ts), which step
 * machines/onboarding.ts from the stored state and refuse what it refuses (409
 * VALIDATOR_EXISTS, 409 APPLICANT_STATE, 404 for an address that never applied). No
 * if-chain here decides what a status allows.
 *
 * One message at a time: the read of the record, the machine's step and the synced write
 * (through the store actor) of one request finish before the next request's read, so two
 * applications of the same address, or two approvals, cannot interleave. The count of
 * applications waiting (bounded: PENDING_MAX_DEFAULT, actors/onboarding/limits.ts) is read from the store when the actor
 * starts and kept by each step.
 *
 * A refusal (the machine's, the bound's, a nonce seen) answers its asker and the actor
 * goes on; so does a store that is busy or restarting (its asker hears it). Anything else
 * is a fault: the runtime restarts the actor, which counts the pending applicants again.
 */
import { applyApplication, reviewApplicant, statusView, type ApplicantRecord, type StatusView } from '../../src/onboarding/applicants';
import type { Application } from '../../src/onboarding/fields';
import type { StoreWrite } from '../../src/onboarding/store';
import { newToken, newTokenRecord, tokenHash } from '../../src/onboarding/tokens';
import { ApiError } from '../../src/api/envelope';
import type { ActorBehavior, ActorRef } from '../actor';
import type { Approval, OnboardingStoreMsg, ReviewMsg } from './messages';
import { askBy, expired, isRefusal } from './refusal';

/** The review actor's dependencies. */
export interface ReviewActorDeps {
  store: ActorRef<OnboardingStoreMsg>;
  /** The service's wall clock (onboarding is off-chain): each step's time. */
  nowMs: () => number;
  tokenLifetimeMs: number;
  /** How old an operator request may be: nonces older than twice this are forgotten. */
  operatorWindowMs: number;
  pendingMax: number;
}

export function reviewBehavior(deps: ReviewActorDeps): ActorBehavior<ReviewMsg> {
  const { store } = deps;
  /** Applicants in `pending`, counted at start and kept by apply and the reviews. */
  let pending = 0;

  const record = (address: string) => askBy<OnboardingStoreMsg, ApplicantRecord | undefined>(store, (reply, startByMs) => ({ type: 'applicant', address, reply, startByMs }));
  const write = (writes: StoreWrite[]) => askBy<OnboardingStoreMsg, void>(store, (reply, startByMs) => ({ type: 'write', writes, reply, startByMs }));

  async function apply(application: Application): Promise<ApplicantRecord> {
    const next = applyApplication(await record(application.address), application, deps.nowMs());
    if (pending >= deps.pendingMax) {
      throw new ApiError(503, 'APPLICATIONS_FULL', `${pending} applications are waiting for review, the most this service holds; apply again later`);
    }
    await write([{ put: 'applicant', record: next }]);
    pending++;
    return next;
  }

  async function approve(address: string): Promise<Approval> {
    const now = deps.nowMs();
    const next = reviewApplicant(await record(address), address, 'APPROVE', now);
    const token = newToken();
    const issued = newTokenRecord(address, now, deps.tokenLifetimeMs);
    // The approval and its token in one synced batch: never one without the other.
    await write([
      { put: 'applicant', record: next },
      { put: 'token', hash: tokenHash(token), record: issued },
    ]);
    pending--;
    return { address, token, expires_ts: issued.expiresTs };
  }

  async function reject(address: string): Promise<StatusView> {
    const next = reviewApplicant(await record(address), address, 'REJECT', deps.nowMs());
    await write([{ put: 'applicant', record: next }]);
    pending--;
    return statusView(address, next);
  }

  async function useNonce(nonce: string, timestampMs: number): Promise<void> {
    const kept = await askBy<OnboardingStoreMsg, Array<[string, number]>>(store, (reply, startByMs) => ({ type: 'nonces', reply, startByMs }));
    if (kept.some(([seen]) => seen === nonce)) {
      throw new ApiError(409, 'NONCE_USED', `operator nonce ${nonce} was already used; every signed request takes a fresh one`);
    }
    // A nonce whose timestamp is out of the window can no longer pass the clock check: forget it.
    const oldest = deps.nowMs() - 2 * deps.operatorWindowMs;
    const stale = kept.filter(([, ts]) => ts < oldest).map(([old]): StoreWrite => ({ del: 'nonce', nonce: old }));
    await write([{ put: 'nonce', nonce, timestampMs }, ...stale]);
  }

  return {
    async start() {
      const all = await askBy<OnboardingStoreMsg, ApplicantRecord[]>(store, (reply, startByMs) => ({ type: 'applicants', reply, startByMs }));
      pending = all.filter((r) => r.status === 'pending').length;
    },

    async handle(msg) {
      if (expired(msg)) return; // its asker was told 503: the step is not taken for nobody
      try {
        switch (msg.type) {
          case 'apply':
            return msg.reply.resolve(await apply(msg.application));
          case 'approve':
            return msg.reply.resolve(await approve(msg.address));
          case 'reject':
            return msg.reply.resolve(await reject(msg.address));
          case 'useNonce':
            return msg.reply.resolve(await useNonce(msg.nonce, msg.timestampMs));
        }
      } catch (err) {
        if (!isRefusal(err)) throw err;
        msg.reply.reject(err);
      }
    },
  };
}
