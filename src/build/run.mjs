/**
 * The build's entry, in plain JavaScript so that building needs no TypeScript loader
 * (decision 104): `npm run build` is `node src/build/run.mjs [--out FILE] [--version X]`,
 * and the production scripts (`npm start`, `npm run node`, …) first run
 * `node src/build/run.mjs --if-stale`, which builds only when dist/exchange-node.mjs is
 * missing or any input it was built from changed.
 *
 * esbuild loads the TypeScript: it bundles the build tool (src/build/main.ts and what it
 * imports, packages left as imports) into dist/.build/build-tool.<pid>.mjs and this file
 * imports it. That file sits two folders below the repository, as src/build/binary.ts
 * does, so binary.ts's REPO_ROOT (import.meta.url's ../..) is the repository there too.
 *
 * Staleness: binary.ts writes <out>.inputs.json beside the file (the version baked in,
 * the file's sha256, and the sha256 of every input: each source and package file esbuild
 * read, the embedded addons and genesis files, package.json, package-lock.json,
 * tsconfig.json and the build's own code). The file is fresh when it, and every input,
 * hash as recorded and the version is package.json's. An input of the same size and
 * modification time as recorded counts as unchanged without being read (as git's index
 * does); any other is hashed, so a touched but unchanged file does not rebuild.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_OUT = join(REPO_ROOT, 'dist', 'exchange-node.mjs');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Why the build at `out` (of `version`, default package.json's) must be made again, or undefined when it is fresh. */
export function staleReason(out, version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version) {
  const stampFile = `${out}.inputs.json`;
  if (!existsSync(out)) return `${out} is missing`;
  if (!existsSync(stampFile)) return `${stampFile} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return `${stampFile} is unreadable`;
  }
  if (stamp.version !== version) return `it was built as version ${stamp.version}, not ${version}`;
  const built = statSync(out);
  const same = (stat, recorded) => stat.size === recorded.bytes && stat.mtimeMs === recorded.mtimeMs;
  if (!same(built, stamp) && sha256(readFileSync(out)) !== stamp.sha256) return `${out} is not the file that was built`;
  // Same size and time: unchanged, as git's index judges (hashing all ~1,800 inputs and the
  // 10 MB file would cost ~0.2 s of CPU on each start).
  for (const [path, recorded] of Object.entries(stamp.inputs ?? {})) {
    const file = join(REPO_ROOT, path);
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return `${path} is gone`;
    }
    if (same(stat, recorded)) continue;
    if (sha256(readFileSync(file)) !== recorded.sha256) return `${path} changed`;
  }
  return undefined;
}

/** The build tool (src/build/main.ts), bundled by esbuild and imported. */
async function runBuildTool(argv) {
  const { build } = await import('esbuild');
  // Two folders deep, as binary.ts (see above).
  const tool = join(REPO_ROOT, 'dist', '.build', 'build-tool.mjs');
  const result = await build({
    absWorkingDir: REPO_ROOT,
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    entryPoints: [join(REPO_ROOT, 'src', 'build', 'main.ts')],
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node22',
    format: 'esm',
    write: false,
    outfile: tool,
    logLevel: 'silent',
  });
  mkdirSync(dirname(tool), { recursive: true });
  // One file per process: builds started at once (two `npm start`s) do not share it.
  const file = tool.replace(/\.mjs$/, `.${process.pid}.mjs`);
  writeFileSync(file, result.outputFiles[0].contents);
  try {
    const { buildCommand } = await import(pathToFileURL(file).href);
    return await buildCommand(argv);
  } finally {
    rmSync(file, { force: true });
  }
}

/** The value of `--name V` or `--name=V` in argv (the build tool parses the same flags). */
function flag(argv, name) {
  const at = argv.indexOf(`--${name}`);
  if (at >= 0) return argv[at + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function main() {
  const argv = process.argv.slice(2);
  if (!argv.includes('--if-stale')) {
    const built = await runBuildTool(argv);
    if (built) process.stdout.write(`${JSON.stringify(built)}\n`);
    return;
  }
  const rest = argv.filter((a) => a !== '--if-stale');
  const out = resolve(flag(rest, 'out') ?? DEFAULT_OUT);
  const version = flag(rest, 'version');
  const reason = version === undefined ? staleReason(out) : staleReason(out, version);
  if (reason === undefined) return;
  process.stderr.write(`building ${out} (${reason})…\n`);
  const t0 = performance.now();
  const built = await runBuildTool(rest);
  // stdout belongs to the command that follows (`npm start`'s READY line): the build speaks on stderr.
  process.stderr.write(`built ${built.file} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${built.bytes} bytes, sha256 ${built.sha256})\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
