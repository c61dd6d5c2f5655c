/**
 * Ethereum JSON-RPC 2.0: the eleven methods of contract [C-rpc-methods] and the
 * ones wallets call besides (contract [D-rpc-extra]): eth_getTransactionCount, eth_getBlockByNumber/ByHash, eth_feeHistory,
 * eth_maxPriorityFeePerGas, eth_syncing, eth_accounts. Quantities are hex. Errors are
 * standard objects: -32700 parse, -32600 invalid request, -32601 unknown method,
 * -32602 bad params, -32000 execution.
 */
import { decodeFunctionData, encodeFunctionResult, parseAbi, type Hex as ViemHex } from 'viem';
import { blockHash as hashHeader } from '../codec/block';
import { decodeTx, encodeTx, TxKind } from '../codec/tx';
import type { NodeApi } from '../api/node-api';
import { RPC_FEE_HISTORY_MAX_BLOCKS, RPC_MAX_BATCH_REQUESTS } from '../api/limits';
import { agentCapsOf } from '../state/accounts/agents';
import { TxError } from '../state/errors';
import { parseEthTransfer, TRANSFER_GAS } from '../state/eth-tx';
import { hasSpot } from '../state/pair-markets';
import { bytesToHex, hexToBytes, isAddress, isHex, toAddress, type Address } from '../util/bytes';
import { AGENT_CAPS_ABI, AGENT_CAPS_PRECOMPILE, CLIENT_VERSION, JSONRPC_ERRORS, ORDERBOOK_ABI, ORDERBOOK_PRECOMPILE, PRECOMPILE_MAX_ORDERS } from './constants';
import { METHOD_PARAMS, paramsRefusal } from './params';
import { formatBlock, formatGenesisBlock, formatReceipt, formatTransaction, gasOf, q } from './format';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * What JSON-RPC needs of the node: the genesis, the chain at its head, and admission to
 * the mempool (`submit` throws TxError when refused; it does not wait for finality).
 */
export type RpcContext = Pick<NodeApi, 'genesis' | 'chain' | 'submit' | 'syncProgress'>;

const orderbookAbi = parseAbi(ORDERBOOK_ABI);
const agentCapsAbi = parseAbi(AGENT_CAPS_ABI);
/** Gas limit reported for blocks: enough for the most transfers a block can hold. */
const BLOCK_GAS_LIMIT = 30_000_000n;

const badParams = (msg: string) => new RpcError(JSONRPC_ERRORS.INVALID_PARAMS, msg);

function param<T>(params: unknown[], i: number, check: (v: unknown) => v is T, what: string): T {
  const v = params[i];
  if (!check(v)) throw badParams(`params[${i}]: ${what}`);
  return v;
}

const isAddr = (v: unknown): v is string => isAddress(v);
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isHash = (v: unknown): v is string => isHex(v, 32);
const BLOCK_TAGS = new Set(['latest', 'pending', 'safe', 'finalized', 'earliest']);

