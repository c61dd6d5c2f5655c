/**
 * A local network of real validator processes (LocalNetwork) beside a real external chain
 * (a hardhat node, src/bridge/devchain.ts) with the bridge deployed on it (src/bridge/deploy.ts),
 * every validator started with `--bridge FILE` (issue 22's end-to-end tests and the bridge
 * bench). The genesis is the devnet's cut to `size` validators, with the bridge section's
 * confirmations and withdrawal window the test asks for, written to a temp file that both
 * the deploy and the nodes read: the contract's validator set is then exactly the chain's.
 *
 * Helpers act as the users and owners of the bridge do: deposits from hardhat's development
 * accounts (approve, then deposit), withdrawals through POST /withdraw signed by the owner's
 * key (EIP-712 Withdraw, the typed client), the bridge paused by a validator's key (a
 * locker) and unpaused or a withdrawal cancelled by two of the genesis owners' devnet keys;
 * the external chain's clock and blocks driven through hardhat's evm_* methods.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, type Abi, type Address as ViemAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { deployBridge, type BridgeDeployment } from '../../src/bridge/deploy';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { ownerActionDigest, ownerActions, signAll, type BridgeDomain } from '../../src/bridge/signatures';
import { freePort } from '../../src/cli/launcher';
import { ExchangeClient } from '../../src/client';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { LocalNetwork } from './network';
import { ROOT, tempDir, waitFor } from './devnet';

export const USDC = 10n ** 6n;

const KEYS = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet-keys.json'), 'utf8')) as {
  validators: { address: string; ecdsaPrivateKey: Hex }[];
  owners: { address: string; privateKey: Hex }[];
};
const { ExchangeBridge, TestUSDC } = contractArtifacts();

/** A decimal USDC string of the API ("12.5", "0") in base units. */
export function usdcUnits(s: string): bigint {
  const m = /^(-?)([0-9]+)(?:\.([0-9]{1,6}))?$/.exec(s);
  if (!m) throw new Error(`not a USDC amount: ${s}`);
  const v = BigInt(m[2]) * USDC + BigInt((m[3] ?? '').padEnd(6, '0') || '0');
  return m[1] ? -v : v;
}

export interface BridgeNetworkOptions {
  /** Validators (default 4). */
  size?: number;
  /** genesis.bridge.confirmations (default the devnet's, 2). */
  confirmations?: number;
  /** genesis.bridge.withdrawalWindowMs (default the devnet's, 600 000). */
  withdrawalWindowMs?: number;
  /** The contract's dispute period (default 5 s). */
  disputePeriodSec?: number;
  /** Interval mining of the external chain (default 1 000 ms; 0: a block per transaction only). */
  miningIntervalMs?: number;
  /** Extra flags of validator i's process. */
  extra?: (index: number) => string[];
  /** genesis consensus.epochLengthBlocks (default the devnet's). */
  epochLengthBlocks?: number;
  /** Multiplies validator i's genesis bond (default 1 for every validator). */
  bondFactor?: (index: number) => bigint;
  /** Edits the genesis JSON last, before it is written (say a rich account, or consensus.activeSetMin). */
  editGenesis?: (g: any) => void;
}

export interface Deposited {
  depositId: bigint;
  txHash: Hex;
  blockNumber: bigint;
}

export class BridgeNetwork {
  private readonly dir = tempDir('exchain-bridge-');
  readonly genesisFile = join(this.dir.path, 'genesis.json');
  readonly deploymentFile = join(this.dir.path, 'bridge.json');
  chain!: DevChain;
  deployment!: BridgeDeployment;
  genesis!: Genesis;
  net!: LocalNetwork;
  /** hardhat's development accounts (eth_accounts): [0] deployed the contracts; each holds 1 000 000 test USDC. */
  accounts: ViemAddress[] = [];
  private nextAccount = 1;
  private extra: (index: number) => string[] = () => [];

  static async start(opts: BridgeNetworkOptions = {}): Promise<BridgeNetwork> {
    const b = new BridgeNetwork();
    const size = opts.size ?? 4;
    try {
      const g = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet.json'), 'utf8'));
      g.validators = g.validators.slice(0, size).map((v: { bondWei: string }, i: number) => ({ ...v, bondWei: String(BigInt(v.bondWei) * (opts.bondFactor?.(i) ?? 1n)) }));
      g.consensus = { ...g.consensus, activeSetMin: Math.min(g.consensus.activeSetMin, size), ...(opts.epochLengthBlocks ? { epochLengthBlocks: opts.epochLengthBlocks } : {}) };
      g.bridge = { ...g.bridge, ...(opts.confirmations ? { confirmations: opts.confirmations } : {}), ...(opts.withdrawalWindowMs ? { withdrawalWindowMs: opts.withdrawalWindowMs } : {}) };
      opts.editGenesis?.(g);
      writeFileSync(b.genesisFile, JSON.stringify(g, null, 2));
      b.genesis = loadGenesisFile(b.genesisFile);
      b.chain = await startDevChain({ port: await freePort(), chainId: b.genesis.bridge!.externalChainId, miningIntervalMs: opts.miningIntervalMs ?? 1_000 });
      b.deployment = await deployBridge({ rpcUrl: b.chain.rpcUrl, genesis: b.genesis, disputePeriodSec: BigInt(opts.disputePeriodSec ?? 5) });
      writeFileSync(b.deploymentFile, JSON.stringify(b.deployment));
      b.accounts = (await b.rpc<string[]>('eth_accounts')).map((a) => getAddress(a));
      b.extra = (i) => ['--bridge', b.deploymentFile, ...(opts.extra?.(i) ?? [])];
      b.net = await LocalNetwork.start(size, b.extra, { genesisFile: b.genesisFile });
      return b;
    } catch (err) {
      await b.stop();
      throw err;
    }
  }

