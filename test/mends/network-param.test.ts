/**
 * Issue 24 mend: `network` is checked on every route that takes it. Naming the other
 * network answers 400 WRONG_NETWORK naming it (decisions: Networks); omitting it or naming
 * this node's network answers as before. The routes listed are the read routes that
 * ignored it; the routes that already checked it keep their own tests.
 */
import { describe, expect, it } from 'vitest';
import { useDevnetNode } from '../helpers/devnet';

const ctx = useDevnetNode();

const ROUTES = ['/v1/candles/BTC', '/v1/price/BTC', '/v1/price/all', '/v1/pairs', '/v1/stats', '/v1/network', '/v1/order/1'];

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(ctx.url + path);
  return { status: res.status, body: await res.json() };
}

// Shows contract [C-conv-network], [C-endpoints-network], [D-networks-param].
describe('network on the read routes', () => {
  it.each(ROUTES)('%s?network=mainnet answers 400 WRONG_NETWORK naming the network', async (route) => {
    const r = await get(`${route}${route.includes('?') ? '&' : '?'}network=mainnet`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, error: { code: 'WRONG_NETWORK' } });
    expect(r.body.error.message).toContain('network');
    expect(r.body.error.message).toContain('mainnet');
  });

  it.each(ROUTES)('%s with this node\u2019s own network answers as without it', async (route) => {
    const own = ctx.node.config.genesis.network;
    const [plain, named] = await Promise.all([get(route), get(`${route}?network=${own}`)]);
    expect(named.status).toBe(plain.status);
    expect(named.status).not.toBe(400);
  });
});
