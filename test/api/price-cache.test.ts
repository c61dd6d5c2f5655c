/**
 * GET /v1/price/all is cached for the genesis `limits.priceAllCacheMs` (contract
 * [C-limits-price-cache]: 3 seconds in the devnet and testnet files), while
 * /v1/price/{symbol} reads the last trade at once. The node here caches for an hour, so
 * the cached answer is shown without any race against the wall clock.
 */
import { join, resolve } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import { genesisHash, loadGenesisFile } from '../../src/genesis/load';
import { DEVNET_KEYS, devnetGenesis, useDevnetNode } from '../helpers/devnet';

const base = devnetGenesis(1).genesis;
const genesis = { ...base, limits: { ...base.limits, priceAllCacheMs: 3_600_000 } };
const env = useDevnetNode({ genesis, genesisHash: genesisHash(genesis) });
const [alice, bob] = DEVNET_KEYS.accounts.slice(0, 2).map((a) => privateKeyToAccount(a.privateKey));
let client: ExchangeClient;

beforeAll(() => {
  client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
});

/** One trade of ETH at `price`: a resting ask, then a bid that takes it. */
async function tradeAt(price: string): Promise<void> {
  await client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price, amount: '0.01' });
  const bid = await client.placeOrder(bob, { symbol: 'ETH', side: 'buy', type: 'limit', price, amount: '0.01' });
  expect(bid.status).toBe('filled');
}

const ethOf = async () => (await client.prices()).find((p) => p.symbol === 'ETH')!.price;

describe('GET /v1/price/all', () => {
  it('the devnet and testnet genesis cache it 3 seconds', () => {
    for (const name of ['devnet', 'testnet']) {
      expect(loadGenesisFile(join(resolve(__dirname, '../..'), `genesis/${name}.json`)).limits.priceAllCacheMs).toBe(3000);
    }
  });

  it('answers from its cache within priceAllCacheMs, while the price of one pair is read at once', async () => {
    await tradeAt('2000');
    expect((await client.price('ETH')).price).toBe('2000');
    expect(await ethOf()).toBe('2000');
    await tradeAt('2100');
    expect((await client.price('ETH')).price).toBe('2100');
    // Cached an hour: the answer is the one taken before the second trade.
    expect(await ethOf()).toBe('2000');
  });
});
