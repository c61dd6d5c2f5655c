/**
 * `npm run onboarding -- --network devnet|testnet|GENESIS_FILE [--data-dir DIR] [--host H]
 * [--port N | --onboarding-port N] [--operator 0xADDR] [--binary FILE] [--boot-bundle FILE]`:
 * runs the onboarding service alone (decisions 75, 78) for one network, over its LevelDB
 * in DIR (default data/onboarding-<network>), until SIGINT or SIGTERM. It serves the
 * network's genesis file, the node binary (default dist/exchange-node.mjs, made by `npm
 * run build`; absent, the start is refused) and the boot bundle when given. Prints one
 * line when it listens:
 *   READY onboarding <network> chainId=<id> genesis=<hash> api=http://host:port data=<dir> operator=<address>
 * `npm start` runs the same service beside the devnet (src/cli/launcher.ts).
 */
import { resolve } from 'node:path';
import { isAddress, type Address } from '../util/bytes';
import { binarySource, BINARY_PATH_DEFAULT, fileSource, type ArtifactSources } from './artifacts';
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { resolveNetwork } from '../cli/init';
import { createLogger } from '../util/log';
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
  operator: { type: 'string', help: "the operator's address, whose signed requests the review routes accept (default: devnet owner-1 on devnet, the testnet operator on testnet)" },
  binary: { type: 'string', default: BINARY_PATH_DEFAULT, help: 'the node binary served (npm run build makes it)' },
  'boot-bundle': { type: 'string', help: 'the boot bundle served (without it: not served, 503)' },
  'log-level': { type: 'string', default: 'info', help: 'trace|debug|info|warn|error|fatal|silent' },
} satisfies FlagSpec;

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
export async function onboardingCommand(argv: string[], out: (line: string) => void = (l) => process.stdout.write(l)): Promise<OnboardingService | undefined> {
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
  const { binding, source } = resolveNetwork(f.network);
  const dataDir = resolve(f['data-dir'] ?? `data/onboarding-${binding.network}`);
  const log = createLogger({ level: f['log-level'], name: `onboarding-${binding.network}` });
  const artifacts = onboardingArtifacts(source, resolve(f.binary), f['boot-bundle'] === undefined ? undefined : resolve(f['boot-bundle']));
  const service = await startOnboardingService({ dataDir, binding, log, host: f.host, port, operator, artifacts });
  log.info({ address: service.address, dataDir }, 'onboarding service listening');
  out(`READY onboarding ${binding.network} chainId=${binding.chainId} genesis=${binding.genesisHash} api=${service.address} data=${dataDir} operator=${service.operator}\n`);
  return service;
}
