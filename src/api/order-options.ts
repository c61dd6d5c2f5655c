/**
 * The order actions' options on the JSON wire (issue 24, decision 87): `cloid` ("0x" + 32
 * lower-case hex), `tif` ("Gtc", "Ioc", "Alo"), `reduceOnly` (boolean), `expiresAfter`
 * (integer block time in ms, a JSON number or a decimal string), all optional. The JSON
 * schema only bounds their type and length; parseOrderOptions answers 400
 * INVALID_OPTIONS naming the field, before any signature is looked at. Which options an
 * action takes is its operation's shape rule (src/state/ops/rest-orders.ts).
 */
import { CLOID_RE, TIME_IN_FORCE, type ActionOptions, type TimeInForce } from '../codec/txs/options';
import type { Hex } from '../util/bytes';
import { ApiError } from './envelope';

export interface OptionFields {
  cloid?: string;
  tif?: string;
  reduceOnly?: boolean;
  expiresAfter?: number | string;
}

export const cloidSchema = { type: 'string', maxLength: 80, description: 'Client order id: "0x" and 32 lower-case hex digits (16 bytes).' } as const;
const tifSchema = { type: 'string', maxLength: 10, description: 'Time in force: Gtc (default), Ioc, Alo (post-only).' } as const;
const reduceOnlySchema = { type: 'boolean', description: 'Only ever reduces the trader\u2019s position.' } as const;
const expiresAfterSchema = {
  anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 30 }],
  description: 'Block time (ms) after which the action is refused 422 ACTION_EXPIRED.',
} as const;

/** JSON schema properties of placement options. */
export const placeOptionProps = { cloid: cloidSchema, tif: tifSchema, reduceOnly: reduceOnlySchema, expiresAfter: expiresAfterSchema } as const;
/** Of a batch item (its expiry is the batch's). */
export const itemOptionProps = { cloid: cloidSchema, tif: tifSchema, reduceOnly: reduceOnlySchema } as const;
/** Of every other order action. */
export const actionOptionProps = { expiresAfter: expiresAfterSchema } as const;

const MAX_U64 = (1n << 64n) - 1n;
const bad = (field: string, why: string) => new ApiError(400, 'INVALID_OPTIONS', `${field}: ${why}`);

/** ActionOptions from the wire fields, or undefined when none is present (400 INVALID_OPTIONS naming a bad one). */
export function parseOrderOptions(f: OptionFields, prefix = ''): ActionOptions | undefined {
  const o: ActionOptions = {};
  if (f.cloid !== undefined) {
    if (!CLOID_RE.test(f.cloid)) throw bad(`${prefix}cloid`, 'must be "0x" and 32 lower-case hex digits');
    o.cloid = f.cloid as Hex;
  }
  if (f.tif !== undefined) {
    if (!TIME_IN_FORCE.includes(f.tif as TimeInForce)) throw bad(`${prefix}tif`, `must be one of ${TIME_IN_FORCE.join(', ')}`);
    o.tif = f.tif as TimeInForce;
  }
  if (f.reduceOnly !== undefined) {
    if (typeof f.reduceOnly !== 'boolean') throw bad(`${prefix}reduceOnly`, 'must be a boolean');
    if (f.reduceOnly) o.reduceOnly = true;
  }
  if (f.expiresAfter !== undefined) {
    const v = f.expiresAfter;
    const ok = typeof v === 'number' ? Number.isSafeInteger(v) && v > 0 : /^[1-9][0-9]{0,19}$/.test(v);
    if (!ok || BigInt(v) > MAX_U64) throw bad(`${prefix}expiresAfter`, 'must be a positive integer of milliseconds');
    o.expiresAfter = BigInt(v);
  }
  return Object.keys(o).length === 0 ? undefined : o;
}

/** The option fields of a result, as the trader sent them (absent when absent). */
export function optionEcho(o: ActionOptions | undefined): { cloid?: string; tif?: string; reduceOnly?: boolean } {
  if (!o) return {};
  return { ...(o.cloid !== undefined ? { cloid: o.cloid } : {}), ...(o.tif !== undefined ? { tif: o.tif } : {}), ...(o.reduceOnly ? { reduceOnly: true } : {}) };
}
