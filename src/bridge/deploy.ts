/**
 * Deploys the bridge on an external EVM chain (decision 81, docs/bridge.md): TestUSDC,
 * then ExchangeBridge with the genesis validators (powers = their bonds in wei, as the
 * exchange chain's voting power) and the genesis owners (their 2-of-3 threshold), then
 * mints test USDC to each of the chain's development accounts (`eth_accounts`: hardhat's
 * unlocked defaults). The deployer is the first development account. Returns what the
 * node needs to watch the bridge: {chainId, rpcUrl, bridge, usdc, deployBlock}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import type { Genesis } from '../genesis/types';
import { contractArtifacts } from './contracts';

/** What the deploy writes (data/bridge/devnet.json by default) and the node reads (a later slice of issue 22). */
export interface BridgeDeployment {
  /** The external chain's id (eth_chainId). */
  chainId: number;
  /** Its JSON-RPC endpoint. */
  rpcUrl: string;
  /** The ExchangeBridge contract. */
  bridge: Address;
  /** The USDC token the bridge holds (TestUSDC here). */
  usdc: Address;
  /** The block the bridge was deployed in: a watcher scans its events from here. */
  deployBlock: number;
}

export interface DeployOptions {
  rpcUrl: string;
  genesis: Genesis;
  /** Seconds between queueing a withdrawal and paying it (default one day). */
  disputePeriodSec?: bigint;
  /** Test USDC minted to each development account, in base units (default 1 000 000 USDC). */
  mintPerAccount?: bigint;
}

export const DEFAULT_DISPUTE_PERIOD_SEC = 86_400n;
export const DEFAULT_MINT_PER_ACCOUNT = 1_000_000n * 10n ** 6n;

/** The genesis validators as the contract wants them: ascending address, powers = bond in wei. */
export function bridgeValidatorSet(genesis: Genesis): { validators: Address[]; powers: bigint[] } {
  const rows = genesis.validators
    .map((v) => ({ address: getAddress(v.address), power: BigInt(v.bondWei) }))
    .sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  return { validators: rows.map((r) => r.address), powers: rows.map((r) => r.power) };
}

/** The genesis owners, ascending, and their threshold. */
export function bridgeOwners(genesis: Genesis): { owners: Address[]; threshold: bigint } {
  const owners = genesis.owners.addresses.map((a) => getAddress(a)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  return { owners, threshold: BigInt(genesis.owners.threshold) };
}

export async function deployBridge(opts: DeployOptions): Promise<BridgeDeployment> {
  const artifacts = contractArtifacts();
  const transport = http(opts.rpcUrl);
  const pub = createPublicClient({ transport });
  const chainId = await pub.getChainId();
  const accounts = await createWalletClient({ transport }).getAddresses(); // eth_accounts
  if (accounts.length === 0) throw new Error(`${opts.rpcUrl} has no development account to deploy from (eth_accounts is empty)`);
  const deployer = getAddress(accounts[0]);
  const wallet = createWalletClient({ transport, account: deployer });
  const chain = { id: chainId, name: `external-${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } };

  const deployed = async (hash: Hex): Promise<{ address: Address; block: number }> => {
    const r = await pub.waitForTransactionReceipt({ hash });
    if (r.status !== 'success' || !r.contractAddress) throw new Error(`deployment ${hash} failed`);
    return { address: getAddress(r.contractAddress), block: Number(r.blockNumber) };
  };
  const succeeded = async (hash: Hex): Promise<void> => {
    const r = await pub.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  };

  const usdc = await deployed(
    await wallet.deployContract({ chain, abi: artifacts.TestUSDC.abi, bytecode: artifacts.TestUSDC.bytecode, args: [] }),
  );
  const { validators, powers } = bridgeValidatorSet(opts.genesis);
  const { owners, threshold } = bridgeOwners(opts.genesis);
  const bridge = await deployed(
    await wallet.deployContract({
      chain,
      abi: artifacts.ExchangeBridge.abi,
      bytecode: artifacts.ExchangeBridge.bytecode,
      args: [usdc.address, opts.disputePeriodSec ?? DEFAULT_DISPUTE_PERIOD_SEC, validators, powers, owners, threshold],
    }),
  );
  const mint = opts.mintPerAccount ?? DEFAULT_MINT_PER_ACCOUNT;
  for (const account of accounts) {
    await succeeded(
      await wallet.writeContract({ chain, address: usdc.address, abi: artifacts.TestUSDC.abi, functionName: 'mint', args: [getAddress(account), mint] }),
    );
  }
  return { chainId, rpcUrl: opts.rpcUrl, bridge: bridge.address, usdc: usdc.address, deployBlock: bridge.block };
}

/** Writes the deployment as one JSON object (creating the folder). */
export function writeDeployment(file: string, d: BridgeDeployment): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(d, null, 2)}\n`);
}
