/**
 * The one-time download token (contract [C-onboard-token], [C-auth-onboard-token],
 * [C-limits-onboard-link], [D-validators-onboarding]; decision 78). Pure: no I/O (the
 * random bytes come from the platform's Web Crypto `getRandomValues`, no import).
 *
 * The operator's approval issues a token of 32 random bytes, base64url without padding
 * (43 characters, 256 bits). The service keeps only its sha256 (`tokenHash`), the
 * address it was issued to, when it expires (issue + the lifetime, 24 hours by default;
 * the service's own clock: onboarding is off-chain) and, per artifact, when it was
 * downloaded with it (null: not yet). `downloadRefusal` is the one rule every download
 * goes through: a token that is malformed or was never issued is 401 INVALID_TOKEN (the
 * same answer for both, so a guess learns nothing), an expired one 410 TOKEN_EXPIRED,
 * an artifact already downloaded with it 410 TOKEN_USED. A token exists only once an
 * approval issued it, so no download comes before approval.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8 } from '../util/bytes';

/** The three artifacts, by their key in the checksums answer and in a token's record. */
export const ARTIFACT_KINDS = ['binary', 'genesis', 'boot_bundle'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** The path segment of each artifact's download route (`/api/validators/download/<segment>`). */
export const ARTIFACT_PATHS: { readonly [K in ArtifactKind]: string } = { binary: 'binary', genesis: 'genesis', boot_bundle: 'boot-bundle' };

export const TOKEN_BYTES = 32;
/** 24 hours: the contract's link lifetime. */
export const TOKEN_LIFETIME_MS_DEFAULT = 24 * 60 * 60 * 1000;
/** base64url of 32 bytes, unpadded. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface TokenRecord {
  /** Lower-case address of the approved applicant. */
  address: string;
  issuedTs: number;
  expiresTs: number;
  /** Per artifact: Unix ms of the download served with this token, or null. */
  used: Record<ArtifactKind, number | null>;
}

/** What a download is refused with: the route answers it in the error envelope. */
export interface TokenRefusal {
  status: 401 | 410;
  code: 'INVALID_TOKEN' | 'TOKEN_EXPIRED' | 'TOKEN_USED';
  message: string;
}

export function newToken(): string {
  const bytes = new Uint8Array(TOKEN_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}

/** sha256 of the token's text, 0x-hex: the only form the service stores. */
export function tokenHash(token: string): string {
  return bytesToHex(sha256(utf8.encode(token)));
}

export function newTokenRecord(address: string, nowMs: number, lifetimeMs: number): TokenRecord {
  return { address, issuedTs: nowMs, expiresTs: nowMs + lifetimeMs, used: { binary: null, genesis: null, boot_bundle: null } };
}

/** Why `token` may not download `artifact` now (record: what the store holds under its hash), or null when it may. */
export function downloadRefusal(token: string, record: TokenRecord | undefined, artifact: ArtifactKind, nowMs: number): TokenRefusal | null {
  if (!TOKEN_PATTERN.test(token)) return { status: 401, code: 'INVALID_TOKEN', message: 'token: must be the 43-character token the operator issued on approval' };
  if (record === undefined) return { status: 401, code: 'INVALID_TOKEN', message: 'token: unknown (a token is issued when the operator approves an application)' };
  if (nowMs >= record.expiresTs) return { status: 410, code: 'TOKEN_EXPIRED', message: `token expired at ${new Date(record.expiresTs).toISOString()}` };
  const used = record.used[artifact];
  if (used !== null) return { status: 410, code: 'TOKEN_USED', message: `${ARTIFACT_PATHS[artifact]} was already downloaded with this token (${new Date(used).toISOString()}); each artifact downloads once` };
  return null;
}
