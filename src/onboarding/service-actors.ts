/**
 * The onboarding service's concerns as supervised actors (decision 146), on the node's
 * runtime (actors/actor.ts: bounded mailboxes, one message at a time, a lifecycle that is
 * machines/actor-lifecycle.ts, restart with backoff), wired in a fixed order and stopped
 * in reverse by a Supervisor (actors/supervisor.ts):
 *
 *   1 store        the LevelDB (src/onboarding/store.ts), its only writer
 *   2 review       applications, approvals, rejections (machines/onboarding.ts), operator nonces
 *   3 downloads    the token's rule over the artifacts, holds, used marks
 *   4 node-client  registrations through the network's node (only with one: --node)
 *
 * Each actor gets a typed bundle of what it uses (its `…ActorDeps`), never the service.
 * The routes see them through the interfaces of src/onboarding/book.ts, which this file
 * implements over the actors' mailboxes: a mailbox full (or an actor not answering in
 * time) is 503 SERVICE_BUSY with Retry-After, one stopped 503 SHUTTING_DOWN, a handler's
 * fault 500 INTERNAL (the actor restarting meanwhile); refusals come back as the actor
 * answered them.
 *
 * The store is opened once before the actors start, so a folder of another network
 * refuses the start at once; the store actor's first start takes that store and each
 * restart opens the folder again.
 */
import { ActorError, SupervisedActor, type Reply } from '../../actors/actor';
import { downloadsBehavior, DOWNLOADS_LANES } from '../../actors/onboarding/downloads-actor';
import { LanedInbox } from '../../actors/inbox';
import {
  NODE_CLIENT_ATTEMPTS,
  NODE_CLIENT_RETRY_INITIAL_MS,
  NODE_CLIENT_RETRY_MAX_MS,
  NODE_CLIENT_START_WITHIN_MS,
  ONBOARDING_ASK_TIMEOUT_MS,
  ONBOARDING_BACKOFF_INITIAL_MS,
  ONBOARDING_BACKOFF_MAX_MS,
  ONBOARDING_DOWNLOADS_HELD_MAX,
  ONBOARDING_DOWNLOADS_PARKED_MAX,
  ONBOARDING_NODE_CLIENT_MAILBOX_MSGS,
  ONBOARDING_RESTARTS_MAX,
  ONBOARDING_RESTART_WINDOW_MS,
  ONBOARDING_REVIEW_MAILBOX_MSGS,
  ONBOARDING_STORE_MAILBOX_MSGS,
  PENDING_MAX_DEFAULT,
} from '../../actors/onboarding/limits';
import type { Approval, ClaimedDownload, DownloadsMsg, NodeClientMsg, OnboardingStoreMsg, ReviewMsg } from '../../actors/onboarding/messages';
import { nodeClientBehavior } from '../../actors/onboarding/node-client-actor';
import { reviewBehavior } from '../../actors/onboarding/review-actor';
import { askBy } from '../../actors/onboarding/refusal';
import { storeBehavior, type RecordStore } from '../../actors/onboarding/store-actor';
import { Supervisor } from '../../actors/supervisor';
import { ApiError } from '../api/envelope';
import type { Logger } from '../util/log';
import { applicantView, reviewApplicant, statusView, type ApplicantRecord, type StatusView } from './applicants';
import type { ChainApprover, DownloadBook, DownloadClaim, NodeRegistrar, OnboardingBook, OperatorBook, ServiceHealth } from './book';
import type { Application } from './fields';
import { NODE_READ_TIMEOUT_MS, NODE_SUBMIT_TIMEOUT_MS } from './node-client';
import { OnboardingStore, type NetworkBinding } from './store';
import { TOKEN_LIFETIME_MS_DEFAULT, tokenHash, type ArtifactKind, type TokenRecord } from './tokens';
import { OPERATOR_WINDOW_MS_DEFAULT } from './operator-auth';

/** The actors' names, in start order (GET /status lists them so). */
export type OnboardingActorName = 'store' | 'review' | 'downloads' | 'node-client';

/** The longest a registration may take once started: every read timing out, the pauses between, the submission. */
const NODE_CLIENT_RUN_MS_MAX = NODE_CLIENT_ATTEMPTS * (NODE_READ_TIMEOUT_MS + NODE_CLIENT_RETRY_MAX_MS) + NODE_SUBMIT_TIMEOUT_MS;

