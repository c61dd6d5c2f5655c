/**
 * The onboarding form's fields (contract [C-onboard-apply], [C-res-validator-fields];
 * decision 75): what POST /api/validators/apply accepts, field by field. Pure: no I/O.
 *
 * `name` and `endpoint` follow the formats RegisterValidator's execution checks
 * (src/state/ops/validator-registration.ts `registrationShape`), so an application the
 * form accepts is not refused later for its name or endpoint; the patterns are repeated
 * here because that file keeps them private, and test/onboarding/fields.test.ts holds
 * both to the same answers over a grid of names and endpoints. The address is the
 * contract's `0x` plus 40 hex characters (kept lower-case: one applicant per address,
 * whatever its case); the email is checked for shape only (local part, `@`, a dotted
 * domain), never delivered to.
 *
 * Each refusal is 400 INVALID_VALIDATOR naming the field, as RegisterValidator's are.
 */
import { badRequest } from '../state/errors';
import { endpointRefusal, nameRefusal } from '../state/ops/validator-registration';

export interface Application {
  /** Lower-case `0x` + 40 hex. */
  address: string;
  name: string;
  endpoint: string;
  email: string;
}

export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** local@domain.tld: no spaces, one `@`, a domain of dot-separated labels (RFC 5321 lengths: 64 local, 254 in all). */
const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const MAX_EMAIL_CHARS = 254;

const invalid = (field: string, why: string) => badRequest('INVALID_VALIDATOR', `${field}: ${why}`);
const shown = (s: string, n: number) => JSON.stringify(s.slice(0, n));

/** The address an applicant is known by: checked, lower-case. */
export function applicantAddress(address: string): string {
  if (!ADDRESS.test(address)) throw invalid('address', `must be 0x and 40 hex characters, got ${shown(address, 50)}`);
  return address.toLowerCase();
}

/** Name and endpoint: the registration's own checks, so an approved form also registers. */
export { endpointRefusal, nameRefusal } from '../state/ops/validator-registration';

export function emailRefusal(email: string): string | null {
  return email.length <= MAX_EMAIL_CHARS && EMAIL.test(email) ? null : `must be an address of the shape local@domain.tld, got ${shown(email, 80)}`;
}

/** Every field of an application, in the contract's order (address, name, endpoint, email); throws the first refusal. */
export function checkApplication(body: { address: string; name: string; endpoint: string; email: string }): Application {
  const address = applicantAddress(body.address);
  for (const [field, why] of [
    ['name', nameRefusal(body.name)],
    ['endpoint', endpointRefusal(body.endpoint)],
    ['email', emailRefusal(body.email)],
  ] as const) {
    if (why !== null) throw invalid(field, why);
  }
  return { address, name: body.name, endpoint: body.endpoint, email: body.email };
}
