/**
 * The JSON form of an owner governance operation (decision 80): what `npm run node -- gov
 * propose --op JSON` reads and what `gov list` prints, with the field names and
 * encodings GET /v1/governance/operations shows (`{"kind": NAME, ...fields}`), so an
 * operation listed by a node can be proposed again as it is printed.
 *
 * Strict: an unknown kind, an unknown or missing field, or a value of the wrong form is
 * refused with a message naming it. Big integers are decimal strings (JSON numbers lose
 * precision past 2^53); addresses and keys are 0x hex, read in any case, written in lower
 * case. What the values mean (bond bounds, a name's characters, an address the key derives
 * to) is the node's to check (operationShape in src/state/governance/operations.ts, 400
 * INVALID_OPERATION): this is only the form.
 *
 * One table entry per kind (KINDS): its JSON field names, the operation's member each
 * maps to, and that member's form. Adding a kind to GovOpKind makes the table incomplete,
 * so the typecheck points here.
 */
import { PAIR_MARKET_PERP, PAIR_MARKET_SPOT } from '../../genesis/types';
import { isHex, type Address, type Hex } from '../../util/bytes';
import { GOV_OP_NAMES, GOV_PARAM_NAMES, GovOpKind, type AddedPair, type GovOperation, type GovParam } from './governance';

export class GovJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GovJsonError';
  }
}

/** A member's JSON form: `from` checks and converts (throwing with `where` in the message), `to` writes. */
interface FieldForm<T> {
  from(v: unknown, where: string): T;
  to(v: T): unknown;
}

const fail = (where: string, reason: string): never => {
  throw new GovJsonError(`${where}: ${reason}`);
};

/** A non-negative integer as a decimal string (no sign, no leading zeros but 0 itself). */
const decimal: FieldForm<bigint> = {
  from: (v, where) => (typeof v === 'string' && /^(0|[1-9][0-9]{0,77})$/.test(v) ? BigInt(v) : fail(where, `must be a decimal string of a non-negative integer, got ${show(v)}`)),
  to: (v) => String(v),
};

const text: FieldForm<string> = {
  from: (v, where) => (typeof v === 'string' ? v : fail(where, `must be a string, got ${show(v)}`)),
  to: (v) => v,
};

const address: FieldForm<Address> = {
  from: (v, where) => (typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) ? (v.toLowerCase() as Address) : fail(where, `must be 0x and 40 hex digits, got ${show(v)}`)),
  to: (v) => v,
};

/** Bytes as hex, with or without 0x (init prints public keys without it, as the contract writes them); written with 0x. */
const bytes = (n: number): FieldForm<Hex> => ({
  from: (v, where) => {
    const hex = typeof v === 'string' && !v.startsWith('0x') ? `0x${v}` : v;
    return isHex(hex, n) ? ((hex as string).toLowerCase() as Hex) : fail(where, `must be ${2 * n} hex digits (0x optional), got ${show(v)}`);
  },
  to: (v) => v.toLowerCase(),
});

/** A secp256k1 signature, 64 or 65 bytes, as hex (0x optional); written with 0x. */
const signature: FieldForm<Hex> = {
  from: (v, where) => {
    const hex = typeof v === 'string' && !v.startsWith('0x') ? `0x${v}` : v;
    return isHex(hex, 64) || isHex(hex, 65) ? ((hex as string).toLowerCase() as Hex) : fail(where, `must be 128 or 130 hex digits (0x optional), got ${show(v)}`);
  },
  to: (v) => v.toLowerCase(),
};

/** A non-negative safe integer as a JSON number (heights), as the route shows it. */
const integer: FieldForm<number> = {
  from: (v, where) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fail(where, `must be a non-negative integer, got ${show(v)}`)),
  to: (v) => v,
};

/** A SetParam parameter by its name (GOV_PARAM_NAMES: `fees.makerFeeBps`, …). */
const param: FieldForm<GovParam> = {
  from(v, where) {
    const hit = Object.entries(GOV_PARAM_NAMES).find(([, name]) => name === v);
    return hit ? (Number(hit[0]) as GovParam) : fail(where, `unknown parameter ${show(v)} (known: ${Object.values(GOV_PARAM_NAMES).join(', ')})`);
  },
  to: (v) => GOV_PARAM_NAMES[v],
};

