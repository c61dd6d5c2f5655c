/**
 * The onboarding service's store concern: owns the service's LevelDB
 * (src/onboarding/store.ts) and is its only writer. It opens the store when it starts
 * (refusing a folder of another network: the start fails) and closes it when it stops;
 * each message is one read or one synced batch, handled one at a time in arrival order.
 *
 * A read or write that throws is a fault of the database, not a refusal: the runtime
 * drops the message (its asker hears HANDLER_FAILED), closes the store and opens it again
 * after the backoff (actors/actor.ts), and the messages behind it wait in the mailbox.
 */
import type { OnboardingStore } from '../../src/onboarding/store';
import type { ActorBehavior } from '../actor';
import type { OnboardingStoreMsg } from './messages';
import { expired } from './refusal';

/** What the actor uses of the store: its reads, its batch, its close. */
export type RecordStore = Pick<OnboardingStore, 'record' | 'records' | 'tokenRecordByHash' | 'tokenRecords' | 'nonces' | 'write' | 'close'>;

/** The store actor's dependencies: how to open the store (each start opens it afresh). */
export interface StoreActorDeps {
  open(): Promise<RecordStore>;
}

export function storeBehavior(deps: StoreActorDeps): ActorBehavior<OnboardingStoreMsg> {
  let store: RecordStore | undefined;
  return {
    async start() {
      store = await deps.open();
    },

    async handle(msg) {
      if (expired(msg)) return; // its asker gave up: a late write would land unseen
      const s = store!;
      switch (msg.type) {
        case 'applicant':
          return msg.reply.resolve(await s.record(msg.address));
        case 'applicants':
          return msg.reply.resolve(await s.records());
        case 'token':
          return msg.reply.resolve(await s.tokenRecordByHash(msg.hash));
        case 'tokens':
          return msg.reply.resolve(await s.tokenRecords());
        case 'nonces':
          return msg.reply.resolve(await s.nonces());
        case 'write':
          await s.write(msg.writes);
          return msg.reply.resolve();
      }
    },

    async stop() {
      const s = store;
      store = undefined;
      await s?.close();
    },
  };
}
