/**
 * Route schemas compile at first use or in the background after listen (src/api/envelope.ts
 * installValidation), never before the server listens; a request validates as it would
 * against the schema compiled up front.
 */
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installErrorHandling, installValidation } from '../../src/api/envelope';
import { silentLogger } from '../../src/util/log';

const bodySchema = { type: 'object', required: ['amount'], additionalProperties: false, properties: { amount: { type: 'string', pattern: '^[0-9]+$' } } };
const querySchema = { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } } };

function server() {
  const app = Fastify({ logger: false });
  installErrorHandling(app, silentLogger());
  const lazy = installValidation(app);
  app.post('/order', { schema: { body: bodySchema } }, async (req) => ({ got: req.body }));
  app.get('/list', { schema: { querystring: querySchema } }, async (req) => ({ got: req.query }));
  for (let i = 0; i < 8; i++) app.get(`/more/${i}`, { schema: { querystring: querySchema } }, async () => ({}));
  return { app, lazy };
}

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const a of open.splice(0)) await a.close();
});

describe('lazy route validation', () => {
  it('compiles nothing before listen; a request compiles only its own schema', async () => {
    const { app, lazy } = server();
    open.push(app);
    await app.ready();
    // Ten routes' schemas, and those of the HEAD routes fastify adds beside each GET.
    const before = lazy.pending();
    expect(before).toBe(10 + 9);
    const ok = await app.inject({ method: 'POST', url: '/order', payload: { amount: '12' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ got: { amount: '12' } });
    expect(lazy.pending()).toBe(before - 1);
  });

  it('refuses what the schema refuses, with the reason, and applies coercion and defaults', async () => {
    const { app } = server();
    open.push(app);
    await app.ready();
    const bad = await app.inject({ method: 'POST', url: '/order', payload: { amount: 12 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_REQUEST');
    expect(bad.json().error.message).toMatch(/amount/);
    const extra = await app.inject({ method: 'POST', url: '/order', payload: { amount: '1', x: 1 } });
    expect(extra.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/list?limit=0' })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/list?limit=5' })).json()).toEqual({ got: { limit: 5 } });
    expect((await app.inject({ method: 'GET', url: '/list' })).json()).toEqual({ got: { limit: 10 } });
  });

  it('compiles the rest in the background once listening, and stops when closed', async () => {
    const { app, lazy } = server();
    open.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const deadline = Date.now() + 5_000;
    while (lazy.pending() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(lazy.pending()).toBe(0);

    const other = server();
    await other.app.listen({ host: '127.0.0.1', port: 0 });
    await other.app.close();
    const left = other.lazy.pending();
    await new Promise((r) => setTimeout(r, 200));
    expect(left).toBeGreaterThan(0);
    expect(other.lazy.pending()).toBe(left);
  });
});
