/**
 * The type of a route plugin (decision 147): fastify infers each handler's request types
 * (`req.body`, `req.query`, `req.params`) and checks what it answers against the route's
 * JSON schemas, read as types by json-schema-to-ts. The schemas stay plain JSON, declared
 * `as const` or made by the builders of ./schemas.ts, which keep their literal types: the
 * validation they drive and the OpenAPI document built from them are what they were.
 */
import type { FastifyPluginAsync, FastifyPluginOptions, FastifySchema, FastifyTypeProvider, RawServerDefault } from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { NodeApi } from './node-api';

/**
 * What a reply must be when its response schema has lost its literal types (a schema
 * object built without `as const`): nothing, so the route fails to compile instead of
 * going unchecked, and the message names the cause.
 */
export interface ResponseSchemaNotLiteral {
  readonly 'declare the response schema `as const` (or build it with src/api/schemas.ts)': never;
}

/** json-schema-to-ts's type provider, strict about response schemas (above). */
export interface SchemaTypes extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : ResponseSchemaNotLiteral;
}

export type RoutePlugin<Options extends FastifyPluginOptions = { node: NodeApi }> = FastifyPluginAsync<Options, RawServerDefault, SchemaTypes>;

/**
 * A route file's schemas by `"METHOD /path"`, as the file registers them: the one
 * definition of each route's request and replies, which its handler is checked against
 * and the typed client (src/client) is derived from (src/api/route-table.ts). `const`
 * keeps the literal types of schemas written inline.
 */
export function routeSchemas<const T extends Record<`${'GET' | 'POST' | 'DELETE'} /${string}`, FastifySchema>>(schemas: T): T {
  return schemas;
}
