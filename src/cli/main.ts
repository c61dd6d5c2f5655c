/**
 * The node's command line.
 *   start   run a node of the devnet (default) or of the given genesis; while it syncs,
 *           stderr shows its progress (sync-progress.ts)
 *   start --home DIR  run the node of a key file made by init, on its network (start-home.ts)
 *   genesis print the genesis hash of a file
 *   genesis new  build a new network's genesis from its validators' public values (genesis-new.ts)
 *   init    make a node's key file for a network (init.ts)
 *   bind    bind a key file to the genesis `genesis new` built (init.ts)
 *   validator apply|register|unbond|unjail  the application and a validator's own lifecycle transactions (validator-ops.ts)
 *   gov key|propose|approve|execute|cancel|list  owner governance, signed with an owner key file (gov.ts)
 *   check   read a stopped node's chain store end to end: sound or not (store-commands.ts)
 *   privval-reset  let a validator whose double-sign protection files were lost sign again from a height (store-commands.ts)
 *   onboarding  the validator onboarding service, alone (src/onboarding/main.ts; npm run onboarding)
 *   operator    the onboarding service's operator CLI (src/onboarding/operator-main.ts; npm run operator)
 *   bridge chain|deploy  the bridge's local external chain, a bridge deployment (src/bridge/*-main.ts;
 *               npm run bridge:chain, bridge:deploy; they need the checkout's hardhat and solc)
 *   --version  print the node's software version (src/util/version.ts)
 *
 * The single-file build (npm run build, dist/exchange-node.mjs) is this file bundled: the
 * production npm scripts run these commands from it (decision 104).
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { loadGenesisFile, genesisHash } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { trimValidators } from './devnet';
import { genesisNew } from './genesis-new';
import { bind, init } from './init';
import { validatorCommand } from './validator-ops';
import { govCommand } from './gov';
import { checkCommand, privvalResetCommand } from './store-commands';
import { freePort, launchLocalNetwork, ONBOARDING_BINARY_DEFAULT, p2pConfig } from './launcher';
import { startHome } from './start-home';
import { join } from 'node:path';
import { Node } from '../node/node';
import { bytesToHex, hexToBytes } from '../util/bytes';
import { createLogger } from '../util/log';
import { NODE_VERSION } from '../util/version';
import { exitWithNode, SESSION_HOST_FLAG, SHARED_START_FLAGS, sharedStartConfig } from './node-run';
import { parseFlags, usage, type FlagSpec } from './args';
import { BRIDGE_PORT_DEFAULT, bridgeDevnetLine, DEVNET_DISPUTE_PERIOD_SEC, startBridgeDevnet, type BridgeDevnet } from './bridge-devnet';
import { startSyncProgress } from './sync-progress';
import { describeFailure } from '../storage/storage-errors';
import { devnetFaultHarness } from './devnet-faults';

const START_FLAGS = {
  genesis: { type: 'string', default: 'genesis/devnet.json', help: 'genesis file' },
  keys: { type: 'string', default: 'genesis/devnet-keys.json', help: 'devnet key file (validator keys; devnet only)' },
  validators: { type: 'int', default: 6, help: 'run a devnet of the first N genesis validators (1: a single-node devnet)' },
  'validator-index': {
    type: 'int',
    help: 'run only this validator (1-based); without it and with --validators > 1, one process per validator is started on this machine',
  },
  'data-dir': { type: 'string', help: 'data folder (default data/<network>-<N>v, one validator-<i> folder per validator)' },
  host: { type: 'string', default: '127.0.0.1', help: 'REST/JSON-RPC host (loopback unless you opt in)' },
  port: { type: 'int', default: 8545, help: 'REST/JSON-RPC port (validator i of a local network: port + i - 1)' },
  'session-host': SESSION_HOST_FLAG,
  'session-port': { type: 'int', default: 9001, help: 'session and agent API port (validator i: + 10 × (i - 1); 0: any free port)' },
  'p2p-host': { type: 'string', default: '127.0.0.1', help: 'libp2p listen host' },
  'p2p-port': { type: 'int', help: "libp2p port (default: the genesis endpoint's port; a local network: 9000 + 10 × (i - 1); 0: free ports)" },
  'consensus-port': { type: 'int', help: "a validator's consensus session port (default 0: any free port, peers ask for it over libp2p; -1: none, libp2p streams only)" },
  bootstrap: { type: 'string', help: 'comma-separated multiaddrs (/ip4/…/tcp/…/p2p/…) of peers; default: the genesis endpoints' },
  bridge: { type: 'string', help: "the bridge deployment file (npm run bridge:deploy's, e.g. data/bridge/devnet.json): a validator watches and relays the bridge; any node names its RPC" },
  equivocate: { type: 'bool', default: false, help: 'devnet fault injection: this validator double-signs every vote (tests of evidence)' },
  'faulty-sync': { type: 'bool', default: false, help: 'devnet fault injection: this validator answers block-sync requests with forged blocks (tests of sync)' },
  'stall-sync': { type: 'bool', default: false, help: 'devnet fault injection: this validator never answers block-sync requests (tests of sync)' },
  'claim-ahead': { type: 'bool', default: false, help: 'devnet fault injection: this validator follows each vote with a status message 1,000 heights ahead (tests of the sync trigger)' },
  'exit-with-parent': { type: 'bool', default: false, help: 'stop when the parent process goes away (set by the local-network launcher)' },
  'block-time-ms': { type: 'int', help: 'block interval (default: the genesis value)' },
  ...SHARED_START_FLAGS,
  onboarding: { type: 'bool', default: true, help: 'a local network also runs the validator onboarding service (--no-onboarding: not)' },
  'onboarding-port': { type: 'int', default: 8080, help: 'the onboarding service port, 127.0.0.1 (0: any free port)' },
  'onboarding-binary': { type: 'string', default: ONBOARDING_BINARY_DEFAULT, help: 'the node binary the onboarding service serves (npm run build makes it; the default is built when absent)' },
  'with-bridge': {
    type: 'bool',
    default: false,
    help: "also run the bridge's external chain (hardhat, a block a second), deploy the bridge bound to the genesis, write <data>/bridge.json and give it to every validator (docs/bridge.md)",
  },
  'bridge-port': { type: 'int', default: BRIDGE_PORT_DEFAULT, help: "--with-bridge: the external chain's JSON-RPC port on 127.0.0.1 (0: any free port)" },
  'bridge-dispute-period-sec': { type: 'int', default: DEVNET_DISPUTE_PERIOD_SEC, help: '--with-bridge: seconds a queued withdrawal waits before it can be paid' },
} satisfies FlagSpec;

/** The devnet validator's ECDSA and VRF secret keys, from the public devnet keys file; undefined for a follower node. */
function validatorKey(keysPath: string, g: Genesis, index: number): { ecdsa: Uint8Array; vrf: Uint8Array } | undefined {
  const v = g.validators[index - 1];
  if (!v) throw new Error(`--validator-index ${index}: the genesis has ${g.validators.length} validators`);
  let file: { validators: { address: string; ecdsaPrivateKey: string; vrfPrivateKey: string }[] };
  try {
    file = JSON.parse(readFileSync(keysPath, 'utf8'));
  } catch {
    return undefined; // not a validator of this network: a follower node
  }
  const k = file.validators.find((x) => x.address.toLowerCase() === v.address);
  return k ? { ecdsa: hexToBytes(k.ecdsaPrivateKey), vrf: hexToBytes(k.vrfPrivateKey) } : undefined;
}

