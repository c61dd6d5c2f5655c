/**
 * What the onboarding service's actors accept in their mailboxes (actors/onboarding/*;
 * wired by src/onboarding/service-actors.ts). A leaf module: types only, no actor
 * behaviour and nothing of src/node (see actors/chain/messages.ts).
 *
 * Each request carries the Reply the behaviour settles (`ask` on the sender's side) and
 * `startByMs`, the monotonic time (performance.now) by which its handling must begin: its
 * asker stops waiting soon after (ASK_TIMEOUT, answered 503), so a request reached later
 * is dropped unhandled rather than carried out for nobody (an approval whose token no one
 * would see, an application answered busy yet stored). A download's finish has no
 * deadline: it releases a hold and must always be handled.
 */
import type { ApplicantRecord, StatusView } from '../../src/onboarding/applicants';
import type { Application } from '../../src/onboarding/fields';
import type { StoreWrite } from '../../src/onboarding/store';
import type { ArtifactKind, TokenRecord } from '../../src/onboarding/tokens';
import type { Reply } from '../actor';

/** A request: its fields, the reply, the deadline to begin. */
export type Request<T, R> = T & { reply: Reply<R>; startByMs: number };

/** The store actor: the service's LevelDB (src/onboarding/store.ts), its one writer. */
export type OnboardingStoreMsg =
  | Request<{ type: 'applicant'; address: string }, ApplicantRecord | undefined>
  | Request<{ type: 'applicants' }, ApplicantRecord[]>
  | Request<{ type: 'token'; hash: string }, TokenRecord | undefined>
  | Request<{ type: 'tokens' }, Array<[string, TokenRecord]>>
  | Request<{ type: 'nonces' }, Array<[string, number]>>
  /** One synced batch, all or none. */
  | Request<{ type: 'write'; writes: StoreWrite[] }, void>;

/** An approval's answer: the token, shown this once. */
export interface Approval {
  address: string;
  token: string;
  expires_ts: number;
}

/** The review actor: every step of an applicant's status (machines/onboarding.ts) and the operator's nonces. */
export type ReviewMsg =
  | Request<{ type: 'apply'; application: Application }, ApplicantRecord>
  | Request<{ type: 'approve'; address: string }, Approval>
  | Request<{ type: 'reject'; address: string }, StatusView>
  | Request<{ type: 'useNonce'; nonce: string; timestampMs: number }, void>;

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
  | Request<{ type: 'claim'; token: string; artifact: ArtifactKind }, ClaimedDownload>
  | { type: 'finish'; id: number; hash: string; artifact: ArtifactKind; served: boolean; reply: Reply<void> };

/** The node-client actor: a registration for the network's node (decision 79). */
export type NodeClientMsg = Request<{ type: 'register'; endpoint: string; tx: Uint8Array }, { txHash: string; height: number }>;