export interface OnboardingActorsOptions {
  dataDir: string;
  binding: NetworkBinding;
  log: Logger;
  /** The service's wall clock (token expiry, review times). */
  nowMs: () => number;
  tokenLifetimeMs?: number;
  operatorWindowMs?: number;
  /** Applications waiting for review at most (default PENDING_MAX_DEFAULT). */
  pendingMax?: number;
  /** The network's node (register); without it there is no node-client actor. */
  node?: NodeRegistrar;
  /** Sends the operator's approval to the chain before the book records it (decision 159); without it, the book only. */
  approver?: ChainApprover;
  /** Called once when an actor exceeded its restarts: the service cannot go on. */
  onGiveUp?: (actor: OnboardingActorName, err: unknown) => void;
  /** Opens the store (default: OnboardingStore.open of the folder); tests wrap it to inject faults. */
  openStore?: () => Promise<RecordStore>;
  /** Mailbox capacities other than the limits' (tests fill one). */
  capacities?: Partial<Record<'store' | 'review' | 'node-client', number>>;
}

/** Reads of what the store holds (the service's `store`: tests compare it before and after). */
export interface StoreReader {
  records(): Promise<ApplicantRecord[]>;
  tokenRecords(): Promise<Array<[string, TokenRecord]>>;
  tokenRecord(token: string): Promise<TokenRecord | undefined>;
}

export interface OnboardingActors {
  book: OnboardingBook & OperatorBook & DownloadBook;
  /** The node client as register sees it; undefined without a node. */
  node: NodeRegistrar | undefined;
  health: ServiceHealth;
  reader: StoreReader;
  supervisor: Supervisor;
  /** Stops the actors in reverse order (the store, and its LevelDB, last), once the downloads' finishes sent are handled. Idempotent. */
  stop(): Promise<void>;
}

/** An actor's refusal to take or answer a message, as the envelope answers it. */
function envelopeOf(err: unknown): unknown {
  if (!(err instanceof ActorError)) return err;
  switch (err.code) {
    case 'MAILBOX_FULL':
    case 'MESSAGE_DROPPED':
    case 'ASK_TIMEOUT':
      return new ApiError(503, 'SERVICE_BUSY', `${err.message}; try again shortly`, 1);
    case 'ACTOR_STOPPED':
    case 'ACTOR_GAVE_UP':
      return new ApiError(503, 'SHUTTING_DOWN', err.message);
    case 'HANDLER_FAILED':
      return err; // a fault: 500 INTERNAL, logged; the actor restarts
  }
}

/** `askBy` (the request with its deadline), its refusals turned into the envelope's. */
async function ask<M, R>(actor: SupervisedActor<M>, make: (reply: Reply<R>, startByMs: number) => M, timeoutMs?: number, startWithinMs?: number): Promise<R> {
  try {
    return await askBy(actor, make, timeoutMs, startWithinMs);
  } catch (err) {
    throw envelopeOf(err);
  }
}

