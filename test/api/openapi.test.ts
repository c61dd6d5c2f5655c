/**
 * The OpenAPI document and the /docs page (issue 23 item 3), on an in-process devnet node:
 * every route the route files register (read from their source, independently of the
 * onRoute hook that builds the document) appears with its request schema where it takes
 * input and a success response schema with an example; the document is structurally
 * OpenAPI 3.1 (every $ref resolves, each operation has responses); /docs is HTML that
 * references only its own origin. And the reply check the suite runs with
 * (EXCHANGE_API_CHECK_RESPONSES) refuses a reply its schema does not describe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/api/envelope';
import { installReplySerializer, openApiPath } from '../../src/api/openapi';
import { createLogger } from '../../src/util/log';
import type { Node } from '../../src/node/node';
import { ROOT, startNode, tempDir } from '../helpers/devnet';

const dir = tempDir('exchain-openapi-');
let node: Node;
let url: string;
let doc: any;

beforeAll(async () => {
  ({ node, url } = await startNode(dir.path));
  doc = await (await fetch(`${url}/openapi.json`)).json();
});
afterAll(async () => {
  await node.stop();
  dir.remove();
});

/** Every `app.get|post|delete|put|patch('path'` in src/api/routes/*.ts, and the document's own two routes. */
function routesInSource(): { method: string; path: string }[] {
  const routesDir = join(ROOT, 'src/api/routes');
  const out = [
    { method: 'get', path: '/openapi.json' },
    { method: 'get', path: '/docs' },
  ];
  for (const file of readdirSync(routesDir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(routesDir, file), 'utf8');
    for (const m of text.matchAll(/app\.(get|post|delete|put|patch)(?:<[^(]*?>)?\(\s*'([^']+)'/gs)) {
      out.push({ method: m[1], path: openApiPath(m[2]) });
    }
  }
  return out;
}

function operations(): { method: string; path: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
}

describe('GET /openapi.json', () => {
  it('lists every route the route files register, and nothing else', () => {
    const expected = routesInSource().map((r) => `${r.method} ${r.path}`).sort();
    const listed = operations().map((o) => `${o.method} ${o.path}`).sort();
    expect(expected.length).toBeGreaterThan(50);
    expect(listed).toEqual(expected);
  });

  it('is OpenAPI 3.1 in structure: info, paths, components, operation ids unique, every $ref resolves', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    expect(typeof doc.paths).toBe('object');
    expect(doc.components.schemas.Error).toBeDefined();
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref') refs.push(x as string);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.startsWith('#/')).toBe(true);
      const target = ref.slice(2).split('/').reduce((o: any, k) => o?.[k], doc);
      expect(target, ref).toBeDefined();
    }
    for (const path of Object.keys(doc.paths)) {
      // Path templates name their parameters.
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        for (const op of Object.values(doc.paths[path]) as any[]) {
          expect(op.parameters?.some((p: any) => p.in === 'path' && p.name === name && p.required === true), `${path} ${name}`).toBe(true);
        }
      }
    }
  });

  it('gives every operation a summary, a tag, a success response with a schema and an example, and the error envelope', () => {
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.summary, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      expect(Object.keys(op.responses).length, where).toBeGreaterThan(0);
      if (op.responses['101']) continue; // the WebSocket upgrade
      const ok = op.responses['200'];
      expect(ok, where).toBeDefined();
      // JSON, or a text reply whose string schema names its media type (the /docs page).
      const media: any = Object.values(ok.content ?? {})[0];
      expect(media?.schema, `${where}: declare schema.response[200]`).toBeDefined();
      expect(Object.keys(media.examples ?? {}).length, `${where}: give the 200 schema \`examples\``).toBeGreaterThan(0);
      // The error envelope: 4XX on every route that takes input, 5XX on every JSON route
      // (JSON-RPC at POST / answers its errors in JSON-RPC; text replies have none).
      const json = ok.content?.['application/json'] !== undefined;
      if (path !== '/' && (op.parameters?.length || op.requestBody)) expect(op.responses['4XX']?.$ref, where).toBe('#/components/responses/ClientError');
      if (path !== '/' && path !== '/openapi.json' && json) expect(op.responses['5XX']?.$ref, where).toBe('#/components/responses/ServerError');
    }
  });

  it('documents the input of every route that takes some: body, query and path parameters with their limits and examples', () => {
    let bodies = 0;
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      if (method === 'post' || method === 'delete') {
        const media = op.requestBody?.content?.['application/json'];
        expect(media?.schema, where).toBeDefined();
        expect(Object.keys(media.examples ?? {}).length, where).toBeGreaterThan(0);
        bodies++;
      }
    }
    expect(bodies).toBeGreaterThan(15);
    const order = doc.paths['/v1/order'].post.requestBody.content['application/json'].schema;
    expect(order.properties.trader.pattern).toBe('^0x[0-9a-fA-F]{40}$');
    expect(order.properties.symbol.maxLength).toBe(20);
    const trades = doc.paths['/v1/trades/{symbol}'].get.parameters;
    expect(trades.find((p: any) => p.name === 'limit').schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(trades.find((p: any) => p.name === 'symbol')).toMatchObject({ in: 'path', required: true });
  });
});