/** A block tag or number → a height; only the head's state exists (no archive). */
function heightOf(ctx: RpcContext, tag: unknown, i: number): number {
  const head = ctx.chain().height;
  if (tag === undefined || tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') return head;
  if (tag === 'earliest') return 0;
  if (typeof tag === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(tag)) return Number(BigInt(tag));
  if (tag && typeof tag === 'object' && 'blockNumber' in tag) return heightOf(ctx, (tag as { blockNumber: unknown }).blockNumber, i);
  throw badParams(`params[${i}]: a block number (hex) or one of ${[...BLOCK_TAGS].join(', ')}`);
}

/** State reads answer for the head only; finality is single-block, so 'latest' is final. */
function stateAt(ctx: RpcContext, tag: unknown, i: number) {
  const h = heightOf(ctx, tag, i);
  const chain = ctx.chain();
  if (h !== chain.height && !(h > chain.height && typeof tag === 'string' && BLOCK_TAGS.has(tag))) {
    throw new RpcError(JSONRPC_ERRORS.SERVER, `state at block ${h} is not kept (this node keeps the head's state only; head is ${chain.height})`);
  }
  return chain.state;
}

async function blockByHeight(ctx: RpcContext, height: number, full: boolean): Promise<unknown> {
  const chain = ctx.chain();
  const g = ctx.genesis;
  if (height === 0) return formatGenesisBlock(bytesToHex(chain.genesisHash), g.genesisTimeMs, (await chain.store.getStateRoot(0))!, g.fees.gasPriceWei, BLOCK_GAS_LIMIT);
  if (height > chain.height) return null;
  const base = (await chain.store.base?.()) ?? 1;
  if (height < base) throw new RpcError(JSONRPC_ERRORS.SERVER, `block ${height} is pruned: this node keeps blocks from ${base} on`, { code: 'PRUNED', lowestHeight: base });
  const [block, receipts, stateRoot] = await Promise.all([chain.store.getBlock(height), chain.store.getReceipts(height), chain.store.getStateRoot(height)]);
  if (!block || !receipts || !stateRoot) return null;
  return formatBlock({ block, receipts, stateRoot, chainId: g.chainId, gasPriceWei: g.fees.gasPriceWei, maxTxBytes: g.consensus.maxTxBytes, full, blockGasLimit: BLOCK_GAS_LIMIT });
}

async function txAt(ctx: RpcContext, hash: string) {
  const chain = ctx.chain();
  let loc = await chain.store.getTxLocation(hash.toLowerCase());
  if (!loc) {
    // Answered at apply time (decision 63), its block may still be on its way to disk.
    await chain.stored();
    loc = await chain.store.getTxLocation(hash.toLowerCase());
  }
  if (!loc) return null;
  const [block, receipts] = await Promise.all([chain.store.getBlock(loc.height), chain.store.getReceipts(loc.height)]);
  if (!block || !receipts) return null;
  const g = ctx.genesis;
  const txs = block.txs.map((b) => decodeTx(b, g.consensus.maxTxBytes));
  const blockHash = hashHeader(block.header);
  return {
    tx: txs[loc.index],
    txs,
    receipts,
    c: { block, blockHash: bytesToHex(blockHash), index: loc.index, receipt: receipts[loc.index], chainId: g.chainId, gasPriceWei: g.fees.gasPriceWei },
  };
}

function ethCall(ctx: RpcContext, call: Record<string, unknown>, tag: unknown): string {
  const state = stateAt(ctx, tag, 1);
  const to = typeof call.to === 'string' ? call.to.toLowerCase() : undefined;
  const data = (typeof call.data === 'string' ? call.data : typeof call.input === 'string' ? call.input : '0x') as ViemHex;
  if (!isHex(data)) throw badParams('params[0].data: hex');
  if (to === ORDERBOOK_PRECOMPILE) {
    let decoded: ReturnType<typeof decodeFunctionData<typeof orderbookAbi>>;
    try {
      decoded = decodeFunctionData({ abi: orderbookAbi, data });
    } catch {
      throw new RpcError(JSONRPC_ERRORS.SERVER, 'execution reverted: unknown function of the orderbook precompile');
    }
    const pairId = Number(decoded.args[0]);
    const pair = state.pairs.get(String(pairId));
    if (!pair) throw new RpcError(JSONRPC_ERRORS.SERVER, `execution reverted: no pair ${decoded.args[0]}`);
    // A perp-only pair has no order book to read (decision 76).
    if (!hasSpot(pair)) throw new RpcError(JSONRPC_ERRORS.SERVER, `execution reverted: pair ${pairId} has no spot market`);
    const book = state.book(pairId);
    if (decoded.functionName === 'getAvailableLiquidity') {
      const [, side, worst] = decoded.args as readonly [bigint, number, bigint];
      if (side !== 0 && side !== 1) throw new RpcError(JSONRPC_ERRORS.SERVER, 'execution reverted: side must be 0 (buy) or 1 (sell)');
      return encodeFunctionResult({ abi: orderbookAbi, functionName: 'getAvailableLiquidity', result: book.availableLiquidity(side, worst) });
    }
    const { bids, asks } = book.topOrders(PRECOMPILE_MAX_ORDERS);
    const list = (orders: typeof bids) => orders.map((o) => ({ orderId: o.id, owner: o.owner, price: o.price, size: o.remaining, isAgent: o.isAgent }));
    return decoded.functionName === 'getPairBids'
      ? encodeFunctionResult({ abi: orderbookAbi, functionName: 'getPairBids', result: list(bids) })
      : encodeFunctionResult({ abi: orderbookAbi, functionName: 'getPairAsks', result: list(asks) });
  }
  if (to === AGENT_CAPS_PRECOMPILE) {
    let owner: Address;
    try {
      owner = toAddress(decodeFunctionData({ abi: agentCapsAbi, data }).args[0] as string);
    } catch {
      throw new RpcError(JSONRPC_ERRORS.SERVER, 'execution reverted: unknown function of the agent-caps precompile');
    }
    const c = agentCapsOf(state, owner);
    return encodeFunctionResult({ abi: agentCapsAbi, functionName: 'agentCaps', result: [c.mode, c.capsSet, c.maxLeverageBps, c.allowedOrderTypes, c.maxInput, c.maxTotal] });
  }
  if (data === '0x') return '0x'; // a plain call to an account: no code, empty result
  throw new RpcError(JSONRPC_ERRORS.SERVER, 'EVM execution is disabled on this chain: only the read precompiles answer eth_call');
}

type Handler = (ctx: RpcContext, params: unknown[]) => unknown | Promise<unknown>;

export const METHODS: Record<string, Handler> = {
  eth_chainId: (ctx) => q(ctx.genesis.chainId),
  net_version: (ctx) => String(ctx.genesis.chainId),
  web3_clientVersion: () => `${CLIENT_VERSION}/node-${process.version}`,
  eth_blockNumber: (ctx) => q(ctx.chain().height),
  eth_gasPrice: (ctx) => q(ctx.genesis.fees.gasPriceWei),
  eth_maxPriorityFeePerGas: () => '0x0',
  // false, or while block sync runs Ethereum's object of quantities (execution-apis SyncingStatus).
  eth_syncing: (ctx) => {
    const p = ctx.syncProgress();
    return p === null ? false : { startingBlock: q(p.startingBlock), currentBlock: q(p.currentBlock), highestBlock: q(p.highestBlock) };
  },
  eth_accounts: () => [],
  eth_getBalance: (ctx, p) => {
    const addr = toAddress(param(p, 0, isAddr, 'an address'));
    return q(stateAt(ctx, p[1], 1).account(addr).nativeWei);
  },
  eth_getTransactionCount: (ctx, p) => {
    const addr = toAddress(param(p, 0, isAddr, 'an address'));
    return q(stateAt(ctx, p[1], 1).account(addr).txCount);
  },
  eth_getCode: (ctx, p) => {
    param(p, 0, isAddr, 'an address');
    stateAt(ctx, p[1], 1);
    return '0x';
  },
  eth_estimateGas: (ctx, p) => {
    const call = param(p, 0, (v): v is Record<string, unknown> => !!v && typeof v === 'object', 'a call object');
    const data = (call.data ?? call.input ?? '0x') as string;
    const to = typeof call.to === 'string' ? call.to.toLowerCase() : undefined;
    if (to === ORDERBOOK_PRECOMPILE || to === AGENT_CAPS_PRECOMPILE) return q(TRANSFER_GAS);
    if (!to || (data !== '0x' && data !== '')) throw new RpcError(JSONRPC_ERRORS.SERVER, 'EVM execution is disabled on this chain: only native-token transfers can be sent');
    return q(TRANSFER_GAS);
  },
  eth_call: (ctx, p) => ethCall(ctx, param(p, 0, (v): v is Record<string, unknown> => !!v && typeof v === 'object', 'a call object'), p[1]),
  eth_sendRawTransaction: async (ctx, p) => {
    const raw = hexToBytes(param(p, 0, (v): v is string => isHex(v) && v.length > 2, 'signed transaction bytes (hex)'));
    const tx = encodeTx(ctx.genesis.chainId, TxKind.EthTx, { raw });
    try {
      // The parse answers EVM-disabled, wrong chain and malformed input precisely.
      parseEthTransfer(raw, ctx.genesis.chainId);
      await ctx.submit(tx);
    } catch (err) {
      if (err instanceof TxError) throw new RpcError(err.status === 400 && err.code === 'MALFORMED_TX' ? JSONRPC_ERRORS.INVALID_PARAMS : JSONRPC_ERRORS.SERVER, err.message, { code: err.code });
      // The node's disk is full (decision 121): the route answers it 503 with Retry-After.
      const refusal = err as { code?: unknown; retryAfterSec?: unknown; message?: string };
      if (refusal.code === 'STORAGE_UNAVAILABLE') throw new RpcError(JSONRPC_ERRORS.SERVER, String(refusal.message), { code: refusal.code, retryAfterSec: refusal.retryAfterSec });
      throw err;
    }
    return bytesToHex(tx.hash);
  },
  eth_getTransactionByHash: async (ctx, p) => {
    const found = await txAt(ctx, param(p, 0, isHash, 'a 32-byte transaction hash'));
    return found ? formatTransaction(found.tx, found.c) : null;
  },
  eth_getTransactionReceipt: async (ctx, p) => {
    const found = await txAt(ctx, param(p, 0, isHash, 'a 32-byte transaction hash'));
    if (!found) return null;
    let cumulative = 0n;
    for (let i = 0; i <= found.c.index; i++) cumulative += gasOf(found.txs[i], found.receipts[i]);
    return formatReceipt(found.tx, found.c, cumulative);
  },
  eth_getBlockByNumber: (ctx, p) => blockByHeight(ctx, heightOf(ctx, p[0], 0), param(p, 1, isBool, 'a boolean (full transactions)')),
  eth_getBlockByHash: async (ctx, p) => {
    const hash = param(p, 0, isHash, 'a 32-byte block hash');
    const chain = ctx.chain();
    if (hash.toLowerCase() === bytesToHex(chain.genesisHash)) return blockByHeight(ctx, 0, false);
    const h = await chain.store.getHeightByHash(hexToBytes(hash));
    return h === undefined ? null : blockByHeight(ctx, h, param(p, 1, isBool, 'a boolean (full transactions)'));
  },
  eth_feeHistory: (ctx, p) => {
    const count = Math.min(RPC_FEE_HISTORY_MAX_BLOCKS, Math.max(1, Number(typeof p[0] === 'number' ? p[0] : BigInt(p[0] as string))));
    const newest = heightOf(ctx, p[1], 1);
    const oldest = Math.max(0, newest - count + 1);
    const n = newest - oldest + 1;
    const price = q(ctx.genesis.fees.gasPriceWei);
    const percentiles = Array.isArray(p[2]) ? p[2] : [];
    return {
      oldestBlock: q(oldest),
      baseFeePerGas: Array.from({ length: n + 1 }, () => price),
      gasUsedRatio: Array.from({ length: n }, () => 0),
      ...(percentiles.length ? { reward: Array.from({ length: n }, () => percentiles.map(() => '0x0')) } : {}),
    };
  },
};

// Every method has its parameter list (src/rpc/params.ts): checked once, at load.
for (const name of Object.keys(METHODS)) if (!Object.hasOwn(METHOD_PARAMS, name)) throw new Error(`JSON-RPC method ${name} has no parameter list in src/rpc/params.ts`);

interface RpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
  id?: string | number | null;
}

