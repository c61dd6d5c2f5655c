/**
 * The node as one JavaScript file (`npm run build`, decision 77): src/cli/main.ts and
 * everything it imports bundled by esbuild into a single ES module, runnable as
 * `node exchange-node.mjs <the commands of npm run node -- …>` with Node 22 and nothing
 * beside it (no node_modules).
 *
 * Native addons: src/util/native-addons.ts is replaced by src/build/embedded-addons.ts,
 * and classic-level's binding by a call to it; the prebuilt .node binaries node-gyp-build
 * picks on this machine are embedded (base64, with their sha256) and written to a cache
 * folder at first start. The build is therefore for this machine's platform and arch.
 * The repository's genesis files (devnet, testnet) are carried too, so `init` and
 * `start --home` find their networks by name (src/genesis/repo-files.ts). The state
 * snapshot writer's worker thread (src/storage/snapshot-worker.ts, decision 137) is
 * bundled on its own as a CommonJS script and carried as text, which the worker evaluates.
 *
 * Deterministic: the same source and node_modules give the same bytes (no time stamp,
 * paths relative to the repository, embedded addons in a fixed order), so the sha256 the
 * onboarding service publishes for the file is stable. The version baked in is
 * package.json's unless `version` is given; either must be a semantic version.
 *
 * Beside the file, <file>.inputs.json records what it was built from (decision 104): the
 * version, the file's sha256 and the sha256 (with size and time) of every input (each file esbuild read, the
 * embedded addons and genesis files, package.json, package-lock.json, tsconfig.json and
 * the build's own code). src/build/run.mjs --if-stale, which the production npm scripts
 * run first, builds again when any of them differs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { isVersion } from '../state/governance/upgrade';

/** The repository's root (this file is src/build/binary.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_BINARY = join(REPO_ROOT, 'dist', 'exchange-node.mjs');

/** The addons embedded, in this order (the bundle's bytes depend on it). */
const ADDONS = ['classic-level', 'secp256k1', 'keccak', 'sodium-native'] as const;

export interface BuildOptions {
  /** Where the file is written (default dist/exchange-node.mjs). */
  outFile?: string;
  /** The version baked in (default: package.json's). */
  version?: string;
}

/** Files beside the sources esbuild reads that decide the bundle's bytes too. */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'src/build/binary.ts', 'src/build/run.mjs', 'genesis/devnet.json', 'genesis/testnet.json'];

/** What <file>.inputs.json holds. */
export interface BuildStamp {
  version: string;
  sha256: string;
  /** The file's size and modification time when written. */
  bytes: number;
  mtimeMs: number;
  /** Repository-relative path → its sha256, size and modification time when built, sorted by path. */
  inputs: Record<string, { sha256: string; bytes: number; mtimeMs: number }>;
}

export const stampFile = (outFile: string): string => `${outFile}.inputs.json`;