  // ---- the external chain ----------------------------------------------------------------

  private viemChain() {
    return defineChain({ id: this.deployment.chainId, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [this.chain.rpcUrl] } } });
  }

  get pub() {
    return createPublicClient({ chain: this.viemChain(), transport: http(this.chain.rpcUrl) });
  }

  get domain(): BridgeDomain {
    return { chainId: BigInt(this.deployment.chainId), bridge: this.deployment.bridge, exchangeChainId: BigInt(this.genesis.chainId), genesisHash: genesisHashHex(this.genesis) };
  }

  /** A raw JSON-RPC call on the external chain (hardhat's evm_* included). */
  async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    return (await this.pub.request({ method, params } as never)) as T;
  }

  /** Sends a contract call from an unlocked development account or a private key's account; waits for success. */
  async send(from: ViemAddress | PrivateKeyAccount, address: ViemAddress, abi: Abi, functionName: string, args: unknown[]): Promise<{ txHash: Hex; blockNumber: bigint }> {
    const wallet = createWalletClient({ chain: this.viemChain(), transport: http(this.chain.rpcUrl), account: from });
    const txHash = await wallet.writeContract({ address, abi, functionName, args } as never);
    const r = await this.pub.waitForTransactionReceipt({ hash: txHash });
    if (r.status !== 'success') throw new Error(`${functionName} ${txHash} reverted`);
    return { txHash, blockNumber: r.blockNumber };
  }

  /** Deploys a contract from `from`; its address. */
  async deployContract(from: ViemAddress, abi: Abi, bytecode: Hex): Promise<ViemAddress> {
    const wallet = createWalletClient({ chain: this.viemChain(), transport: http(this.chain.rpcUrl), account: from });
    const hash = await wallet.deployContract({ abi, bytecode, args: [] } as never);
    return getAddress((await this.pub.waitForTransactionReceipt({ hash })).contractAddress!);
  }

  /** A development account not used yet by this network (each has 1 000 000 test USDC). */
  freshAccount(): ViemAddress {
    if (this.nextAccount >= this.accounts.length) throw new Error('out of development accounts');
    return this.accounts[this.nextAccount++];
  }

  /** approve + deposit(recipient, amount) from development account `from` (a fresh one by default). */
  async deposit(recipient: string, amount: bigint, from: ViemAddress = this.freshAccount()): Promise<Deposited> {
    await this.send(from, this.deployment.usdc, TestUSDC.abi, 'approve', [this.deployment.bridge, amount]);
    const { txHash, blockNumber } = await this.send(from, this.deployment.bridge, ExchangeBridge.abi, 'deposit', [getAddress(recipient), amount]);
    const logs = await this.pub.getContractEvents({ address: this.deployment.bridge, abi: ExchangeBridge.abi, eventName: 'Deposit', fromBlock: blockNumber, toBlock: blockNumber });
    const mine = logs.find((l) => l.transactionHash === txHash) as unknown as { args: { depositId: bigint } } | undefined;
    if (!mine) throw new Error(`no Deposit log in ${txHash}`);
    return { depositId: mine.args.depositId, txHash, blockNumber };
  }

  /** The test USDC balance of `address` on the external chain. */
  async usdcBalance(address: string): Promise<bigint> {
    return (await this.pub.readContract({ address: this.deployment.usdc, abi: TestUSDC.abi, functionName: 'balanceOf', args: [getAddress(address)] })) as bigint;
  }

  async bridgeRead<T>(functionName: string, args: unknown[] = []): Promise<T> {
    return (await this.pub.readContract({ address: this.deployment.bridge, abi: ExchangeBridge.abi, functionName, args } as never)) as T;
  }

  /** Validator `index` (0-based) pauses the bridge with its own key (any validator is a locker). */
  async pause(index = 0): Promise<void> {
    await this.send(privateKeyToAccount(KEYS.validators[index].ecdsaPrivateKey), this.deployment.bridge, ExchangeBridge.abi, 'pause', []);
  }

  /** Two of the three genesis owners sign an owner action; a development account relays it. */
  private async ownerSignatures(actionHash: Hex): Promise<Hex[]> {
    const nonce = await this.bridgeRead<bigint>('ownerNonce');
    return signAll(KEYS.owners.slice(0, 2).map((o) => o.privateKey), ownerActionDigest(this.domain, nonce, actionHash));
  }

  async unpause(): Promise<void> {
    await this.send(this.accounts[0], this.deployment.bridge, ExchangeBridge.abi, 'unpause', [await this.ownerSignatures(ownerActions.unpause())]);
  }

  async cancelWithdrawal(id: bigint): Promise<{ txHash: Hex }> {
    return this.send(this.accounts[0], this.deployment.bridge, ExchangeBridge.abi, 'cancelWithdrawal', [id, await this.ownerSignatures(ownerActions.cancelWithdrawal(id))]);
  }

  /** The external head: number and timestamp (s). */
  async head(): Promise<{ number: bigint; timestampSec: bigint }> {
    const b = await this.pub.getBlock({ blockTag: 'latest' });
    return { number: b.number, timestampSec: b.timestamp };
  }

  /** Waits until the external head reaches `n`. */
  async waitExternalBlock(n: bigint, timeoutMs = 30_000): Promise<void> {
    await waitFor(async () => ((await this.head()).number >= n ? true : undefined), timeoutMs, `external block ${n}`);
  }

  // ---- the exchange chain ----------------------------------------------------------------

  /** (Re)starts validator `index` with its data kept and its `--bridge FILE`; resolves once it serves. */
  async launch(index: number): Promise<void> {
    await this.net.launch(index, this.extra(index));
  }

  /** Stops validator `index` as Ctrl-C does (SIGTERM); its exit code. */
  async stopNode(index: number): Promise<number | null> {
    const exit = this.net.waitExit(index);
    this.net.signal(index, 'SIGTERM');
    return (await exit).code;
  }

  url(via = 1): string {
    return this.net.nodes[via - 1].url;
  }

  client(via = 1): ExchangeClient {
    return new ExchangeClient(this.url(via), { chainId: this.genesis.chainId });
  }

  async get<T = any>(path: string, via = 1): Promise<T> {
    const res = await fetch(`${this.url(via)}${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as any;
    if (res.status >= 400) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body as T;
  }

  /** The free USDC balance of `address` on the exchange chain (base units), as validator `via` serves it. */
  async free(address: string, via = 1): Promise<bigint> {
    return usdcUnits((await this.get<{ data: { freeBalance: string } }>(`/v1/account/${address}`, via)).data.freeBalance);
  }

  /** Free and locked USDC (base units). */
  async balances(address: string, via = 1): Promise<{ free: bigint; locked: bigint }> {
    const d = (await this.get<{ data: { freeBalance: string; lockedBalance: string } }>(`/v1/account/${address}`, via)).data;
    return { free: usdcUnits(d.freeBalance), locked: usdcUnits(d.lockedBalance) };
  }

  async withdrawals(address: string, via = 1): Promise<any[]> {
    return (await this.get<{ withdrawals: any[] }>(`/withdrawals/${address}`, via)).withdrawals;
  }

  async withdrawal(address: string, id: string | bigint, via = 1): Promise<any> {
    return (await this.withdrawals(address, via)).find((w) => w.withdrawal_id === String(id));
  }

  async reserves(via = 1): Promise<any> {
    return this.get('/reserves', via);
  }

  /** Waits until `address`'s free balance on every running validator is `amount`. */
  async waitFree(address: string, amount: bigint, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        for (const n of this.net.nodes) {
          if (!n.proc) continue;
          if ((await this.free(address, n.index).catch(() => -1n)) !== amount) return undefined;
        }
        return true;
      },
      timeoutMs,
      `${address}'s free balance ${amount} on every running validator`,
    );
  }

  /** Waits until withdrawal `id` of `owner` has `status` (as validator `via` serves it); returns it. */
  async waitWithdrawal(owner: string, id: string | bigint, status: string, timeoutMs = 60_000, via = 1): Promise<any> {
    return waitFor(async () => {
      const w = await this.withdrawal(owner, id, via).catch(() => undefined);
      return w?.status === status ? w : undefined;
    }, timeoutMs, `withdrawal ${id} ${status}`);
  }

  /** POST /withdraw of `amount` to `destination`, signed by the owner's key. */
  async withdraw(owner: PrivateKeyAccount, amount: bigint, destination: string, via = 1) {
    return this.client(via).withdraw(owner, { amount, destination: getAddress(destination) });
  }

  /** A new exchange-chain account: its key (to sign withdrawals) and address. */
  static newAccount(): PrivateKeyAccount {
    return privateKeyToAccount(generatePrivateKey());
  }

  async stop(): Promise<void> {
    await this.net?.stop();
    await this.chain?.stop();
    this.dir.remove();
  }
}
