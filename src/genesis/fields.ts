/**
 * Genesis field readers: the generic checks every section of a genesis file is read
 * through (object with known keys, array, integer, big integer, string, pattern, hex,
 * address) and the GenesisError they throw, naming the field path and the reason.
 *
 * Separate from the per-section rules (./sections.ts) because they know nothing of what
 * a genesis holds: one place words every error message the same way, with the value
 * described and a "did you mean" hint for a mistyped key.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Address, Hex } from '../util/bytes';

/** The root of every field path in an error message. */
export const ROOT = 'genesis';
export const U128_MAX = (1n << 128n) - 1n;
export const U32_MAX = 0xffff_ffff;
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export class GenesisError extends Error {
  /** Field path, e.g. `genesis.pairs[3].maxLeverage`. */
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'GenesisError';
    this.path = path;
    this.reason = reason;
  }
}

export function fail(path: string, reason: string): never {
  throw new GenesisError(path, reason);
}

/** Short, unambiguous rendering of an offending value for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': {
      const s = JSON.stringify(value);
      return s.length > 80 ? `${s.slice(0, 77)}..."` : s;
    }
    case 'bigint':
      return `${value}n`;
    case 'object':
      return 'an object';
    default:
      return String(value);
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t} (${describe(value)})`;
}

export function object(
  value: unknown,
  path: string,
  required: readonly string[],
  optional: readonly string[] = [],
): Record<string, unknown> {
  if (value === undefined) fail(path, 'required field is missing');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, `must be an object, got ${typeName(value)}`);
  }
  const record = value as Record<string, unknown>;
  const known = [...required, ...optional];
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) {
      const hint = closest(key, known);
      fail(childPath(path, key), `unknown field${hint ? ` (did you mean "${hint}"?)` : ''}; allowed: ${known.join(', ')}`);
    }
  }
  for (const key of required) {
    if (record[key] === undefined) fail(childPath(path, key), 'required field is missing');
  }
  return record;
}

export function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

export function array(value: unknown, path: string, min: number, max: number): unknown[] {
  if (value === undefined) fail(path, 'required field is missing');
  if (!Array.isArray(value)) fail(path, `must be an array, got ${typeName(value)}`);
  if (value.length < min || value.length > max) {
    fail(path, min === max ? `must have exactly ${min} entries, got ${value.length}` : `must have from ${min} to ${max} entries, got ${value.length}`);
  }
  return value;
}

export function int(value: unknown, path: string, min: number, max: number, minName?: string, maxName?: string): number {
  const lo = `${min}${minName ? ` (${minName})` : ''}`;
  const hi = `${max}${maxName ? ` (${maxName})` : ''}`;
  const range =
    min === max ? `the integer ${lo}` : max === MAX_SAFE ? `an integer of at least ${lo}` : `an integer from ${lo} to ${hi}`;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    fail(path, `must be ${range}, got ${typeName(value)}`);
  }
  if (value < min || value > max) fail(path, `must be ${range}, got ${value}`);
  return value;
}

const DECIMAL_RE = /^(0|[1-9][0-9]*)$/;

export function big(value: unknown, path: string, min: bigint, max: bigint, minName?: string, maxName?: string): bigint {
  let n: bigint;
  if (typeof value === 'bigint') {
    n = value;
  } else if (typeof value === 'string') {
    if (!DECIMAL_RE.test(value)) {
      fail(path, `must be a decimal string of an unsigned integer (digits only, no sign, exponent, point or leading zeros), got ${describe(value)}`);
    }
    n = BigInt(value);
  } else {
    fail(path, `must be a decimal string, got ${typeName(value)}`);
  }
  if (n < min || n > max) {
    const lo = `${min}${minName ? ` (${minName})` : ''}`;
    const hi = max === U128_MAX ? '2^128-1' : `${max}${maxName ? ` (${maxName})` : ''}`;
    fail(path, `must be from ${lo} to ${hi}, got ${n}`);
  }
  return n;
}

export function str(value: unknown, path: string, minLen: number, maxLen: number): string {
  if (typeof value !== 'string') fail(path, `must be a string, got ${typeName(value)}`);
  if (value.length < minLen || value.length > maxLen) {
    fail(path, `must be a string of ${minLen} to ${maxLen} characters, got ${value.length} characters`);
  }
  if (value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value)) {
    fail(path, `must not have leading or trailing whitespace or control characters, got ${describe(value)}`);
  }
  return value;
}

export function pattern(value: unknown, path: string, re: RegExp, what: string): string {
  if (typeof value !== 'string') fail(path, `must be a string of ${what}, got ${typeName(value)}`);
  if (!re.test(value)) fail(path, `must be ${what}, got ${describe(value)}`);
  return value;
}

export function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    fail(path, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`);
  }
  return value as T;
}

export function hex(value: unknown, path: string, bytes: number): Hex {
  if (typeof value !== 'string') fail(path, `must be a 0x-prefixed hex string of ${bytes} bytes, got ${typeName(value)}`);
  if (!/^0x[0-9a-fA-F]*$/.test(value)) fail(path, `must be 0x followed by hex digits, got ${describe(value)}`);
  if (value.length !== 2 + 2 * bytes) {
    fail(path, `must be ${bytes} bytes (0x + ${2 * bytes} hex digits), got ${value.length - 2} hex digits`);
  }
  return value.toLowerCase() as Hex;
}

/**
 * 0x + 40 hex digits, returned lower-case. All-lower or all-upper hex is accepted as is;
 * mixed case must be a valid EIP-55 checksum (a mistyped checksummed address is caught).
 */
export function address(value: unknown, path: string): Address {
  if (typeof value !== 'string') fail(path, `must be an address (0x + 40 hex digits), got ${typeName(value)}`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) fail(path, `must be an address (0x + 40 hex digits), got ${describe(value)}`);
  const body = value.slice(2);
  const lower = body.toLowerCase();
  if (body !== lower && body !== body.toUpperCase() && checksum(lower) !== body) {
    fail(path, `has mixed case but is not a valid EIP-55 checksum address, got ${describe(value)}`);
  }
  return `0x${lower}` as Address;
}

function checksum(lowerHex40: string): string {
  const hash = keccak_256(new TextEncoder().encode(lowerHex40));
  let out = '';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? lowerHex40[i].toUpperCase() : lowerHex40[i];
  }
  return out;
}

/** Tracks values that must be unique within an array; reports the later duplicate. */
export class Unique {
  private readonly seen = new Map<string, number>();
  constructor(
    private readonly arrayPath: string,
    private readonly field: string,
  ) {}
  add(value: string | number, index: number): void {
    const key = String(value);
    const first = this.seen.get(key);
    const at = `${this.arrayPath}[${index}]${this.field ? `.${this.field}` : ''}`;
    if (first !== undefined) fail(at, `duplicate ${this.field || 'value'} ${describe(value)}, already used by ${this.arrayPath}[${first}]`);
    this.seen.set(key, index);
  }
}

/** The known key within edit distance 2 of `key`, if any (for "did you mean"). */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