/** The owners of a SetOwners: a JSON array of exactly three addresses. */
const owners: FieldForm<[Address, Address, Address]> = {
  from: (v, where) =>
    Array.isArray(v) && v.length === 3 ? (v.map((a, i) => address.from(a, `${where}[${i}]`)) as [Address, Address, Address]) : fail(where, `must be an array of three addresses, got ${show(v)}`),
  to: (v) => [...v],
};

const PAIR_FIELDS = ['id', 'symbol', 'tickSize', 'lotSize', 'minSize', 'maxLeverage', 'maintenanceMarginBps', 'openInterestCapBps', 'initialPrice', 'markets', 'oracleSource'] as const;

/** A pair's markets bit by name, in the order they are written. */
const MARKET_BITS: readonly [string, number][] = [
  ['spot', PAIR_MARKET_SPOT],
  ['perp', PAIR_MARKET_PERP],
];

/**
 * A pair's markets (the codec's bitmask) as a JSON array of distinct names, `spot` and/or
 * `perp`, written spot first. An empty array reads as 0, which the node refuses (400
 * INVALID_OPERATION `operation.pair.markets`), as it refuses any bit outside the two.
 */
const markets: FieldForm<number> = {
  from(v, where) {
    if (!Array.isArray(v)) return fail(where, `must be an array of "spot" and/or "perp", got ${show(v)}`);
    let bits = 0;
    v.forEach((name, i) => {
      const bit = MARKET_BITS.find(([n]) => n === name)?.[1];
      if (bit === undefined) fail(`${where}[${i}]`, `must be "spot" or "perp", got ${show(name)}`);
      else if ((bits & bit) !== 0) fail(`${where}[${i}]`, `${show(name)} is listed twice`);
      else bits |= bit;
    });
    return bits;
  },
  // Only a proposal the node took is listed, and it took none with a bit outside the two.
  to: (v) => MARKET_BITS.filter(([, bit]) => (v & bit) !== 0).map(([n]) => n),
};

/** An AddPair's pair (decision 76): the genesis `pairs` fields, big integers as decimal strings, and its markets and oracle source. */
const pair: FieldForm<AddedPair> = {
  from(v, where) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(where, `must be a JSON object, got ${show(v)}`);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!(PAIR_FIELDS as readonly string[]).includes(k)) fail(`${where}.${k}`, `unknown field of a pair (its fields: ${PAIR_FIELDS.join(', ')})`);
    for (const k of PAIR_FIELDS) if (o[k] === undefined) fail(`${where}.${k}`, 'required field of a pair is missing');
    return {
      id: integer.from(o.id, `${where}.id`),
      symbol: text.from(o.symbol, `${where}.symbol`),
      tickSize: decimal.from(o.tickSize, `${where}.tickSize`),
      lotSize: decimal.from(o.lotSize, `${where}.lotSize`),
      minSize: decimal.from(o.minSize, `${where}.minSize`),
      maxLeverage: integer.from(o.maxLeverage, `${where}.maxLeverage`),
      maintenanceMarginBps: integer.from(o.maintenanceMarginBps, `${where}.maintenanceMarginBps`),
      openInterestCapBps: integer.from(o.openInterestCapBps, `${where}.openInterestCapBps`),
      initialPrice: decimal.from(o.initialPrice, `${where}.initialPrice`),
      markets: markets.from(o.markets, `${where}.markets`),
      oracleSource: text.from(o.oracleSource, `${where}.oracleSource`),
    };
  },
  to: (p) => ({
    id: p.id,
    symbol: p.symbol,
    tickSize: String(p.tickSize),
    lotSize: String(p.lotSize),
    minSize: String(p.minSize),
    maxLeverage: p.maxLeverage,
    maintenanceMarginBps: p.maintenanceMarginBps,
    openInterestCapBps: p.openInterestCapBps,
    initialPrice: String(p.initialPrice),
    markets: markets.to(p.markets),
    oracleSource: p.oracleSource,
  }),
};

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

