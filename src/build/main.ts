/**
 * `npm run build -- [--out FILE] [--version X]`: the node as one file (binary.ts). Prints
 * one JSON line: {"file","version","sha256","bytes"}. `npm run build` reaches it through
 * src/build/run.mjs (no TypeScript loader needed, decision 104), which calls
 * buildCommand; run as a process of its own (`node --import tsx src/build/main.ts`, tests), it
 * prints the line itself.
 */
import { pathToFileURL } from 'node:url';
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { buildBinary, type BuiltBinary } from './binary';

const FLAGS = {
  out: { type: 'string', help: 'where to write the file (default dist/exchange-node.mjs)' },
  version: { type: 'string', help: "the version baked in (default: package.json's)" },
} satisfies FlagSpec;

/** Builds as the flags say; undefined when it only printed the usage (--help). */
export async function buildCommand(argv: string[]): Promise<BuiltBinary | undefined> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run build -- [flags]\n${usage(FLAGS)}\n`);
    return undefined;
  }
  const f = parseFlags(argv, FLAGS);
  return buildBinary({ outFile: f.out, version: f.version });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildCommand(process.argv.slice(2)).then(
    (built) => built && process.stdout.write(`${JSON.stringify(built)}\n`),
    (err: unknown) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
