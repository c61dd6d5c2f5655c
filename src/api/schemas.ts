/**
 * Small builders for the routes' response schemas (src/api/openapi.ts documents them;
 * they never reshape a reply). Objects are closed (`additionalProperties: false`) and
 * every listed property required unless named optional, so the reply checks run by the
 * tests (EXCHANGE_API_CHECK_RESPONSES) catch a field the documentation misses.
 */
import { errorSchema } from './envelope';

type Schema = Record<string, unknown>;
/** A scalar schema as the builders below make it: its literal `type` kept for the types inferred from it (decision 147). */
type Scalar<T extends string, Extra = unknown> = { readonly type: T; readonly description?: string } & Extra;

const described = (description?: string) => (description ? { description } : {});

export const str = (description?: string): Scalar<'string'> => ({ type: 'string', ...described(description) });
export const int = (description?: string): Scalar<'integer'> => ({ type: 'integer', ...described(description) });
export const num = (description?: string): Scalar<'number'> => ({ type: 'number', ...described(description) });
export const bool = (description?: string): Scalar<'boolean'> => ({ type: 'boolean', ...described(description) });
export const hex = (description?: string): Scalar<'string', { readonly pattern: string }> => ({ type: 'string', pattern: '^0x[0-9a-fA-F]*$', ...described(description) });
export const addr = (description?: string): Scalar<'string', { readonly pattern: string }> => ({ type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', ...described(description) });
/** A decimal string (USDC with 6 decimals, sizes with 18, or integer base units). */
export const dec = (description?: string): Scalar<'string', { readonly pattern: string }> => ({ type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$', ...described(description) });

/** `schema` or null: its `type` widened to `[type, "null"]`, or `anyOf` with null for a `$ref` or a schema without `type`. */
type Nullable<S extends Schema> = S extends { readonly type: infer T extends string } ? { readonly [K in keyof S]: K extends 'type' ? readonly [T, 'null'] : S[K] } : { readonly anyOf: readonly [S, { readonly type: 'null' }] };

/** `schema` or null. */
export function nullable<const S extends Schema>(schema: S): Nullable<S> {
  if ('$ref' in schema || !('type' in schema)) return { anyOf: [schema, { type: 'null' }] } as unknown as Nullable<S>;
  return { ...schema, type: [schema.type as string, 'null'] } as unknown as Nullable<S>;
}

export const arr = <const I extends Schema>(items: I, description?: string): { readonly type: 'array'; readonly items: I; readonly description?: string } => ({ type: 'array', items, ...described(description) });

/** A closed object schema: `required` names every property but the optional ones. */
export type ClosedObject<P extends Record<string, Schema>, O extends string = never> = {
  readonly type: 'object';
  readonly additionalProperties: false;
  readonly required: readonly Exclude<keyof P & string, O>[];
  readonly properties: P;
};

/** A closed object: every property required except those in `optional`. */
export function obj<const P extends Record<string, Schema>, const O extends keyof P & string = never>(properties: P, optional: readonly O[] = []): ClosedObject<P, O> {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k)) as Exclude<keyof P & string, O>[], properties };
}

/** An object whose keys are open-ended (counters, maps keyed by name): documented, not enumerated. */
export const openObj = <const P extends Record<string, Schema> = {}>(description: string, properties: P = {} as P): { readonly type: 'object'; readonly additionalProperties: true; readonly description: string; readonly properties: P } => ({ type: 'object', additionalProperties: true, description, properties });

type WithExample<S> = S & { readonly examples: readonly unknown[]; readonly description?: string };

/** A success body with its example (OpenAPI `examples`). */
export function reply<const S extends Schema>(schema: S, example: unknown, description?: string): WithExample<S> {
  return { ...schema, ...described(description), examples: [example] };
}

const success = { type: 'boolean', const: true } as const;
const timestamp = int('Milliseconds since the epoch, when the answer was made.');

/** The exchange envelope `{success: true, data, timestamp}` around `data`, with an example of `data`. */
export function envelope<const D extends Schema>(data: D, example: unknown, description?: string) {
  return reply(obj({ success, data, timestamp }), { success: true, data: example, timestamp: 1767225600000 }, description);
}

/**
 * A history's envelope (decision 95): `envelope`'s `{success, data, timestamp}`, and
 * `nextCursor` beside `data` when the request asked for a page (`startTime`, `endTime`
 * or `cursor`): the cursor of the next, older page, null at the end.
 */
export function pagedEnvelope<const D extends Schema>(data: D, example: unknown, description?: string) {
  return reply(
    obj({ success, data, nextCursor: nullable(str('Pass as `cursor` for the next (older) page; null at the end. Only on paged requests.')), timestamp }, ['nextCursor']),
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
