/**
 * The API's machine-readable description (issue 23 item 3): an OpenAPI 3.1 document built
 * from fastify's own route registry, served at GET /openapi.json, and the page that
 * browses it at GET /docs (src/api/docs-page.ts). Nothing is listed by hand: an onRoute
 * hook installed before the route plugins sees every route as fastify registers it, with
 * its JSON schemas (params, querystring, body, response per status) and the route's
 * `summary`, `description` and `tags`; a route registered later (a new plugin) appears
 * by itself.
 *
 * Response schemas describe, they do not reshape: fastify would otherwise serialize a
 * reply with fast-json-stringify, which drops properties a schema does not name and
 * coerces types, so a schema that is off by one field would change the REST contract.
 * The serializer installed here is JSON.stringify, exactly what fastify uses for a route
 * without a schema. With `checkResponses` (the test suite sets EXCHANGE_API_CHECK_RESPONSES=1,
 * vitest.config.ts) every reply is validated against its declared schema first and a
 * mismatch is a 500, so every test that reads a route also checks its documentation.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { DOCS_PAGE_HTML } from './docs-page';
import { errorSchema } from './envelope';

declare module 'fastify' {
  interface FastifySchema {
    /** One line: what the route does (the document's operation summary). */
    summary?: string;
    /** Longer text: rules, limits, what the answer means (markdown). */
    description?: string;
    /** The group the route is listed under on /docs. */
    tags?: readonly string[];
    /** Left out of the document (the CORS preflight route sets it). */
    hide?: boolean;
    /**
     * The request body as documented, for a route that parses its body itself (JSON-RPC
     * at POST /: a `body` schema would make fastify validate the raw text).
     */
    documentedBody?: unknown;
  }
}

/** A route as fastify registered it. */
export interface RegisteredRoute {
  method: string;
  url: string;
  schema: FastifySchema;
  websocket: boolean;
}

export interface OpenApiOptions {
  /** The document's info.version: the node's software version. */
  version: string;
  /** Validate every reply against its response schema (tests); a mismatch answers 500. */
  checkResponses?: boolean;
}

/** Whether the environment asks for reply checking (EXCHANGE_API_CHECK_RESPONSES=1). */
export function checkResponsesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.EXCHANGE_API_CHECK_RESPONSES === '1';
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  node: 'The node itself: health, status, chain identity, peers, this document.',
  chain: 'Blocks and raw transactions in the chain\u2019s canonical envelope.',
  market: 'Market data and account reads (exchange REST, /v1, in the success envelope).',
  trading: 'Signed spot orders (exchange REST, /v1): place, batch, cancel, cancel all.',
  native: 'Native routes (plain objects, integer strings in base units).',
  perps: 'Perpetual futures, the liquidity pool and engine statistics.',
  sessions: 'Session keys and agent settings (also served on the session port, 9001).',
  subaccounts: 'Sub-accounts: open, fund, list; trade as one with the master’s signature.',
  bridge: 'The bridge to the external chain: withdrawals and the reserve check.',
  validators: 'Validators and owner governance.',
  rpc: 'Ethereum JSON-RPC over HTTP and WebSocket.',
  faucet: 'Devnet only: test USDC and native token.',
};

/** The order tags are listed in (the document's `tags`, the page's groups). */
const TAG_ORDER = Object.keys(TAG_DESCRIPTIONS);

/**
 * Installs the route collector, the serializer and the two routes. Call it before any
 * route plugin is registered: the onRoute hook sees only routes registered after it.
 */