function response(id: unknown, body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) {
  return { jsonrpc: '2.0', id: id ?? null, ...body };
}

async function one(ctx: RpcContext, req: unknown): Promise<unknown | undefined> {
  if (!req || typeof req !== 'object' || Array.isArray(req)) return response(null, { error: { code: JSONRPC_ERRORS.INVALID_REQUEST, message: 'invalid request: expected an object' } });
  const r = req as Partial<RpcRequest>;
  const id = r.id;
  const isNotification = !('id' in r);
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number')) {
    return response(id ?? null, { error: { code: JSONRPC_ERRORS.INVALID_REQUEST, message: 'invalid request: needs jsonrpc "2.0", a method string and a string or number id' } });
  }
  if (r.params !== undefined && !Array.isArray(r.params)) {
    return response(id, { error: { code: JSONRPC_ERRORS.INVALID_PARAMS, message: 'params must be an array' } });
  }
  const handler = Object.hasOwn(METHODS, r.method) ? METHODS[r.method] : undefined;
  let out;
  if (!handler) out = response(id, { error: { code: JSONRPC_ERRORS.METHOD_NOT_FOUND, message: `the method ${r.method.slice(0, 64)} does not exist/is not available` } });
  else {
    const params = (r.params as unknown[] | undefined) ?? [];
    const refusal = paramsRefusal(r.method, params);
    if (refusal !== null) return isNotification ? undefined : response(id, { error: { code: JSONRPC_ERRORS.INVALID_PARAMS, message: refusal } });
    try {
      out = response(id, { result: await handler(ctx, params) });
    } catch (err) {
      if (err instanceof RpcError) out = response(id, { error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } });
      else if (err instanceof TxError) out = response(id, { error: { code: JSONRPC_ERRORS.SERVER, message: err.message, data: { code: err.code } } });
      else if (err instanceof Error && /not an address|invalid hex/.test(err.message)) out = response(id, { error: { code: JSONRPC_ERRORS.INVALID_PARAMS, message: err.message } });
      // Anything else is this node's fault: a JSON-RPC internal error, never the REST envelope's 500.
      else out = response(id, { error: { code: JSONRPC_ERRORS.INTERNAL, message: `internal error: ${err instanceof Error ? err.message : String(err)}` } });
    }
  }
  return isNotification ? undefined : out;
}

