/**
 * Writes genesis/devnet.json, genesis/testnet.json, genesis/devnet-keys.json and
 * docs/devnet-accounts.md.
 * Deterministic: running it again produces byte-identical files.
 *
 *   npx tsx scripts/make-genesis.ts            # (re)write the four files
 *   npx tsx scripts/make-genesis.ts --check    # exit 1 if a committed file differs
 *   npx tsx scripts/make-genesis.ts --hash     # print the genesis hash of the committed files
 *   EXCHANGE_TESTNET_SECRET=0x… npx tsx scripts/make-genesis.ts --testnet-keys
 *       # print the testnet private keys to stdout (never to a file in the repo) after
 *       # checking that they derive to the public keys pinned in src/genesis/build.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  buildDevnetKeys,
  buildGenesis,
  deriveTestnetKeys,
  renderDevnetAccountsDoc,
  renderJson,
  TESTNET_PUBLIC,
} from '../src/genesis/build';
import { genesisHashHex, loadGenesisFile, parseGenesis } from '../src/genesis/load';
import type { Hex } from '../src/util/bytes';

export { buildDevnetKeys, buildGenesis, renderDevnetAccountsDoc, renderJson } from '../src/genesis/build';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The files this script owns, relative to the repository root, and their exact contents. */
export function generatedFiles(): { path: string; text: string }[] {
  const devnet = buildGenesis('devnet');
  const testnet = buildGenesis('testnet');
  // Never write a file the loader would reject.
  parseGenesis(devnet);
  parseGenesis(testnet);
  return [
    { path: 'genesis/devnet.json', text: renderJson(devnet) },
    { path: 'genesis/testnet.json', text: renderJson(testnet) },
    { path: 'genesis/devnet-keys.json', text: renderJson(buildDevnetKeys()) },
    { path: 'docs/devnet-accounts.md', text: renderDevnetAccountsDoc() },
  ];
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function printTestnetKeys(): number {
  const secret = process.env.EXCHANGE_TESTNET_SECRET;
  if (!secret) {
    console.error('EXCHANGE_TESTNET_SECRET is not set (0x + 64 hex digits, kept outside the repository)');
    return 2;
  }
  const keys = deriveTestnetKeys(secret.trim() as Hex);
  const pinned = JSON.stringify({
    validators: TESTNET_PUBLIC.validators,
    owners: TESTNET_PUBLIC.owners,
    operators: TESTNET_PUBLIC.operators,
  });
  const derived = JSON.stringify({
    validators: keys.validators.map((v) => ({ name: v.name, address: v.address, ecdsaPubkey: v.ecdsaPubkey, vrfPubkey: v.vrfPubkey })),
    owners: keys.owners.map((o) => o.address),
    operators: keys.operators.map((o) => o.address),
  });
  if (pinned !== derived) {
    console.error('this secret does not derive to the testnet public keys pinned in src/genesis/build.ts');
    return 1;
  }
  process.stdout.write(renderJson(keys));
  return 0;
}

function main(argv: string[]): number {
  if (argv.includes('--testnet-keys')) return printTestnetKeys();
  if (argv.includes('--hash')) {
    for (const file of ['genesis/devnet.json', 'genesis/testnet.json']) {
      const genesis = loadGenesisFile(join(REPO_ROOT, file));
      console.log(`${genesisHashHex(genesis)}  ${file} (${genesis.network}, chainId ${genesis.chainId})`);
    }
    return 0;
  }
  const check = argv.includes('--check');
  let stale = 0;
  for (const file of generatedFiles()) {
    const abs = join(REPO_ROOT, file.path);
    const same = readOrEmpty(abs) === file.text;
    if (check) {
      if (!same) {
        console.error(`${file.path}: differs from the generator's output (run npx tsx scripts/make-genesis.ts)`);
        stale++;
      }
    } else {
      if (!same) writeFileSync(abs, file.text);
      console.log(`${same ? 'unchanged' : 'wrote    '} ${file.path}`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
