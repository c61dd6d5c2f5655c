/**
 * `npm start -- --with-bridge` (issue 22 item 5, decision 86): the devnet's external chain
 * beside its validators. Before any validator starts: a hardhat node (src/bridge/devchain.ts)
 * on 127.0.0.1:--bridge-port (8645) with interval mining (a block a second, so
 * confirmations and the external clock advance with no transaction), the bridge deployed
 * on it bound to the running genesis (src/bridge/deploy.ts: chain id and addresses checked
 * against genesis.bridge, the genesis validators as the contract's set, each funded with
 * 100 ETH for relaying gas) with a dispute period of --bridge-dispute-period-sec (60 s on
 * the devnet), and the deployment file written to <data>/bridge.json, which every
 * validator then gets as `--bridge FILE`.
 *
 * The hardhat chain lives in memory: it is gone when the launcher stops. An exchange chain
 * that ran beside one (its data folder holds both validator data and a bridge.json) has
 * credited deposit ids and queued withdrawals a fresh chain knows nothing of: deposit ids
 * would start from 0 again (already credited here, so the new deposits would never be), and
 * the vault there would not hold what this chain owes. So such a data folder is refused,
 * loudly, with what to do; it is never wiped.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deployBridge, writeDeployment, type BridgeDeployment } from '../bridge/deploy';
import { startDevChain, type DevChain } from '../bridge/devchain';
import type { Genesis } from '../genesis/types';

/** The devchain's JSON-RPC port by default: clear of the validators' REST ports (8545 + i − 1), their session (9001 + 10i) and libp2p (9000 + 10i) ports and the onboarding service (8080). */
export const BRIDGE_PORT_DEFAULT = 8645;
/** The devnet's dispute period: long enough to pause the bridge by hand, short enough to see a withdrawal paid while watching. */
export const DEVNET_DISPUTE_PERIOD_SEC = 60;
/** A block every second on the idle devchain. */
const DEVNET_MINING_INTERVAL_MS = 1_000;

/** Where the launcher writes the deployment in a network's data folder. */
export function bridgeDeploymentPath(base: string): string {
  return join(base, 'bridge.json');
}

/** True when a validator's folder holds more than its log (and the deployment file, in a single node's folder): a chain was run there. */
function holdsChain(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((name) => name !== 'node.log' && name !== 'bridge.json');
}

/**
 * Refuses (throws, saying what to do) a data folder whose exchange chain ran beside a
 * devchain of an earlier `--with-bridge` run: that devchain lived in memory and is gone.
 * The chain's folders are `base`'s validator-<i> folders (a local network), or those given
 * (a single node's).
 */
export function checkBridgeDataFolder(base: string, chainDirs?: string[]): void {
  const file = bridgeDeploymentPath(base);
  if (!existsSync(file)) return;
  const dirs =
    chainDirs ??
    readdirSync(base)
      .filter((name) => /^validator-[0-9]+$/.test(name))
      .map((name) => join(base, name));
  if (!dirs.some(holdsChain)) return;
  throw new Error(
    `${base} holds an exchange chain that ran beside a bridge devchain (${file}). That hardhat chain lived in memory and is gone; ` +
      `a fresh one would be behind this chain (deposit ids from 0 again, its withdrawals unknown there), so deposits could be lost. ` +
      `Remove the data folder to start both afresh (rm -rf ${base}), start with another --data-dir, or start without --with-bridge to keep this chain without a bridge.`,
  );
}

export interface BridgeDevnet {
  chain: DevChain;
  deployment: BridgeDeployment;
  /** The deployment file each validator gets as --bridge. */
  file: string;
  /** The contract's dispute period. */
  disputePeriodSec: number;
}

/** The line printed once the devchain is up and the bridge deployed. */
export function bridgeDevnetLine(d: BridgeDevnet): string {
  return (
    `bridge devchain ${d.chain.rpcUrl} (chain ${d.deployment.chainId}, a block every ${d.chain.miningIntervalMs} ms): ` +
    `bridge ${d.deployment.bridge}, USDC ${d.deployment.usdc}, dispute period ${d.disputePeriodSec} s; deployment ${d.file}\n`
  );
}

/**
 * Starts the devchain and deploys the bridge for the network of `genesis` (already trimmed
 * to the validators that run, so the contract's set is theirs) whose data folder is `base`.
 * The caller resolves a port of 0 to a free one (launcher.ts's freePort).
 */
export async function startBridgeDevnet(p: {
  genesis: Genesis;
  base: string;
  /** A single node's data folder (default: base's validator-<i> folders). */
  chainDirs?: string[];
  port: number;
  disputePeriodSec: number;
  miningIntervalMs?: number;
}): Promise<BridgeDevnet> {
  const section = p.genesis.bridge;
  if (!section) throw new Error(`--with-bridge: the genesis of ${p.genesis.network} has no bridge section (genesis/devnet.json has one)`);
  checkBridgeDataFolder(p.base, p.chainDirs);
  const port = p.port;
  let chain: DevChain;
  try {
    chain = await startDevChain({ port, chainId: section.externalChainId, miningIntervalMs: p.miningIntervalMs ?? DEVNET_MINING_INTERVAL_MS });
  } catch (err) {
    throw new Error(`the bridge's devchain did not start on 127.0.0.1:${port} (--bridge-port N for another port, 0 for any free one): ${(err as Error).message}`);
  }
  try {
    const deployment = await deployBridge({ rpcUrl: chain.rpcUrl, genesis: p.genesis, disputePeriodSec: BigInt(p.disputePeriodSec) });
    const file = bridgeDeploymentPath(p.base);
    writeDeployment(file, deployment);
    return { chain, deployment, file, disputePeriodSec: p.disputePeriodSec };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}
