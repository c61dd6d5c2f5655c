/**
 * `npm run node -- start --home DIR [--bootstrap MULTIADDR[,…]] [--network …] [--port
 * --p2p-port --session-port --data-dir]`: runs one node of the network DIR's key file was
 * made for (src/node/keyfile.ts). The genesis is the network's (devnet: genesis/devnet.json
 * whole, the network `npm start` runs, same genesis hash; testnet: genesis/testnet.json;
 * otherwise the file given with --network, as init takes it), and a key file bound to
 * another genesis is refused. The node's validator key is the file's secp256k1 key, its VRF
 * key the file's Ed25519 seed, its libp2p identity the file's peer key; it proves its
 * validator to peers with a signed hello (decision 71). Data goes to DIR/data unless
 * --data-dir says otherwise. `--bridge FILE` names the bridge deployment file (as `start`
 * takes it: node-run.ts). While the node syncs, stderr shows its progress
 * (sync-progress.ts). The devnet's own flow (`npm start`, the launcher) is main.ts's.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { genesisHashHex } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { peerIdOfPublicKey } from '../net/libp2p';
import { keyFilePath, readKeyFile, type NodeKeys } from '../node/keyfile';
import { Node } from '../node/node';
import { hexToBytes } from '../util/bytes';
import { createLogger } from '../util/log';
import { exitWithNode, SESSION_HOST_FLAG, SHARED_START_FLAGS, sharedStartConfig } from './node-run';
import { parseFlags, usage, type FlagSpec } from './args';
import { resolveNetwork } from './init';
import { startSyncProgress } from './sync-progress';

/** The price sources file `start --home` reads when no --price-sources is given (docs/operations.md "Price sources"). */
export const PRICE_SOURCES_FILE = 'price-sources.json';

export const START_HOME_FLAGS = {
  home: { type: 'string', help: 'the node folder made by init (its key file: <home>/node-key.json)' },
  network: {
    type: 'string',
    help: "devnet, testnet or a genesis file (default: the key file's network; mainnet and networks built by `genesis new` need their file)",
  },
  bootstrap: { type: 'string', help: 'comma-separated multiaddrs (/ip4/…/tcp/…/p2p/<peer id>) of peers to keep connected to (default on the devnet: its validators at their genesis endpoints)' },
  'data-dir': { type: 'string', help: 'data folder (default <home>/data)' },
  bridge: { type: 'string', help: "the bridge deployment file (npm run bridge:deploy's): a validator watches and relays the bridge; any node names its RPC" },
  host: { type: 'string', default: '127.0.0.1', help: 'REST/JSON-RPC host (loopback unless you opt in)' },
  port: { type: 'int', default: 8545, help: 'REST/JSON-RPC port (0: any free port)' },
  'session-host': SESSION_HOST_FLAG,
  'session-port': { type: 'int', default: 9001, help: 'session and agent API port (0: any free port)' },
  'p2p-host': { type: 'string', default: '127.0.0.1', help: 'libp2p listen host' },
  'p2p-port': { type: 'int', default: 9000, help: 'libp2p port (0: any free port)' },
  'consensus-port': { type: 'int', help: "a validator's consensus session port (default 0: any free port, peers ask for it over libp2p; -1: none, libp2p streams only)" },
  discovery: {
    type: 'bool',
    default: true,
    help: 'find peers beyond --bootstrap: by peer exchange and from the validators\' endpoints in chain state (--no-discovery: keep to the bootstrap peers, as a node behind a sentry does)',
  },
  ...SHARED_START_FLAGS,
} satisfies FlagSpec;

