/**
 * The exchange chain's one window on the external EVM chain (issue 22, docs/bridge.md):
 * the deployment file `npm run bridge:deploy` writes, and `BridgeClient`, a JSON-RPC
 * client of the bridge contract over viem's public and wallet clients (http transport).
 * The watcher and relayer actors use only this. I/O: not part of the pure core.
 *
 * Safety rules kept here so no caller can forget them:
 *   - the emitter check: logs are asked for by the bridge's address AND every returned
 *     log whose address is not the bridge is dropped and counted (an RPC endpoint that
 *     ignores the filter cannot slip another contract's `Deposit` in);
 *   - logs flagged `removed` (reorged out) and pending logs are dropped and counted;
 *   - long ranges are scanned in chunks of at most `maxLogRangeBlocks` (endpoints cap
 *     eth_getLogs ranges);
 *   - a call the contract refuses throws `BridgeRevertError` whose message names the
 *     contract's custom error (`WithdrawalExpired(1767225600)`), read before sending (a
 *     simulation) or, for a transaction mined reverted (another transaction got in first),
 *     by replaying it on the state its block left;
 *   - `checkChain()` refuses an endpoint on another chain or without the bridge's code;
 *     `binding()` reads the exchange chain the contract is bound to.
 * A validator's raw secp256k1 private key is also its external account (it pays the gas).
 */
import { readFileSync } from 'node:fs';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  HttpRequestError,
  TimeoutError,
  defineChain,
  http,
  type Abi,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, hexToBytes, isAddress, toAddress, type Address } from '../util/bytes';
import { EXCHANGE_BRIDGE_ABI, TEST_USDC_ABI } from './abi';

/** What `npm run bridge:deploy` writes (data/bridge/devnet.json) and a validator's node reads with `--bridge FILE`. */
export interface BridgeDeploymentFile {
  /** The external chain's id (eth_chainId). */
  chainId: number;
  /** Its JSON-RPC endpoint. */
  rpcUrl: string;
  /** The ExchangeBridge contract (lowercase here, as the project keeps addresses). */
  bridge: Address;
  /** The USDC token the bridge holds. */
  usdc: Address;
  /** The block the bridge was deployed in: a watcher scans its events from here. */
  deployBlock: number;
}

const DEPLOYMENT_KEYS = ['bridge', 'chainId', 'deployBlock', 'rpcUrl', 'usdc'];

