/**
 * Applicants for the onboarding tests (decision 164): deterministic keys whose addresses
 * apply, and the signed body POST /api/validators/apply takes. `signedBody` signs with the
 * key of the body's address when it is one of these, else with applicant 0's (a body whose
 * fields are refused before the signature is looked at).
 */
import { signApplication } from '../../src/onboarding/application-auth';
import { privateKeyToAddress } from '../../src/crypto/secp256k1';
import { hexToBytes, type Hex } from '../../src/util/bytes';

/** Applicant i's private key (i ≥ 0): a small scalar, valid and distinct. */
export const applicantKey = (i: number): Hex => `0x${(0xa11ce + i).toString(16).padStart(64, '0')}` as Hex;

const keys = new Map<string, Hex>();

/** Applicant i's address, lower-case. */
export function applicantAddress(i: number): string {
  const key = applicantKey(i);
  const address = privateKeyToAddress(hexToBytes(key)).toLowerCase();
  keys.set(address, key);
  return address;
}

/** `body` (the four fields, as sent) with `timestamp` and the signature of its address's key over `chainId`'s text. */
export function signedBody(body: Record<string, unknown>, chainId: number, nowMs: number): Record<string, unknown> {
  const address = typeof body.address === 'string' ? body.address.toLowerCase() : '';
  const key = keys.get(address) ?? applicantKey(0);
  const form = { address, name: String(body.name), endpoint: String(body.endpoint), email: String(body.email) };
  const { timestamp, signature } = signApplication(key, chainId, form, nowMs);
  return { timestamp, signature, ...body };
}
