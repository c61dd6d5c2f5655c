/**
 * `npm run bridge:chain -- [--port 8545] [--chain-id 31337] [--interval-ms 0]`: runs the
 * bridge's local external chain (devchain.ts: hardhat's node on 127.0.0.1) in the
 * foreground until Ctrl-C, for `npm run bridge:deploy` and manual use (docs/bridge.md).
 * `--interval-ms N` also mines a block every N ms without transactions. Prints one JSON
 * line {rpcUrl, chainId, miningIntervalMs} once it listens.
 */
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { HARDHAT_CHAIN_ID, startDevChain } from './devchain';

const FLAGS = {
  port: { type: 'int', default: 8545, help: 'the JSON-RPC port on 127.0.0.1' },
  'chain-id': { type: 'int', default: HARDHAT_CHAIN_ID, help: "the external chain's id" },
  'interval-ms': { type: 'int', default: 0, help: 'also mine a block every N ms without transactions (0: a block per transaction only)' },
} satisfies FlagSpec;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run bridge:chain -- [flags]\n${usage(FLAGS)}\n`);
    return;
  }
  const f = parseFlags(argv, FLAGS);
  const chain = await startDevChain({ port: f.port, chainId: f['chain-id'], miningIntervalMs: f['interval-ms'] });
  process.stdout.write(`${JSON.stringify({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, miningIntervalMs: chain.miningIntervalMs })}\n`);
  let stopping = false;
  const stop = (): void => {
    stopping = true;
    void chain.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  chain.proc.once('exit', (code) => {
    if (stopping) return;
    process.stderr.write(`error: the hardhat node exited (code ${code})\n`);
    process.exit(1);
  });
}

main().catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
