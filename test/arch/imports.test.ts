/**
 * The import rules (.dependency-cruiser.cjs, run by `npm test` as `npm run lint:imports`)
 * hold on the real tree, and fail on a small tree built to break each of them. The bad
 * tree is written to a temporary folder at test time, so it is never part of the
 * source tree, the typecheck or the test run.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise as depcruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const repo = resolve(__dirname, '../..');
const config = join(repo, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

/**
 * Cruises `paths` under `cwd` with the repository's rules, in this process (dependency-
 * cruiser's own API, what its command line calls); the violations found. It resolves
 * paths against the working folder, so the cruise runs there.
 */
async function cruise(cwd: string, paths: string[]): Promise<Violation[]> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const options = await extractDepcruiseOptions(config);
    const tsConfig = extractTSConfig(join(cwd, 'tsconfig.json'));
    const result = await depcruise(paths, { ...options, outputType: 'json' }, {}, { tsConfig });
    const output = typeof result.output === 'string' ? (JSON.parse(result.output) as ICruiseResult) : result.output;
    return output.summary.violations as unknown as Violation[];
  } finally {
    process.chdir(before);
  }
}

const bad = mkdtempSync(join(tmpdir(), 'arch-fixture-'));
afterAll(() => rmSync(bad, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(bad, path)), { recursive: true });
  writeFileSync(join(bad, path), text);
}

describe('import rules', () => {
  it('the repository has no import circle and no forbidden import', async () => {
    expect(await cruise(repo, ['src', 'actors', 'machines', 'sim', 'bench', 'test'])).toEqual([]);
  });

  it('fail on a tree with a circle, I/O in the pure core, crypto primitives that import the codec or the signing formats, an actor in a route, an actor that imports the node, a message module that imports behaviour, onboarding routes or pure files that reach into I/O, an onboarding actor that reaches into the app, and a consensus driver that does I/O', async () => {
    // The real packages, so that 'classic-level' resolves as it would in the repository.
    symlinkSync(join(repo, 'node_modules'), join(bad, 'node_modules'), 'dir');
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }));
    // A type-only import counts: the state would still name the database.
    write('src/state/store.ts', "import type { ClassicLevel } from 'classic-level';\nexport type Db = ClassicLevel<string, string>;\n");
    write('machines/net.ts', "import { createLibp2p } from 'libp2p';\nexport const start = createLibp2p;\n");
    write('src/codec/api.ts', "import { ApiError } from '../api/envelope';\nexport const e = ApiError;\n");
    write('src/api/envelope.ts', 'export class ApiError extends Error {}\n');
    // A signing format that reaches the node, and crypto primitives that reach back into the codec and the formats.
    write('src/signing/relay.ts', "import type { Node } from '../node/node';\nexport type R = Node;\n");
    write('src/crypto/options.ts', "import type { Opts } from '../codec/options';\nexport type O = Opts;\n");
    write('src/codec/options.ts', 'export type Opts = { tif?: string };\n');
    write('src/crypto/digest.ts', "import { typedDigest } from '../signing/typed';\nexport const d = typedDigest;\n");
    write('src/signing/typed.ts', 'export const typedDigest = (): Uint8Array => new Uint8Array(32);\n');
    // A circle of two.
    write('src/chain/a.ts', "import { b } from './b';\nexport const a = () => b();\n");
    write('src/chain/b.ts', "import { a } from './a';\nexport const b = (): unknown => a;\n");
    // A route that reaches into an actor, an actor's message module that imports behaviour,
    // and an actor that takes the whole node (a type counts) instead of its bundle.
    write('src/api/routes/orders.ts', "import type { ApiMsg } from '../../../actors/api/messages';\nexport type M = ApiMsg;\n");
    write('actors/api/messages.ts', "import type { Behaviour } from './api-actor';\nexport type ApiMsg = { behaviour: Behaviour };\n");
    write('actors/api/api-actor.ts', 'export type Behaviour = { start(): void };\n');
    write('actors/mempool/mempool-actor.ts', "import type { Node } from '../../src/node/node';\nexport const mempoolBehavior = (node: () => Node) => node;\n");
    write('src/node/node.ts', 'export class Node {}\n');
    // The onboarding service: a pure file that opens the database, and routes that reach past the book into the store.
    write('src/onboarding/applicants.ts', "import { ClassicLevel } from 'classic-level';\nexport const Db = ClassicLevel;\n");
    write('src/onboarding/routes.ts', "import type { OnboardingStore } from './store';\nexport type S = OnboardingStore;\n");
    write('src/onboarding/store.ts', 'export class OnboardingStore {}\n');
    // Register (a route) reaching the node client, and an onboarding actor reaching the app that wires it.
    write('src/onboarding/register.ts', "import { httpNodeRegistrar } from './node-client';\nexport const r = httpNodeRegistrar;\n");
    write('src/onboarding/node-client.ts', 'export const httpNodeRegistrar = () => undefined;\n');
    write('actors/onboarding/review-actor.ts', "import { startOnboardingService } from '../../src/onboarding/service';\nexport const s = startOnboardingService;\n");
    write('src/onboarding/service.ts', 'export const startOnboardingService = () => undefined;\n');
    // The consensus driver opening a file itself, and reaching the privval files' module instead of being handed its privval.
    write('src/consensus/driver.ts', "import { readFileSync } from 'node:fs';\nimport type { PrivValFile } from '../storage/privval-file';\nexport const r = readFileSync;\nexport type F = PrivValFile;\n");
    write('src/storage/privval-file.ts', 'export type PrivValFile = { close(): void };\n');

    // Each rule, by the file that breaks it and what it imports (a package by name, or by
    // its resolved file: node_modules may be a link elsewhere). A circle is reported once.
    const found = (await cruise(bad, ['src', 'actors', 'machines']))
      .map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')}`)
      .sort();
    expect(found).toEqual([
      'actor-messages-are-leaves: actors/api/messages.ts → actors/api/api-actor.ts',
      'actors-no-node: actors/mempool/mempool-actor.ts → src/node/node.ts',
      'api-sees-node-api-only: src/api/routes/orders.ts → actors/api/messages.ts',
      'consensus-driver-no-io: src/consensus/driver.ts → fs',
      'consensus-driver-no-io: src/consensus/driver.ts → src/storage/privval-file.ts',
      'crypto-is-primitives: src/crypto/digest.ts → src/signing/typed.ts',
      'crypto-is-primitives: src/crypto/options.ts → src/codec/options.ts',
      'no-circular: src/chain/a.ts → src/chain/b.ts',
      'onboarding-actors-below-app: actors/onboarding/review-actor.ts → src/onboarding/service.ts',
      'onboarding-pure-no-io: src/onboarding/applicants.ts → classic-level',
      'onboarding-routes-see-book-only: src/onboarding/register.ts → src/onboarding/node-client.ts',
      'onboarding-routes-see-book-only: src/onboarding/routes.ts → src/onboarding/store.ts',
      'pure-core-no-io: machines/net.ts → libp2p',
      'pure-core-no-io: src/codec/api.ts → src/api/envelope.ts',
      'pure-core-no-io: src/signing/relay.ts → src/node/node.ts',
      'pure-core-no-io: src/state/store.ts → classic-level',
    ]);
  });
});
