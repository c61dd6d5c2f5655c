/** Minimal strict flag parsing: `--name value`, `--name=value`, `--flag`; unknown flags are errors. */
export type FlagSpec = Record<string, { type: 'string' | 'int' | 'bool'; default?: string | number | boolean; help: string }>;

export function parseFlags<S extends FlagSpec>(argv: string[], spec: S): Record<keyof S, any> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) if (v.default !== undefined) out[k] = v.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [rawName, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const negated = rawName.startsWith('no-') && spec[rawName.slice(3)]?.type === 'bool';
    const name = negated ? rawName.slice(3) : rawName;
    const s = spec[name];
    if (!s) throw new Error(`unknown flag --${rawName} (known: ${Object.keys(spec).map((k) => `--${k}`).join(', ')})`);
    if (s.type === 'bool') {
      out[name] = !negated;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    if (s.type === 'int') {
      if (!/^[0-9]+$/.test(value)) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
      out[name] = Number(value);
    } else out[name] = value;
  }
  return out as Record<keyof S, any>;
}

export function usage(spec: FlagSpec): string {
  return Object.entries(spec)
    .map(([k, v]) => `  --${k.padEnd(18)} ${v.help}${v.default !== undefined ? ` (default ${v.default})` : ''}`)
    .join('\n');
}
