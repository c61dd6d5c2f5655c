/**
 * The node's command line.
 *   start   run a node of the devnet (default) or of the given genesis
 *   genesis print the genesis hash of a file
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadGenesisFile, genesisHash } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { trimValidators } from './devnet';
import { Node } from '../node/node';
import { bytesToHex, hexToBytes } from '../util/bytes';
import { createLogger } from '../util/log';
import { parseFlags, usage, type FlagSpec } from './args';

const START_FLAGS = {
  genesis: { type: 'string', default: 'genesis/devnet.json', help: 'genesis file' },
  keys: { type: 'string', default: 'genesis/devnet-keys.json', help: 'devnet key file (validator keys; devnet only)' },
  validators: { type: 'int', default: 1, help: 'run a devnet of the first N genesis validators' },
  'validator-index': { type: 'int', default: 1, help: 'which validator (1-based) this process is' },
  'data-dir': { type: 'string', help: 'data folder (default data/<network>-<N>v/validator-<i>)' },
  host: { type: 'string', default: '127.0.0.1', help: 'REST/JSON-RPC host (loopback unless you opt in)' },
  port: { type: 'int', default: 8545, help: 'REST/JSON-RPC port' },
  'session-port': { type: 'int', default: 9001, help: 'session and agent API port (bound to 127.0.0.1)' },
  'block-time-ms': { type: 'int', help: 'block interval (default: the genesis value)' },
  'log-level': { type: 'string', default: 'info', help: 'trace|debug|info|warn|error|fatal|silent' },
  fsync: { type: 'bool', default: true, help: 'fsync every block (--no-fsync to trade durability for speed)' },
} satisfies FlagSpec;

function validatorKey(keysPath: string, g: Genesis, index: number): Uint8Array | undefined {
  const v = g.validators[index - 1];
  if (!v) throw new Error(`--validator-index ${index}: the genesis has ${g.validators.length} validators`);
  let file: { validators: { address: string; ecdsaPrivateKey: string }[] };
  try {
    file = JSON.parse(readFileSync(keysPath, 'utf8'));
  } catch {
    return undefined; // not a validator of this network: a follower node
  }
  const k = file.validators.find((x) => x.address.toLowerCase() === v.address);
  return k ? hexToBytes(k.ecdsaPrivateKey) : undefined;
}

async function start(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm start -- [flags]\n${usage(START_FLAGS)}\n`);
    return;
  }
  const f = parseFlags(argv, START_FLAGS);
  const fileGenesis = loadGenesisFile(resolve(f.genesis));
  const genesis = fileGenesis.network === 'devnet' ? trimValidators(fileGenesis, f.validators) : fileGenesis;
  const hash = genesisHash(genesis);
  const index: number = f['validator-index'];
  const dataDir = resolve(f['data-dir'] ?? `data/${genesis.network}-${genesis.validators.length}v/validator-${index}`);
  const log = createLogger({ level: f['log-level'], name: `${genesis.network}-v${index}` });
  const node = new Node(
    {
      dataDir,
      genesis,
      genesisHash: hash,
      validatorKey: genesis.network === 'devnet' ? validatorKey(f.keys, genesis, index) : undefined,
      api: { host: f.host, port: f.port },
      sessionApi: { host: '127.0.0.1', port: f['session-port'] },
      blockTimeMs: f['block-time-ms'] ?? genesis.consensus.blockTimeMs,
      syncWrites: f.fsync,
      mempool: { maxTxs: 200_000, maxBytes: 256 * 1024 * 1024 },
      finalityTimeoutMs: 10_000,
    },
    log,
  );
  node.supervisor.installSignalHandlers(process, () => undefined);
  node.stopped.then(({ halted }) => process.exit(halted ? 2 : 0));
  await node.start();
  // One plain line for people and scripts: where to talk to the node, and which chain it is.
  process.stdout.write(
    `READY ${genesis.network} chainId=${genesis.chainId} genesis=${bytesToHex(hash)} height=${node.chain().height} api=http://${f.host}:${f.port} data=${dataDir}\n`,
  );
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'start':
      return start(rest);
    case 'genesis': {
      const g = loadGenesisFile(resolve(rest[0] ?? 'genesis/devnet.json'));
      process.stdout.write(`${bytesToHex(genesisHash(g))}\n`);
      return;
    }
    default:
      process.stdout.write(`usage: node src/cli/main.ts start [flags]\n${usage(START_FLAGS)}\n`);
      process.exit(command ? 1 : 0);
  }
}

main().catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