export interface BuiltBinary {
  file: string;
  version: string;
  /** sha256 of the file, hex. */
  sha256: string;
  bytes: number;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The prebuilt addon node-gyp-build loads for package `name` on this machine. */
export function addonFile(name: string): { path: string; file: string; sha256: string; bytes: Buffer } {
  const require = createRequire(join(REPO_ROOT, 'package.json'));
  const path = require('node-gyp-build').path(dirname(require.resolve(`${name}/package.json`))) as string;
  const bytes = readFileSync(path);
  return { path, file: `${name}-${basename(path)}`, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
}

/** The source of module `exchange-build:addons`: this platform's addons, embedded. */
export function embeddedAddonsModule(): string {
  const lines = ADDONS.map((name) => {
    const a = addonFile(name);
    return `  ${JSON.stringify(name)}: { file: ${JSON.stringify(a.file)}, sha256: ${JSON.stringify(a.sha256)}, base64: ${JSON.stringify(a.bytes.toString('base64'))} },`;
  });
  return `export const platform = ${JSON.stringify(`${process.platform}-${process.arch}`)};\nexport const addons = {\n${lines.join('\n')}\n};\n`;
}

/** The source of module `exchange-build:genesis`: the repository's genesis files' text. */
function embeddedGenesisModule(): string {
  const text = (network: string) => JSON.stringify(readFileSync(join(REPO_ROOT, 'genesis', `${network}.json`), 'utf8'));
  return `export const genesis = { devnet: ${text('devnet')}, testnet: ${text('testnet')} };\n`;
}

/** Modules of the source tree the build replaces: what reads files beside the source reads what the bundle carries. */
const SUBSTITUTES: Record<string, string> = {
  [join(REPO_ROOT, 'src', 'util', 'native-addons.ts')]: join(REPO_ROOT, 'src', 'build', 'embedded-addons.ts'),
  [join(REPO_ROOT, 'src', 'genesis', 'repo-files.ts')]: join(REPO_ROOT, 'src', 'build', 'embedded-genesis.ts'),
  [join(REPO_ROOT, 'src', 'util', 'repo-root.ts')]: join(REPO_ROOT, 'src', 'build', 'embedded-repo-root.ts'),
  [join(REPO_ROOT, 'src', 'storage', 'snapshot-thread.ts')]: join(REPO_ROOT, 'src', 'build', 'embedded-snapshot-thread.ts'),
};

/** The state snapshot writer's worker thread (decision 137): bundled on its own, carried in the build as text. */
const SNAPSHOT_WORKER_ENTRY = join(REPO_ROOT, 'src', 'storage', 'snapshot-worker.ts');

/**
 * The source of module `exchange-build:snapshot-worker`: snapshot-worker.ts and what it
 * imports as one CommonJS script (a worker evaluates it: `new Worker(source, { eval: true })`).
 * `inputs` receives the files it was made from (the build's stamp lists them).
 */
async function embeddedSnapshotWorkerModule(inputs: string[] = []): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: REPO_ROOT,
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    entryPoints: [SNAPSHOT_WORKER_ENTRY],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    write: false,
    preserveSymlinks: true,
    legalComments: 'none',
    charset: 'utf8',
    metafile: true,
    logLevel: 'silent',
  });
  inputs.push(...Object.keys(result.metafile.inputs));
  return `export const source = ${JSON.stringify(result.outputFiles[0].text)};\n`;
}

/**
 * Rewires the native-addon loading of the source tree to the embedded addons, the
 * repository's genesis files to their embedded text, the repository's root to the
 * folder above the build's (dist/..), and the snapshot writer's worker thread to its
 * embedded bundle.
 */
function embedAddonsPlugin(workerInputs: string[]): Plugin {
  const embedded: Record<string, () => string | Promise<string>> = {
    addons: embeddedAddonsModule,
    genesis: embeddedGenesisModule,
    'snapshot-worker': () => embeddedSnapshotWorkerModule(workerInputs),
  };
  return {
    name: 'embed-native-addons',
    setup(build) {
      build.onResolve({ filter: /^exchange-build:(addons|genesis|snapshot-worker)$/ }, (args) => ({ path: args.path.slice('exchange-build:'.length), namespace: 'exchange-build' }));
      build.onLoad({ filter: /.*/, namespace: 'exchange-build' }, async (args) => ({ contents: await embedded[args.path](), loader: 'js' }));
      // The source tree's loader (node-gyp-build in each package folder) becomes the embedded one.
      build.onResolve({ filter: /(native-addons|repo-files|repo-root|snapshot-thread)$/ }, (args) => {
        const target = SUBSTITUTES[resolve(args.resolveDir, `${args.path}.ts`)];
        return target ? { path: target } : undefined;
      });
      // classic-level's binding.js is `require('node-gyp-build')(__dirname)`. It requires
      // the embedded loader through the same substitution as the source tree's imports:
      // a file reached once through this plugin and once through esbuild's own resolver
      // got its module type (and so `__toESM(…, 1)` or not in it) from whichever
      // resolution ran first, and two builds could differ (the same race as esbuild #3284).
      // elkjs (the audit view's layout, src/audit/layout.ts) is 3.4 MB of the bundle's code,
      // parsed at every start though only the first /v1/audit/machines request uses it:
      // carried as text instead and evaluated at first use (a string costs a fraction of code to load).
      build.onLoad({ filter: /[\\/]elkjs[\\/]lib[\\/]elk\.bundled\.js$/ }, (args) => ({
        contents: lazyCommonJsModule(readFileSync(args.path, 'utf8')),
        loader: 'js',
      }));
      build.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, () => ({
        contents: `module.exports = require('./src/util/native-addons').loadAddon('classic-level');`,
        loader: 'js',
        resolveDir: REPO_ROOT,
      }));
    },
  };
}

