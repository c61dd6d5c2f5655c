/**
 * Issue 24 mends on the check order (decisions: shape 400, signature 401, authorization
 * 403, nonce 409, execution 422; decisions 101 and 102):
 *  - in execution, a transaction its signer may not send is refused 403 even when its
 *    nonce was used (a replay with agent mode OFF, an owner-only kind signed by the
 *    session key); a refused transaction with an unused nonce still consumes it;
 *  - through the routes, the same with agent mode OFF, and the same signed request sent
 *    again while the first is pending answers 409 NONCE_USED (not DUPLICATE_TX).
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient, type NativeOrder } from '../../src/client';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';
import { accounts, Harness, ok, refused, seededKey, txs, type PlaceParams } from '../sessions/harness';

const sec = (ms: number) => BigInt(Math.floor(ms / 1000));

describe('in execution: authorization before the nonce', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.open();
  });
  afterAll(async () => h.close());

  it('agent mode OFF: a session key\u2019s replayed nonce is 403 AGENT_MODE_OFF; an unused one is refused 403 and consumed', async () => {
    const owner = accounts[0];
    const sk = seededKey(41);
    ok(await h.one(txs.sessionCreate(owner.address, owner, { sessionKey: sk.address, expiresAt: sec(h.timeMs) + 86_400n, nonce: 1n })));
    const buy = (nonce: bigint, price = 1_000_000_000n): PlaceParams => ({ pairId: 1, side: 0, orderType: 1, price, size: 10n ** 16n, nonce });
    ok(await h.one(txs.place(owner.address, sk, buy(10n))));
    ok(await h.one(txs.mode(owner.address, owner, 0, 2n)));
    // The same nonce again (another order, so another transaction): who may act first.
    refused(await h.one(txs.place(owner.address, sk, buy(10n, 1_000_100_000n))), 403, 'AGENT_MODE_OFF');
    // An unused nonce refused 403 is consumed: once the mode is back, it is spent.
    refused(await h.one(txs.place(owner.address, sk, buy(11n))), 403, 'AGENT_MODE_OFF');
    ok(await h.one(txs.mode(owner.address, owner, 2, 3n)));
    refused(await h.one(txs.place(owner.address, sk, buy(11n, 1_000_100_000n))), 409, 'NONCE_USED');
    ok(await h.one(txs.place(owner.address, sk, buy(12n))));
  });

  it('an owner-only kind signed by the session key with a used nonce is 403 OWNER_ONLY, not 409', async () => {
    const owner = accounts[1];
    const sk = seededKey(42);
    ok(await h.one(txs.sessionCreate(owner.address, owner, { sessionKey: sk.address, expiresAt: sec(h.timeMs) + 86_400n, nonce: 1n })));
    ok(await h.one(txs.place(owner.address, sk, { pairId: 1, side: 0, orderType: 1, price: 1_000_000_000n, size: 10n ** 16n, nonce: 5n })));
    refused(await h.one(txs.mode(owner.address, sk, 0, 5n)), 403, 'OWNER_ONLY');
  });
});

describe('through the routes', () => {
  const ctx = useDevnetNode();
  const owner = privateKeyToAccount(DEVNET_KEYS.accounts[2].privateKey);
  const sk = privateKeyToAccount(generatePrivateKey());
  let client: ExchangeClient;
  const order = (o: Partial<NativeOrder> = {}): NativeOrder => ({ owner: owner.address, pairId: 1, side: 'Buy', orderType: 'Limit', price: 1_000_000_000n, size: 10n ** 16n, ...o });
  const failed = (p: Promise<unknown>) => p.then(() => undefined, (e: ExchangeApiError) => [e.status, e.code]);

  beforeAll(() => {
    client = new ExchangeClient(ctx.url, { chainId: ctx.node.config.genesis.chainId });
  });

  it('the same signed caps request sent again while the first is pending: 409 NONCE_USED', async () => {
    const body = await client.agentCapsBody(owner, { maxLeverage: 100_000, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 9n, maxTotalPosition: 10n ** 19n });
    const [first, second] = await Promise.all([client.call<any>('POST', '/agent/caps', body), client.call<any>('POST', '/agent/caps', body)]);
    expect(first.status).toBe(200);
    expect([second.status, second.body.error?.code]).toEqual([409, 'NONCE_USED']);
    const again = await client.call<any>('POST', '/agent/caps', body);
    expect([again.status, again.body.error?.code]).toEqual([409, 'NONCE_USED']);
  });

  it('agent mode OFF: the session key\u2019s replayed nonce answers 403 AGENT_MODE_OFF, not 409', async () => {
    await client.createSession(owner, { sessionKey: sk.address, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    await client.setAgentMode(owner, 2);
    const nonce = BigInt(Date.now());
    expect(await client.placeNative(sk, { ...order(), nonce } as NativeOrder)).toMatchObject({ success: true });
    expect(await failed(client.placeNative(sk, { ...order(), nonce } as NativeOrder))).toEqual([409, 'NONCE_USED']);
    await client.setAgentMode(owner, 0);
    expect(await failed(client.placeNative(sk, { ...order(), nonce } as NativeOrder))).toEqual([403, 'AGENT_MODE_OFF']);
  });
});
