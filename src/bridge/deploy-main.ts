/**
 * `npm run bridge:deploy -- --rpc URL [--genesis FILE] [--out FILE] [--dispute-period-sec N]`:
 * deploys TestUSDC and ExchangeBridge on the external chain at URL (deploy.ts) and writes
 * {chainId, rpcUrl, bridge, usdc, deployBlock} to --out (default data/bridge/devnet.json,
 * docs/bridge.md); prints the same object as one JSON line. When the genesis has a
 * `bridge` section, the deploy refuses (exit 1, the reason on stderr) a chain or deployer
 * that would not give the genesis's chain id and addresses.
 */
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { loadGenesisFile } from '../genesis/load';
import { defaultDisputePeriodSec, deployBridge, writeDeployment } from './deploy';

const FLAGS = {
  rpc: { type: 'string', help: "the external chain's JSON-RPC URL (required), e.g. http://127.0.0.1:8545" },
  genesis: { type: 'string', default: 'genesis/devnet.json', help: 'the genesis whose validators and owners the bridge takes' },
  out: { type: 'string', default: 'data/bridge/devnet.json', help: 'where to write the deployment' },
  'dispute-period-sec': {
    type: 'int',
    help: 'seconds a queued withdrawal waits before it can be paid (default: 86400, or a quarter of the genesis bridge withdrawal window)',
  },
} satisfies FlagSpec;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run bridge:deploy -- --rpc URL [flags]\n${usage(FLAGS)}\n`);
    return;
  }
  const f = parseFlags(argv, FLAGS);
  if (!f.rpc) throw new Error('--rpc URL is required');
  const genesis = loadGenesisFile(f.genesis);
  const disputePeriodSec = f['dispute-period-sec'] !== undefined ? BigInt(f['dispute-period-sec']) : defaultDisputePeriodSec(genesis);
  const d = await deployBridge({ rpcUrl: f.rpc, genesis, disputePeriodSec });
  writeDeployment(f.out, d);
  process.stdout.write(`${JSON.stringify(d)}\n`);
}

main().catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
