/**
 * JSON-RPC against the Ethereum execution API (issue 24 mends), over HTTP on an
 * in-process devnet node:
 *  - every served method's result validates (ajv) against the execution API's published
 *    result schema (test/rpc/fixtures/execution-api-schemas.ts, written from
 *    ethereum/execution-apis): legacy and EIP-1559 transfers and an exchange operation,
 *    by hash and in full blocks (TransactionInfo requires `blockTimestamp`);
 *  - every method answers malformed parameters with a JSON-RPC error object -32602 and
 *    HTTP 200, never a 5xx: cases generated from each method's parameter list;
 *  - eth_syncing reports Ethereum's progress object while block sync runs.
 */
import Ajv from 'ajv';
import { encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import { ORDERBOOK_ABI, ORDERBOOK_PRECOMPILE } from '../../src/rpc/constants';
import { METHODS } from '../../src/rpc/methods';
import { METHOD_PARAMS, type ParamKind } from '../../src/rpc/params';
import { DEVNET_KEYS, useDevnetNode, waitFor } from '../helpers/devnet';
import { definitions, METHOD_RESULTS } from './fixtures/execution-api-schemas';

const ctx = useDevnetNode();
const alice = privateKeyToAccount(DEVNET_KEYS.accounts[5].privateKey);
const bob = privateKeyToAccount(DEVNET_KEYS.accounts[6].privateKey);
const carol = privateKeyToAccount(DEVNET_KEYS.accounts[7].privateKey);
const ajv = new Ajv({ strict: false, allErrors: true });
for (const [name, schema] of Object.entries(definitions)) ajv.addSchema(schema, `#/definitions/${name}`);
const validators = Object.fromEntries(Object.entries(METHOD_RESULTS).map(([m, s]) => [m, ajv.compile({ definitions, ...s })]));

let id = 0;
async function rpc(method: string, params: unknown[]): Promise<{ status: number; body: any }> {
  const res = await fetch(ctx.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
  return { status: res.status, body: await res.json() };
}
async function result(method: string, params: unknown[]): Promise<unknown> {
  const r = await rpc(method, params);
  expect(r.body.error, `${method}: ${JSON.stringify(r.body.error)}`).toBeUndefined();
  return r.body.result;
}

describe('results against the execution API schemas', () => {
  const calls: [string, unknown[]][] = [];
  let chainId: number;

  beforeAll(async () => {
    chainId = ctx.node.config.genesis.chainId;
    const gasPrice = ctx.node.config.genesis.fees.gasPriceWei;
    const client = new ExchangeClient(ctx.url, { chainId });
    // An exchange operation (it counts in the account's transaction count, as every transaction does).
    const order = await client.placeOrder(alice, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1000', amount: '0.01' });
    const nonce = Number(BigInt((await result('eth_getTransactionCount', [alice.address, 'latest'])) as string));
    const eip1559 = await alice.signTransaction({ chainId, type: 'eip1559', to: bob.address, value: 1n, nonce, gas: 21000n, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 0n });
    // Each transfer from its own sender: no sender's sequence depends on when the mempool forgets a committed one.
    const carolNonce = Number(BigInt((await result('eth_getTransactionCount', [carol.address, 'latest'])) as string));
    const legacy = await carol.signTransaction({ chainId, type: 'legacy', to: bob.address, value: 2n, nonce: carolNonce, gas: 21000n, gasPrice });
    const hash1559 = (await result('eth_sendRawTransaction', [eip1559])) as string;
    const hashLegacy = (await result('eth_sendRawTransaction', [legacy])) as string;
    const receipt = await waitFor(async () => (await result('eth_getTransactionReceipt', [hashLegacy])) ?? undefined, 15_000, 'the legacy transfer');
    const blockNumber = (receipt as { blockNumber: string }).blockNumber;
    const block = (await result('eth_getBlockByNumber', [blockNumber, false])) as { hash: string };
    const orderBlock = ((await result('eth_getTransactionReceipt', [order.txHash])) as { blockNumber: string }).blockNumber;
    const bids = encodeFunctionData({ abi: parseAbi(ORDERBOOK_ABI), functionName: 'getPairBids', args: [1n] });
    calls.push(
      ['eth_chainId', []], ['net_version', []], ['web3_clientVersion', []], ['eth_blockNumber', []], ['eth_gasPrice', []], ['eth_maxPriorityFeePerGas', []],
      ['eth_syncing', []], ['eth_accounts', []],
      ['eth_getBalance', [alice.address, 'latest']], ['eth_getTransactionCount', [alice.address]], ['eth_getCode', [alice.address, 'latest']],
      ['eth_estimateGas', [{ from: alice.address, to: bob.address, value: '0x1' }]],
      // What viem's sendTransaction asks: a value past 2^64 wei (a call object's quantities are uint256) and the nonce.
      ['eth_estimateGas', [{ from: alice.address, to: bob.address, value: '0xd3c2a695eff22ae80000', nonce: '0x0', gasPrice: '0x3b9aca00' }]], ['eth_call', [{ to: ORDERBOOK_PRECOMPILE, data: bids }, 'latest']],
      ['eth_getTransactionByHash', [hash1559]], ['eth_getTransactionByHash', [hashLegacy]], ['eth_getTransactionByHash', [order.txHash]], ['eth_getTransactionByHash', [`0x${'ab'.repeat(32)}`]],
      ['eth_getTransactionReceipt', [hash1559]], ['eth_getTransactionReceipt', [order.txHash]], ['eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`]],
      ['eth_getBlockByNumber', [blockNumber, true]], ['eth_getBlockByNumber', [orderBlock, true]], ['eth_getBlockByNumber', ['0x0', true]], ['eth_getBlockByNumber', ['latest', false]],
      ['eth_getBlockByNumber', ['0xffffffff', false]],
      ['eth_getBlockByHash', [block.hash, true]], ['eth_getBlockByHash', [block.hash, false]],
      ['eth_feeHistory', ['0x4', 'latest', [25, 75]]], ['eth_feeHistory', [2, 'latest']],
    );
    // sendRawTransaction's result was read above; one more, fresh, for the table.
    const bobNonce = Number(BigInt((await result('eth_getTransactionCount', [bob.address, 'latest'])) as string));
    calls.push(['eth_sendRawTransaction', [await bob.signTransaction({ chainId, type: 'eip1559', to: alice.address, value: 3n, nonce: bobNonce, gas: 21000n, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 0n })]]);
  }, 30_000);

  // Shows contract [C-rpc-methods].
  it('every served method is called here and has its result schema', () => {
    const called = new Set(calls.map(([m]) => m));
    for (const m of Object.keys(METHODS)) {
      expect(called.has(m), `${m} is called`).toBe(true);
      expect(validators[m], `${m} has a result schema`).toBeDefined();
    }
  });

  it('every result validates', async () => {
    for (const [method, params] of calls) {
      const value = await result(method, params);
      const validate = validators[method];
      expect(validate(value), `${method}(${JSON.stringify(params)}) → ${JSON.stringify(value).slice(0, 300)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('transactions carry blockTimestamp: the block\u2019s timestamp, by hash and in a full block', async () => {
    const [, [blockNumber]] = calls.find(([m, p]) => m === 'eth_getBlockByNumber' && p[1] === true)!;
    const block = (await result('eth_getBlockByNumber', [blockNumber, true])) as { timestamp: string; transactions: { hash: string; blockTimestamp: string }[] };
    expect(block.transactions.length).toBeGreaterThan(0);
    for (const t of block.transactions) {
      expect(t.blockTimestamp).toBe(block.timestamp);
      expect(((await result('eth_getTransactionByHash', [t.hash])) as { blockTimestamp: string }).blockTimestamp).toBe(block.timestamp);
    }
  });
});

/** Values that are not what a position of each kind holds. */
const MALFORMED: Record<ParamKind, unknown[]> = {
  address: ['0x1234', 42, null, { a: 1 }],
  block: ['next', '0xzz', '0x', 7, true, { blockHash: `0x${'00'.repeat(32)}` }, { blockNumber: 'latest' }],
  hash: ['0x12', `0x${'g'.repeat(64)}`, 5, null],
  bool: ['true', 1, null],
  call: ['0x', 5, [], { to: '0x12' }, { data: 'zz' }, { value: '10' }],
  data: ['', '0x', 'zz', '0x123', 7],
  blockCount: ['abc', '0xzz', '10', -1, 1.5, null, '0x01'],
  percentiles: ['x', [101], [50, 10], [-1], ['a']],
};

// Shows contract [C-errors-rpc].
describe('malformed parameters: -32602 for every method, never a 5xx', () => {
  const cases: [string, string, unknown[]][] = [];
  for (const method of Object.keys(METHODS)) {
    const specs = METHOD_PARAMS[method];
    const good = (i: number): unknown => ({ address: DEVNET_KEYS.accounts[0].address, block: 'latest', hash: `0x${'ab'.repeat(32)}`, bool: false, call: { to: DEVNET_KEYS.accounts[1].address }, data: '0x01', blockCount: '0x1', percentiles: [] })[specs[i].kind];
    const valid = specs.map((_, i) => good(i));
    cases.push([method, 'one param too many', [...valid, 'extra']]);
    specs.forEach((s, i) => {
      if (!s.optional) cases.push([method, `params[${i}] missing`, valid.slice(0, i)]);
      for (const bad of MALFORMED[s.kind]) {
        if (bad === null && s.optional) continue; // null stands for "absent" in an optional position
        const params = [...valid];
        params[i] = bad;
        cases.push([method, `params[${i}] = ${JSON.stringify(bad)}`, params]);
      }
    });
  }

  it('covers every served method', () => {
    expect(new Set(cases.map(([m]) => m))).toEqual(new Set(Object.keys(METHODS)));
  });

  it.each(Object.keys(METHODS))('%s', async (method) => {
    for (const [, what, params] of cases.filter(([m]) => m === method)) {
      const r = await rpc(method, params);
      expect(r.status, `${method} ${what}`).toBe(200);
      expect(r.body.error?.code, `${method} ${what}: ${JSON.stringify(r.body)}`).toBe(-32602);
      expect(r.body.error.message).toMatch(/params/);
    }
  });

  it('eth_feeHistory with a block count that is not a number: -32602 in JSON-RPC, not HTTP 500', async () => {
    const r = await rpc('eth_feeHistory', ['abc', 'latest', []]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32602 } });
    expect(r.body.success).toBeUndefined();
  });
});

// Shows contract [D-rpc-extra].
describe('eth_syncing', () => {
  it('false while the node does not sync', async () => {
    expect(await result('eth_syncing', [])).toBe(false);
  });

  it('while block sync runs: { startingBlock, currentBlock, highestBlock } from the consensus actor\u2019s sync view', async () => {
    const node = ctx.node;
    const head = node.chain().height;
    // The consensus actor's view as a syncing BFT node reports it (this devnet node is solo: it has none).
    const view = { syncing: true, syncTarget: head + 500, syncStartHeight: Math.max(0, head - 7) };
    const original = node.consensusInfo.bind(node);
    node.consensusInfo = () => view as unknown as ReturnType<typeof original>;
    try {
      const r = (await result('eth_syncing', [])) as Record<string, string>;
      expect(Object.keys(r).sort()).toEqual(['currentBlock', 'highestBlock', 'startingBlock']);
      expect(Number(BigInt(r.startingBlock))).toBe(view.syncStartHeight);
      expect(Number(BigInt(r.currentBlock))).toBeGreaterThanOrEqual(head);
      expect(Number(BigInt(r.highestBlock))).toBe(head + 500);
      expect(validators.eth_syncing(r)).toBe(true);
      view.syncing = false;
      expect(await result('eth_syncing', [])).toBe(false);
    } finally {
      node.consensusInfo = original;
    }
  });
});
