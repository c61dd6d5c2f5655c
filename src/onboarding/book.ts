/**
 * What the onboarding routes need of the service's state: the narrow interface
 * src/onboarding/routes.ts depends on. The LevelDB store (src/onboarding/store.ts)
 * implements it; the routes see nothing else of the service.
 */
import type { ApplicantRecord, StatusView } from './applicants';
import type { Application } from './fields';

export interface OnboardingBook {
  /** Records a checked application (APPLY); throws 409 VALIDATOR_EXISTS when the address already applied. */
  apply(application: Application): Promise<ApplicantRecord>;
  /** The status of a checked, lower-case address; not_found when it never applied. */
  status(address: string): Promise<StatusView>;
}