/** The key file of `home` and the genesis of its network, or an error saying why they do not go together. */
export function loadHome(home: string, network: string | undefined): { keys: NodeKeys; genesis: Genesis; source: string } {
  if (!existsSync(home)) throw new Error(`--home ${home}: no such folder (make one with: npm run node -- init --home ${home})`);
  if (!statSync(home).isDirectory()) throw new Error(`--home ${home}: not a folder`);
  if (!existsSync(keyFilePath(home))) throw new Error(`--home ${home}: no key file ${keyFilePath(home)} (make one with: npm run node -- init --home ${home})`);
  const keys = readKeyFile(keyFilePath(home));
  const name = network ?? keys.network;
  if (network === undefined && keys.network === 'mainnet') throw new Error('the key file is for mainnet: give its genesis file with --network PATH');
  const { genesis, binding, source } = resolveNetwork(name);
  if (binding.network !== keys.network || binding.chainId !== keys.chainId || binding.genesisHash !== keys.genesisHash) {
    throw new Error(
      `${keyFilePath(home)} was made for ${keys.network} (chain id ${keys.chainId}, genesis ${keys.genesisHash}); ` +
        `${source} is ${binding.network} (chain id ${binding.chainId}, genesis ${binding.genesisHash}). ` +
        'A key file runs only on its own network (a network built by `genesis new`: bind the key to its genesis with `bind`).',
    );
  }
  return { keys, genesis, source };
}

/** The devnet's validators at their genesis endpoints, with the peer ids of their keys (the devnet's identities). */
async function devnetBootstrap(genesis: Genesis): Promise<string[]> {
  return Promise.all(
    genesis.validators.map(async (v) => {
      const [host, port] = v.endpoint.split(':');
      return `/ip4/${host}/tcp/${port}/p2p/${await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey))}`;
    }),
  );
}

export async function startHome(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: npm run node -- start --home DIR [--bootstrap MULTIADDR[,…]] [flags]\n' +
        "Runs a node of the network DIR's key file was made for: it validates while its key is in the active set\n" +
        'and follows the chain otherwise.\n' +
        `${usage(START_HOME_FLAGS)}\n`,
    );
    return;
  }
  const f = parseFlags(argv, START_HOME_FLAGS);
  if (f.home === undefined) throw new Error('--home DIR is required');
  const home = resolve(f.home);
  const { keys, genesis } = loadHome(home, f.network);
  const hash = hexToBytes(genesisHashHex(genesis));
  let bootstrap: string[];
  if (f.bootstrap !== undefined) bootstrap = String(f.bootstrap).split(',').filter(Boolean);
  else if (genesis.network === 'devnet') bootstrap = await devnetBootstrap(genesis);
  else throw new Error(`--bootstrap is required on ${genesis.network}: the multiaddrs (with /p2p/<peer id>) of nodes of the network`);
  const dataDir = resolve(f['data-dir'] ?? join(home, 'data'));
  // A validator's price sources (decision 168): the flag's file, else the home's if it has one.
  if (f['price-sources'] === undefined && existsSync(join(home, PRICE_SOURCES_FILE))) f['price-sources'] = join(home, PRICE_SOURCES_FILE);
  const log = createLogger({ level: f['log-level'], name: `${genesis.network}-${keys.address.slice(0, 10)}` });
  const node = new Node(
    {
      dataDir,
      genesis,
      genesisHash: hash,
      validatorKey: hexToBytes(keys.ecdsaPrivateKey),
      vrfKey: hexToBytes(keys.vrfPrivateKey),
      p2p: { listen: [`/ip4/${f['p2p-host']}/tcp/${f['p2p-port']}`], bootstrap, peerKey: hexToBytes(keys.peerPrivateKey), consensusPort: f['consensus-port'], discovery: f.discovery },
      blockTimeMs: genesis.consensus.blockTimeMs,
      ...sharedStartConfig(f, genesis),
    },
    log,
  );
  exitWithNode(node);
  await node.start();
  if (node.upgradeRequired) return; // stopped before it started: exitWithNode exits with the message
  const p2p = node.p2pInfo()?.listen.join(',') ?? 'none';
  process.stdout.write(
    `READY ${genesis.network} chainId=${genesis.chainId} genesis=${genesisHashHex(genesis)} height=${node.chain().height} api=${node.apiAddress ?? 'none'} ` +
      `address=${keys.address} p2p=${p2p} data=${dataDir}\n`,
  );
  if (node.apiAddress) startSyncProgress(node.apiAddress);
}
