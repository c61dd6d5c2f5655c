/**
 * A local external EVM chain for the bridge: the `hardhat` npm package's node (hardhat
 * 2), offline, on 127.0.0.1, run with this process's Node. Hardhat only runs from a
 * project that installs it, so its config lives inside the repository
 * (data/bridge/hardhat/hardhat.config.cjs, gitignored, written here; the chain id comes
 * through the environment so one config serves every port). The development accounts
 * are hardhat's defaults (mnemonic "test test … junk", 10 000 ETH each), unlocked in the
 * node: `eth_accounts` lists them. Automining: each transaction is its own block; with
 * `miningIntervalMs` the node also mines a block every that many milliseconds with or
 * without transactions (hardhat's `mining: {auto: true, interval}`), so the bridge's
 * confirmations and the external clock (block timestamps, which withdrawals' validUntil
 * is measured against) advance on an idle chain. The node is started with a small preload
 * (data/bridge/hardhat/exit-with-parent.cjs) that ends it when the process that started it
 * is gone, so even a SIGKILLed launcher or test run leaves no chain holding its port. It
 * runs in its own process group, so a terminal's Ctrl-C goes to the process that started
 * it, which stops it after what depends on it (the launcher: after the validators).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './contracts';

const HARDHAT_DIR = join(REPO_ROOT, 'data', 'bridge', 'hardhat');
const HARDHAT_CLI = join(REPO_ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
const CONFIG = `// Written by src/bridge/devchain.ts: the bridge's local external chain (hardhat node).
const intervalMs = Number(process.env.BRIDGE_MINING_INTERVAL_MS || 0);
module.exports = {
  networks: {
    hardhat: {
      chainId: Number(process.env.BRIDGE_CHAIN_ID || 31337),
      ...(intervalMs > 0 ? { mining: { auto: true, interval: intervalMs } } : {}),
    },
  },
};
`;
// Loaded into the hardhat node with --require: its parent gone (re-parented), it exits.
const EXIT_WITH_PARENT = `// Written by src/bridge/devchain.ts: the hardhat node ends when the process that started it is gone.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 500).unref();
`;
/** Hardhat nodes still running: killed if this process exits without stopping them (a crashed test run), so none is left holding a port. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/** Hardhat's default chain id. */
export const HARDHAT_CHAIN_ID = 31337;

export interface DevChain {
  rpcUrl: string;
  chainId: number;
  /** Milliseconds between blocks mined without transactions; 0: a block only per transaction. */
  miningIntervalMs: number;
  proc: ChildProcess;
  /** Stops the node (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a hardhat node on 127.0.0.1:`port`; resolves once it listens (or rejects after
 * `startTimeoutMs`). `miningIntervalMs` > 0 adds interval mining (default 0: automining only).
 */
export async function startDevChain(opts: { port: number; chainId?: number; miningIntervalMs?: number; startTimeoutMs?: number }): Promise<DevChain> {
  const chainId = opts.chainId ?? HARDHAT_CHAIN_ID;
  const miningIntervalMs = opts.miningIntervalMs ?? 0;
  if (!Number.isSafeInteger(miningIntervalMs) || miningIntervalMs < 0) throw new RangeError(`miningIntervalMs must be a non-negative integer: ${miningIntervalMs}`);
  mkdirSync(HARDHAT_DIR, { recursive: true });
  writeFileSync(join(HARDHAT_DIR, 'hardhat.config.cjs'), CONFIG);
  writeFileSync(join(HARDHAT_DIR, 'exit-with-parent.cjs'), EXIT_WITH_PARENT);
  const proc = spawn(process.execPath, ['--require', join(HARDHAT_DIR, 'exit-with-parent.cjs'), HARDHAT_CLI, 'node', '--hostname', '127.0.0.1', '--port', String(opts.port)], {
    cwd: HARDHAT_DIR,
    env: { ...process.env, BRIDGE_CHAIN_ID: String(chainId), BRIDGE_MINING_INTERVAL_MS: String(miningIntervalMs), HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C reaches the process that started it, which stops it in its order.
    detached: true,
  });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  const rpcUrl = `http://127.0.0.1:${opts.port}/`;
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`hardhat node did not start within ${opts.startTimeoutMs ?? 30_000} ms:\n${output}`));
    }, opts.startTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Started HTTP and WebSocket JSON-RPC server')) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hardhat node exited (code ${code}) before listening:\n${output}`));
    });
  });
  // Keep draining its output (each request is logged) so the pipe never fills and blocks it.
  proc.stdout!.resume();
  proc.stderr!.resume();
  return {
    rpcUrl,
    chainId,
    miningIntervalMs,
    proc,
    stop: (graceMs = 3_000) =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}
