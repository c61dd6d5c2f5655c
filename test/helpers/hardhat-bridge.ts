/**
 * A bridge on a real hardhat chain for the contract-level tests (test/bridge/bridge-sets,
 * test/exploits/*): a hardhat node on a free port, TestUSDC and ExchangeBridge deployed by
 * src/bridge/deploy.ts for a genesis (the devnet's six validators of equal power and its
 * owners, 2 of 3, unless the test gives another), and the calls those tests make: send a
 * bridge call and wait for it (rejecting with the contract's error), read a view, move the
 * external clock, sign with validator and owner keys, and a random funded account for a
 * key the genesis does not name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseEther, type Account, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { deployBridge, ownerSetDelaySec, type BridgeDeployment } from '../../src/bridge/deploy';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { ownerActionDigest, signAll, type BridgeDomain } from '../../src/bridge/signatures';
import { freePort } from '../../src/cli/launcher';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { ROOT } from './devnet';

export const DEVNET_BRIDGE_KEYS = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet-keys.json'), 'utf8')) as {
  validators: { address: Address; ecdsaPrivateKey: Hex }[];
  owners: { address: Address; privateKey: Hex }[];
};
export const GENESIS_VALIDATOR_KEYS = DEVNET_BRIDGE_KEYS.validators.map((v) => v.ecdsaPrivateKey);
export const OWNER_KEYS = DEVNET_BRIDGE_KEYS.owners.map((o) => o.privateKey);
export const USDC = 10n ** 6n;
/** A validUntil far after any time these tests reach (2096). */
export const FAR_VALID_UNTIL = 4_000_000_000n;

/**
 * The devnet genesis without its `bridge` section: these tests deploy several bridges on one
 * chain with dispute periods of their own, which a genesis-bound deploy refuses.
 */
export function unboundDevnetGenesis(): Genesis {
  const { bridge: _unbound, ...fields } = loadGenesisFile(join(ROOT, 'genesis', 'devnet.json')) as Genesis & { bridge?: unknown };
  return fields as Genesis;
}

/** Addresses of `keys`, ascending (the contract's order). */
export function ascendingAddresses(keys: readonly Hex[]): Address[] {
  return keys.map((k) => privateKeyToAccount(k).address).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
}

export class HardhatBridge {
  private constructor(
    readonly chain: DevChain,
    readonly dep: BridgeDeployment,
    readonly genesis: Genesis,
    readonly disputePeriodSec: bigint,
    readonly accounts: Address[],
    /** The contract's ownerSetDelay (decision 153: the genesis's high-impact timelock). */
    readonly ownerSetDelaySec: bigint,
  ) {}

  static async start(opts: { genesis?: Genesis; disputePeriodSec?: bigint } = {}): Promise<HardhatBridge> {
    const genesis = opts.genesis ?? unboundDevnetGenesis();
    const disputePeriodSec = opts.disputePeriodSec ?? 3_600n;
    const chain = await startDevChain({ port: await freePort() });
    try {
      const dep = await deployBridge({ rpcUrl: chain.rpcUrl, genesis, disputePeriodSec });
      const b = new HardhatBridge(chain, dep, genesis, disputePeriodSec, [], ownerSetDelaySec(genesis, disputePeriodSec));
      b.accounts.push(...(await b.wallet(getAddress('0x0000000000000000000000000000000000000001')).getAddresses()));
      return b;
    } catch (err) {
      await chain.stop();
      throw err;
    }
  }

  /** Another bridge on the same chain, deployed by the first development account for `genesis`. */
  async deployAnother(genesis: Genesis): Promise<Address> {
    const { ExchangeBridge } = contractArtifacts();
    const { validators, powers, owners, threshold } = await this.sets(this.dep.bridge);
    const hash = await this.wallet(this.accounts[0]).deployContract({
      abi: ExchangeBridge.abi,
      bytecode: ExchangeBridge.bytecode,
      args: [this.dep.usdc, this.disputePeriodSec, this.ownerSetDelaySec, BigInt(genesis.chainId), genesisHashHex(genesis), validators, powers, owners, threshold],
    });
    return getAddress((await this.pub.waitForTransactionReceipt({ hash })).contractAddress!);
  }

