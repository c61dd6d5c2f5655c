/**
 * Client-signed load on a local network (the store tests of issues 26 and 41): traders
 * each sign limit orders with their own wallet key and send them through REST to every
 * node in turn (a node that is down or syncing fails that one order), and the check that
 * every order any node acknowledged (200) is in the same block on every node.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, waitFor } from './devnet';
import type { LocalNetwork } from './network';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: await res.json() };
}

export interface SignedLoad {
  /** The tx hashes of the orders some node answered 200. */
  acked: string[];
  /** The other answers, by `status code`, counted. */
  failures: Map<string, number>;
  /** Resolves once `n` more orders are acknowledged. */
  moreAcked(n: number): Promise<unknown>;
  /** Stops the traders and waits for their last orders. */
  stop(): Promise<void>;
}

/** `traders` wallets (devnet accounts 0…) signing orders to the nodes of `net` in turn. */
export function startSignedLoad(net: LocalNetwork, chainId: number, traders = net.size): SignedLoad {
  const acked: string[] = [];
  const failures = new Map<string, number>();
  let load = true;
  const workers = Array.from({ length: traders }, async (_, w) => {
    const trader = privateKeyToAccount(DEVNET_KEYS.accounts[w].privateKey);
    const signer = new ExchangeClient(net.nodes[0].url, { chainId });
    for (let n = 0; load; n++) {
      const via = net.nodes[(w + n) % net.size];
      const order = await signer.signOrder(trader, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1000', amount: '0.01' });
      const r = await json(`${via.url}/v1/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) }).catch(
        (err: Error) => ({ status: 0, body: { error: { code: err.name } } }),
      );
      if (r.status === 200) acked.push(r.body.data.txHash);
      else {
        const key = `${r.status} ${r.body?.error?.code ?? ''}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
      await sleep(r.status === 200 ? 100 : 300);
    }
  });
  return {
    acked,
    failures,
    moreAcked(n) {
      const target = acked.length + n;
      return waitFor(() => acked.length >= target || undefined, 90_000, `${target} acknowledged orders`);
    },
    async stop() {
      load = false;
      await Promise.all(workers);
    },
  };
}

/** Every acknowledged order is found on every node of `net`, at the same height on all. */
export async function expectAckedOnAll(net: LocalNetwork, acked: readonly string[]): Promise<void> {
  const all = net.nodes.map((n) => n.index);
  const top = Math.max(...(await Promise.all(all.map((i) => net.height(i)))));
  await net.waitHeight(top, all, 90_000);
  const heightOf = new Map<string, number>();
  for (const h of acked) heightOf.set(h, -1);
  await Promise.all(
    all.map(async (i) => {
      for (let k = 0; k < acked.length; k += 50) {
        const found = await Promise.all(acked.slice(k, k + 50).map(async (h) => [h, await json(`${net.nodes[i - 1].url}/tx/${h}`)] as const));
        for (const [h, r] of found) {
          expect(r.status, `validator ${i}, order ${h}`).toBe(200);
          if (heightOf.get(h) === -1) heightOf.set(h, r.body.data.height);
          expect(r.body.data.height, `validator ${i}, order ${h}`).toBe(heightOf.get(h));
        }
      }
    }),
  );
}
