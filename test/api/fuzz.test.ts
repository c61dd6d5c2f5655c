/**
 * Thousands of random bodies, paths and methods against a live node: whatever comes
 * in, the answer is never a 5xx, and every error is in the envelope.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useDevnetNode } from '../helpers/devnet';

const devnet = useDevnetNode();

const ROUTES: [string, string][] = [
  ['POST', '/v1/order'], ['POST', '/v1/order/batch'], ['DELETE', '/v1/order/1'], ['DELETE', '/v1/order/cancel-all'],
  ['GET', '/v1/price/ETH'], ['GET', '/v1/price/all'], ['GET', '/v1/candles/ETH'], ['GET', '/v1/trades/ETH'], ['GET', '/v1/orderbook/ETH'],
  ['GET', '/v1/stats'], ['GET', '/v1/leaderboard'], ['GET', '/v1/pairs'], ['GET', '/v1/account/0x0000000000000000000000000000000000000001'],
  ['GET', '/v1/orders/0x0000000000000000000000000000000000000001'], ['GET', '/v1/fills/0x0000000000000000000000000000000000000001'], ['GET', '/v1/order/1'],
  ['POST', '/order/place'], ['POST', '/order/cancel'], ['GET', '/orderbook/1'], ['GET', '/orders/0x0000000000000000000000000000000000000001'],
  ['GET', '/balance/0x0000000000000000000000000000000000000001'], ['GET', '/reserves'], ['POST', '/faucet'], ['POST', '/tx'], ['GET', '/tx/0x00'],
  ['GET', '/block/1'], ['GET', '/health'], ['GET', '/status'],
];

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('ETH', 'buy', 'sell', 'limit', 'market', '0x' + 'ab'.repeat(65), '0x' + '11'.repeat(20), '1.5', '-1', '1e9', '99999999999999999999999'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('symbol', 'side', 'type', 'price', 'amount', 'trader', 'signature', 'nonce', 'orders', 'network', 'owner', 'pair_id', 'size', 'order_type', 'session_key', 'order_id', 'address', 'tx', 'leverage', 'x'), tie('value'), { maxKeys: 8 }),
  ),
})).value;

const pathJunk = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('..', '%00', '%ff', '?limit=-1', '?depth=abc', '?interval=1y', '/../../etc', '?limit=1e99', '?network=mainnet'));

describe('fuzz: never a 5xx', () => {
  it('random bodies on every write route and random paths on every route', async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), jsonValue, pathJunk, fc.boolean(), fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), async ([method, path], body, junk, mangle, otherMethod) => {
        const m = mangle ? otherMethod : method;
        const p = mangle ? path + encodeURI(junk).slice(0, 40) : path;
        const hasBody = m !== 'GET';
        const res = await fetch(devnet.url + p, {
          method: m,
          headers: hasBody ? { 'content-type': 'application/json' } : {},
          body: hasBody ? (mangle && typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
        });
        requests++;
        const text = await res.text();
        expect(res.status, `${m} ${p} ${text.slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) {
          const parsed = JSON.parse(text);
          expect(parsed.success).toBe(false);
          expect(typeof parsed.error.code).toBe('string');
        }
      }),
      { numRuns: 3000 },
    );
    expect(requests).toBe(3000);
  });
});
