/**
 * Read-your-writes with a slow index. A write is answered once its transaction is
 * final, without waiting for the read-side index; a read of indexed data (orders,
 * fills, trades, one order, cancel-all's order count) waits until the index holds
 * every block final before the read arrived. The index is slowed here on purpose, so
 * an answer that did not wait would miss the order it reads.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import type { Indexer } from '../../src/indexer/indexer';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';

const devnet = useDevnetNode();
const [alice, bob] = DEVNET_KEYS.accounts.slice(0, 2).map((a) => privateKeyToAccount(a.privateKey));
const INDEX_DELAY_MS = 400;

/**
 * Every block with a transaction reaches the index only once `open()` is called, and then
 * INDEX_DELAY_MS late (empty blocks, and the ones queued behind, follow).
 */
function slowIndex(ix: Indexer): { open: () => void; restore: () => void } {
  const original = ix.indexBlock;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  ix.indexBlock = async function (this: Indexer, ...args: Parameters<Indexer['indexBlock']>) {
    if (args[2].length > 0) {
      await opened;
      await new Promise((r) => setTimeout(r, INDEX_DELAY_MS));
    }
    return original.apply(this, args);
  };
  return {
    open,
    restore: () => {
      open();
      ix.indexBlock = original;
    },
  };
}

describe('read-your-writes with a slow index', () => {
  it('writes answer at finality, before the index has their block; reads wait for it', async () => {
    const { node } = devnet;
    const client = new ExchangeClient(devnet.url, { chainId: node.config.genesis.chainId });
    const ix = node.indexer()!;
    const { open, restore } = slowIndex(ix);
    try {
      // The index holds back every block with a transaction until open(): a write that
      // waited for the index would never be answered (the test would time out), however
      // fast or slow this machine is.
      const ask = await client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '2100', amount: '1' });
      const finalHeight = node.chain().height;
      // Answered at finality: the index is still behind (the write did not wait for it).
      expect(ix.indexedHeight()).toBeLessThan(finalHeight);
      open();

      const orders = await client.orders(alice.address);
      expect(orders.map((o: { orderId: string }) => o.orderId)).toContain(ask.orderId);
      expect(ix.indexedHeight()).toBeGreaterThanOrEqual(finalHeight);
      expect((await client.order(ask.orderId)).status).toBe('open');

      const bid = await client.placeOrder(bob, { symbol: 'ETH', side: 'buy', type: 'limit', price: '2100', amount: '0.25' });
      expect(bid.status).toBe('filled');
      const trades = await client.trades('ETH');
      expect(trades[0]).toMatchObject({ price: '2100', amount: '0.25', txHash: bid.txHash });
      const fills = await client.fills(bob.address);
      expect(fills[0]).toMatchObject({ side: 'buy', txHash: bid.txHash });

      // cancel-all counts the trader's orders in the index once its own block is there.
      const cancelled = await client.cancelAll(alice);
      expect(cancelled.cancelledIds).toContain(ask.orderId);
      expect(cancelled.totalOrders).toBe(orders.length);
    } finally {
      restore();
    }
  });
});