/**
 * A CommonJS module whose export is a constructor, as text evaluated at the first `new`:
 * the module's export becomes a function that builds the real module once and returns
 * `new Real(...args)` (a constructor returning an object makes `new` give that object).
 */
function lazyCommonJsModule(source: string): string {
  return [
    `const source = ${JSON.stringify(source)};`,
    'let Real;',
    'module.exports = function LazyConstructor(...args) {',
    '  if (Real === undefined) {',
    '    const m = { exports: {} };',
    "    new Function('module', 'exports', 'require', source)(m, m.exports, require);",
    '    Real = m.exports;',
    '  }',
    '  return new Real(...args);',
    '};',
    '',
  ].join('\n');
}

/**
 * CommonJS modules in the bundle call require() for Node's built-ins and may read
 * __filename and __dirname: an ES module has none of them, so the bundle defines them.
 */
const BANNER = [
  '#!/usr/bin/env node',
  "import { createRequire as __exchangeCreateRequire } from 'node:module';",
  "import { fileURLToPath as __exchangeFileURLToPath } from 'node:url';",
  "import { dirname as __exchangeDirname } from 'node:path';",
  'const require = __exchangeCreateRequire(import.meta.url);',
  'const __filename = __exchangeFileURLToPath(import.meta.url);',
  'const __dirname = __exchangeDirname(__filename);',
].join('\n');

/** Builds the single file; returns where it is, its version, sha256 and size. */
export async function buildBinary(opts: BuildOptions = {}): Promise<BuiltBinary> {
  const { build } = await import('esbuild');
  const outFile = resolve(opts.outFile ?? DEFAULT_BINARY);
  const version = opts.version ?? packageVersion();
  // Upgrades compare versions by semver (decision 77): a build names one.
  if (!isVersion(version)) throw new Error(`version ${JSON.stringify(version)} is not a semantic version (MAJOR.MINOR.PATCH[-pre][+build])`);
  const workerInputs: string[] = [];
  const result = await build({
    absWorkingDir: REPO_ROOT,
    // One tsconfig for every file, named: esbuild's own lookup of tsconfig.json per
    // directory has been order-dependent under its parallel resolution (esbuild #3284),
    // and the bytes must not depend on which import is resolved first.
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    entryPoints: [join(REPO_ROOT, 'src', 'cli', 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    write: false,
    outfile: outFile,
    // node_modules is a symlink in some checkouts: the paths in the bundle stay repository-relative.
    preserveSymlinks: true,
    legalComments: 'none',
    charset: 'utf8',
    banner: { js: BANNER },
    define: { __EXCHANGE_NODE_VERSION__: JSON.stringify(version) },
    plugins: [embedAddonsPlugin(workerInputs)],
    metafile: true,
    logLevel: 'silent',
  });
  const out = result.outputFiles.find((f) => f.path === outFile);
  if (!out) throw new Error(`esbuild wrote no ${relative(REPO_ROOT, outFile)}`);
  mkdirSync(dirname(outFile), { recursive: true });
  const tmp = `${outFile}.${process.pid}.tmp`;
  writeFileSync(tmp, out.contents, { mode: 0o755 });
  renameSync(tmp, outFile);
  const sha256 = createHash('sha256').update(out.contents).digest('hex');
  const read = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('exchange-build:'));
  const addons = ADDONS.map((name) => relative(REPO_ROOT, addonFile(name).path));
  const paths = [...new Set([...read, ...workerInputs, ...addons, ...BUILD_INPUTS])].filter((p) => existsSync(join(REPO_ROOT, p))).sort();
  const inputs = Object.fromEntries(
    paths.map((p) => {
      const file = join(REPO_ROOT, p);
      const { size, mtimeMs } = statSync(file);
      return [p, { sha256: createHash('sha256').update(readFileSync(file)).digest('hex'), bytes: size, mtimeMs }];
    }),
  );
  const stamp: BuildStamp = { version, sha256, bytes: out.contents.byteLength, mtimeMs: statSync(outFile).mtimeMs, inputs };
  writeFileSync(`${tmp}.inputs`, `${JSON.stringify(stamp, null, 1)}\n`);
  renameSync(`${tmp}.inputs`, stampFile(outFile));
  return { file: outFile, version, sha256, bytes: out.contents.byteLength };
}