async function start(argv: string[]): Promise<void> {
  // A node of a key file made by init: its own flags (start-home.ts).
  if (argv.some((a) => a === '--home' || a.startsWith('--home='))) return startHome(argv);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm start -- [flags]   (the node of a key file: npm run node -- start --home DIR --help)\n${usage(START_FLAGS)}\n`);
    return;
  }
  const f = parseFlags(argv, START_FLAGS);
  const fileGenesis = loadGenesisFile(resolve(f.genesis));
  const genesis = fileGenesis.network === 'devnet' ? trimValidators(fileGenesis, f.validators) : fileGenesis;
  const hash = genesisHash(genesis);
  const multi = genesis.validators.length > 1;
  if (f['with-bridge'] && f['validator-index'] !== undefined) {
    throw new Error('--with-bridge starts the external chain for the whole local network: without --validator-index, or give this validator --bridge FILE');
  }
  if (multi && f['validator-index'] === undefined) {
    // The local network: one process per validator, supervised by this one.
    return launchLocalNetwork({ argv, genesis, genesisHash: hash, genesisFile: resolve(f.genesis), flags: f });
  }
  const index: number = f['validator-index'] ?? 1;
  const baseDir = f['data-dir'] ?? `data/${genesis.network}-${genesis.validators.length}v`;
  const dataDir = resolve(f['data-dir'] ?? join(baseDir, `validator-${index}`));
  for (const fault of ['equivocate', 'faulty-sync', 'stall-sync', 'claim-ahead'] as const) {
    if (f[fault] && genesis.network !== 'devnet') throw new Error(`--${fault} is a devnet-only fault injection`);
  }
  const keys = genesis.network === 'devnet' ? validatorKey(f.keys, genesis, index) : undefined;
  const key = keys?.ecdsa;
  const log = createLogger({ level: f['log-level'], name: `${genesis.network}-v${index}` });
  // A single-node devnet with its external chain (decision 86): started and deployed here, in this process.
  const bridgeDevnet = f['with-bridge'] ? await singleNodeBridge(f, genesis, resolve(baseDir), dataDir) : undefined;
  const node = new Node(
    {
      dataDir,
      genesis,
      genesisHash: hash,
      validatorKey: key,
      vrfKey: keys?.vrf,
      p2p: multi ? { ...(await p2pConfig(genesis, index, f['p2p-host'], f['p2p-port'], f.bootstrap)), consensusPort: f['consensus-port'] } : undefined,
      byzantine: devnetFaultHarness(
        { equivocateWithKey: f.equivocate ? key : undefined, forgeSyncBlocks: f['faulty-sync'], stallSync: f['stall-sync'], claimAhead: f['claim-ahead'] },
        genesis.chainId,
        genesis.consensus.maxBlockBytes,
      ),
      blockTimeMs: f['block-time-ms'] ?? genesis.consensus.blockTimeMs,
      ...sharedStartConfig(f, genesis),
    },
    log,
  );
  exitWithNode(node);
  bridgeDevnet?.chain.proc.once('exit', (code, sig) => {
    process.stderr.write(`the bridge devchain exited (${sig ?? `code ${code}`}); stopping the node (its chain is gone: start afresh, see docs/bridge.md)\n`);
    void node.stop();
  });
  if (f['exit-with-parent']) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) void node.stop();
    }, 500).unref();
  }
  await node.start();
  if (node.upgradeRequired) return; // stopped before it started: exitWithNode exits with the message
  // One plain line for people and scripts: where to talk to the node, and which chain it is.
  process.stdout.write(
    `READY ${genesis.network} chainId=${genesis.chainId} genesis=${bytesToHex(hash)} height=${node.chain().height} api=${node.apiAddress ?? 'none'} validator=${index} data=${dataDir}` +
      (bridgeDevnet ? ` bridgeRpc=${bridgeDevnet.chain.rpcUrl} bridge=${bridgeDevnet.deployment.bridge}` : '') +
      '\n',
  );
  // A validator behind the network (a restart after downtime) shows its block sync on
  // stderr: a bar on a terminal, a line every 10 s in a local network's node.log.
  if (node.apiAddress) startSyncProgress(node.apiAddress);
}

/**
 * `--with-bridge` on a single node: the devchain and the deployment (bridge-devnet.ts), the
 * file in the data folder's base (data/devnet-1v/bridge.json, or in --data-dir), and
 * `f.bridge` set to it so the node watches and relays that bridge.
 */
async function singleNodeBridge(f: Record<string, any>, genesis: Genesis, base: string, dataDir: string): Promise<BridgeDevnet> {
  if (f.bridge !== undefined) throw new Error('--with-bridge deploys its own bridge and gives the node its file: leave --bridge out');
  const dev = await startBridgeDevnet({
    genesis,
    base: f['data-dir'] !== undefined ? dataDir : base,
    chainDirs: [dataDir],
    port: f['bridge-port'] === 0 ? await freePort() : f['bridge-port'],
    disputePeriodSec: f['bridge-dispute-period-sec'],
  });
  process.stdout.write(bridgeDevnetLine(dev));
  // A node stopped by a signal ends when nothing is left to run: the chain's process and
  // its output pipes must not keep this one alive (hardhat is killed at exit, devchain.ts).
  dev.chain.proc.unref();
  for (const pipe of [dev.chain.proc.stdout, dev.chain.proc.stderr]) (pipe as Socket | null)?.unref();
  f.bridge = dev.file;
  return dev;
}

/**
 * Another process entry run as a subcommand: it reads its arguments from
 * process.argv.slice(2), as when it runs alone, so they become `args`. Its module is
 * imported only now (in the build too: esbuild evaluates a bundled dynamic import lazily).
 */
async function runEntry(args: string[], load: () => Promise<unknown>): Promise<void> {
  process.argv.splice(2, process.argv.length - 2, ...args);
  await load();
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case '--version':
      process.stdout.write(`${NODE_VERSION}\n`);
      return;
    case 'start':
      return start(rest);
    case 'init':
      return init(rest);
    case 'bind':
      return bind(rest);
    case 'validator':
      return validatorCommand(rest);
    case 'gov':
      return govCommand(rest);
    case 'check':
      process.exitCode = await checkCommand(rest);
      return;
    case 'privval-reset':
      process.exitCode = await privvalResetCommand(rest);
      return;
    case 'onboarding':
      return runEntry(rest, () => import('../onboarding/main'));
    case 'operator':
      return runEntry(rest, () => import('../onboarding/operator-main'));
    case 'bridge':
      if (rest[0] === 'chain') return runEntry(rest.slice(1), () => import('../bridge/chain-main'));
      if (rest[0] === 'deploy') return runEntry(rest.slice(1), () => import('../bridge/deploy-main'));
      process.stderr.write('usage: bridge chain --help | bridge deploy --help\n');
      process.exit(1);
      return;
    case 'genesis': {
      if (rest[0] === 'new') return genesisNew(rest.slice(1));
      const g = loadGenesisFile(resolve(rest[0] ?? 'genesis/devnet.json'));
      process.stdout.write(`${bytesToHex(genesisHash(g))}\n`);
      return;
    }
    default:
      process.stdout.write(
        `usage: node dist/exchange-node.mjs start [flags] | start --home DIR --help | init --help | bind --help | validator apply|register|unbond|unjail --help | gov key|propose|approve|execute|cancel|list --help | check --help | privval-reset --help | genesis [FILE] | genesis new --help | onboarding --help | operator --help | bridge chain|deploy --help | --version
${usage(START_FLAGS)}
`,
      );
      process.exit(command ? 1 : 0);
  }
}

main().catch((err) => {
  // A file system's refusal in words (the folder, the cause, the next step), never a bare errno line.
  process.stderr.write(`error: ${describeFailure(err)}\n`);
  process.exit(1);
});
