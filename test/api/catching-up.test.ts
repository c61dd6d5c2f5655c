/**
 * The catching-up guard (issue 39 item 6; src/api/catching-up.ts) on a server of its own:
 * while NodeApi.catchingUp says the node is behind, a GET of a route that reads the head
 * answers 503 NOT_SYNCED in the error envelope, naming both heads, with Retry-After; the
 * node's own condition (/status, /health), blocks and the other listed routes still
 * answer; writes pass; an unknown path stays 404; once it follows, everything answers.
 * test/node/sync-status.test.ts shows it on a real node syncing 1,500 blocks.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERED_WHILE_CATCHING_UP, installCatchingUpGuard } from '../../src/api/catching-up';
import { installErrorHandling, ok } from '../../src/api/envelope';
import { createLogger } from '../../src/util/log';

let behind: { height: number; target: number } | null = null;
let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify({ logger: false });
  installErrorHandling(app, createLogger({ level: 'silent', name: 'catching-up-test' }));
  installCatchingUpGuard(app, { catchingUp: () => behind });
  for (const path of ['/v1/account/:address', '/orderbook/:pair_id', '/status', '/health', '/block/:height']) app.get(path, async () => ok({ path }));
  app.post('/tx', async () => ok({ accepted: true }));
  await app.ready();
});
afterAll(() => app.close());

const get = (url: string) => app.inject({ method: 'GET', url });

describe('the catching-up guard', () => {
  it('answers a read of the head 503 NOT_SYNCED, naming both heads, while the node is behind', async () => {
    behind = { height: 153, target: 7_800 };
    for (const url of ['/v1/account/0x00000000000000000000000000000000000000a1', '/orderbook/1']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      const body = res.json();
      expect(body).toMatchObject({ success: false, error: { code: 'NOT_SYNCED' } });
      expect(body.error.message).toMatch(/catching up: its head is 153, the network's 7800; what it would answer is 7647 blocks old/);
      expect(typeof body.timestamp).toBe('number');
    }
  });

  it("still answers the node's own condition and its blocks, takes writes, and keeps 404 for an unknown path", async () => {
    behind = { height: 153, target: 7_800 };
    for (const url of ['/status', '/health', '/block/12']) expect((await get(url)).statusCode, url).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/tx', payload: {} })).statusCode).toBe(200);
    expect((await get('/no/such/route')).statusCode).toBe(404);
    for (const route of ['/status', '/health', '/block/:height', '/metrics', '/v1/network/peers']) expect(ANSWERED_WHILE_CATCHING_UP.has(route), route).toBe(true);
    for (const route of ['/v1/account/:address', '/balance/:address', '/orderbook/:pair_id', '/v1/validators', '/tx/:hash']) expect(ANSWERED_WHILE_CATCHING_UP.has(route), route).toBe(false);
  });

  it('answers every read once the node follows', async () => {
    behind = null;
    for (const url of ['/v1/account/0x00000000000000000000000000000000000000a1', '/orderbook/1', '/status']) expect((await get(url)).statusCode, url).toBe(200);
  });
});