export async function startOnboardingActors(o: OnboardingActorsOptions): Promise<OnboardingActors> {
  const openStore = o.openStore ?? (() => OnboardingStore.open(o.dataDir, o.binding));
  // Opened here, so a folder of another network refuses the start at once, not after the restarts.
  let opened: RecordStore | undefined = await openStore();
  const supervisor = new Supervisor({ log: o.log });
  const supervised = (name: OnboardingActorName) => ({
    log: o.log,
    backoff: { initialMs: ONBOARDING_BACKOFF_INITIAL_MS, maxMs: ONBOARDING_BACKOFF_MAX_MS },
    maxRestarts: { count: ONBOARDING_RESTARTS_MAX, windowMs: ONBOARDING_RESTART_WINDOW_MS },
    askTimeoutMs: ONBOARDING_ASK_TIMEOUT_MS,
    onGiveUp: (err: unknown) => o.onGiveUp?.(name, err),
  });

  const store = supervisor.add(
    new SupervisedActor<OnboardingStoreMsg>(
      'store',
      () =>
        storeBehavior({
          open: async () => {
            const first = opened;
            opened = undefined;
            return first ?? openStore();
          },
        }),
      { ...supervised('store'), capacity: o.capacities?.store ?? ONBOARDING_STORE_MAILBOX_MSGS },
    ),
  );
  const review = supervisor.add(
    new SupervisedActor<ReviewMsg>(
      'review',
      () =>
        reviewBehavior({
          store,
          nowMs: o.nowMs,
          tokenLifetimeMs: o.tokenLifetimeMs ?? TOKEN_LIFETIME_MS_DEFAULT,
          operatorWindowMs: o.operatorWindowMs ?? OPERATOR_WINDOW_MS_DEFAULT,
          pendingMax: o.pendingMax ?? PENDING_MAX_DEFAULT,
        }),
      { ...supervised('review'), capacity: o.capacities?.review ?? ONBOARDING_REVIEW_MAILBOX_MSGS },
    ),
  );
  const downloads = supervisor.add(
    new SupervisedActor<DownloadsMsg>(
      'downloads',
      () => downloadsBehavior({ store, nowMs: o.nowMs, heldMax: ONBOARDING_DOWNLOADS_HELD_MAX, parkedMax: ONBOARDING_DOWNLOADS_PARKED_MAX }),
      { ...supervised('downloads'), inbox: (onEvict) => new LanedInbox({ lanes: DOWNLOADS_LANES, laneOf: (m: DownloadsMsg) => m.type, onEvict }) },
    ),
  );
  const nodeClient =
    o.node === undefined
      ? undefined
      : supervisor.add(
          new SupervisedActor<NodeClientMsg>(
            'node-client',
            () =>
              nodeClientBehavior({
                node: o.node!,
                attempts: NODE_CLIENT_ATTEMPTS,
                backoff: { initialMs: NODE_CLIENT_RETRY_INITIAL_MS, maxMs: NODE_CLIENT_RETRY_MAX_MS },
              }),
            { ...supervised('node-client'), capacity: o.capacities?.['node-client'] ?? ONBOARDING_NODE_CLIENT_MAILBOX_MSGS },
          ),
        );

  try {
    await supervisor.startAll();
  } catch (err) {
    await opened?.close();
    throw err;
  }

  /** Finishes sent and not yet answered: the stop waits for them, so a download served before it is marked. */
  const finishing = new Set<Promise<void>>();
  const record = (address: string) => ask<OnboardingStoreMsg, ApplicantRecord | undefined>(store, (reply, startByMs) => ({ type: 'applicant', address, reply, startByMs }));
  const book: OnboardingActors['book'] = {
    apply: (application: Application) => ask<ReviewMsg, ApplicantRecord>(review, (reply, startByMs) => ({ type: 'apply', application, reply, startByMs })),
    status: async (address: string): Promise<StatusView> => statusView(address, await record(address)),
    applicants: async () => (await ask<OnboardingStoreMsg, ApplicantRecord[]>(store, (reply, startByMs) => ({ type: 'applicants', reply, startByMs }))).map(applicantView),
    async approve(address: string): Promise<Approval> {
      if (o.approver !== undefined) {
        // The machine's refusals first (404, 409 APPLICANT_STATE), so nothing is sent for an applicant not pending;
        // then the chain's approval, final before the book records it (decision 159).
        reviewApplicant(await record(address), address, 'APPROVE', o.nowMs());
        try {
          await o.approver.approve(address);
        } catch (err) {
          o.log.warn({ err, address }, 'the approval transaction was not taken; the applicant stays pending');
          throw err;
        }
      }
      return ask<ReviewMsg, Approval>(review, (reply, startByMs) => ({ type: 'approve', address, reply, startByMs }));
    },
    reject: (address: string) => ask<ReviewMsg, StatusView>(review, (reply, startByMs) => ({ type: 'reject', address, reply, startByMs })),
    useOperatorNonce: (nonce: string, timestampMs: number) => ask<ReviewMsg, void>(review, (reply, startByMs) => ({ type: 'useNonce', nonce, timestampMs, reply, startByMs })),
    async claimDownload(token: string, artifact: ArtifactKind): Promise<DownloadClaim> {
      const claimed = await ask<DownloadsMsg, ClaimedDownload>(downloads, (reply, startByMs) => ({ type: 'claim', token, artifact, reply, startByMs }));
      return {
        address: claimed.address,
        // No deadline: a finish releases a hold, so it is always handled.
        finish: (served: boolean) => {
          const finished = downloads.ask<void>((reply) => ({ type: 'finish', id: claimed.id, hash: claimed.hash, artifact, served, reply }));
          finishing.add(finished);
          void finished.catch(() => undefined).finally(() => finishing.delete(finished));
          return finished.catch((err: unknown) => Promise.reject(envelopeOf(err)));
        },
      };
    },
  };
  const node: NodeRegistrar | undefined =
    nodeClient === undefined
      ? undefined
      : {
          register: (endpoint, tx) =>
            ask<NodeClientMsg, { txHash: string; height: number }>(
              nodeClient,
              (reply, startByMs) => ({ type: 'register', endpoint, tx, reply, startByMs }),
              NODE_CLIENT_START_WITHIN_MS + NODE_CLIENT_RUN_MS_MAX,
              NODE_CLIENT_START_WITHIN_MS,
            ),
        };
  const reader: StoreReader = {
    records: () => ask<OnboardingStoreMsg, ApplicantRecord[]>(store, (reply, startByMs) => ({ type: 'applicants', reply, startByMs })),
    tokenRecords: () => ask<OnboardingStoreMsg, Array<[string, TokenRecord]>>(store, (reply, startByMs) => ({ type: 'tokens', reply, startByMs })),
    tokenRecord: (token: string) => ask<OnboardingStoreMsg, TokenRecord | undefined>(store, (reply, startByMs) => ({ type: 'token', hash: tokenHash(token), reply, startByMs })),
  };
  return {
    book,
    node,
    health: { actors: () => supervisor.stats() },
    reader,
    supervisor,
    async stop() {
      await Promise.allSettled([...finishing]);
      await supervisor.stopAll();
    },
  };
}
