/**
 * Deploys the bridge on an external EVM chain (decision 81, docs/bridge.md): TestUSDC,
 * then ExchangeBridge bound to the exchange chain (its chain id and genesis hash, decision
 * 150) with the genesis validators (powers = their bonds in wei, as the exchange chain's
 * voting power) and the genesis owners (their 2-of-3 threshold), then
 * mints test USDC to each of the chain's development accounts (`eth_accounts`: hardhat's
 * unlocked defaults), then funds every genesis validator's address with ETH (100 by
 * default: a validator's key is also its external account, which pays the relaying gas).
 * The deployer is the first development account. Returns what the node needs to watch the
 * bridge: {chainId, rpcUrl, bridge, usdc, deployBlock}.
 *
 * When the genesis names a bridge (its `bridge` section, decision 82), the chain a network
 * honours is fixed before anything is deployed: the deploy refuses, before sending any
 * transaction, an RPC on another chain id or a deployer whose next two contracts would not
 * land at the genesis's USDC and bridge addresses (a chain already used, another deployer),
 * and a dispute period that leaves no time to pay within the genesis withdrawal window; it
 * checks the addresses again once deployed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createPublicClient, createWalletClient, getAddress, http, parseEther, type Address, type Hex } from 'viem';
import { genesisHashHex } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { bridgeAddressesAt } from './addresses';
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
  /** ETH (wei) sent to each genesis validator's address (default 100 ETH). */
  validatorFundingWei?: bigint;
}

const DEFAULT_DISPUTE_PERIOD_SEC = 86_400n;
const DEFAULT_MINT_PER_ACCOUNT = 1_000_000n * 10n ** 6n;
const DEFAULT_VALIDATOR_FUNDING_WEI = parseEther('100');

/**
 * The genesis `bridge` section the deploy checks against (decision 82; the loader
 * validated it), with the addresses checksummed as viem gives them.
 */
export interface GenesisBridgeSection {
  externalChainId: number;
  address: Address;
  usdc: Address;
  withdrawalWindowMs: number;
}

/** The genesis's bridge section, or undefined when the network has no bridge. */
export function genesisBridgeSection(genesis: Genesis): GenesisBridgeSection | undefined {
  const b = genesis.bridge;
  if (!b) return undefined;
  return { externalChainId: b.externalChainId, address: getAddress(b.address), usdc: getAddress(b.usdc), withdrawalWindowMs: b.withdrawalWindowMs };
}

/**
 * The dispute period a deploy uses when none is given: one day, or, when the genesis names
 * a bridge, a quarter of its withdrawal window (leaving the rest for signing, queueing and
 * paying: a withdrawal is refused by the contract after its validUntil).
 */
export function defaultDisputePeriodSec(genesis: Genesis): bigint {
  const section = genesisBridgeSection(genesis);
  if (!section) return DEFAULT_DISPUTE_PERIOD_SEC;
  return BigInt(Math.floor(section.withdrawalWindowMs / 4 / 1000));
}

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
  const disputePeriodSec = opts.disputePeriodSec ?? defaultDisputePeriodSec(opts.genesis);

  // The genesis binding, checked before any transaction is sent.
  const expected = genesisBridgeSection(opts.genesis);
  if (expected) {
    if (chainId !== expected.externalChainId) {
      throw new Error(`refusing to deploy: ${opts.rpcUrl} is chain ${chainId}, the genesis binds the bridge to chain ${expected.externalChainId}`);
    }
    const nonce = BigInt(await pub.getTransactionCount({ address: deployer, blockTag: 'pending' }));
    const { usdc: wouldUsdc, bridge: wouldBridge } = bridgeAddressesAt(deployer, nonce);
    if (wouldUsdc !== expected.usdc || wouldBridge !== expected.address) {
      throw new Error(
        `refusing to deploy: the genesis names USDC ${expected.usdc} and the bridge ${expected.address}, but deployer ${deployer} (nonce ${nonce}) ` +
          `would deploy them at ${wouldUsdc} and ${wouldBridge}` +
          (nonce > 0n ? ': this chain has been used already (deploy on a fresh chain)' : ': another deployer account'),
      );
    }
    if (disputePeriodSec * 1000n >= BigInt(expected.withdrawalWindowMs)) {
      throw new Error(
        `refusing to deploy: a dispute period of ${disputePeriodSec} s is not shorter than the genesis withdrawal window (${expected.withdrawalWindowMs} ms): no withdrawal could be paid before its validUntil`,
      );
    }
  }

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
      args: [usdc.address, disputePeriodSec, ownerSetDelaySec(opts.genesis, disputePeriodSec), BigInt(opts.genesis.chainId), genesisHashHex(opts.genesis), validators, powers, owners, threshold],
    }),
  );
  if (expected && (usdc.address !== expected.usdc || bridge.address !== expected.address)) {
    throw new Error(`deployed USDC ${usdc.address} and bridge ${bridge.address}, but the genesis names ${expected.usdc} and ${expected.address}`);
  }
  const mint = opts.mintPerAccount ?? DEFAULT_MINT_PER_ACCOUNT;
  for (const account of accounts) {
    await succeeded(
      await wallet.writeContract({ chain, address: usdc.address, abi: artifacts.TestUSDC.abi, functionName: 'mint', args: [getAddress(account), mint] }),
    );
  }
  const funding = opts.validatorFundingWei ?? DEFAULT_VALIDATOR_FUNDING_WEI;
  if (funding > 0n) {
    for (const v of validators) await succeeded(await wallet.sendTransaction({ chain, to: v, value: funding }));
  }
  return { chainId, rpcUrl: opts.rpcUrl, bridge: bridge.address, usdc: usdc.address, deployBlock: bridge.block };
}

/** Writes the deployment as one JSON object (creating the folder). */
export function writeDeployment(file: string, d: BridgeDeployment): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(d, null, 2)}\n`);
}

/**
 * Seconds a validator set proposed by the bridge's owners waits on the contract (decision
 * 153): a custody change, so the genesis's high-impact timelock (7 days on every network
 * this repository ships), rounded up to whole seconds, and never less than the dispute period.
 */
export function ownerSetDelaySec(genesis: Genesis, disputePeriodSec: bigint): bigint {
  const timelock = (BigInt(genesis.consensus.timelockHighImpactMs) + 999n) / 1000n;
  return timelock > disputePeriodSec ? timelock : disputePeriodSec;
}
