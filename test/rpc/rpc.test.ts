/**
 * The node driven by viem (http and webSocket transports) and ethers, unchanged:
 * chain id, block number, balances, blocks, transfers and their receipts, every
 * transaction of the chain found by hash, the read precompiles, newHeads, and the
 * standard JSON-RPC error codes.
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, parseAbi, parseEther, webSocket, type Chain } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import type { Node } from '../../src/node/node';
import { AGENT_CAPS_PRECOMPILE, ORDERBOOK_PRECOMPILE } from '../../src/rpc/constants';
import { DEVNET_KEYS, startNode, tempDir, waitFor } from '../helpers/devnet';

const dir = tempDir();
let node: Node;
let url: string;
let chain: Chain;
const alice = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey);
const bob = privateKeyToAccount(DEVNET_KEYS.accounts[1].privateKey);

beforeAll(async () => {
  ({ node, url } = await startNode(dir.path));
  chain = defineChain({
    id: node.config.genesis.chainId,
    name: 'exchange devnet',
    nativeCurrency: { name: 'Exchange Token', symbol: 'EXC', decimals: 18 },
    rpcUrls: { default: { http: [url], webSocket: [url.replace('http', 'ws') + '/ws'] } },
  });
});
afterAll(async () => {
  await node?.stop();
  dir.remove();
});

const rpc = async (body: unknown, raw = false) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ? (body as string) : JSON.stringify(body) });
  return { status: res.status, body: res.status === 204 ? undefined : ((await res.json()) as any) };
};

describe('viem over http', () => {
  it('reads chain id, block number, balance and blocks', async () => {
    const client = createPublicClient({ chain, transport: http(url) });
    expect(await client.getChainId()).toBe(713799);
    await waitFor(async () => ((await client.getBlockNumber()) > 2n) || undefined);
    const bal = await client.getBalance({ address: alice.address });
    expect(bal).toBe(node.chain().state.account(alice.address.toLowerCase() as `0x${string}`).nativeWei);
    const block = await client.getBlock({ blockTag: 'latest' });
    expect(block.number).toBeGreaterThan(0n);
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const byHash = await client.getBlock({ blockHash: block.hash! });
    expect(byHash.number).toBe(block.number);
    const genesis = await client.getBlock({ blockNumber: 0n });
    expect(genesis.hash).toBe((await (await fetch(`${url}/status`)).json() as any).data.genesisHash);
    expect(await client.getGasPrice()).toBe(node.config.genesis.fees.gasPriceWei);
  });

  // Shows contract [D-rpc-extra].
  it('sends a transfer with walletClient.sendTransaction (no hand-set fields) and finds it by hash', async () => {
    const wallet = createWalletClient({ account: alice, chain, transport: http(url) });
    const client = createPublicClient({ chain, transport: http(url) });
    const before = await client.getBalance({ address: bob.address });
    const hash = await wallet.sendTransaction({ to: bob.address, value: parseEther('1.5') });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe('success');
    expect(receipt.gasUsed).toBe(21000n);
    expect(await client.getBalance({ address: bob.address })).toBe(before + parseEther('1.5'));
    const tx = await client.getTransaction({ hash });
    expect(tx.from.toLowerCase()).toBe(alice.address.toLowerCase());
    expect(tx.to!.toLowerCase()).toBe(bob.address.toLowerCase());
    expect(tx.value).toBe(parseEther('1.5'));
    expect(tx.type).toBe('eip1559');
    expect(await client.getTransactionCount({ address: alice.address })).toBe(1);
  });

  // Shows contract [D-nonces-eth].
  it('legacy and EIP-2930 transfers are accepted too; a replayed nonce is refused', async () => {
    const wallet = createWalletClient({ account: bob, chain, transport: http(url) });
    const client = createPublicClient({ chain, transport: http(url) });
    const h1 = await wallet.sendTransaction({ to: alice.address, value: 1n, type: 'legacy', gasPrice: node.config.genesis.fees.gasPriceWei });
    expect((await client.waitForTransactionReceipt({ hash: h1, pollingInterval: 50 })).status).toBe('success');
    const h2 = await wallet.sendTransaction({ to: alice.address, value: 2n, type: 'eip2930', gasPrice: node.config.genesis.fees.gasPriceWei, accessList: [] });
    expect((await client.getTransaction({ hash: (await client.waitForTransactionReceipt({ hash: h2, pollingInterval: 50 })).transactionHash })).type).toBe('eip2930');
    await expect(wallet.sendTransaction({ to: alice.address, value: 1n, nonce: 0 })).rejects.toThrow(/nonce/i);
  });

  it('an exchange order is a transaction viem finds by hash, with its receipt', async () => {
    const ex = new ExchangeClient(url, { chainId: 713799 });
    const order = await ex.placeOrder(alice, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1500', amount: '0.1' });
    const client = createPublicClient({ chain, transport: http(url) });
    const tx = await client.getTransaction({ hash: order.txHash as `0x${string}` });
    expect(tx.from.toLowerCase()).toBe(alice.address.toLowerCase());
    expect(tx.input.length).toBeGreaterThan(10);
    const receipt = await client.getTransactionReceipt({ hash: order.txHash as `0x${string}` });
    expect(receipt.status).toBe('success');
  });

  // Shows contract [C-native-precompile], [C-agent-precompile].
  it('readContract against the orderbook and agent-caps precompiles', async () => {
    const ex = new ExchangeClient(url, { chainId: 713799 });
    await ex.placeOrder(bob, { symbol: 'SOL', side: 'sell', type: 'limit', price: '150', amount: '2' });
    await ex.placeOrder(bob, { symbol: 'SOL', side: 'sell', type: 'limit', price: '151', amount: '3' });
    const client = createPublicClient({ chain, transport: http(url) });
    const abi = parseAbi([
      'function getAvailableLiquidity(uint256 pairId, uint8 side, uint256 worstPrice) view returns (uint256)',
      'function getPairAsks(uint256 pairId) view returns ((uint256 orderId, address owner, uint256 price, uint256 size, bool isAgent)[])',
      'function getPairBids(uint256 pairId) view returns ((uint256 orderId, address owner, uint256 price, uint256 size, bool isAgent)[])',
    ]);
    const liq = await client.readContract({ address: ORDERBOOK_PRECOMPILE, abi, functionName: 'getAvailableLiquidity', args: [4n, 0, 150_000_000n] });
    expect(liq).toBe(2n * 10n ** 18n);
    const liqAll = await client.readContract({ address: ORDERBOOK_PRECOMPILE, abi, functionName: 'getAvailableLiquidity', args: [4n, 0, 151_000_000n] });
    expect(liqAll).toBe(5n * 10n ** 18n);
    const asks = await client.readContract({ address: ORDERBOOK_PRECOMPILE, abi, functionName: 'getPairAsks', args: [4n] });
    expect(asks.map((a) => a.price)).toEqual([150_000_000n, 151_000_000n]);
    expect(asks[0].owner.toLowerCase()).toBe(bob.address.toLowerCase());
    expect(await client.readContract({ address: ORDERBOOK_PRECOMPILE, abi, functionName: 'getPairBids', args: [4n] })).toEqual([]);
    const capsAbi = parseAbi(['function agentCaps(address owner) view returns (uint8 mode, bool caps_set, uint64 max_leverage_bps, uint32 allowed_order_types, uint128 max_input, uint128 max_total)']);
    const caps = await client.readContract({ address: AGENT_CAPS_PRECOMPILE, abi: capsAbi, functionName: 'agentCaps', args: [alice.address] });
    expect(caps).toEqual([2, false, 0n, 0, 0n, 0n]); // default: ACTIVE, no caps
  });
});

describe('viem over webSocket', () => {
  // Shows contract [C-service-rpc], [C-rpc-ws], [C-events-newheads].
  it('watchBlocks receives newHeads; requests work over the socket', async () => {
    const client = createPublicClient({ chain, transport: webSocket(url.replace('http', 'ws') + '/ws') });
    expect(await client.getBlockNumber()).toBeGreaterThan(0n);
    const seen: bigint[] = [];
    const unwatch = client.watchBlocks({ onBlock: (b) => void seen.push(b.number!), emitOnBegin: false });
    await waitFor(() => seen.length >= 5 || undefined, 5000, 'five heads');
    unwatch();
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1] + 1n);
    await (client.transport as any).getRpcClient?.().then((c: any) => c.close?.());
  });

  it('trades and orders subscriptions start with a snapshot holding every open order', async () => {
    const ex = new ExchangeClient(url, { chainId: 713799 });
    await ex.placeOrder(alice, { symbol: 'LINK', side: 'buy', type: 'limit', price: '10', amount: '1' });
    await ex.placeOrder(alice, { symbol: 'LINK', side: 'buy', type: 'limit', price: '11', amount: '1' });
    const ws = new WebSocket(url.replace('http', 'ws') + '/ws');
    const msgs: any[] = [];
    ws.onmessage = (m) => msgs.push(JSON.parse(String(m.data)));
    await new Promise((r) => (ws.onopen = r));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['orders', { address: alice.address }] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['trades', { symbol: 'LINK' }] }));
    await waitFor(() => msgs.filter((m) => m.method === 'eth_subscription').length >= 2 || undefined);
    const ordersSub = msgs.find((m) => m.id === 1).result;
    const snap = msgs.find((m) => m.params?.subscription === ordersSub).params.result;
    expect(snap.snapshot).toBe(true);
    const open = node.chain().state.openOrderIds(alice.address.toLowerCase() as `0x${string}`).map(String);
    expect(snap.data.map((o: any) => o.orderId).sort()).toEqual(open.sort());
    const tradesSub = msgs.find((m) => m.id === 2).result;
    await ex.placeOrder(bob, { symbol: 'LINK', side: 'sell', type: 'limit', price: '11', amount: '1' });
    await waitFor(() => msgs.some((m) => m.params?.subscription === tradesSub && m.params.result.price === '11') || undefined, 5000, 'trade push');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_subscribe', params: ['nope'] }));
    await waitFor(() => msgs.find((m) => m.id === 3) ?? undefined);
    expect(msgs.find((m) => m.id === 3).error.code).toBe(-32602);
    ws.close();
  });
});

describe('ethers JsonRpcProvider', () => {
  it('reads and sends', async () => {
    const provider = new JsonRpcProvider(url, 713799, { staticNetwork: true });
    expect((await provider.getNetwork()).chainId).toBe(713799n);
    expect(await provider.getBlockNumber()).toBeGreaterThan(0);
    const wallet = new Wallet(DEVNET_KEYS.accounts[2].privateKey, provider);
    const tx = await wallet.sendTransaction({ to: bob.address, value: 12345n });
    const receipt = await tx.wait(1, 10_000);
    expect(receipt!.status).toBe(1);
    expect((await provider.getTransaction(tx.hash))!.value).toBe(12345n);
    provider.destroy();
  });
});

describe('errors', () => {
  it('parse error, invalid request, unknown method, bad params, batch', async () => {
    expect((await rpc('{"jsonrpc": "2.0", ', true)).body.error.code).toBe(-32700);
    expect((await rpc({ jsonrpc: '1.0', id: 1, method: 'eth_chainId' })).body.error.code).toBe(-32600);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_nope', params: [] })).body.error.code).toBe(-32601);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ['0x12'] })).body.error.code).toBe(-32602);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: 'x' })).body.error.code).toBe(-32602);
    expect((await rpc([])).body.error.code).toBe(-32600);
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'nope', params: [] },
      { jsonrpc: '2.0', method: 'eth_chainId', params: [] }, // a notification: no answer
    ]);
    expect(batch.body).toHaveLength(2);
    expect(batch.body[0]).toEqual({ jsonrpc: '2.0', id: 1, result: '0xae447' });
    expect(batch.body[1].error.code).toBe(-32601);
    expect((await rpc({ jsonrpc: '2.0', id: 9, method: 'net_version', params: [] })).body.result).toBe('713799');
    expect((await rpc({ jsonrpc: '2.0', id: 9, method: 'web3_clientVersion', params: [] })).body.result).toMatch(/exchange-chain/);
  });

  // Shows contract [C-service-venue], [C-rpc-no-evm].
  it('contract creation and calldata are refused: EVM execution is disabled', async () => {
    const wallet = createWalletClient({ account: alice, chain, transport: http(url) });
    await expect(wallet.sendTransaction({ data: '0x6080604052' })).rejects.toThrow(/EVM execution is disabled/);
    await expect(wallet.sendTransaction({ to: bob.address, data: '0xdeadbeef' })).rejects.toThrow(/EVM execution is disabled/);
    const call = await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: bob.address, data: '0x12345678' }, 'latest'] });
    expect(call.body.error.code).toBe(-32000);
    expect(call.body.error.message).toMatch(/EVM execution is disabled/);
    const signed = await alice.signTransaction({ chainId: 1, type: 'eip1559', to: bob.address, value: 1n, nonce: 5, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n });
    const wrong = await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [signed] });
    expect(wrong.body.error.code).toBe(-32000);
    expect(wrong.body.error.message).toMatch(/chain id 1/);
    const garbage = await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x02f8'] });
    expect(garbage.body.error.code).toBe(-32602);
  });

  // Shows contract [C-rpc-same-address], [C-rpc-status], [C-account-network].
  it('CORS on every route', async () => {
    for (const path of ['/', '/health', '/v1/pairs', '/status']) {
      const res = await fetch(url + path, { method: 'OPTIONS', headers: { origin: 'http://example.test', 'access-control-request-method': 'POST' } });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
    const get = await fetch(url + '/chain-config', { headers: { origin: 'http://example.test' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    const cfg = ((await get.json()) as any).data;
    expect(cfg).toMatchObject({ chainId: 713799, blockTimeMs: 22, precompiles: { orderbook: ORDERBOOK_PRECOMPILE, agentCaps: AGENT_CAPS_PRECOMPILE } });
    const net = ((await (await fetch(url + '/v1/network')).json()) as any).data;
    expect(net.blockHeight).toBeGreaterThan(0);
  });
});
