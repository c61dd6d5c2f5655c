/**
 * What the onboarding routes need of the service: the narrow interfaces
 * src/onboarding/routes.ts, operator-routes.ts, download-routes.ts and register.ts depend
 * on. The service's actors (actors/onboarding/) implement them, over their mailboxes
 * (src/onboarding/service-actors.ts); the routes see nothing else of the service, and no
 * actor.
 */
import type { ApplicantRecord, ApplicantView, StatusView } from './applicants';
import type { Application } from './fields';
import type { ArtifactKind } from './tokens';

export interface OnboardingBook {
  /** Records a checked application (APPLY); throws 409 VALIDATOR_EXISTS when the address already applied. */
  apply(application: Application): Promise<ApplicantRecord>;
  /** The status of a checked, lower-case address; not_found when it never applied. */
  status(address: string): Promise<StatusView>;
}

/** The operator's review (decision 78). */
export interface OperatorBook {
  /** Every applicant, in address order. */
  applicants(): Promise<ApplicantView[]>;
  /** APPROVE a pending applicant and issue its token (returned once, never stored); 404 / 409 APPLICANT_STATE otherwise. */
  approve(address: string): Promise<{ address: string; token: string; expires_ts: number }>;
  /** REJECT a pending applicant; 404 / 409 APPLICANT_STATE otherwise. */
  reject(address: string): Promise<StatusView>;
  /** Records a signed request's nonce; throws 409 NONCE_USED when it was seen. */
  useOperatorNonce(nonce: string, timestampMs: number): Promise<void>;
}

/** A download in progress: `finish(true)` marks the artifact used with the token (synced), `finish(false)` leaves it unused. */
export interface DownloadClaim {
  address: string;
  finish(served: boolean): Promise<void>;
}

export interface DownloadBook {
  /**
   * Claims `artifact` for `token`: throws the token's refusal (401 INVALID_TOKEN, 410
   * TOKEN_EXPIRED or TOKEN_USED); otherwise holds the artifact for this download until
   * `finish`, so a second download of it with the same token waits and then sees it used.
   */
  claimDownload(token: string, artifact: ArtifactKind): Promise<DownloadClaim>;
}

/** The network's node as register needs it (decision 79): the node-client actor in the service. */
export interface NodeRegistrar {
  /**
   * Refuses 409 NOT_SYNCED unless the node sees a synced node at `endpoint`, then submits
   * `tx` (an encoded RegisterValidator) and resolves once it is final; the node's refusal
   * is passed on with its status and code, a node that cannot be reached is 503 NOT_SYNCED.
   */
  register(endpoint: string, tx: Uint8Array): Promise<{ txHash: string; height: number }>;
}

/** The operator's approval as a chain transaction (decision 159: src/onboarding/approval.ts). */
export interface ChainApprover {
  /** The operator address the approvals are signed with. */
  readonly operator: string;
  /** Submits ApproveValidator of `candidate` and resolves once it is final; the node's refusal is passed on. */
  approve(candidate: string): Promise<{ txHash: string; height: number }>;
}

/**
 * What GET /status reads: each actor's lifecycle state and mailbox counters by name, in
 * start order (the shape the node's /status gives its actors, `NodeApi.status().actors`;
 * the route's schema names the fields, so this file need not name the actors' runtime).
 */
export interface ServiceHealth {
  actors(): Record<string, unknown>;
}
