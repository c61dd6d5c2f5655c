/**
 * `npm run node -- init --home DIR [--network devnet|testnet|mainnet|GENESIS_FILE]`:
 * makes a node's keys (src/node/keyfile.ts) for one network and prints their public
 * values as one JSON line, the values an operator hands to `genesis new` or to
 * registration ([C-res-validator-fields]). `start --home DIR` runs the node (start-home.ts).
 *
 * `npm run node -- bind --home DIR --network GENESIS_FILE`: binds DIR's keys to the
 * genesis `genesis new` built from them (same network name and chain id, another hash).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { genesisHashHex, loadGenesisFile, parseGenesisText } from '../genesis/load';
import { repoGenesisText } from '../genesis/repo-files';
import type { Genesis } from '../genesis/types';
import { generateNodeKeys, keyFilePath, publicValues, rebindKeyFile, writeKeyFile, type KeyBinding } from '../node/keyfile';
import { parseFlags, usage, type FlagSpec } from './args';


const INIT_FLAGS = {
  home: { type: 'string', help: 'the node folder, created with mode 0700 (an existing one must give group and others no access); its key file is <home>/node-key.json (mode 0600)' },
  network: {
    type: 'string',
    default: 'devnet',
    help: 'devnet (genesis/devnet.json, the network `npm start` runs), testnet (genesis/testnet.json), or a genesis file; mainnet has no genesis file in the repository yet, so give its file',
  },
} satisfies FlagSpec;

/** The genesis a `--network` value names, and the binding a key made for it records. */
export function resolveNetwork(value: string): { genesis: Genesis; binding: KeyBinding; source: string } {
  let genesis: Genesis;
  let source: string;
  if (value === 'devnet' || value === 'testnet') {
    // The repository's files (src/genesis/repo-files.ts; the single-file build carries them).
    const repo = repoGenesisText(value);
    genesis = parseGenesisText(repo.text);
    source = repo.source;
  } else if (value === 'mainnet') {
    throw new Error('--network mainnet: there is no mainnet genesis file in the repository; pass the mainnet genesis file itself (--network PATH)');
  } else if (existsSync(value)) {
    source = resolve(value);
    genesis = loadGenesisFile(source);
  } else throw new Error(`--network ${value}: neither devnet, testnet, mainnet nor an existing genesis file`);
  // The devnet `npm start` runs is genesis/devnet.json with all its validators
  // (trimValidators leaves it whole), so the file's hash is that network's.
  return { genesis, binding: { network: genesis.network, chainId: genesis.chainId, genesisHash: genesisHashHex(genesis) }, source };
}

export async function init(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: npm run node -- init --home DIR [--network devnet|testnet|GENESIS_FILE]\n' +
        'Makes a secp256k1 consensus/account key, an Ed25519 VRF key and an Ed25519 libp2p peer key in DIR/node-key.json,\n' +
        'never overwriting one, and prints one JSON line: address, ecdsa_pubkey, vrf_pubkey, peer_id.\n' +
        `${usage(INIT_FLAGS)}\n`,
    );
    return;
  }
  const f = parseFlags(argv, INIT_FLAGS);
  if (f.home === undefined) throw new Error('--home DIR is required');
  const home = resolve(f.home);
  if (existsSync(keyFilePath(home))) {
    throw new Error(`${keyFilePath(home)}: a key file is already there; init never overwrites a key (move it away first if you mean to replace it)`);
  }
  const { binding } = resolveNetwork(f.network);
  const keys = await generateNodeKeys(binding);
  writeKeyFile(home, keys);
  process.stdout.write(`${JSON.stringify(publicValues(keys))}\n`);
}

const BIND_FLAGS = {
  home: { type: 'string', help: 'the node folder made by init' },
  network: { type: 'string', help: 'the genesis file (or devnet, testnet) to bind the keys to: same network name and chain id as the keys were made for' },
} satisfies FlagSpec;

export function bind(argv: string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: npm run node -- bind --home DIR --network GENESIS_FILE\n' +
        "Binds DIR/node-key.json to another genesis of its network and chain id (e.g. the one `genesis new` built from the\n" +
        'operators\' public values); the keys stay the same. Prints the same JSON line as init.\n' +
        `${usage(BIND_FLAGS)}\n`,
    );
    return;
  }
  const f = parseFlags(argv, BIND_FLAGS);
  if (f.home === undefined || f.network === undefined) throw new Error('--home DIR and --network GENESIS_FILE are required');
  const keys = rebindKeyFile(resolve(f.home), resolveNetwork(f.network).binding);
  process.stdout.write(`${JSON.stringify(publicValues(keys))}\n`);
}
