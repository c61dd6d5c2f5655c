/**
 * The indexer works off the commit path (issue 25): the chain actor hands each committed
 * block to the indexer's mailbox and goes on, so blocks commit and orders are answered
 * final while the index lags; reads of indexed data wait for it (indexAt) instead. A real
 * in-process node whose real indexer is held back by the test (each indexBlock waits on a
 * gate first): the chain runs ahead, an order is final, and once the gate opens the index
 * catches up and holds the order.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, useDevnetNode, waitFor } from '../helpers/devnet';

describe('the indexer off the commit path', () => {
  const env = useDevnetNode({ syncWrites: false });
  let restore: (() => void) | undefined;
  afterAll(() => restore?.());

  it('blocks commit and an order is final while indexing is held; the index catches up after', async () => {
    const idx = env.node.indexer()!;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const indexBlock = idx.indexBlock.bind(idx);
    idx.indexBlock = async (...args) => {
      await gate;
      return indexBlock(...args);
    };
    restore = () => {
      idx.indexBlock = indexBlock;
      open();
    };
    const from = env.node.chain().height;

    const client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
    const trader = privateKeyToAccount(DEVNET_KEYS.accounts[2].privateKey as `0x${string}`);
    const placed = await client.placeOrder(trader, { symbol: 'BTC', side: 'buy', type: 'limit', price: '50000', amount: '0.001' });
    expect(placed.orderId).toMatch(/^[1-9][0-9]*$/);
    await waitFor(() => env.node.chain().height >= from + 3 || undefined, 20_000, 'three more blocks committed');
    // At most the block whose indexing had begun before the gate went in.
    expect(idx.indexedHeight()).toBeLessThanOrEqual(from + 1);
    expect(await idx.order(placed.orderId)).toBeUndefined();

    open();
    const head = env.node.chain().height;
    expect(await idx.waitForHeight(head, 20_000)).toBe(true);
    expect((await idx.order(placed.orderId))?.orderId).toBe(placed.orderId);
  }, 60_000);
});