/** Reads and checks a deployment file: exactly its five fields, each well formed; throws naming the file and the field. */
export function readDeploymentFile(path: string): BridgeDeploymentFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`bridge deployment file ${path}: ${(err as Error).message}`);
  }
  const bad = (what: string): Error => new Error(`bridge deployment file ${path}: ${what}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('not a JSON object');
  const o = json as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  const unknown = keys.filter((k) => !DEPLOYMENT_KEYS.includes(k));
  if (unknown.length > 0) throw bad(`unknown field ${unknown.join(', ')}`);
  for (const k of DEPLOYMENT_KEYS) if (!(k in o)) throw bad(`missing field ${k}`);
  if (typeof o.chainId !== 'number' || !Number.isSafeInteger(o.chainId) || o.chainId <= 0) throw bad('chainId must be a positive integer');
  if (typeof o.rpcUrl !== 'string' || !/^https?:\/\/\S+$/.test(o.rpcUrl)) throw bad('rpcUrl must be an http(s) URL');
  if (!isAddress(o.bridge)) throw bad('bridge must be a 0x address');
  if (!isAddress(o.usdc)) throw bad('usdc must be a 0x address');
  if (typeof o.deployBlock !== 'number' || !Number.isSafeInteger(o.deployBlock) || o.deployBlock < 0) throw bad('deployBlock must be a non-negative integer');
  return { chainId: o.chainId, rpcUrl: o.rpcUrl, bridge: toAddress(o.bridge), usdc: toAddress(o.usdc), deployBlock: o.deployBlock };
}

/** One event of the bridge, decoded. Addresses lowercase; which optional fields are set depends on `kind`. */
export interface BridgeLog {
  kind: 'Deposit' | 'WithdrawalQueued' | 'WithdrawalPaid' | 'WithdrawalCancelled' | 'Unpaused' | 'ValidatorSetProposed' | 'OwnersProposed';
  blockNumber: bigint;
  txHash: Uint8Array;
  logIndex: number;
  depositId?: bigint;
  depositor?: Address;
  recipient?: Address;
  amount?: bigint;
  withdrawalId?: bigint;
  readyAt?: bigint;
  validUntil?: bigint;
  /** ValidatorSetProposed: its set nonce, validators and powers; OwnersProposed: its owner nonce, owners and threshold. */
  nonce?: bigint;
  validators?: Address[];
  powers?: bigint[];
  owners?: Address[];
  threshold?: bigint;
}

/** The contract's record of a withdrawal id ('none': never queued). */
export interface ExternalWithdrawal {
  state: 'none' | 'queued' | 'paid' | 'cancelled';
  readyAt: bigint;
  validUntil: bigint;
}

/** What the client dropped or skipped since it was made (the actors report them in /status). */
export interface BridgeClientCounters {
  /** Logs an endpoint returned whose emitter is not the bridge (dropped). */
  foreignLogsDropped: number;
  /** Logs flagged `removed` (reorged out) or still pending (dropped). */
  removedLogsDropped: number;
  /** The bridge's other events (Paused, ValidatorSetChanged, unknown topics): not claims. */
  otherLogsSkipped: number;
}

export interface BridgeClientOptions {
  rpcUrl: string;
  bridge: Address;
  usdc: Address;
  /** The chain id the bridge must be on (genesis bridge.externalChainId); `checkChain()` compares. */
  expectedChainId: number;
  /** Widest eth_getLogs range asked at once (default 2 000 blocks). */
  maxLogRangeBlocks?: number;
  /** Per-request timeout (default 10 000 ms). */
  requestTimeoutMs?: number;
  /** How often a sent transaction's receipt is polled (default 200 ms). */
  receiptPollMs?: number;
  /** How long a sent transaction may take to be mined (default 60 000 ms). */
  receiptTimeoutMs?: number;
}

/** The contract refused a call: `errorName` is its custom error ('WithdrawalExpired'), `args` its arguments. */
export class BridgeRevertError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorName: string,
    readonly args: readonly unknown[],
    readonly txHash?: Uint8Array,
  ) {
    super(`${functionName} reverted: ${errorName}(${args.map(String).join(', ')})${txHash ? ` in transaction ${bytesToHex(txHash)}` : ''}`);
    this.name = 'BridgeRevertError';
  }
}

const DEFAULT_MAX_LOG_RANGE_BLOCKS = 2_000;
const WITHDRAWAL_STATES = ['none', 'queued', 'paid', 'cancelled'] as const;
/**
 * The events returned: the claims' four, the set and owner proposals (a watcher compares
 * them with the chain's decisions), and Unpaused (the owners' answer to an alert: a
 * watcher does not pause again for what they have seen).
 */
const CLAIM_EVENTS = new Set(['Deposit', 'WithdrawalQueued', 'WithdrawalPaid', 'WithdrawalCancelled', 'Unpaused', 'ValidatorSetProposed', 'OwnersProposed']);

/** Which block a watcher counts confirmations from: the chain's finalized block, else its safe block, else its head. */
export type FinalityTag = 'finalized' | 'safe' | 'latest';

interface RawLog {
  address: string;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex | null;
  transactionHash: Hex | null;
  logIndex: Hex | null;
  removed?: boolean;
}

const toRpcQuantity = (n: bigint): Hex => `0x${n.toString(16)}`;

export class BridgeClient {
  readonly rpcUrl: string;
  readonly bridge: Address;
  readonly usdc: Address;
  readonly expectedChainId: number;
  private readonly pub: PublicClient;
  private readonly chain: Chain;
  private readonly bridgeAbi: Abi;
  private readonly usdcAbi: Abi;
  private readonly maxLogRange: bigint;
  private readonly receiptPollMs: number;
  private readonly receiptTimeoutMs: number;
  private readonly transport: ReturnType<typeof http>;
  private readonly counts: BridgeClientCounters = { foreignLogsDropped: 0, removedLogsDropped: 0, otherLogsSkipped: 0 };
  /** The finality tags still to try, best first (finalizedHead drops one the endpoint refuses). */
  private readonly finalityTags: FinalityTag[] = ['finalized', 'safe', 'latest'];
  /** Sends from one key go one after the other (each takes the next nonce after the previous is mined). */
  private readonly sendQueues = new Map<string, Promise<unknown>>();

  constructor(opts: BridgeClientOptions) {
    this.rpcUrl = opts.rpcUrl;
    this.bridge = toAddress(opts.bridge);
    this.usdc = toAddress(opts.usdc);
    this.expectedChainId = opts.expectedChainId;
    const range = opts.maxLogRangeBlocks ?? DEFAULT_MAX_LOG_RANGE_BLOCKS;
    if (!Number.isSafeInteger(range) || range < 1) throw new RangeError(`maxLogRangeBlocks must be a positive integer: ${range}`);
    this.maxLogRange = BigInt(range);
    this.receiptPollMs = opts.receiptPollMs ?? 200;
    this.receiptTimeoutMs = opts.receiptTimeoutMs ?? 60_000;
    this.chain = defineChain({
      id: opts.expectedChainId,
      name: `external-${opts.expectedChainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [opts.rpcUrl] } },
    });
    this.transport = http(opts.rpcUrl, { timeout: opts.requestTimeoutMs ?? 10_000, retryCount: 0 });
    this.pub = createPublicClient({ chain: this.chain, transport: this.transport, pollingInterval: this.receiptPollMs });
    // The committed ABIs (src/bridge/abi.ts): no Solidity source or compiler at run time.
    this.bridgeAbi = EXCHANGE_BRIDGE_ABI;
    this.usdcAbi = TEST_USDC_ABI;
  }

  /** A snapshot of what was dropped or skipped so far. */
  counters(): BridgeClientCounters {
    return { ...this.counts };
  }

  /** The endpoint's chain id (eth_chainId). */
  async chainId(): Promise<number> {
    return this.pub.getChainId();
  }

  /** Throws a clear error unless the endpoint is chain `expectedChainId` and the bridge's address holds code there. */
  async checkChain(): Promise<void> {
    const id = await this.chainId();
    if (id !== this.expectedChainId) {
      throw new Error(`external chain mismatch: ${this.rpcUrl} is chain ${id}, the bridge is on chain ${this.expectedChainId}`);
    }
    const code = await this.pub.getCode({ address: this.bridge });
    if (!code || code === '0x') throw new Error(`no contract at the bridge address ${this.bridge} on chain ${id} (${this.rpcUrl}): not deployed, or another chain`);
  }

  /**
   * The exchange chain the bridge is bound to (its constructor's exchangeChainId and
   * exchangeGenesisHash, decision 150): a node whose genesis differs must not watch it.
   */
  async binding(): Promise<{ exchangeChainId: bigint; genesisHash: Uint8Array }> {
    const [exchangeChainId, genesisHash] = await Promise.all([this.readBridge<bigint>('exchangeChainId', []), this.readBridge<Hex>('exchangeGenesisHash', [])]);
    return { exchangeChainId, genesisHash: hexToBytes(genesisHash) };
  }

  /** The latest block's number and timestamp. */
  async head(): Promise<{ number: bigint; timestampSec: bigint }> {
    const b = await this.pub.getBlock({ blockTag: 'latest' });
    return { number: b.number, timestampSec: b.timestamp };
  }

  /**
   * The block confirmations count from (decision 155): eth_getBlockByNumber("finalized")
   * where the chain answers it, else "safe", else "latest" (a chain that knows neither
   * tag). The first tag the endpoint refuses is not asked again.
   */
  async finalizedHead(): Promise<{ number: bigint; timestampSec: bigint; tag: FinalityTag }> {
    while (this.finalityTags.length > 1) {
      const tag = this.finalityTags[0];
      try {
        const b = await this.pub.getBlock({ blockTag: tag });
        return { number: b.number, timestampSec: b.timestamp, tag };
      } catch (err) {
        // Only an endpoint's refusal of the tag moves on; a timeout or a dead endpoint is the poll's failure.
        if (!(err instanceof BaseError) || err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) throw err;
        this.finalityTags.shift();
      }
    }
    const b = await this.pub.getBlock({ blockTag: 'latest' });
    return { number: b.number, timestampSec: b.timestamp, tag: 'latest' };
  }

  /** Block `n` (throws if the chain has no such block yet). */
  async block(n: bigint): Promise<{ number: bigint; timestampSec: bigint; hash: Uint8Array }> {
    const b = await this.pub.getBlock({ blockNumber: n });
    return { number: b.number, timestampSec: b.timestamp, hash: hexToBytes(b.hash) };
  }

  /** The bridge's claim events in blocks [fromBlock, toBlock], emitter checked, removed logs dropped, ordered by (block, logIndex). */
  async logs(fromBlock: bigint, toBlock: bigint): Promise<BridgeLog[]> {
    const out: BridgeLog[] = [];
    for (let start = fromBlock; start <= toBlock; start += this.maxLogRange) {
      const end = start + this.maxLogRange - 1n < toBlock ? start + this.maxLogRange - 1n : toBlock;
      const raw = (await this.pub.request({
        method: 'eth_getLogs',
        params: [{ address: this.bridge, fromBlock: toRpcQuantity(start), toBlock: toRpcQuantity(end) }],
      } as never)) as RawLog[];
      for (const log of raw) {
        const decoded = this.decode(log);
        if (decoded) out.push(decoded);
      }
    }
    return out.sort((a, b) => (a.blockNumber !== b.blockNumber ? (a.blockNumber < b.blockNumber ? -1 : 1) : a.logIndex - b.logIndex));
  }

  private decode(log: RawLog): BridgeLog | undefined {
    if (typeof log.address !== 'string' || log.address.toLowerCase() !== this.bridge) {
      this.counts.foreignLogsDropped++;
      return undefined;
    }
    if (log.removed === true || log.blockNumber === null || log.transactionHash === null || log.logIndex === null) {
      this.counts.removedLogsDropped++;
      return undefined;
    }
    let event: { eventName?: string; args?: unknown };
    try {
      event = decodeEventLog({ abi: this.bridgeAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]], strict: true });
    } catch {
      // A topic the bridge's ABI does not name: not one of its claim events.
      this.counts.otherLogsSkipped++;
      return undefined;
    }
    if (!event.eventName || !CLAIM_EVENTS.has(event.eventName)) {
      this.counts.otherLogsSkipped++;
      return undefined;
    }
    const a = event.args as Record<string, unknown>;
    const base = { blockNumber: BigInt(log.blockNumber), txHash: hexToBytes(log.transactionHash), logIndex: Number(BigInt(log.logIndex)) };
    const addr = (v: unknown): Address => toAddress(v as string);
    switch (event.eventName) {
      case 'Deposit':
        return { kind: 'Deposit', ...base, depositId: a.depositId as bigint, depositor: addr(a.depositor), recipient: addr(a.recipient), amount: a.amount as bigint };
      case 'WithdrawalQueued':
        return {
          kind: 'WithdrawalQueued',
          ...base,
          withdrawalId: a.withdrawalId as bigint,
          recipient: addr(a.recipient),
          amount: a.amount as bigint,
          readyAt: a.readyAt as bigint,
          validUntil: a.validUntil as bigint,
        };
      case 'WithdrawalPaid':
        return { kind: 'WithdrawalPaid', ...base, withdrawalId: a.withdrawalId as bigint, recipient: addr(a.recipient), amount: a.amount as bigint };
      case 'Unpaused':
        return { kind: 'Unpaused', ...base };
      case 'ValidatorSetProposed':
        return { kind: 'ValidatorSetProposed', ...base, nonce: a.setNonce as bigint, validators: (a.validators as string[]).map(addr), powers: [...(a.powers as bigint[])] };
      case 'OwnersProposed':
        return { kind: 'OwnersProposed', ...base, nonce: a.ownerNonce as bigint, owners: (a.owners as string[]).map(addr), threshold: a.threshold as bigint };
      default:
        return { kind: 'WithdrawalCancelled', ...base, withdrawalId: a.withdrawalId as bigint };
    }
  }

  private async readBridge<T>(functionName: string, args: unknown[], atBlock?: bigint, address: Address = this.bridge, abi: Abi = this.bridgeAbi): Promise<T> {
    return (await this.pub.readContract({ address, abi, functionName, args, ...(atBlock !== undefined ? { blockNumber: atBlock } : {}) } as never)) as T;
  }

  /** The contract's record of withdrawal `id`, now or at block `atBlock`. */
  async withdrawal(id: bigint, atBlock?: bigint): Promise<ExternalWithdrawal> {
    const [, readyAt, state, , validUntil] = await this.readBridge<[string, bigint, number, bigint, bigint]>('withdrawals', [id], atBlock);
    const name = WITHDRAWAL_STATES[state];
    if (name === undefined) throw new Error(`the bridge answered an unknown withdrawal state ${state} for id ${id}`);
    return { state: name, readyAt, validUntil };
  }

  /** The contract's validator set (ascending, lowercase) and powers. */
  async validatorSet(): Promise<{ validators: Address[]; powers: bigint[] }> {
    const [validators, powers] = await this.readBridge<[string[], bigint[]]>('validatorSet', []);
    return { validators: validators.map((v) => toAddress(v)), powers: [...powers] };
  }

  /**
   * The set in force with its nonce, and the pending set (activeAt 0: none): the set the
   * contract checks at external time t is the pending one once t ≥ activeAt (it is applied
   * lazily), else the one in force.
   */
  async validatorSets(): Promise<{
    nonce: bigint;
    current: { validators: Address[]; powers: bigint[] };
    pending: { nonce: bigint; activeAt: bigint; byOwners: boolean; validators: Address[]; powers: bigint[] };
  }> {
    const [current, nonce, p] = await Promise.all([
      this.validatorSet(),
      this.readBridge<bigint>('validatorSetNonce', []),
      this.readBridge<[string[], bigint[], bigint, bigint, boolean]>('pendingValidatorSet', []),
    ]);
    return { nonce, current, pending: { validators: p[0].map((v) => toAddress(v)), powers: [...p[1]], nonce: p[2], activeAt: p[3], byOwners: p[4] } };
  }

  /** Submits validator set `setNonce` signed by the set the contract checks; waits for the receipt. */
  async updateValidatorSet(privateKey: Uint8Array, m: { validators: Address[]; powers: bigint[]; setNonce: bigint; signatures: Uint8Array[] }): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'updateValidatorSet', [m.validators, m.powers, m.setNonce, m.signatures.map((s) => bytesToHex(s))]);
  }

  /** Applies the due pending set; waits for the receipt. */
  async activateValidatorSet(privateKey: Uint8Array): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'activateValidatorSet', []);
  }

  /** The owner set's nonce in force and the pending owner set (activeAt 0: none). */
  async ownerSets(): Promise<{ nonce: bigint; pending: { nonce: bigint; activeAt: bigint } }> {
    const [nonce, p] = await Promise.all([this.readBridge<bigint>('ownerSetNonce', []), this.readBridge<[string[], bigint, bigint, bigint]>('pendingOwners', [])]);
    return { nonce, pending: { nonce: p[2], activeAt: p[3] } };
  }

  /** Submits owner set `ownerSetNonce` (the chain's SetOwners) signed by the contract's validators; waits for the receipt. */
  async updateOwners(privateKey: Uint8Array, m: { owners: Address[]; threshold: bigint; ownerSetNonce: bigint; signatures: Uint8Array[] }): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'updateOwners', [m.owners, m.threshold, m.ownerSetNonce, m.signatures.map((s) => bytesToHex(s))]);
  }

  /** Applies the due pending owner set; waits for the receipt. */
  async activateOwners(privateKey: Uint8Array): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'activateOwners', []);
  }

  async paused(): Promise<boolean> {
    return this.readBridge<boolean>('paused', []);
  }

  /** The bridge's USDC balance (base units), now or at block `atBlock`. */
  async usdcBalanceOfBridge(atBlock?: bigint): Promise<bigint> {
    return this.readBridge<bigint>('balanceOf', [this.bridge], atBlock, this.usdc, this.usdcAbi);
  }

  /** Queues a withdrawal from `privateKey`'s account; waits for the receipt; throws BridgeRevertError with the contract's error. */
  async queueWithdrawal(
    privateKey: Uint8Array,
    m: { withdrawalId: bigint; recipient: Address; amount: bigint; validUntil: bigint; signatures: Uint8Array[] },
  ): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'queueWithdrawal', [m.withdrawalId, m.recipient, m.amount, m.validUntil, m.signatures.map((s) => bytesToHex(s))]);
  }

  /** Pays a queued, due withdrawal from `privateKey`'s account; waits for the receipt; throws BridgeRevertError with the contract's error. */
  async executeWithdrawal(privateKey: Uint8Array, withdrawalId: bigint): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'executeWithdrawal', [withdrawalId]);
  }

  /** Pauses the bridge from `privateKey`'s account (a validator of the contract's set, or an owner); waits for the receipt; throws BridgeRevertError (`NotLocker`). */
  async pause(privateKey: Uint8Array): Promise<{ txHash: Uint8Array }> {
    return this.send(privateKey, 'pause', []);
  }

  private send(privateKey: Uint8Array, functionName: string, args: unknown[]): Promise<{ txHash: Uint8Array }> {
    const account = privateKeyToAccount(bytesToHex(privateKey));
    const previous = this.sendQueues.get(account.address) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.sendNow(account, functionName, args));
    this.sendQueues.set(account.address, next);
    void next.finally(() => {
      if (this.sendQueues.get(account.address) === next) this.sendQueues.delete(account.address);
    }).catch(() => undefined);
    return next;
  }

  private async sendNow(account: ReturnType<typeof privateKeyToAccount>, functionName: string, args: unknown[]): Promise<{ txHash: Uint8Array }> {
    const call = { address: this.bridge, abi: this.bridgeAbi, functionName, args, account } as never;
    let request: unknown;
    let gas: bigint;
    try {
      // Simulated first, on the latest block: a refusal is read with its custom error before
      // any gas is spent. The gas is estimated on the same state (not the endpoint's pending
      // block, which may hold a rival's transaction), with a margin.
      ({ request } = (await this.pub.simulateContract(call)) as { request: unknown });
      gas = await this.pub.estimateContractGas({ ...(call as object), blockTag: 'latest' } as never);
    } catch (err) {
      throw revertError(functionName, err) ?? err;
    }
    const wallet = createWalletClient({ account, chain: this.chain, transport: this.transport });
    const hash = await wallet.writeContract({ ...(request as object), gas: (gas * 12n) / 10n } as never);
    const receipt = await this.pub.waitForTransactionReceipt({ hash, pollingInterval: this.receiptPollMs, timeout: this.receiptTimeoutMs });
    if (receipt.status === 'success') return { txHash: hexToBytes(hash) };
    // Mined reverted: another transaction changed the state between the simulation and this
    // one's turn (a relayer racing another). A reverted transaction changes nothing, so
    // replaying the call on the state its block left names what the winner did.
    try {
      await this.pub.simulateContract({ ...(call as object), blockNumber: receipt.blockNumber } as never);
    } catch (err) {
      const e = revertError(functionName, err, hexToBytes(hash));
      if (e) throw e;
    }
    throw new BridgeRevertError(functionName, 'unknown', [], hexToBytes(hash));
  }
}

/** The contract's custom error (or revert string) in a viem error, as a BridgeRevertError; undefined when it is not a revert. */
function revertError(functionName: string, err: unknown, txHash?: Uint8Array): BridgeRevertError | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  if (reverted.data?.errorName) return new BridgeRevertError(functionName, reverted.data.errorName, reverted.data.args ?? [], txHash);
  if (reverted.reason) return new BridgeRevertError(functionName, 'Error', [reverted.reason], txHash);
  return new BridgeRevertError(functionName, reverted.signature ?? 'unknown', [], txHash);
}
