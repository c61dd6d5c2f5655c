/**
 * `npm run machines -- --format json|scxml|mermaid|svg|all --out DIR`: writes every
 * machine of machines/index.ts in the format (one file per machine per format,
 * `<name>.json|.scxml|.mmd|.svg`) and DIR/index.json listing the machines and their
 * files (issue 23 item 1, docs/audit.md). Several formats: `--format json,svg`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXPORT_FORMATS, exportAll, type ExportFormat } from '../audit/export';
import { parseFlags, usage, type FlagSpec } from './args';

const FLAGS = {
  format: { type: 'string', default: 'all', help: `${EXPORT_FORMATS.join('|')}|all, or a comma-separated list` },
  out: { type: 'string', help: 'folder to write into (created if missing)' },
  help: { type: 'bool', default: false, help: 'print this help' },
} satisfies FlagSpec;

function parseFormats(text: string): ExportFormat[] {
  if (text === 'all') return [...EXPORT_FORMATS];
  const formats = text.split(',').map((f) => f.trim());
  for (const f of formats) if (!(EXPORT_FORMATS as readonly string[]).includes(f)) throw new Error(`unknown format ${f} (known: ${EXPORT_FORMATS.join(', ')}, all)`);
  return [...new Set(formats)] as ExportFormat[];
}

export async function machinesCommand(argv: string[]): Promise<string[]> {
  const flags = parseFlags(argv, FLAGS);
  if (flags.help) {
    process.stdout.write(`usage: npm run machines -- --format FORMAT --out DIR\n${usage(FLAGS)}\n`);
    return [];
  }
  if (typeof flags.out !== 'string' || flags.out === '') throw new Error('--out DIR is required');
  const dir = resolve(flags.out);
  const { files, index } = await exportAll(parseFormats(flags.format));
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, text] of files) {
    writeFileSync(join(dir, name), text);
    written.push(name);
  }
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  written.push('index.json');
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  machinesCommand(process.argv.slice(2)).then(
    (written) => {
      if (written.length > 0) process.stdout.write(`wrote ${written.length} files: ${written.join(', ')}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`machines: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
