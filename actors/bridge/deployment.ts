/**
 * A node's bridge deployment file (`--bridge FILE`, what `npm run bridge:deploy` writes)
 * against the genesis bridge section (decision 84): the file must name the bridge and
 * USDC this network honours, else the node does not start (a watcher of another
 * contract would vote about events that are not this chain's). The chain id the file
 * states is compared too; the endpoint's own answer (eth_chainId) is checked by the
 * bridge actor once it reaches it.
 */
import type { BridgeDeploymentFile } from '../../src/bridge/evm';
import type { Genesis } from '../../src/genesis/types';

/** Throws a message naming both values when the deployment file does not match genesis.bridge. */
export function checkBridgeDeployment(genesis: Genesis, file: BridgeDeploymentFile): void {
  const b = genesis.bridge;
  if (!b) throw new Error(`--bridge: this network (${genesis.network}, chain id ${genesis.chainId}) has no bridge in its genesis; a deployment file has nothing to serve`);
  const mismatch: string[] = [];
  if (file.chainId !== b.externalChainId) mismatch.push(`chainId ${file.chainId} (genesis bridge.externalChainId ${b.externalChainId})`);
  if (file.bridge.toLowerCase() !== b.address.toLowerCase()) mismatch.push(`bridge ${file.bridge} (genesis bridge.address ${b.address})`);
  if (file.usdc.toLowerCase() !== b.usdc.toLowerCase()) mismatch.push(`usdc ${file.usdc} (genesis bridge.usdc ${b.usdc})`);
  if (mismatch.length > 0) {
    throw new Error(`--bridge: the deployment file is not this network's bridge: ${mismatch.join('; ')}. Deploy with --genesis, or pass the file of this network's deployment`);
  }
}
