/**
 * Reads of pruned data (issue 27 deliver 2, decision 135), on a single-validator devnet
 * node keeping 5 blocks: a block below the base answers 410 PRUNED with
 * error.details.lowestHeight, a future height keeps its 404, an unknown transaction's 404
 * carries the lowest height, eth_getBlockByNumber answers a JSON-RPC error (a future
 * block still null), /status shows the kept range.
 */
import { describe, expect, it } from 'vitest';
import { useDevnetNode, waitFor } from '../helpers/devnet';

const ctx = useDevnetNode({ retainBlocks: 5, blockTimeMs: 50 });

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ctx.url}${path}`);
  return { status: res.status, body: await res.json() };
}

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(`${ctx.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return res.json();
}

describe('pruned reads', () => {
  it('answer 410 PRUNED with the lowest height; heights never there keep their answers', async () => {
    const base = await waitFor(async () => {
      const b = await ctx.node.chain().store.base();
      return b > 3 ? b : undefined;
    }, 30_000, 'the pruner to move the base past 3');
    const pruned = await get('/block/1');
    expect(pruned.status).toBe(410);
    expect(pruned.body.success).toBe(false);
    expect(pruned.body.error.code).toBe('PRUNED');
    expect(pruned.body.error.details.lowestHeight).toBeGreaterThanOrEqual(base);
    const kept = await get(`/block/${ctx.node.chain().height}`);
    expect(kept.status).toBe(200);
    const future = await get(`/block/${ctx.node.chain().height + 1_000}`);
    expect(future.status).toBe(404);
    expect(future.body.error.code).toBe('NOT_FOUND');
    const tx = await get(`/tx/0x${'ab'.repeat(32)}`);
    expect(tx.status).toBe(404);
    expect(tx.body.error.details.lowestHeight).toBeGreaterThanOrEqual(base);

    const rpcPruned = await rpc('eth_getBlockByNumber', ['0x1', false]);
    expect(rpcPruned.result).toBeUndefined();
    expect(rpcPruned.error.code).toBe(-32000);
    expect(rpcPruned.error.data).toMatchObject({ code: 'PRUNED' });
    expect(rpcPruned.error.data.lowestHeight).toBeGreaterThanOrEqual(base);
    const rpcFuture = await rpc('eth_getBlockByNumber', [`0x${(ctx.node.chain().height + 1_000).toString(16)}`, false]);
    expect(rpcFuture.result).toBeNull();
    expect((await rpc('eth_getBlockByNumber', ['latest', false])).result).not.toBeNull();

    const status = await get('/status');
    expect(status.status).toBe(200);
    const { blocks } = status.body.data.retained;
    expect(blocks.lowestHeight).toBeGreaterThanOrEqual(base);
    expect(blocks.highestHeight).toBeGreaterThanOrEqual(blocks.lowestHeight);
    // The window, bounded: at most retainBlocks plus what a run has not yet reached.
    expect(await ctx.node.chain().store.base()).toBeGreaterThan(1);
  });
});