  private async sets(bridge: Address) {
    const [validators, powers] = await this.read<[Address[], bigint[]]>('validatorSet', [], bridge);
    const owners = await this.read<Address[]>('owners', [], bridge);
    const threshold = await this.read<bigint>('ownerThreshold', [], bridge);
    return { validators, powers, owners, threshold };
  }

  get domain(): BridgeDomain {
    return this.domainOf(this.dep.bridge, this.genesis);
  }

  domainOf(bridge: Address, genesis: Genesis): BridgeDomain {
    return { chainId: BigInt(this.dep.chainId), bridge, exchangeChainId: BigInt(genesis.chainId), genesisHash: genesisHashHex(genesis) };
  }

  private viemChain() {
    return defineChain({ id: this.dep.chainId, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [this.chain.rpcUrl] } } });
  }

  get pub() {
    return createPublicClient({ chain: this.viemChain(), transport: http(this.chain.rpcUrl) });
  }

  wallet(account: Address | Account) {
    return createWalletClient({ chain: this.viemChain(), transport: http(this.chain.rpcUrl), account });
  }

  /** Sends a bridge call from `from` and waits for its receipt; rejects with the contract's error on a revert. */
  async call(from: Address | Account, functionName: string, args: unknown[], address?: Address): Promise<void> {
    const { ExchangeBridge } = contractArtifacts();
    const hash = await this.wallet(from).writeContract({ address: address ?? this.dep.bridge, abi: ExchangeBridge.abi, functionName, args } as never);
    const r = await this.pub.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`reverted: ${hash}`);
  }

  async read<T>(functionName: string, args: unknown[] = [], address?: Address): Promise<T> {
    const { ExchangeBridge } = contractArtifacts();
    return (await this.pub.readContract({ address: address ?? this.dep.bridge, abi: ExchangeBridge.abi, functionName, args } as never)) as T;
  }

  async usdcBalance(who: Address): Promise<bigint> {
    const { TestUSDC } = contractArtifacts();
    return (await this.pub.readContract({ address: this.dep.usdc, abi: TestUSDC.abi, functionName: 'balanceOf', args: [who] } as never)) as bigint;
  }

  /** `from` approves and deposits `amount` for `recipient`. */
  async deposit(from: Address, recipient: Address, amount: bigint, bridge: Address = this.dep.bridge): Promise<void> {
    const { TestUSDC } = contractArtifacts();
    const hash = await this.wallet(from).writeContract({ address: this.dep.usdc, abi: TestUSDC.abi, functionName: 'approve', args: [bridge, amount] } as never);
    await this.pub.waitForTransactionReceipt({ hash });
    await this.call(from, 'deposit', [recipient, amount], bridge);
  }

  async increaseTime(seconds: bigint): Promise<void> {
    await this.pub.request({ method: 'evm_increaseTime', params: [Number(seconds)] } as never);
    await this.pub.request({ method: 'evm_mine', params: [] } as never);
  }

  async latestTime(): Promise<bigint> {
    return (await this.pub.getBlock()).timestamp;
  }

  /** A fresh key whose account holds 10 ETH (a validator the genesis does not name pays its own gas). */
  async fundedKey(): Promise<Hex> {
    const key = generatePrivateKey();
    await this.pub.request({ method: 'hardhat_setBalance', params: [privateKeyToAccount(key).address, `0x${parseEther('10').toString(16)}`] } as never);
    return key;
  }

  /** Owner signatures of `keys` over `actionHash` at the bridge's current owner nonce. */
  async ownerSigs(keys: readonly Hex[], actionHash: Hex, bridge: Address = this.dep.bridge, d: BridgeDomain = this.domain): Promise<Hex[]> {
    const nonce = await this.read<bigint>('ownerNonce', [], bridge);
    return signAll(keys, ownerActionDigest({ ...d, bridge }, nonce, actionHash));
  }

  async stop(): Promise<void> {
    await this.chain.stop();
  }
}