type OpOf<K extends GovOpKind> = Extract<GovOperation, { kind: K }>;
/** JSON field name → the operation member it maps to and that member's form. */
type KindFields<K extends GovOpKind> = Record<string, { [M in Exclude<keyof OpOf<K>, 'kind'>]: { member: M; form: FieldForm<OpOf<K>[M]> } }[Exclude<keyof OpOf<K>, 'kind'>]>;

const f = <T, M extends string>(member: M, form: FieldForm<T>) => ({ member, form });

/** Every kind's JSON fields, in the order they are written (the route's order). */
const KINDS: { [K in GovOpKind]: KindFields<K> } = {
  [GovOpKind.SetParam]: { param: f('param', param), value: f('value', decimal) },
  [GovOpKind.Halt]: {},
  [GovOpKind.Resume]: {},
  [GovOpKind.AdminSeedValidator]: {
    validator: f('validator', address),
    name: f('name', text),
    endpoint: f('endpoint', text),
    ecdsaPubkey: f('ecdsaPubkey', bytes(33)),
    vrfPubkey: f('vrfPubkey', bytes(32)),
    // Wei, as the route shows it (the whole-token rule is the node's check).
    bond: f('bondWei', decimal),
    funder: f('funder', address),
    // The validator's consent (decision 160): `npm run node -- validator seed-sign` prints it.
    candidateSignature: f('candidateSignature', signature),
  },
  [GovOpKind.AddPair]: { pair: f('pair', pair) },
  [GovOpKind.SetOwners]: { owners: f('owners', owners) },
  [GovOpKind.SoftwareUpgrade]: { version: f('version', text), height: f('height', integer) },
  [GovOpKind.SetOperator]: { operator: f('operator', address) },
};

const kindByName = new Map<string, GovOpKind>(Object.entries(GOV_OP_NAMES).map(([k, name]) => [name, Number(k) as GovOpKind]));

/** The names of the kinds this form knows, for messages and help. */
export const GOV_JSON_KINDS: readonly string[] = [...kindByName.keys()];

/** The JSON fields of a kind, by kind name (help text); undefined for an unknown kind. */
export function jsonFieldsOf(kindName: string): string[] | undefined {
  const kind = kindByName.get(kindName);
  return kind === undefined ? undefined : Object.keys(KINDS[kind]);
}

/** Reads the JSON form (a parsed value) of an operation; a GovJsonError names what is wrong. */
export function operationFromJson(json: unknown): GovOperation {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('operation', `must be a JSON object, got ${show(json)}`);
  const o = json as Record<string, unknown>;
  if (typeof o.kind !== 'string') fail('kind', `required, one of ${GOV_JSON_KINDS.join(', ')}`);
  const kind = kindByName.get(o.kind as string);
  if (kind === undefined) return fail('kind', `unknown operation kind ${show(o.kind)} (known: ${GOV_JSON_KINDS.join(', ')})`);
  const fields = KINDS[kind] as Record<string, { member: string; form: FieldForm<unknown> }>;
  for (const k of Object.keys(o)) {
    if (k !== 'kind' && !(k in fields)) fail(k, `unknown field of ${o.kind} (its fields: ${Object.keys(fields).join(', ') || 'none'})`);
  }
  const op: Record<string, unknown> = { kind };
  for (const [name, { member, form }] of Object.entries(fields)) {
    if (o[name] === undefined) fail(name, `required field of ${o.kind} is missing`);
    op[member] = form.from(o[name], name);
  }
  return op as unknown as GovOperation;
}

/** Parses JSON text and reads it as an operation. */
export function operationFromJsonText(text: string): GovOperation {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GovJsonError(`operation: invalid JSON: ${(err as Error).message}`);
  }
  return operationFromJson(json);
}

/** The JSON form of an operation: `{"kind": NAME, ...fields}`. */
export function operationToJson(op: GovOperation): Record<string, unknown> {
  const fields = KINDS[op.kind] as Record<string, { member: string; form: FieldForm<unknown> }>;
  const out: Record<string, unknown> = { kind: GOV_OP_NAMES[op.kind] };
  for (const [name, { member, form }] of Object.entries(fields)) out[name] = form.to((op as unknown as Record<string, unknown>)[member]);
  return out;
}
