/**
 * The deploy bound to the genesis (decision 82) and the devchain's interval mining, on real
 * hardhat nodes: with a genesis `bridge` section, the deploy lands TestUSDC and the bridge
 * at exactly the genesis's addresses on the genesis's chain, funds every validator with
 * 100 ETH for relaying gas, and refuses before sending anything a used chain, another chain
 * id, or a dispute period that leaves no time within the withdrawal window. With
 * `miningIntervalMs` blocks (and the external clock) advance with no transaction at all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, getAddress, http, parseEther, type Address } from 'viem';
import { deployBridge, defaultDisputePeriodSec, genesisBridgeSection } from '../../src/bridge/deploy';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { freePort } from '../../src/cli/launcher';
import { loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { ROOT } from '../helpers/devnet';
import { revertEachTest } from './fixtures';

/** Hardhat's deterministic addresses for the first development account's nonces 0 and 1 (the design's devnet bridge). */
const DEVNET_USDC = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const DEVNET_BRIDGE = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const base = loadGenesisFile(join(ROOT, 'genesis', 'devnet.json'));

/** The devnet genesis with the given bridge section (built here so the test holds whether or not genesis/devnet.json has one yet). */
function withBridge(section: Record<string, unknown>): Genesis {
  return { ...base, bridge: { externalChainId: 31337, address: DEVNET_BRIDGE, usdc: DEVNET_USDC, confirmations: 2, withdrawalWindowMs: 600_000, ...section } } as unknown as Genesis;
}

const chains: DevChain[] = [];
afterAll(async () => {
  await Promise.all(chains.map((c) => c.stop()));
});

describe('deploying against a genesis that names the bridge', () => {
  let chain: DevChain;
  beforeAll(async () => {
    chain = await startDevChain({ port: await freePort() });
    chains.push(chain);
  }, 60_000);
  // Each test starts from the fresh chain (deployer nonce 0): a snapshot reverted to after it.
  revertEachTest(() => chain.rpcUrl);

  const pub = () => createPublicClient({ transport: http(chain.rpcUrl) });
  const deployerNonce = async () => pub().getTransactionCount({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' });

  it('refuses, sending nothing, another chain id or a dispute period as long as the withdrawal window', async () => {
    await expect(deployBridge({ rpcUrl: chain.rpcUrl, genesis: withBridge({ externalChainId: 1 }) })).rejects.toThrow(
      /refusing to deploy: .* is chain 31337, the genesis binds the bridge to chain 1/,
    );
    await expect(deployBridge({ rpcUrl: chain.rpcUrl, genesis: withBridge({}), disputePeriodSec: 600n })).rejects.toThrow(
      /dispute period of 600 s is not shorter than the genesis withdrawal window \(600000 ms\)/,
    );
    expect(await deployerNonce()).toBe(0);
  });

  it('a fresh chain: the contracts land at the genesis addresses, every validator gets 100 ETH', async () => {
    const genesis = withBridge({});
    expect(genesisBridgeSection(genesis)).toEqual({ externalChainId: 31337, address: getAddress(DEVNET_BRIDGE), usdc: getAddress(DEVNET_USDC), withdrawalWindowMs: 600_000 });
    expect(defaultDisputePeriodSec(genesis)).toBe(150n); // a quarter of the 10-minute window
    const d = await deployBridge({ rpcUrl: chain.rpcUrl, genesis });
    expect([d.chainId, d.usdc, d.bridge]).toEqual([31337, getAddress(DEVNET_USDC), getAddress(DEVNET_BRIDGE)]);
    const client = pub();
    const disputePeriod = await client.readContract({
      address: d.bridge,
      abi: [{ type: 'function', name: 'disputePeriod', inputs: [], outputs: [{ type: 'uint256' }], stateMutability: 'view' }],
      functionName: 'disputePeriod',
    });
    expect(disputePeriod).toBe(150n);
    for (const v of base.validators) expect(await client.getBalance({ address: getAddress(v.address) })).toBe(parseEther('100'));
    // The validators' keys (genesis/devnet-keys.json) are the funded accounts: they can pay gas.
    const keys = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet-keys.json'), 'utf8')) as { validators: { address: Address }[] };
    expect(keys.validators.map((v) => v.address.toLowerCase()).sort()).toEqual(base.validators.map((v) => v.address.toLowerCase()).sort());
  });

  it('refuses a chain already used: the next contracts would not land at the genesis addresses', async () => {
    // Used: the bridge deployed once already.
    await deployBridge({ rpcUrl: chain.rpcUrl, genesis: withBridge({}) });
    const nonce = await deployerNonce();
    await expect(deployBridge({ rpcUrl: chain.rpcUrl, genesis: withBridge({}) })).rejects.toThrow(
      new RegExp(`refusing to deploy: the genesis names USDC ${getAddress(DEVNET_USDC)} and the bridge ${getAddress(DEVNET_BRIDGE)}, but deployer 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \\(nonce ${nonce}\\) .*this chain has been used already`),
    );
    expect(await deployerNonce()).toBe(nonce);
    // A genesis without a bridge section binds nothing: deploying again is allowed (tests, by hand).
    const { bridge: _none, ...unbound } = withBridge({}) as Genesis & { bridge?: unknown };
    const again = await deployBridge({ rpcUrl: chain.rpcUrl, genesis: unbound as Genesis, validatorFundingWei: 0n });
    expect(again.bridge).not.toBe(getAddress(DEVNET_BRIDGE));
  });
});

describe('the devchain with interval mining', () => {
  it('mines blocks, and moves block time, with no transaction sent', async () => {
    const chain = await startDevChain({ port: await freePort(), miningIntervalMs: 250 });
    chains.push(chain);
    expect(chain.miningIntervalMs).toBe(250);
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const first = await client.getBlock();
    // Waits for four blocks and a later second on the chain's clock, however long the machine takes (the test's timeout bounds it).
    let later = first;
    while (later.number - first.number < 4n || later.timestamp <= first.timestamp) {
      await new Promise((r) => setTimeout(r, 100));
      later = await client.getBlock();
    }
    expect(later.number - first.number).toBeGreaterThanOrEqual(4n);
    expect(later.timestamp).toBeGreaterThan(first.timestamp);
    expect(later.transactions.length).toBe(0);
    expect(await client.getTransactionCount({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' })).toBe(0);
    await chain.stop();
  }, 30_000);
});
