/**
 * `npm run onboarding -- --network devnet|testnet|GENESIS_FILE [--data-dir DIR] [--host H]
 * [--port N | --onboarding-port N] [--operator 0xADDR] [--operator-key FILE] [--binary FILE] [--node URL
 * --bootstrap MULTIADDRS [--public-url URL] | --boot-bundle FILE]`: runs the onboarding
 * service alone (decisions 75, 78, 79) for one network, over its LevelDB in DIR (default
 * data/onboarding-<network>), until SIGINT or SIGTERM. It serves the network's genesis
 * file, the node binary (default dist/exchange-node.mjs, made by `npm run build`; absent,
 * the start is refused) and the boot bundle it builds from --node and --bootstrap (or the
 * file given); --node also serves register. Prints one line when it listens:
 *   READY onboarding <network> chainId=<id> genesis=<hash> api=http://host:port data=<dir> operator=<address>
 * `npm start` runs the same service beside the devnet (src/cli/launcher.ts).
 */
import { resolve } from 'node:path';
import { isAddress, utf8, type Address } from '../util/bytes';
import { binarySource, BINARY_PATH_DEFAULT, fileSource, type ArtifactSource, type ArtifactSources } from './artifacts';
import { buildBootBundle, type BootBundleOptions } from './boot-bundle';
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { resolveNetwork } from '../cli/init';
import { repoGenesisText } from '../genesis/repo-files';
import { genesisParams } from '../state/genesis';
import { createLogger } from '../util/log';
import { readOperatorKey } from './operator-key';
import { ONBOARDING_HOST_DEFAULT, ONBOARDING_PORT_DEFAULT, startOnboardingService, type OnboardingService } from './service';

export const ONBOARDING_FLAGS = {
  network: {
    type: 'string',
    help: 'devnet (genesis/devnet.json), testnet (genesis/testnet.json) or a genesis file: the network whose validators apply here',
  },
  'data-dir': { type: 'string', help: "the service's LevelDB folder (default data/onboarding-<network>)" },
  host: { type: 'string', default: ONBOARDING_HOST_DEFAULT, help: 'listen host (loopback unless you opt in)' },
  port: { type: 'int', help: `listen port (default ${ONBOARDING_PORT_DEFAULT}; 0: any free port)` },
  'onboarding-port': { type: 'int', help: 'the same as --port (the name `npm start` will take)' },
  node: { type: 'string', help: "the network's node REST URL that POST /api/validators/register checks sync against and submits to (without it, register is not served); the boot bundle names it as the network's API" },
  bootstrap: { type: 'string', help: "comma-separated multiaddrs of the network's peers (/ip4/…/tcp/…/p2p/<id>): with --node, the boot bundle is built with them" },
  'public-url': { type: 'string', help: "this service's address as applicants reach it, written in the boot bundle (default http://HOST:PORT)" },
  operator: { type: 'string', help: "the operator's address, whose signed requests the review routes accept (default: the --operator-key's; devnet owner-1 on devnet, the testnet operator on testnet)" },
  'operator-key': { type: 'string', help: "the operator's key file (npm run operator -- keygen): with --node, each approval is sent to the chain as ApproveValidator (default on devnet: owner-1, the devnet's operator)" },
  binary: { type: 'string', default: BINARY_PATH_DEFAULT, help: 'the node binary served (npm run build makes it)' },
  'boot-bundle': { type: 'string', help: 'a boot bundle file to serve instead of building one (without either: not served, 503)' },
  'log-level': { type: 'string', default: 'info', help: 'trace|debug|info|warn|error|fatal|silent' },
} satisfies FlagSpec;

/** The boot bundle, built at the service's start from the binary and genesis it serves (their sha256 go into network.env). */
export function bootBundleSource(o: Omit<BootBundleOptions, 'binarySha256' | 'genesisSha256'>): ArtifactSource {
  return {
    load: (loaded) => {
      if (loaded.binary === undefined || loaded.genesis === undefined) throw new Error('the boot bundle is built from the binary and the genesis: both must be served');
      return buildBootBundle({ ...o, binarySha256: loaded.binary.sha256, genesisSha256: loaded.genesis.sha256 });
    },
  };
}

