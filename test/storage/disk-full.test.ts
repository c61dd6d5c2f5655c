/**
 * Disk full on the chain store of a running node (issue 26 deliver 2, decision 121), on a
 * real LevelDB in a small real tmpfs (test/helpers/full-disk.ts): the node's block write
 * fails with ENOSPC; it does not restart or exit, it keeps the block in memory and stops
 * producing; every write route answers 503 STORAGE_UNAVAILABLE with Retry-After (REST,
 * and JSON-RPC eth_sendRawTransaction), reads still answer 200 from memory, /health and
 * /status say `storage: "full"` with the folder and its bytes free; once the filler file
 * is deleted the probe writes the block kept in memory and the node produces and takes
 * writes again, in the same process. Mounting needs root (this machine and CI run as
 * root): where mount is refused the file fails, saying so (test/helpers/full-disk.ts), and
 * is never skipped.
 */
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import type { Node } from '../../src/node/node';
import { DEVNET_KEYS, startNode, tempDir, waitFor } from '../helpers/devnet';
import { mountSmallDisk, type SmallDisk } from '../helpers/full-disk';

const dir = tempDir('exchain-diskfull-');

let disk: SmallDisk;
let node: Node;
let url: string;
let client: ExchangeClient;
const alice = privateKeyToAccount(DEVNET_KEYS.accounts[2].privateKey);
const bob = DEVNET_KEYS.accounts[3].address;

const json = async (path: string) => (await fetch(`${url}${path}`)).json() as Promise<Record<string, any>>;
const faucet = (address: string) =>
  fetch(`${url}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address, amount: '100' }) });

beforeAll(async () => {
  // Only the chain store on the small disk: the index and the rest of the folder stay on the big one.
  disk = mountSmallDisk(join(dir.path, 'data', 'chain'), '16m');
  ({ node, url } = await startNode(join(dir.path, 'data'), { storageProbeMs: 500, blockTimeMs: 200 }));
  client = new ExchangeClient(url, { chainId: node.config.genesis.chainId });
}, 30_000);

afterAll(async () => {
  await node?.stop();
  try {
    disk?.remove();
  } finally {
    dir.remove();
  }
});

describe('a full disk under the chain store', () => {
  it('refuses writes with 503 STORAGE_UNAVAILABLE, serves reads, says so on /health, and writes again once space returns, without a restart', async () => {
    // Before: a write and its block land.
    expect((await faucet(alice.address)).status).toBe(200);
    const restartsBefore = (node.actorStats() as Record<string, { restarts: number }>).chain.restarts;

    const filler = disk.fill();
    // The next block's batch finds no space: the node says so instead of exiting.
    const health = await waitFor(async () => {
      const h = await json('/health');
      return h.storage === 'full' ? h : undefined;
    }, 20_000, '/health to say storage full');
    expect(health.status).toBe('ok');
    expect(health.disk.folder).toBe(join(dir.path, 'data', 'chain'));
    expect(health.disk.freeBytes).toBeLessThan(64 * 1024);
    expect(node.halted).toBeUndefined();
    const stuckAt = node.chain().height;
    const unwritten = node.chain().unwrittenHeight;
    expect(unwritten).toBe(stuckAt);

    // Every write: 503 STORAGE_UNAVAILABLE with Retry-After, in the error envelope.
    const f = await faucet(bob);
    expect(f.status).toBe(503);
    expect(f.headers.get('retry-after')).toBe('1');
    const body = (await f.json()) as { success: boolean; error: { code: string; message: string } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('STORAGE_UNAVAILABLE');
    expect(body.error.message).toContain(join(dir.path, 'data', 'chain'));
    const order = await client.placeOrder(alice, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1000', amount: '0.01' }).catch((e) => e);
    expect(order).toBeInstanceOf(ExchangeApiError);
    expect([order.status, order.code]).toEqual([503, 'STORAGE_UNAVAILABLE']);
    const raw = await alice.signTransaction({ chainId: node.config.genesis.chainId, type: 'eip1559', to: bob, value: 1n, nonce: 0, gas: 21000n, maxFeePerGas: node.config.genesis.fees.gasPriceWei, maxPriorityFeePerGas: 0n });
    const rpc = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransaction', params: [raw] }) });
    expect(rpc.status).toBe(503);
    expect(rpc.headers.get('retry-after')).toBe('1');
    const rpcBody = (await rpc.json()) as { id: number; error: { code: number; data: { code: string } } };
    expect([rpcBody.id, rpcBody.error.code, rpcBody.error.data.code]).toEqual([7, -32000, 'STORAGE_UNAVAILABLE']);

    // Reads: from memory (balance, status) and from the store (a block written before).
    const balance = await fetch(`${url}/balance/${alice.address}`);
    expect(balance.status).toBe(200);
    const status = await json('/status');
    expect(status.data.storage).toBe('full');
    expect(status.data.disk.waiting).toEqual(['chain']);
    expect((await fetch(`${url}/block/${stuckAt - 1}`)).status).toBe(200);
    const blockNumber = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
    expect(blockNumber.status).toBe(200);

    // Progress stopped: no block past the one held in memory.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(node.chain().height).toBe(stuckAt);

    // Space returns: the probe writes the held block, blocks and writes resume, same process.
    unlinkSync(filler);
    await waitFor(async () => ((await json('/health')).storage === 'ok' ? true : undefined), 20_000, '/health to say storage ok');
    expect(node.chain().unwrittenHeight).toBeUndefined();
    expect(await node.chain().store.getBlock(stuckAt)).toBeDefined();
    const again = await faucet(bob);
    expect(again.status).toBe(200);
    expect(node.chain().height).toBeGreaterThan(stuckAt);
    expect(node.halted).toBeUndefined();
    expect((node.actorStats() as Record<string, { restarts: number }>).chain.restarts).toBe(restartsBefore);
    // What was answered is on disk: the store's head is the chain's.
    expect(await node.chain().store.headHeight()).toBe(node.chain().height);
  }, 90_000);
});