export function installOpenApi(app: FastifyInstance, opts: OpenApiOptions): void {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (r) => {
    const schema = (r.schema ?? {}) as FastifySchema;
    if (schema.hide) return;
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      // HEAD routes are fastify's automatic twins of the GET routes.
      if (method === 'HEAD') continue;
      routes.push({ method, url: r.url, schema, websocket: (r as { websocket?: boolean }).websocket === true });
    }
  });
  installReplySerializer(app, opts.checkResponses ?? false);

  let document: object | undefined;
  app.get('/openapi.json', {
    schema: {
      tags: ['node'],
      summary: 'This API as an OpenAPI 3.1 document',
      description: 'Generated at start from the route schemas fastify registered: every REST route with its parameters, request body, success and error responses, limits and examples. Browse it at /docs.',
      response: { 200: { type: 'object', required: ['openapi', 'info', 'paths'], additionalProperties: true, properties: { openapi: { type: 'string' }, info: { type: 'object', additionalProperties: true }, paths: { type: 'object', additionalProperties: true } }, examples: [{ openapi: '3.1.0', info: { title: 'Exchange chain node API', version: '0.1.0' }, paths: {} }] } },
    },
    // Built once, at the first request: every route is registered by then.
    handler: async () => (document ??= buildOpenApiDocument(routes, opts.version)),
  });
  app.get('/docs', {
    schema: {
      tags: ['node'],
      summary: 'This API, browsable (HTML)',
      description: 'A page that reads /openapi.json and lists every route by tag, with a filter. It loads nothing from elsewhere.',
      response: { 200: { type: 'string', description: 'text/html', examples: ['<!doctype html>…'] } },
    },
    handler: async (_req, reply) => reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).send(DOCS_PAGE_HTML),
  });
}

/**
 * Replies are written with JSON.stringify whatever their response schema (see the header);
 * with `checkResponses`, validated against it first. Every fastify app that registers
 * routes with response schemas installs it (the session port's too).
 */
export function installReplySerializer(app: FastifyInstance, checkResponses: boolean): void {
  app.setSerializerCompiler(checkResponses ? checkingSerializer : () => JSON.stringify);
}

/** The page may load and connect to its own origin only; its script and style are inline. */
const DOCS_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:";

/** A JSON-schema validator for replies: not coercing, annotations (`examples`, `description`) allowed. */
const replyAjv = new Ajv({ strict: false, allowUnionTypes: true, coerceTypes: false, removeAdditional: false, useDefaults: false });

function checkingSerializer({ schema, method, url, httpStatus }: { schema: unknown; method: string; url: string; httpStatus?: string }) {
  let validate: ValidateFunction | undefined;
  return (data: unknown): string => {
    const text = JSON.stringify(data);
    validate ??= replyAjv.compile(schema as object);
    if (text !== undefined && !validate(JSON.parse(text))) {
      const why = replyAjv.errorsText(validate.errors, { dataVar: 'reply' });
      throw new Error(`reply of ${method} ${url} (${httpStatus}) does not match its response schema: ${why}`);
    }
    return text;
  };
}

type Json = Record<string, unknown>;

const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]+(;.*)?$/;

/** `/block/:height` as OpenAPI writes it: `/block/{height}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** OpenAPI status keys: '4xx' is written '4XX'. */
function statusKey(code: string): string {
  return /^[1-5]xx$/i.test(code) ? code.toUpperCase() : code;
}

const isErrorSchema = (s: unknown) => s === errorSchema || JSON.stringify(s) === JSON.stringify(errorSchema);

/** A schema's first `examples` entry as an OpenAPI media type `examples` map. */
function mediaExamples(schema: unknown): Json | undefined {
  const ex = (schema as { examples?: unknown[] } | undefined)?.examples;
  if (!Array.isArray(ex) || ex.length === 0) return undefined;
  return Object.fromEntries(ex.map((value, i) => [i === 0 ? 'example' : `example${i + 1}`, { value }]));
}

function mediaType(schema: unknown, contentType = 'application/json'): Json {
  const examples = mediaExamples(schema);
  return { [contentType]: { schema, ...(examples ? { examples } : {}) } };
}