/** The artifacts of a network: its genesis file, the binary, and the boot bundle when given. */
export function onboardingArtifacts(genesisFile: string, binaryFile: string, bootBundleFile?: string): ArtifactSources {
  return {
    binary: binarySource(binaryFile),
    genesis: fileSource(genesisFile),
    ...(bootBundleFile === undefined ? {} : { boot_bundle: fileSource(bootBundleFile) }),
  };
}

export function parseOperator(value: string | undefined): Address | undefined {
  if (value === undefined) return undefined;
  if (!isAddress(value)) throw new Error(`--operator ${value}: must be 0x and 40 hex characters`);
  return value.toLowerCase() as Address;
}

/** Starts the service from command-line flags; resolves once it listens (the READY line written). */
export async function onboardingCommand(
  argv: string[],
  out: (line: string) => void = (l) => process.stdout.write(l),
  /** Called once the service closed because an actor gave up (src/onboarding/main.ts exits 1). */
  onHalt?: (err: unknown) => void,
): Promise<OnboardingService | undefined> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out(`usage: npm run onboarding -- --network devnet|testnet|GENESIS_FILE [flags]\n${usage(ONBOARDING_FLAGS)}\n`);
    return undefined;
  }
  const f = parseFlags(argv, ONBOARDING_FLAGS);
  if (f.network === undefined) throw new Error('--network devnet|testnet|GENESIS_FILE is required');
  if (f.port !== undefined && f['onboarding-port'] !== undefined && f.port !== f['onboarding-port']) {
    throw new Error(`--port ${f.port} and --onboarding-port ${f['onboarding-port']} disagree; give one`);
  }
  const port: number = f.port ?? f['onboarding-port'] ?? ONBOARDING_PORT_DEFAULT;
  const operator = parseOperator(f.operator);
  const { binding, genesis, source } = resolveNetwork(f.network);
  const dataDir = resolve(f['data-dir'] ?? `data/onboarding-${binding.network}`);
  const log = createLogger({ level: f['log-level'], name: `onboarding-${binding.network}` });
  const register = f.node === undefined ? undefined : { chainId: genesis.chainId, params: genesisParams(genesis), blockTimeMs: genesis.consensus.blockTimeMs, nodeUrl: f.node };
  const artifacts = onboardingArtifacts(source, resolve(f.binary), f['boot-bundle'] === undefined ? undefined : resolve(f['boot-bundle']));
  // devnet and testnet are the repository's files, which the single-file build carries as
  // text (src/genesis/repo-files.ts): serve that text, not a file named after its source.
  if (f.network === 'devnet' || f.network === 'testnet') artifacts.genesis = { name: `${f.network}.json`, bytes: utf8.encode(repoGenesisText(f.network).text) };
  if (artifacts.boot_bundle === undefined && f.bootstrap !== undefined) {
    if (f.node === undefined) throw new Error('--bootstrap builds the boot bundle, which names the network\'s API: give --node URL too');
    if (f['public-url'] === undefined && port === 0) throw new Error('--port 0 with --bootstrap: give --public-url, the address the boot bundle names for this service');
    artifacts.boot_bundle = bootBundleSource({
      network: binding.network,
      chainId: binding.chainId,
      genesisHash: binding.genesisHash,
      bootstrap: f.bootstrap.split(',').map((a: string) => a.trim()).filter((a: string) => a !== ''),
      apiUrl: f.node,
      onboardingUrl: f['public-url'] ?? `http://${f.host}:${port}`,
    });
  }
  const operatorKey = f['operator-key'] === undefined ? undefined : readOperatorKey(resolve(f['operator-key']));
  const service = await startOnboardingService({ dataDir, binding, log, host: f.host, port, operator, operatorKey, artifacts, register, onHalt });
  log.info({ address: service.address, dataDir }, 'onboarding service listening');
  out(`READY onboarding ${binding.network} chainId=${binding.chainId} genesis=${binding.genesisHash} api=${service.address} data=${dataDir} operator=${service.operator}\n`);
  return service;
}
