/** Shared pieces of the route plugins: schemas, network check, signature parsing. */
import { ApiError } from './envelope';
import { hexToBytes, isHex } from '../util/bytes';
import type { Genesis } from '../genesis/types';
import { formatDecimal } from '../util/decimal';

export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';

export const address = { type: 'string', pattern: ADDRESS_PATTERN } as const;
export const decimalString = { type: 'string', maxLength: 60 } as const;
/** Nonces: a JSON integer, or a decimal string for values past 2^53. */
export const nonceSchema = { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^[0-9]{1,78}$' }] } as const;
export const networkSchema = { type: 'string', maxLength: 16 } as const;
export const signatureSchema = { type: 'string', maxLength: 200 } as const;

/**
 * A route's path parameters: every one required, as a path always carries them (the
 * document lists path parameters as required either way), so the inferred `req.params`
 * has no optional member.
 */
export function pathParams<const P extends Record<string, object>>(properties: P): { readonly type: 'object'; readonly required: readonly (keyof P & string)[]; readonly properties: P } {
  return { type: 'object', required: Object.keys(properties) as (keyof P & string)[], properties };
}

/** `network` is optional; naming another network than this node's answers 400 WRONG_NETWORK. */
export function checkNetwork(genesis: Genesis, network: string | undefined): void {
  if (network === undefined) return;
  if (network !== genesis.network) {
    throw new ApiError(400, 'WRONG_NETWORK', `network: this node serves ${genesis.network}, not ${network}`);
  }
}

/** A missing signature is 401 (contract [D-envelope-status]), a malformed one 400 naming the field. */
export function parseSignatureField(sig: string | undefined): Uint8Array {
  if (sig === undefined || sig === '') throw new ApiError(401, 'MISSING_SIGNATURE', 'signature: required');
  if (!isHex(sig) || (sig.length !== 130 && sig.length !== 132)) {
    throw new ApiError(400, 'INVALID_SIGNATURE_FORMAT', 'signature: must be 0x plus 128 (r‖s) or 130 (r‖s‖v) hex characters');
  }
  return hexToBytes(sig);
}

export function parseNonce(n: number | string): bigint {
  const v = BigInt(n);
  if (v >= 1n << 256n) throw new ApiError(400, 'INVALID_NONCE', 'nonce: must fit in 256 bits');
  return v;
}

export const usdc = (units: bigint) => formatDecimal(units, 6);
export const price6 = (units: bigint) => formatDecimal(units, 6);
export const size18 = (units: bigint) => formatDecimal(units, 18);
export const sideName = (s: number) => (s === 0 ? 'buy' : 'sell');

export function okSchema(data: object) {
  return { type: 'object', required: ['success', 'data', 'timestamp'], properties: { success: { type: 'boolean' }, data, timestamp: { type: 'integer' } } } as const;
}

/** Execution objects (bigints inside) as plain JSON for an answer: bigints become decimal strings. */
export function plainJson<T = unknown>(value: unknown): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) as T;
}
