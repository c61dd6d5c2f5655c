/**
 * `npm run onboarding -- --network devnet|testnet|GENESIS_FILE [--data-dir DIR] [--host H]
 * [--port N | --onboarding-port N] [--node URL]`: runs the onboarding service alone (decision 75) for
 * one network, over its LevelDB in DIR (default data/onboarding-<network>), until SIGINT
 * or SIGTERM. Prints one line when it listens:
 *   READY onboarding <network> chainId=<id> genesis=<hash> api=http://host:port data=<dir>
 * `npm start` does not start it yet (docs/onboarding.md).
 */
import { resolve } from 'node:path';
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { resolveNetwork } from '../cli/init';
import { genesisParams } from '../state/genesis';
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
  node: { type: 'string', help: "the network's node REST URL that POST /api/validators/register checks sync against and submits to (without it, register is not served)" },
  'log-level': { type: 'string', default: 'info', help: 'trace|debug|info|warn|error|fatal|silent' },
} satisfies FlagSpec;

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
  const { binding, genesis } = resolveNetwork(f.network);
  const dataDir = resolve(f['data-dir'] ?? `data/onboarding-${binding.network}`);
  const log = createLogger({ level: f['log-level'], name: `onboarding-${binding.network}` });
  const register = f.node === undefined ? undefined : { chainId: genesis.chainId, params: genesisParams(genesis), blockTimeMs: genesis.consensus.blockTimeMs, nodeUrl: f.node };
  const service = await startOnboardingService({ dataDir, binding, log, host: f.host, port, register });
  log.info({ address: service.address, dataDir }, 'onboarding service listening');
  out(`READY onboarding ${binding.network} chainId=${binding.chainId} genesis=${binding.genesisHash} api=${service.address} data=${dataDir}\n`);
  return service;
}
