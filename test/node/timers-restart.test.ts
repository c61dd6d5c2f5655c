/**
 * TWAP slices and scheduled cancels survive a restart and fire on every node at the same
 * height (issue 24, decisions 90–91): four validator processes of the devnet (slices
 * every second by genesis), a TWAP and a scheduled cancel placed through validator 1,
 * validator 4 SIGKILLed while both are pending and restarted before they finish; every
 * validator then holds the same block hash and state root at every height checked, the
 * same TWAP progress, and the same (fired) schedule.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, ROOT, tempDir, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';

const N = 4;
const dir = tempDir('exchain-timers-');
const genesisFile = join(dir.path, 'genesis.json');
let net: LocalNetwork;
const [alice, bob, carol] = DEVNET_KEYS.accounts.slice(0, 3).map((a) => privateKeyToAccount(a.privateKey));

beforeAll(async () => {
  const g = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
  g.validators = g.validators.slice(0, N);
  g.consensus = { ...g.consensus, activeSetMin: Math.min(g.consensus.activeSetMin, N) };
  g.limits = { ...g.limits, twapSliceIntervalMs: 1000 };
  writeFileSync(genesisFile, JSON.stringify(g, null, 2));
  net = await LocalNetwork.start(N, () => [], { genesisFile });
}, 120_000);
afterAll(async () => {
  await net?.stop();
  dir.remove();
}, 60_000);

describe('timers across a restart (real processes)', () => {
  it('a TWAP and a scheduled cancel fire at the same heights on every validator, one of them restarted mid-way', async () => {
    const one = new ExchangeClient(net.nodes[0].url, { chainId: 713799 });
    const eth = await waitFor(async () => (await one.perpMarkets().catch(() => []) as any[]).find((m: any) => m.symbol === 'ETH' && m.oracleFresh), 60_000, 'a fresh ETH price');
    const ask = (Math.floor(Number(eth.oraclePrice) * 100) / 100).toFixed(2);
    await one.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: ask, amount: '1' });
    const resting = await one.placeOrder(carol, { symbol: 'ETH', side: 'buy', type: 'limit', price: '100', amount: '0.01' });
    const head = (await net.status(1)).latestBlockTimeMs as number;
    const scheduled = await one.scheduleCancel(carol, head + 12_000);
    // 0.05 ETH over 300 one-second slices, each raised to the 0.005 minimum: ten slices.
    const twap = await one.placeTwap(bob, { symbol: 'ETH', side: 'buy', amount: '0.05', minutes: 5 });
    const from = (await one.call<any>('GET', `/tx/${twap.txHash}`)).body.data.height as number;

    await net.kill(4);
    // Down while the others commit (and run slices): three heights, however long they take here.
    await net.waitHeight((await net.height(1)) + 3, [1, 2, 3]);
    await net.launch(4);

    const done = await waitFor(async () => {
      const t = await one.twap(twap.twapId);
      const s = await one.scheduledCancel(carol.address);
      return t.state !== 'running' && s.time === null ? t : undefined;
    }, 90_000, 'the TWAP to complete and the schedule to fire');
    expect(done).toMatchObject({ state: 'completed', filled: '0.05', remaining: '0', slicesDone: 10 });
    expect(scheduled.time).toBe(head + 12_000);

    const top = (await net.height(1)) + 3;
    await net.waitHeight(top, [1, 2, 3, 4], 90_000);
    for (let h = from; h <= top; h += h < top - 5 ? 5 : 1) {
      const blocks = await Promise.all([1, 2, 3, 4].map((i) => net.block(i, h)));
      for (const b of blocks) {
        expect(b.hash, `block hash at ${h}`).toBe(blocks[0].hash);
        expect(b.stateRoot, `state root at ${h}`).toBe(blocks[0].stateRoot);
      }
    }
    for (const node of net.nodes) {
      const c = new ExchangeClient(node.url, { chainId: 713799 });
      expect(await c.twap(twap.twapId), `validator ${node.index}`).toEqual(done);
      expect((await c.scheduledCancel(carol.address)).time).toBeNull();
      expect((await c.openOrders(carol.address)).orders.map((o: any) => String(o.order_id ?? o.orderId))).not.toContain(resting.orderId);
    }
  }, 300_000);
});
