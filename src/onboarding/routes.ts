/**
 * The onboarding service's routes (contract [C-onboard-apply], [C-onboard-status],
 * [C-state-onboarding]; decision 75), on the service's own fastify app
 * (src/onboarding/service.ts). They see the service's state only through
 * `OnboardingBook` (src/onboarding/book.ts).
 *
 *   POST /api/validators/apply            JSON address, name, endpoint, email, timestamp, signature → the status view (pending)
 *   GET  /api/onboarding/status/:address  → address, status, token_issued, approved_ts
 *   GET  /status                          → {service, actors}: each actor's lifecycle state and mailbox counters
 *
 * Refusals are the project's error envelope (src/api/envelope.ts): a missing, extra or
 * non-string field 400 INVALID_REQUEST (the JSON schema), a field of the wrong format 400
 * INVALID_VALIDATOR naming it (src/onboarding/fields.ts), the applicant's signature
 * (src/onboarding/application-auth.ts: 400 INVALID_SIGNATURE_FORMAT, 401 REQUEST_EXPIRED
 * or INVALID_SIGNATURE), the budgets (src/onboarding/apply-throttle.ts: 429 RATE_LIMITED,
 * the client's charged before anything else, the service's once the signature holds), a
 * second application 409 VALIDATOR_EXISTS. An address that never applied is 200 `not_found`, as the contract
 * lists it. The operator's routes, the downloads and checksums, and register are in their
 * own files (operator-routes.ts, download-routes.ts, register.ts).
 */
import type { FastifyInstance } from 'fastify';
import { errorSchema, ok } from '../api/envelope';
import { okSchema } from '../api/common';
import { verifyApplication } from './application-auth';
import type { ApplyThrottle } from './apply-throttle';
import type { OnboardingBook, ServiceHealth } from './book';
import { applicantAddress, checkApplication } from './fields';

/** What apply checks an application against: the network's chain id, the clock and window of its timestamp, the budgets. */
export interface ApplyRouteConfig {
  chainId: number;
  nowMs: () => number;
  windowMs: number;
  throttle: ApplyThrottle;
}

/** Longer than any valid value, so a too-long field is refused by its own check, naming it. */
const field = { type: 'string', maxLength: 400 } as const;

const statusSchema = {
  type: 'object',
  required: ['address', 'status', 'token_issued', 'approved_ts'],
  properties: {
    address: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'not_found'] },
    token_issued: { type: 'boolean' },
    approved_ts: { type: ['integer', 'null'] },
  },
} as const;

const errors = { 400: errorSchema, 401: errorSchema, 409: errorSchema, 429: errorSchema };

export function registerOnboardingRoutes(app: FastifyInstance, book: OnboardingBook, apply: ApplyRouteConfig): void {
  app.post<{ Body: { address: string; name: string; endpoint: string; email: string; timestamp: number; signature: string } }>(
    '/api/validators/apply',
    {
      schema: {
        body: {
          type: 'object',
          required: ['address', 'name', 'endpoint', 'email', 'timestamp', 'signature'],
          additionalProperties: false,
          properties: {
            address: field,
            name: field,
            endpoint: field,
            email: field,
            timestamp: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            signature: { type: 'string', maxLength: 200 },
          },
        },
        response: { 200: okSchema(statusSchema), ...errors },
      },
    },
    async (request) => {
      apply.throttle.client(request.ip);
      const application = checkApplication(request.body);
      verifyApplication({ chainId: apply.chainId, application, proof: request.body, nowMs: apply.nowMs(), windowMs: apply.windowMs });
      apply.throttle.overall();
      const record = await book.apply(application);
      return ok(await book.status(record.application.address));
    },
  );

  app.get<{ Params: { address: string } }>(
    '/api/onboarding/status/:address',
    {
      schema: {
        params: { type: 'object', required: ['address'], properties: { address: field } },
        response: { 200: okSchema(statusSchema), 400: errorSchema },
      },
    },
    async (request) => ok(await book.status(applicantAddress(request.params.address))),
  );
}

const actorSchema = {
  type: 'object',
  required: ['status', 'enqueued', 'dropped', 'processed', 'failed', 'restarts', 'mailboxSize'],
  properties: {
    status: { type: 'string' },
    enqueued: { type: 'integer' },
    dropped: { type: 'integer' },
    processed: { type: 'integer' },
    failed: { type: 'integer' },
    restarts: { type: 'integer' },
    mailboxSize: { type: 'integer' },
    lastError: { type: 'string' },
  },
} as const;

/**
 * GET /status: the service's actors by name, in start order, each its lifecycle state
 * (machines/actor-lifecycle.ts: running, backoff while restarting, …) and its mailbox
 * counters, as the node's /status shows its own. Read without a mailbox, so it answers
 * while an actor is busy or restarting.
 */
export function registerStatusRoute(app: FastifyInstance, health: ServiceHealth): void {
  app.get(
    '/status',
    {
      schema: {
        response: {
          200: okSchema({
            type: 'object',
            required: ['service', 'actors'],
            properties: { service: { type: 'string', const: 'onboarding' }, actors: { type: 'object', additionalProperties: actorSchema } },
          }),
        },
      },
    },
    async () => ok({ service: 'onboarding', actors: health.actors() }),
  );
}
