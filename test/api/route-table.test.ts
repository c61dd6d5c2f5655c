/**
 * The route table (decision 147, src/api/route-table.ts): every entry is the schema fastify
 * registered for that method and path, so the typed client, whose request and reply types
 * come from the table, is typed by the routes as they are. And the types bite: a client
 * call with a wrong body, query, path parameter or route does not compile (the
 * `@ts-expect-error` lines below fail the typecheck the day they compile).
 */
import Fastify, { type FastifySchema } from 'fastify';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apiRouteSchemas, type RouteBody, type RouteData, type RouteKey } from '../../src/api/route-table';
import type { NodeApi } from '../../src/api/node-api';
import { bridgeRoutes } from '../../src/api/routes/bridge';
import { faucetRoutes } from '../../src/api/routes/faucet';
import { healthRoutes } from '../../src/api/routes/health';
import { marketRoutes } from '../../src/api/routes/market';
import { nativeRoutes } from '../../src/api/routes/native';
import { perpRoutes } from '../../src/api/routes/perps';
import { rateLimitRoutes } from '../../src/api/routes/rate-limit';
import { sessionRoutes } from '../../src/api/routes/sessions';
import { subAccountRoutes } from '../../src/api/routes/subaccounts';
import { tradingRoutes } from '../../src/api/routes/trading';
import { twapRoutes } from '../../src/api/routes/twap';
import { withdrawRoutes } from '../../src/api/routes/withdraw';
import type { RateLimitReader } from '../../src/api/routes/rate-limit';
import { ExchangeClient } from '../../src/client';
import { devnetGenesis } from '../helpers/devnet';

describe('the route table', () => {
  it('holds, for each method and path, the schema that route registers', async () => {
    const { genesis } = devnetGenesis();
    const app = Fastify();
    const registered = new Map<string, FastifySchema | undefined>();
    app.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) registered.set(`${method} ${r.url}`, r.schema);
    });
    // Registering reads only the genesis; no handler runs.
    const node = { genesis } as NodeApi;
    for (const plugin of [healthRoutes, tradingRoutes, marketRoutes, nativeRoutes, withdrawRoutes, twapRoutes, bridgeRoutes, perpRoutes, sessionRoutes, subAccountRoutes, faucetRoutes]) {
      await app.register(plugin, { node });
    }
    await app.register(rateLimitRoutes, { limiter: {} as RateLimitReader });
    await app.ready();
    const table = apiRouteSchemas(genesis.limits);
    expect(Object.keys(table).length).toBeGreaterThan(60);
    // As JSON: fastify marks a schema it has visited with a symbol.
    const json = (v: unknown) => JSON.parse(JSON.stringify(v ?? null));
    for (const [key, schema] of Object.entries(table)) expect(json(registered.get(key)), key).toEqual(json(schema));
    await app.close();
  });

  it('types the client by the routes: a wrong body, query, parameter or route does not compile', () => {
    expectTypeOf<RouteBody<'POST /v1/order'>['amount']>().toEqualTypeOf<string>();
    expectTypeOf<RouteData<'GET /v1/account/:address'>['freeBalance']>().toEqualTypeOf<string>();
    expectTypeOf<'POST /v1/order'>().toExtend<RouteKey>();
    const client = new ExchangeClient('http://127.0.0.1:9');
    const trader = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    // Never called: what matters is what compiles.
    const calls = () => [
      client.request('POST /v1/order', { body: { symbol: 'BTC', side: 'buy', type: 'limit', price: '1', amount: '1', trader, nonce: 1 } }),
      // @ts-expect-error: `amount` is a decimal string, not a number.
      client.request('POST /v1/order', { body: { symbol: 'BTC', side: 'buy', type: 'limit', price: '1', amount: 1, trader, nonce: 1 } }),
      // @ts-expect-error: `trader` is required.
      client.request('POST /v1/order', { body: { symbol: 'BTC', side: 'buy', type: 'limit', amount: '1', nonce: 1 } }),
      // @ts-expect-error: the order body has no `quantity` (additionalProperties: false).
      client.request('POST /v1/order', { body: { symbol: 'BTC', side: 'buy', type: 'limit', amount: '1', trader, nonce: 1, quantity: '1' } }),
      // @ts-expect-error: the cancel needs its path parameter.
      client.request('DELETE /v1/order/:orderId', { body: { trader, nonce: 1 } }),
      // @ts-expect-error: `interval` takes the listed intervals only.
      client.request('GET /v1/candles/:symbol', { params: { symbol: 'BTC' }, query: { interval: '2m' } }),
      // @ts-expect-error: no such route.
      client.request('POST /v1/orders', { body: {} }),
    ];
    expectTypeOf(calls).toBeFunction();
  });
});
