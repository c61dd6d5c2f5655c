/**
 * What the onboarding service's actors accept in their mailboxes (actors/onboarding/*;
 * wired by src/onboarding/service-actors.ts). A leaf module: types only, no actor
 * behaviour and nothing of src/node (see actors/chain/messages.ts). Each request carries
 * the Reply the behaviour settles: `ask` on the sender's side.
 */
import type { ApplicantRecord, StatusView } from '../../src/onboarding/applicants';
import type { Application } from '../../src/onboarding/fields';
import type { StoreWrite } from '../../src/onboarding/store';
import type { ArtifactKind, TokenRecord } from '../../src/onboarding/tokens';
import type { Reply, SupervisedActor } from '../actor';

/** The store actor: the service's LevelDB (src/onboarding/store.ts), its one writer. */
export type OnboardingStoreMsg =
  | { type: 'applicant'; address: string; reply: Reply<ApplicantRecord | undefined> }
  | { type: 'applicants'; reply: Reply<ApplicantRecord[]> }
  | { type: 'token'; hash: string; reply: Reply<TokenRecord | undefined> }
  | { type: 'tokens'; reply: Reply<Array<[string, TokenRecord]>> }
  | { type: 'nonces'; reply: Reply<Array<[string, number]>> }
  /** One synced batch, all or none. */
  | { type: 'write'; writes: StoreWrite[]; reply: Reply<void> };

/** An approval's answer: the token, shown this once. */
export interface Approval {
  address: string;
  token: string;
  expires_ts: number;
}

/** The review actor: every step of an applicant's status (machines/onboarding.ts) and the operator's nonces. */
export type ReviewMsg =
  | { type: 'apply'; application: Application; reply: Reply<ApplicantRecord> }
  | { type: 'approve'; address: string; reply: Reply<Approval> }
  | { type: 'reject'; address: string; reply: Reply<StatusView> }
  | { type: 'useNonce'; nonce: string; timestampMs: number; reply: Reply<void> };

/** A download claimed: who it is for, and what its finish names. */
export interface ClaimedDownload {
  /** This claim among the ones held (a restarted actor knows none: the finish still marks by hash). */
  id: number;
  /** The token's hash. */
  hash: string;
  address: string;
}

/** The downloads actor: claims of an artifact with a token, and their finish (served or not). */
export type DownloadsMsg =
  | { type: 'claim'; token: string; artifact: ArtifactKind; reply: Reply<ClaimedDownload> }
  | { type: 'finish'; id: number; hash: string; artifact: ArtifactKind; served: boolean; reply: Reply<void> };

/** The node-client actor: a registration for the network's node (decision 79). */
export type NodeClientMsg = {
  type: 'register';
  endpoint: string;
  tx: Uint8Array;
  /** Monotonic ms (performance.now) by which it must start; past it, it is refused, not sent. */
  startByMs: number;
  reply: Reply<{ txHash: string; height: number }>;
};

/** What an actor needs of another to ask it: its `ask` only (a typed dependency, not the actor). */
export type Asker<M> = Pick<SupervisedActor<M>, 'ask'>;
