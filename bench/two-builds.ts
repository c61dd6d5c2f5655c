/**
 * Two builds of the node in one bench run (decision 145, issue 38): the build of this tree
 * and that of an earlier revision, checked out into a temporary git worktree that shares
 * this tree's node_modules. `node-start` and `network` (BENCH_BASE) use it.
 *
 * A revision with `src/build/run.mjs` is built with its own build tool into one file; one
 * from before the single-file build (15e6eba) runs its source through tsx, as `npm start`
 * ran it then. Either runs from a launcher file that moves into the revision's tree (so
 * its own genesis and relative defaults apply, not this tree's) and imports the build or
 * `src/cli/main.ts`: one process taking the same arguments. Flags the revision's CLI does
 * not know (`--no-rate-limit` before rate limits existed) are dropped.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../test/helpers/devnet';
import { NODE_BUILD } from '../test/helpers/node-program';

export function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

export interface BaseTree {
  rev: string;
  sha: string;
  tree: string;
  /** Removes the worktree. */
  remove(): void;
}

/** `rev` checked out (detached) at `tree`, with this tree's node_modules linked in. */
export function checkoutRevision(rev: string, tree: string): BaseTree {
  const sha = run('git', ['rev-parse', `${rev}^{commit}`], ROOT).trim();
  run('git', ['worktree', 'add', '--detach', tree, sha], ROOT);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  return { rev, sha, tree, remove: () => void spawnSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT }) };
}

/** The CLI flags a tree's `start` may not know, each with the words that show it does. */
const LATER_FLAGS: [flag: string, known: RegExp][] = [['--no-rate-limit', /'rate-limit'|"rate-limit"/]];

/**
 * A file `node FILE start …` runs the node of `tree` from: a launcher that moves into the
 * tree (its relative defaults, `--genesis genesis/devnet.json` first, are the tree's own)
 * and imports the tree's single-file build when the tree has the build tool, else its
 * `src/cli/main.ts` through tsx (see the header). Returns the launcher and how it runs.
 */
export function programOf(tree: string, out: string): { file: string; kind: 'build' | 'source (tsx)' } {
  const built = existsSync(join(tree, 'src/build/run.mjs'));
  if (built) run(process.execPath, ['src/build/run.mjs', '--out', out], tree);
  // The flags are declared somewhere under src/cli (main.ts at ff01063, node-run.ts later): read them all.
  const cliDir = join(tree, 'src/cli');
  const cli = readdirSync(cliDir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(cliDir, f), 'utf8'))
    .join('\n');
  const drop = LATER_FLAGS.filter(([, known]) => !known.test(cli)).map(([flag]) => flag);
  const tsx = pathToFileURL(join(tree, 'node_modules/tsx/dist/esm/api/index.mjs')).href;
  const entry = built ? pathToFileURL(out).href : pathToFileURL(join(tree, 'src/cli/main.ts')).href;
  const file = out.replace(/\.mjs$/, '') + '-launcher.mjs';
  writeFileSync(
    file,
    [
      `// Runs ${built ? 'the build' : 'the source'} of ${tree} from that tree (bench/two-builds.ts).`,
      ...(built ? [] : [`import { register } from ${JSON.stringify(tsx)};`]),
      `const drop = new Set(${JSON.stringify(drop)});`,
      `process.argv = process.argv.filter((a) => !drop.has(a));`,
      `process.chdir(${JSON.stringify(tree)});`,
      ...(built ? [] : [`register();`]),
      `await import(${JSON.stringify(entry)});`,
      '',
    ].join('\n'),
  );
  return { file, kind: built ? 'build' : 'source (tsx)' };
}

/** This tree's build (`--if-stale`), copied to `out` so a rebuild during the run cannot change it. */
export function headBuild(out: string): string {
  run(process.execPath, ['src/build/run.mjs', '--if-stale', '--out', NODE_BUILD], ROOT);
  copyFileSync(NODE_BUILD, out);
  return out;
}
