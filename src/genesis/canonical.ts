/**
 * Canonical JSON: the one byte representation of a value that the genesis hash covers.
 *
 * - object keys sorted recursively by UTF-16 code unit order (JavaScript's default sort),
 *   properties whose value is `undefined` omitted;
 * - bigints written as JSON strings of their decimal digits (`10n` → `"10"`);
 * - numbers must be finite and are written as JSON.stringify writes them;
 * - strings escaped as JSON.stringify escapes them;
 * - no whitespace anywhere.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, '$');
}

function encode(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${path} is not a finite number`);
      return JSON.stringify(value);
    case 'bigint':
      return `"${value.toString(10)}"`;
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value
          .map((item, i) => {
            if (item === undefined) throw new TypeError(`canonicalJson: ${path}[${i}] is undefined`);
            return encode(item, `${path}[${i}]`);
          })
          .join(',')}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError(`canonicalJson: ${path} is not a plain object`);
      }
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const v = record[key];
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(key)}:${encode(v, `${path}.${key}`)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`canonicalJson: ${path} has unsupported type ${typeof value}`);
  }
}
