/**
 * What the onboarding routes need of the service's state: the narrow interfaces
 * src/onboarding/routes.ts, operator-routes.ts and download-routes.ts depend on. The
 * LevelDB store (src/onboarding/store.ts) implements them; the routes see nothing else
 * of the service.
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