function parameters(where: 'path' | 'query', schema: unknown, url: string): Json[] {
  const s = (schema ?? {}) as { properties?: Record<string, Json>; required?: string[] };
  const props = s.properties ?? {};
  const out: Json[] = Object.entries(props).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    ...(typeof p.description === 'string' ? { description: p.description } : {}),
    schema: p,
    ...(Array.isArray(p.examples) && p.examples.length > 0 ? { example: p.examples[0] } : {}),
  }));
  if (where === 'path') {
    // A path parameter the route checks itself (no params schema): still listed.
    for (const [, name] of url.matchAll(/:([A-Za-z0-9_]+)/g)) {
      if (!(name in props)) out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  return out;
}

function operationId(method: string, url: string): string {
  const words = url.split(/[/{}:\-_.]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1));
  return method.toLowerCase() + (words.join('') || 'Root');
}

function operation(route: RegisteredRoute): Json {
  const s = route.schema;
  const responses: Json = {};
  if (route.websocket) {
    responses['101'] = { description: 'Switching Protocols: the connection is now a WebSocket carrying JSON-RPC 2.0 messages.' };
  }
  for (const [code, schema] of Object.entries((s.response ?? {}) as Record<string, unknown>)) {
    const key = statusKey(code);
    if (isErrorSchema(schema)) {
      responses[key] = { $ref: key.startsWith('5') ? '#/components/responses/ServerError' : '#/components/responses/ClientError' };
      continue;
    }
    const desc = (schema as { description?: string }).description;
    // A text reply (the /docs page, Prometheus text) names its media type as the string schema's description.
    const text = (schema as { type?: unknown }).type === 'string' && desc !== undefined && MEDIA_TYPE.test(desc) ? desc : undefined;
    responses[key] = {
      description: text ? `A ${text.split(';')[0]} document.` : (desc ?? (key === '200' ? 'Success.' : `Status ${key}.`)),
      ...(code === '204' ? {} : { content: text ? mediaType(schema, text) : mediaType(schema) }),
    };
  }
  const params = [...parameters('path', s.params, route.url), ...parameters('query', s.querystring, route.url)];
  const body = s.body ?? s.documentedBody;
  return {
    operationId: operationId(route.method, route.url),
    ...(s.summary ? { summary: s.summary } : {}),
    ...(s.description ? { description: s.description } : {}),
    tags: [...(s.tags ?? ['node'])],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: { required: true, content: mediaType(body) } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of `routes` (as collected by installOpenApi), paths in order of registration. */
export function buildOpenApiDocument(routes: readonly RegisteredRoute[], version: string): object {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  const used = new Set(routes.flatMap((r) => r.schema.tags ?? ['node']));
  const tags = [...TAG_ORDER.filter((t) => used.has(t)), ...[...used].filter((t) => !TAG_ORDER.includes(t)).sort()].map((name) => ({
    name,
    ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
  }));
  const errorExample = { success: false, error: { code: 'INVALID_REQUEST', message: 'amount: must be string' }, timestamp: 1767225600000 };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Exchange chain node API',
      version,
      description:
        'The REST API every node serves (docs/api.md). Exchange routes under /v1 answer `{success, data, timestamp}`; native routes answer plain objects; every error is `{success: false, error: {code, message}, timestamp}` with the HTTP status of its class. Signed writes answer once their transaction is final.',
    },
    servers: [{ url: '/' }],
    tags,
    paths,
    components: {
      schemas: { Error: errorSchema },
      responses: {
        ClientError: {
          description: 'Refused: 400 shape, 401 signature, 403 who may sign, 404 unknown, 409 nonce, 413 body too large, 415 media type, 422 refused by execution. The body names the code.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: { example: { value: errorExample } } } },
        },
        ServerError: {
          description: 'The node failed (500 INTERNAL), is not ready (503 NOT_SYNCED, SHUTTING_DOWN) or a transaction was accepted but not final in time (504 NOT_FINAL_YET: query it by hash).',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: { example: { value: { ...errorExample, error: { code: 'NOT_SYNCED', message: 'the index is starting; retry shortly' } } } } } },
        },
      },
    },
  };
}
