/**
 * Small builders for the routes' response schemas (src/api/openapi.ts documents them;
 * they never reshape a reply). Objects are closed (`additionalProperties: false`) and
 * every listed property required unless named optional, so the reply checks run by the
 * tests (EXCHANGE_API_CHECK_RESPONSES) catch a field the documentation misses.
 */
import { errorSchema } from './envelope';

type Schema = Record<string, unknown>;

export const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const int = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
export const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const hex = (description?: string): Schema => ({ type: 'string', pattern: '^0x[0-9a-fA-F]*$', ...(description ? { description } : {}) });
export const addr = (description?: string): Schema => ({ type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', ...(description ? { description } : {}) });
/** A decimal string (USDC with 6 decimals, sizes with 18, or integer base units). */
export const dec = (description?: string): Schema => ({ type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$', ...(description ? { description } : {}) });

/** `schema` or null. */
export function nullable(schema: Schema): Schema {
  if ('$ref' in schema || !('type' in schema)) return { anyOf: [schema, { type: 'null' }] };
  return { ...schema, type: [schema.type as string, 'null'] };
}

export const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });

/** A closed object: every property required except those in `optional`. */
export function obj(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

/** An object whose keys are open-ended (counters, maps keyed by name): documented, not enumerated. */
export const openObj = (description: string, properties: Record<string, Schema> = {}): Schema => ({ type: 'object', additionalProperties: true, description, properties });

/** A success body with its example (OpenAPI `examples`). */
export function reply(schema: Schema, example: unknown, description?: string): Schema {
  return { ...schema, ...(description ? { description } : {}), examples: [example] };
}

/** The exchange envelope `{success: true, data, timestamp}` around `data`, with an example of `data`. */
export function envelope(data: Schema, example: unknown, description?: string): Schema {
  return reply(obj({ success: { type: 'boolean', const: true }, data, timestamp: int('Milliseconds since the epoch, when the answer was made.') }), { success: true, data: example, timestamp: 1767225600000 }, description);
}

/**
 * A history's envelope (decision 95): `envelope`'s `{success, data, timestamp}`, and
 * `nextCursor` beside `data` when the request asked for a page (`startTime`, `endTime`
 * or `cursor`): the cursor of the next, older page, null at the end.
 */
export function pagedEnvelope(data: Schema, example: unknown, description?: string): Schema {
  return reply(
    obj({ success: { type: 'boolean', const: true }, data, nextCursor: nullable(str('Pass as `cursor` for the next (older) page; null at the end. Only on paged requests.')), timestamp: int('Milliseconds since the epoch, when the answer was made.') }, ['nextCursor']),
    { success: true, data: example, nextCursor: 'AgAAAYzDbWAAAAAAAAAAAAcAAAAAAAAAAAE', timestamp: 1767225600000 },
    description,
  );
}

/** The error responses every route can give (the envelope's error form). */
export const errorResponses = { '4xx': errorSchema, '5xx': errorSchema } as const;

/** Example values used across the routes' examples. */
export const EX = {
  address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  owner: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  sessionKey: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  hash: '0x5c0f3e1f2b8d9a4c6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d',
  signature: '0x' + 'ab'.repeat(65),
  timestampMs: 1767225600000,
} as const;
