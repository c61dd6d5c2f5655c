/**
 * A network built by `genesis new` takes deposits once given its deployment (issue 39
 * item 5; decisions 150 and 152): four operators' keys (`init`), a genesis with
 * `--bridge-deployer` (hardhat's first account) `--bridge-chain-id` naming where that
 * account's next two contracts will land, every key bound to it (`bind`), the bridge
 * deployed there afterwards by `bridge deploy --genesis` on a fresh hardhat chain, and four
 * `start --home` validators each given `--bridge` with the deployment file. A deposit on
 * the external chain is credited on the exchange chain, on every validator, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, type Address, type Hex } from 'viem';
import { cli, startNode, type Proc } from '../../bench/join';
import { contractArtifacts } from '../../src/bridge/contracts';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { readDeploymentFile, type BridgeDeploymentFile } from '../../src/bridge/evm';
import { freePort } from '../../src/cli/launcher';
import { loadGenesisFile } from '../../src/genesis/load';
import { runCli } from '../cli/run-cli';
import { usdcUnits } from '../helpers/bridge-network';
import { tempDir, waitFor } from '../helpers/devnet';

const N = 4;
const USDC = 10n ** 6n;
const EXTERNAL_CHAIN_ID = 31337;
/** Hardhat's first development account: `bridge deploy` deploys from it. */
const HARDHAT_DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const { ExchangeBridge, TestUSDC } = contractArtifacts();

const dir = tempDir('exchain-genesis-new-bridge-');
const genesisFile = join(dir.path, 'genesis.json');
const deploymentFile = join(dir.path, 'bridge.json');
let chain: DevChain | undefined;
let deployment: BridgeDeploymentFile;
const nodes: Proc[] = [];
const urls: string[] = [];

beforeAll(async () => {
  const homes = Array.from({ length: N }, (_, i) => join(dir.path, `v${i + 1}`));
  const p2pPorts: number[] = [];
  for (let i = 0; i < N; i++) p2pPorts.push(await freePort());
  for (const home of homes) cli(['init', '--home', home, '--network', 'testnet']);
  chain = await startDevChain({ port: await freePort(), chainId: EXTERNAL_CHAIN_ID, miningIntervalMs: 1_000 });
  const built = await runCli([
    'genesis', 'new',
    ...homes.flatMap((h, i) => ['--validator', `${join(h, 'node-key.json')},endpoint=127.0.0.1:${p2pPorts[i]}`]),
    '--bridge-deployer', HARDHAT_DEPLOYER, '--bridge-chain-id', String(EXTERNAL_CHAIN_ID), '--bridge-confirmations', '2',
    '--out', genesisFile,
  ]);
  expect(built.code, built.stderr).toBe(0);
  const bootstrap: string[] = JSON.parse(built.stdout).bootstrap;
  for (const home of homes) cli(['bind', '--home', home, '--network', genesisFile]);
  const deployed = await runCli(['bridge', 'deploy', '--genesis', genesisFile, '--rpc', chain.rpcUrl, '--out', deploymentFile]);
  expect(deployed.code, deployed.stderr).toBe(0);
  deployment = readDeploymentFile(deploymentFile);
  for (const [i, home] of homes.entries()) {
    const api = await freePort();
    urls.push(`http://127.0.0.1:${api}`);
    // prettier-ignore
    nodes.push(startNode([
      '--home', home, '--network', genesisFile, '--bootstrap', bootstrap.filter((_, j) => j !== i).join(','),
      '--port', String(api), '--p2p-port', String(p2pPorts[i]), '--session-port', '0', '--no-rate-limit',
      '--bridge', deploymentFile, '--log-level', 'warn',
    ]));
  }
  await waitFor(async () => {
    const heights = await Promise.all(urls.map((u) => fetch(`${u}/status`).then(async (r) => ((await r.json()) as { data: { height: number } }).data.height, () => -1)));
    return heights.every((h) => h >= 3) ? true : undefined;
  }, 90_000, 'blocks from the four validators');
}, 240_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await chain?.stop();
  dir.remove();
}, 60_000);

/** The recipient's free USDC on node `url`, base units (-1 when it does not answer 200). */
async function free(url: string, who: string): Promise<bigint> {
  const res = await fetch(`${url}/v1/account/${who}`, { signal: AbortSignal.timeout(5_000) });
  if (res.status !== 200) return -1n;
  return usdcUnits(((await res.json()) as { data: { freeBalance: string } }).data.freeBalance);
}

describe('a network built by genesis new, given its bridge deployment', () => {
  it('is bound to the deployment its genesis named, and credits a deposit once on every validator', async () => {
    const g = loadGenesisFile(genesisFile);
    expect(g.network).toBe('testnet');
    expect(deployment).toMatchObject({ chainId: EXTERNAL_CHAIN_ID, bridge: g.bridge!.address, usdc: g.bridge!.usdc });

    const external = defineChain({ id: EXTERNAL_CHAIN_ID, name: 'hardhat', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain!.rpcUrl] } } });
    const pub = createPublicClient({ chain: external, transport: http(chain!.rpcUrl) });
    // A development account other than the deployer: `bridge deploy` minted it test USDC.
    const from = getAddress(((await pub.request({ method: 'eth_accounts' } as never)) as string[])[1]);
    const wallet = createWalletClient({ chain: external, transport: http(chain!.rpcUrl), account: from });
    const send = async (address: Address, abi: unknown, functionName: string, args: unknown[]) => {
      const hash: Hex = await wallet.writeContract({ address, abi, functionName, args } as never);
      expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
    };
    const recipient = '0x00000000000000000000000000000000000d0e05';
    const amount = 250n * USDC;
    await send(getAddress(deployment.usdc), TestUSDC.abi, 'approve', [getAddress(deployment.bridge), amount]);
    await send(getAddress(deployment.bridge), ExchangeBridge.abi, 'deposit', [getAddress(recipient), amount]);

    for (const url of urls) await waitFor(async () => ((await free(url, recipient)) === amount ? true : undefined), 60_000, `the deposit credited on ${url}`);
    const reserves = (await (await fetch(`${urls[0]}/reserves`)).json()) as { credited_deposits: string; next_deposit_id: string };
    expect(reserves).toMatchObject({ credited_deposits: String(amount), next_deposit_id: '1' });
  }, 120_000);
});
