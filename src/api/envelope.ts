/**
 * The response envelope (contract [D-envelope-success], [D-envelope-error]): success
 * `{success: true, data, timestamp}`;
 * every error `{success: false, error: {code, message}, timestamp}` with the HTTP
 * status of its class, and `error.details` where a code carries more (410 PRUNED: the
 * lowest height or block time kept, decision 135). One error handler for the whole
 * server produces the latter.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { TxError, type ErrorCode } from '../state/errors';
import type { Logger } from '../util/log';

/** A refusal the API answers itself (request shape, unknown resource, the node's state): one of the envelope's codes. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** A 429's wait, sent as the Retry-After header (src/api/rate-limit.ts). */
    readonly retryAfterSec?: number,
    /** Sent as `error.details` (410 PRUNED: `lowestHeight` or `lowestTime`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function ok<T>(data: T): { success: true; data: T; timestamp: number } {
  return { success: true, data, timestamp: Date.now() };
}

export function errorBody(code: ErrorCode, message: string, details?: Record<string, unknown>) {
  return { success: false as const, error: details === undefined ? { code, message } : { code, message, details }, timestamp: Date.now() };
}

/** JSON schema of the error envelope, for route response schemas. */
export const errorSchema = {
  type: 'object',
  required: ['success', 'error', 'timestamp'],
  properties: {
    success: { type: 'boolean', const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true, description: 'More about the error, for the codes that carry it (410 PRUNED: lowestHeight or lowestTime).' },
      },
    },
    timestamp: { type: 'integer' },
  },
} as const;

/** Names the offending field of a JSON-schema validation error: "amount: must be string". */
function describeValidation(err: FastifyError): string {
  const v = err.validation?.[0];
  if (!v) return err.message;
  const params = v.params as Record<string, unknown>;
  const base = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const field =
    typeof params.missingProperty === 'string'
      ? [base, params.missingProperty].filter(Boolean).join('.')
      : typeof params.additionalProperty === 'string'
        ? [base, params.additionalProperty].filter(Boolean).join('.')
        : base || err.validationContext || 'body';
  const reason = typeof params.additionalProperty === 'string' ? 'is not an allowed field' : v.message ?? 'is invalid';
  return `${field}: ${reason}`;
}

export function installErrorHandling(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((err: FastifyError | ApiError | TxError, request, reply) => {
    if (err instanceof ApiError || err instanceof TxError) {
      if (err instanceof ApiError && err.retryAfterSec !== undefined) reply.header('retry-after', err.retryAfterSec);
      return reply.status(err.status).send(errorBody(err.code, err.message, err instanceof ApiError ? err.details : undefined));
    }
    const fe = err as FastifyError;
    if (fe.validation) return reply.status(400).send(errorBody('INVALID_REQUEST', describeValidation(fe)));
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'INVALID_REQUEST';
      return reply.status(status).send(errorBody(code, fe.message));
    }
    log.error({ err, url: request.url, method: request.method }, 'unhandled API error');
    return reply.status(500).send(errorBody('INTERNAL', 'internal error'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0].slice(0, 200)}`));
  });
}

/** The pause between two schemas compiled in the background after the server listens. */
export const SCHEMA_WARM_STEP_MS = 50;

/** The route schemas a server compiles lazily (installValidation). */
export interface LazyValidation {
  /** Schemas not compiled yet. */
  pending(): number;
  /** Compiles the pending schemas in the background, one every SCHEMA_WARM_STEP_MS (an unref'd timer). */
  warm(): void;
  /** Stops the background compiling (the server closes). */
  stop(): void;
}

/**
 * Request bodies are validated strictly (a JSON number is not a decimal string);
 * query strings and path parameters arrive as text, so they are coerced.
 *
 * Each route schema is compiled at its first use, not when the routes register: Ajv
 * took about 1.2 s of CPU for the node's ~90 route schemas, all before the API listened
 * (a joining node's start, issue 27). `warm()` compiles the rest in the background once
 * the server listens (and stops when it closes), so the first requests rarely pay for
 * it either. A request validates against the same schema with the same Ajv options
 * either way.
 */
export function installValidation(app: FastifyInstance): LazyValidation {
  const strict = new Ajv({ coerceTypes: false, allErrors: false, removeAdditional: false, useDefaults: true });
  const coercing = new Ajv({ coerceTypes: true, allErrors: false, removeAdditional: false, useDefaults: true });
  const pending = new Set<() => void>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    let compiled: ValidateFunction | undefined;
    const compile = (): ValidateFunction => {
      if (compiled === undefined) {
        compiled = ajv.compile(schema);
        pending.delete(compile);
      }
      return compiled;
    };
    pending.add(compile);
    // Fastify reads a false answer's reasons from the function's `errors`, as Ajv's own.
    const validate = (data: unknown): boolean => {
      const fn = compile();
      const ok = fn(data) as boolean;
      validate.errors = fn.errors;
      return ok;
    };
    validate.errors = null as ValidateFunction['errors'];
    return validate;
  });
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const step = () => {
    timer = undefined;
    const next = pending.values().next();
    if (stopped || next.done) return;
    next.value();
    timer = setTimeout(step, SCHEMA_WARM_STEP_MS).unref();
  };
  const lazy: LazyValidation = {
    pending: () => pending.size,
    warm: () => {
      if (timer === undefined && !stopped) timer = setTimeout(step, SCHEMA_WARM_STEP_MS).unref();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
  app.addHook('onListen', async () => lazy.warm());
  app.addHook('onClose', async () => lazy.stop());
  return lazy;
}
