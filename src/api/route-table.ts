/**
 * The REST routes by `"METHOD /path"` with their schemas (decision 147): the schemas each
 * route file registers (its `…Schemas` table), gathered. The typed client (src/client)
 * takes its request and reply types from here, so a call with a wrong path, body or
 * query does not compile; test/api/route-table.test.ts checks that every entry is what
 * fastify registered for that method and path.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { LimitParams } from '../genesis/types';
import { bridgeSchemas } from './routes/bridge';
import { faucetSchemas } from './routes/faucet';
import { healthSchemas } from './routes/health';
import { marketSchemas } from './routes/market';
import { nativeSchemas } from './routes/native';
import { perpSchemas } from './routes/perps';
import { rateLimitSchemas } from './routes/rate-limit';
import { sessionSchemas } from './routes/sessions';
import { subAccountSchemas } from './routes/subaccounts';
import { tradingSchemas } from './routes/trading';
import { twapSchemas } from './routes/twap';
import { withdrawSchemas } from './routes/withdraw';

/** Every route's schemas, by method and path, as registered under these list limits. */
export function apiRouteSchemas(limits: LimitParams) {
  return {
    ...healthSchemas, ...rateLimitSchemas, ...tradingSchemas, ...marketSchemas(limits), ...nativeSchemas, ...withdrawSchemas, ...twapSchemas,
    ...bridgeSchemas, ...perpSchemas, ...sessionSchemas, ...subAccountSchemas, ...faucetSchemas,
  };
}

export type ApiRoutes = ReturnType<typeof apiRouteSchemas>;
export type RouteKey = keyof ApiRoutes;

/** What a client sends: a defaulted property stays optional (the server fills it in). */
type Sent<S> = S extends JSONSchema ? FromSchema<S, { keepDefaultedPropertiesOptional: true }> : never;
type Part<S, K extends string> = S extends { [P in K]: infer P } ? Sent<P> : undefined;

export type RouteParams<K extends RouteKey> = Part<ApiRoutes[K], 'params'>;
export type RouteQuery<K extends RouteKey> = Part<ApiRoutes[K], 'querystring'>;
export type RouteBody<K extends RouteKey> = Part<ApiRoutes[K], 'body'>;
/** The success answer (status 200). */
export type RouteReply<K extends RouteKey> = ApiRoutes[K] extends { response: { 200: infer R } } ? (R extends JSONSchema ? FromSchema<R> : never) : never;
/** The `data` of a success answer in the exchange envelope. */
export type RouteData<K extends RouteKey> = RouteReply<K> extends { data: infer D } ? D : never;