/** A parsed JSON-RPC body (single or batch) → the response body, or undefined when nothing is owed. */
/** The Retry-After of a JSON-RPC answer holding a write refused because the disk is full (decision 121); undefined otherwise. */
export function storageRetryAfter(out: unknown): number | undefined {
  for (const r of Array.isArray(out) ? out : [out]) {
    const data = (r as { error?: { data?: { code?: unknown; retryAfterSec?: unknown } } } | undefined)?.error?.data;
    if (data?.code === 'STORAGE_UNAVAILABLE' && typeof data.retryAfterSec === 'number') return data.retryAfterSec;
  }
  return undefined;
}

export async function handleJsonRpc(ctx: RpcContext, body: unknown): Promise<unknown | undefined> {
  if (Array.isArray(body)) {
    if (body.length === 0) return response(null, { error: { code: JSONRPC_ERRORS.INVALID_REQUEST, message: 'empty batch' } });
    if (body.length > RPC_MAX_BATCH_REQUESTS) return response(null, { error: { code: JSONRPC_ERRORS.INVALID_REQUEST, message: `batch of ${body.length} exceeds ${RPC_MAX_BATCH_REQUESTS}` } });
    const out = [];
    for (const req of body) {
      const r = await one(ctx, req);
      if (r !== undefined) out.push(r);
    }
    return out.length ? out : undefined;
  }
  return one(ctx, body);
}

export function parseError(): unknown {
  return response(null, { error: { code: JSONRPC_ERRORS.PARSE, message: 'parse error: the body is not valid JSON' } });
}