describe('the examples', () => {
  it('each validate against the schema they illustrate (request bodies, parameters, responses, the error envelope)', () => {
    const ajv = new Ajv({ strict: false, allowUnionTypes: true });
    ajv.addSchema(doc.components.schemas.Error, '#/components/schemas/Error');
    let checked = 0;
    const wrong: string[] = [];
    const check = (schema: object, value: unknown, where: string) => {
      if (!ajv.validate(schema, value)) wrong.push(`${where}: ${ajv.errorsText()}`);
      checked++;
    };
    const media = (m: any, where: string) => {
      for (const [name, ex] of Object.entries(m?.examples ?? {}) as [string, any][]) check(m.schema, ex.value, `${where} ${name}`);
    };
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      for (const p of op.parameters ?? []) if (p.example !== undefined) check(p.schema, p.example, `${where} ${p.name}`);
      media(op.requestBody?.content?.['application/json'], `${where} body`);
      for (const [code, r] of Object.entries(op.responses) as [string, any][]) if (!r.$ref) media(r.content?.['application/json'], `${where} ${code}`);
    }
    for (const [name, r] of Object.entries(doc.components.responses) as [string, any][]) media(r.content['application/json'], name);
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(80);
  });
});

describe('GET /docs', () => {
  it('is one HTML page that references only its own origin', async () => {
    const res = await fetch(`${url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain("fetch('/openapi.json')");
    // No src= or href= to another origin; no protocol-relative or absolute URL in the page at all.
    for (const m of html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)) expect(m[1].startsWith('/') || m[1].startsWith('#'), m[1]).toBe(true);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/["'(]\/\//);
    expect(html).not.toMatch(/@import|url\(/);
  });
});

describe('the reply check (EXCHANGE_API_CHECK_RESPONSES)', () => {
  it('is on in the suite, and answers 500 for a reply its response schema does not describe; without it, the reply goes out unchanged', async () => {
    expect(process.env.EXCHANGE_API_CHECK_RESPONSES).toBe('1');
    const replyWith = async (check: boolean) => {
      const app = Fastify({ logger: false });
      installErrorHandling(app, createLogger({ destination: 'silent' }));
      installReplySerializer(app, check);
      app.get('/x', { schema: { response: { 200: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } } } } }, async () => ({ a: 1, b: true }));
      const res = await app.inject({ method: 'GET', url: '/x' });
      await app.close();
      return res;
    };
    const checked = await replyWith(true);
    expect(checked.statusCode).toBe(500);
    const unchecked = await replyWith(false);
    expect(unchecked.statusCode).toBe(200);
    // Not reshaped by the schema: fast-json-stringify would have dropped `b` and made `a` "1".
    expect(unchecked.json()).toEqual({ a: 1, b: true });
  });
});
