/**
 * The operator's review routes of the onboarding service (decision 78), answered to
 * loopback callers only and signed by the operator key (src/onboarding/operator-auth.ts):
 *
 *   GET  /api/operator/network                       → network, chain_id, genesis_hash, operator (unsigned: what to sign for)
 *   GET  /api/operator/applicants                    → {applicants: [...]} every applicant, by address
 *   POST /api/operator/applicants/:address/approve   → {address, token, expires_ts} (the token shown once)
 *   POST /api/operator/applicants/:address/reject    → the status view (rejected)
 *
 * The loopback check comes first and reads the socket's remote address (not a header a
 * proxy could forge): a caller from any other address gets 403 LOOPBACK_ONLY and nothing
 * is read or changed, so a service listening on 0.0.0.0 does not expose the review. Then
 * the signature (operator-auth.ts), then the nonce (the store: 409 NONCE_USED on reuse),
 * then the machine's step (src/onboarding/applicants.ts `reviewApplicant`: 404 for an
 * address that never applied, 409 APPLICANT_STATE unless pending). The routes take no
 * body (one is refused, 400 INVALID_REQUEST: the signature would not cover it). They see the service through `OperatorBook` (src/onboarding/book.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorSchema, ok } from '../api/envelope';
import { okSchema } from '../api/common';
import { badRequest, forbidden } from '../state/errors';
import type { Address } from '../util/bytes';
import type { OperatorBook } from './book';
import { applicantAddress } from './fields';
import { verifyOperatorRequest } from './operator-auth';

/** The operator routes' settings: the network they sign for, who the operator is, the clock. */
export interface OperatorRouteConfig {
  network: string;
  chainId: number;
  genesisHash: string;
  operator: Address;
  nowMs: () => number;
  windowMs: number;
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a dual-stack listener reports ::ffff:127.0.0.1). */
export function isLoopback(remote: string | undefined): boolean {
  if (remote === undefined) return false;
  const v4 = remote.startsWith('::ffff:') ? remote.slice(7) : remote;
  return remote === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function loopbackOnly(request: FastifyRequest): void {
  const remote = request.socket.remoteAddress;
  if (!isLoopback(remote)) throw forbidden('LOOPBACK_ONLY', `operator routes answer loopback callers only, not ${remote ?? 'an unknown address'}`);
  // The signature covers method and path only: a body would be unsigned, so none is taken.
  const length = request.headers['content-length'];
  if ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined) {
    throw badRequest('INVALID_REQUEST', 'operator routes take no body: the address is in the path');
  }
}

const field = { type: 'string', maxLength: 400 } as const;
const addressParams = { type: 'object', required: ['address'], properties: { address: field } } as const;
const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

const applicantSchema = {
  type: 'object',
  required: ['address', 'name', 'endpoint', 'email', 'status', 'applied_ts', 'approved_ts', 'rejected_ts', 'token_issued'],
  properties: {
    address: { type: 'string' },
    name: { type: 'string' },
    endpoint: { type: 'string' },
    email: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'approved', 'rejected'] },
    applied_ts: { type: 'integer' },
    approved_ts: { type: ['integer', 'null'] },
    rejected_ts: { type: ['integer', 'null'] },
    token_issued: { type: 'boolean' },
  },
} as const;

const statusSchema = {
  type: 'object',
  required: ['address', 'status', 'token_issued', 'approved_ts'],
  properties: { address: { type: 'string' }, status: { type: 'string' }, token_issued: { type: 'boolean' }, approved_ts: { type: ['integer', 'null'] } },
} as const;

export function registerOperatorRoutes(app: FastifyInstance, book: OperatorBook, config: OperatorRouteConfig): void {
  /** Loopback, signature, then the nonce: every signed route runs this before acting. */
  const authorize = async (request: FastifyRequest): Promise<void> => {
    const { nonce, timestampMs } = verifyOperatorRequest({
      chainId: config.chainId,
      operator: config.operator,
      method: request.method,
      path: request.url,
      headers: request.headers,
      nowMs: config.nowMs(),
      windowMs: config.windowMs,
    });
    await book.useOperatorNonce(nonce, timestampMs);
  };
  const guard = { onRequest: async (request: FastifyRequest) => loopbackOnly(request), preHandler: authorize };

  app.get(
    '/api/operator/network',
    {
      onRequest: guard.onRequest,
      schema: {
        response: {
          200: okSchema({
            type: 'object',
            required: ['network', 'chain_id', 'genesis_hash', 'operator'],
            properties: { network: { type: 'string' }, chain_id: { type: 'integer' }, genesis_hash: { type: 'string' }, operator: { type: 'string' } },
          }),
          403: errorSchema,
        },
      },
    },
    async () => ok({ network: config.network, chain_id: config.chainId, genesis_hash: config.genesisHash, operator: config.operator.toLowerCase() }),
  );

  app.get(
    '/api/operator/applicants',
    { ...guard, schema: { response: { 200: okSchema({ type: 'object', required: ['applicants'], properties: { applicants: { type: 'array', items: applicantSchema } } }), ...errors } } },
    async () => ok({ applicants: await book.applicants() }),
  );

  app.post<{ Params: { address: string } }>(
    '/api/operator/applicants/:address/approve',
    {
      ...guard,
      schema: {
        params: addressParams,
        response: {
          200: okSchema({ type: 'object', required: ['address', 'token', 'expires_ts'], properties: { address: { type: 'string' }, token: { type: 'string' }, expires_ts: { type: 'integer' } } }),
          ...errors,
        },
      },
    },
    async (request) => ok(await book.approve(applicantAddress(request.params.address))),
  );

  app.post<{ Params: { address: string } }>(
    '/api/operator/applicants/:address/reject',
    { ...guard, schema: { params: addressParams, response: { 200: okSchema(statusSchema), ...errors } } },
    async (request) => ok(await book.reject(applicantAddress(request.params.address))),
  );
}
