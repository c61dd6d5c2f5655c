/**
 * `npm run build -- [--out FILE] [--version X]`: the node as one file (binary.ts). Prints
 * one JSON line: {"file","version","sha256","bytes"}.
 */
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { buildBinary } from './binary';

const FLAGS = {
  out: { type: 'string', help: 'where to write the file (default dist/exchange-node.mjs)' },
  version: { type: 'string', help: "the version baked in (default: package.json's)" },
} satisfies FlagSpec;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run build -- [flags]\n${usage(FLAGS)}\n`);
    return;
  }
  const f = parseFlags(argv, FLAGS);
  const built = await buildBinary({ outFile: f.out, version: f.version });
  process.stdout.write(`${JSON.stringify(built)}\n`);
}

main().catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
