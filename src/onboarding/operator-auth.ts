/**
 * The operator's signed requests to the onboarding service (decision 78). Pure: no I/O.
 *
 * The operator CLI (src/onboarding/operator-cli.ts) personal-signs (EIP-191,
 * src/crypto/eip191.ts) this text with the operator key, one field a line:
 *
 *   exchange-chain onboarding operator request
 *   chain: <chain id>
 *   method: <GET|POST>
 *   path: <the request's path and query, as sent>
 *   timestamp: <Unix ms>
 *   nonce: <0x + 32 hex: 16 random bytes>
 *
 * and sends the timestamp, nonce and signature (0x + 130 hex, r‖s‖v) in the
 * `x-operator-timestamp`, `x-operator-nonce` and `x-operator-signature` headers. The
 * operator routes take no body: what they act on (the applicant's address) is in the
 * path, so the path signed is the whole request. The service recovers the signer and
 * checks, in order: the three headers present and well-formed (401
 * MISSING_SIGNATURE / 400 INVALID_SIGNATURE_FORMAT; a signature no key recovers from,
 * 401 INVALID_SIGNATURE), the timestamp within the window
 * of its clock (401 REQUEST_EXPIRED), the signer its operator (403 NOT_OPERATOR; a
 * signature over another text recovers to another address, so a tampered method, path
 * or chain lands here), and then the store refuses a nonce it has seen (409
 * NONCE_USED). The chain id binds a request to one network's service.
 */
import { hashPersonalMessage } from '../crypto/eip191';
import { recoverSigner, sign, SignatureError } from '../crypto/secp256k1';
import { badRequest, forbidden, TxError } from '../state/errors';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../util/bytes';

export const OPERATOR_HEADERS = { timestamp: 'x-operator-timestamp', nonce: 'x-operator-nonce', signature: 'x-operator-signature' } as const;
/** How far a request's timestamp may be from the service's clock, either way. */
export const OPERATOR_WINDOW_MS_DEFAULT = 5 * 60 * 1000;
const NONCE = /^0x[0-9a-f]{32}$/;
const TIMESTAMP = /^[0-9]{1,15}$/;

export interface OperatorRequestParts {
  chainId: number;
  method: string;
  /** Path and query, as on the request line. */
  path: string;
  timestampMs: number;
  /** 0x + 32 lower-case hex. */
  nonce: string;
}

export function operatorMessage(p: OperatorRequestParts): string {
  return [
    'exchange-chain onboarding operator request',
    `chain: ${p.chainId}`,
    `method: ${p.method.toUpperCase()}`,
    `path: ${p.path}`,
    `timestamp: ${p.timestampMs}`,
    `nonce: ${p.nonce}`,
  ].join('\n');
}

export function newOperatorNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return bytesToHex(bytes);
}

/** The three headers of a request signed with `privateKey`. */
export function signOperatorRequest(privateKey: Hex, p: Omit<OperatorRequestParts, 'nonce' | 'timestampMs'> & { timestampMs: number; nonce?: string }): Record<string, string> {
  const nonce = p.nonce ?? newOperatorNonce();
  const signature = sign(hashPersonalMessage(operatorMessage({ ...p, nonce })), hexToBytes(privateKey));
  return { [OPERATOR_HEADERS.timestamp]: String(p.timestampMs), [OPERATOR_HEADERS.nonce]: nonce, [OPERATOR_HEADERS.signature]: bytesToHex(signature) };
}

/**
 * Checks a request's headers against the operator and the clock; returns the nonce and
 * timestamp for the store's replay check. Throws the refusal (see the header comment).
 */
export function verifyOperatorRequest(p: {
  chainId: number;
  operator: Address;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  nowMs: number;
  windowMs: number;
}): { nonce: string; timestampMs: number } {
  const header = (name: string): string | undefined => {
    const v = p.headers[name];
    return Array.isArray(v) ? undefined : v;
  };
  const ts = header(OPERATOR_HEADERS.timestamp);
  const nonce = header(OPERATOR_HEADERS.nonce);
  const signature = header(OPERATOR_HEADERS.signature);
  if (ts === undefined || nonce === undefined || signature === undefined) {
    throw new TxError(401, 'MISSING_SIGNATURE', `operator routes need the ${Object.values(OPERATOR_HEADERS).join(', ')} headers (npm run operator signs them)`);
  }
  if (!TIMESTAMP.test(ts)) throw badRequest('INVALID_SIGNATURE_FORMAT', `${OPERATOR_HEADERS.timestamp}: must be Unix milliseconds`);
  if (!NONCE.test(nonce)) throw badRequest('INVALID_SIGNATURE_FORMAT', `${OPERATOR_HEADERS.nonce}: must be 0x and 32 lower-case hex characters`);
  const timestampMs = Number(ts);
  if (Math.abs(p.nowMs - timestampMs) > p.windowMs) {
    throw new TxError(401, 'REQUEST_EXPIRED', `${OPERATOR_HEADERS.timestamp} ${timestampMs} is ${Math.round((p.nowMs - timestampMs) / 1000)} s from the service's clock; at most ${p.windowMs / 1000} s either way`);
  }
  let signer: Address;
  try {
    signer = recoverSigner(hashPersonalMessage(operatorMessage({ chainId: p.chainId, method: p.method, path: p.path, timestampMs, nonce })), signature);
  } catch (err) {
    if (err instanceof SignatureError && err.reason === 'RECOVERY') throw new TxError(401, 'INVALID_SIGNATURE', `${OPERATOR_HEADERS.signature}: ${err.message}`);
    if (err instanceof SignatureError) throw badRequest('INVALID_SIGNATURE_FORMAT', `${OPERATOR_HEADERS.signature}: ${err.message}`);
    throw err;
  }
  if (signer.toLowerCase() !== p.operator.toLowerCase()) {
    throw forbidden('NOT_OPERATOR', `signed by ${signer}, not the service's operator ${p.operator.toLowerCase()}`);
  }
  return { nonce, timestampMs };
}
