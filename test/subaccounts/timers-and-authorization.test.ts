/**
 * Issue 24 leftovers on sub-accounts (decisions 94, 102):
 *  - the timer kinds (ScheduleCancel, TwapPlace, TwapCancel) take the shared REST signer
 *    rule: a master's signature over the digest bound to its sub-account acts for it, a
 *    stranger's is 401 — in execution and through the routes and the typed client;
 *  - a master's signature for one of its derived addresses that is no sub-account yet is
 *    refused 403 OWNER_ONLY before the nonce: in a block a used nonce answers 403, not
 *    409; at the door the refusal spends no nonce.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { hashSubAccountMessage } from '../../src/signing/eip712-subaccounts';
import { placeOrderDigest, restSigningHash } from '../../src/signing/exchange-digest';
import { sign } from '../../src/crypto/secp256k1';
import { scheduleCancelDigest, twapCancelDigest, twapPlaceDigest } from '../../src/signing/timer-digest';
import { deriveSubAccount, subAccountActionDigest } from '../../src/state/accounts/subaccounts';
import { type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';
import { accounts, chainId, Harness, ok, refused, type Key } from '../sessions/harness';

const lower = (a: string) => a.toLowerCase() as Address;

describe('in execution', () => {
  const [master, stranger] = [accounts[4], accounts[5]];
  let h: Harness;
  let nonce = 1n;
  const bound = (by: Key, trader: Address, digest: Uint8Array) => sign(restSigningHash(subAccountActionDigest(trader, digest)), by.priv);

  function create(name: string): Tx {
    const n = nonce++;
    const d = hashSubAccountMessage(chainId, 'SubAccountCreate', { owner: master.address, name, nonce: n });
    return encodeTx(chainId, TxKind.SubAccountCreate, { owner: master.address, name, nonce: n, signature: sign(d, master.priv) });
  }
  function fund(subAccount: Address, usdc: bigint): Tx {
    const n = nonce++;
    const d = hashSubAccountMessage(chainId, 'SubAccountTransfer', { owner: master.address, subAccount, deposit: true, usdc, nonce: n });
    return encodeTx(chainId, TxKind.SubAccountTransfer, { owner: master.address, subAccount, deposit: true, usdc, nonce: n, signature: sign(d, master.priv) });
  }
  function restBuy(by: Key, trader: Address, n: bigint): Tx {
    const fields = { symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01' };
    return encodeTx(chainId, TxKind.RestOrder, { trader, ...fields, nonce: n, signature: bound(by, trader, placeOrderDigest({ ...fields, nonce: n })) });
  }
  function schedule(by: Key, trader: Address, timeMs: bigint): Tx {
    const n = nonce++;
    return encodeTx(chainId, TxKind.ScheduleCancel, { trader, timeMs, nonce: n, signature: bound(by, trader, scheduleCancelDigest(timeMs, n)) });
  }
  function twap(by: Key, trader: Address): Tx {
    const fields = { symbol: 'ETH', side: 'buy', amount: '0.05', minutes: 5, randomize: false, nonce: nonce++ };
    return encodeTx(chainId, TxKind.TwapPlace, { trader, ...fields, signature: bound(by, trader, twapPlaceDigest(fields)) });
  }
  function twapCancel(by: Key, trader: Address, twapId: string): Tx {
    const n = nonce++;
    return encodeTx(chainId, TxKind.TwapCancel, { trader, twapId, nonce: n, signature: bound(by, trader, twapCancelDigest(twapId, n)) });
  }

  beforeAll(async () => {
    h = await Harness.open();
  });
  afterAll(async () => h?.close());

  it('a master\u2019s bound signature for a derived address not yet opened, with a nonce it used, is 403 OWNER_ONLY, not 409', async () => {
    const sub0 = deriveSubAccount(master.address, 0);
    ok(await h.one(create('desk')));
    ok(await h.one(fund(sub0, 10_000_000_000n)));
    const used = nonce++;
    ok(await h.one(restBuy(master, sub0, used)));
    // Index 1 is derived from the master (the stateless check lets it through) but not opened.
    refused(await h.one(restBuy(master, deriveSubAccount(master.address, 1), used)), 403, 'OWNER_ONLY');
  });

  it('the timer kinds: the master schedules a cancel and places and cancels a TWAP for its sub-account; a stranger\u2019s bound signature is 401', async () => {
    const sub0 = deriveSubAccount(master.address, 0);
    const time = BigInt(h.timeMs + 60_000);
    ok(await h.one(schedule(master, sub0, time)));
    expect(h.state.scheduledCancels.get(sub0)?.timeMs).toBe(Number(time));
    const placed = await h.one(twap(master, sub0));
    ok(placed);
    const twapId = (placed.events.find((e) => e.type === 'TwapPlaced') as { twapId: string }).twapId;
    expect(h.state.twaps.get(twapId)?.owner).toBe(sub0);
    refused(await h.one(schedule(stranger, sub0, time)), 401, 'INVALID_SIGNATURE');
    refused(await h.one(twap(stranger, sub0)), 401, 'INVALID_SIGNATURE');
    refused(await h.one(twapCancel(stranger, sub0, twapId)), 401, 'INVALID_SIGNATURE');
    ok(await h.one(twapCancel(master, sub0, twapId)));
    expect(h.state.twaps.get(twapId)?.state).toBe('cancelled');
  });
});

describe('through the routes and the typed client', () => {
  const env = useDevnetNode();
  let client: ExchangeClient;
  const [master, stranger] = [6, 7].map((i) => privateKeyToAccount(DEVNET_KEYS.accounts[i].privateKey));
  const sub = () => deriveSubAccount(lower(master.address), 0);
  const failed = (p: Promise<unknown>) => p.then(() => undefined, (e: ExchangeApiError) => [e.status, e.code]);
  const headMs = () => env.node.chain().state.head().timestampMs;

  beforeAll(async () => {
    client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
    await client.createSubAccount(master, 'timers');
    await client.subAccountTransfer(master, { subAccount: sub(), deposit: true, amount: '10000' });
  });

  it('the master schedules (and clears) a cancel for its sub-account; a stranger is 401', async () => {
    const time = headMs() + 60_000;
    expect(await client.scheduleCancelFor(master, sub(), time)).toMatchObject({ trader: sub(), time, countToday: 1 });
    expect(await client.scheduledCancel(sub())).toMatchObject({ time });
    expect(await client.scheduledCancel(master.address)).toMatchObject({ time: null });
    expect(await failed(client.scheduleCancelFor(stranger, sub(), time + 1_000))).toEqual([401, 'INVALID_SIGNATURE']);
    expect(await client.scheduleCancelFor(master, sub(), null)).toMatchObject({ trader: sub(), time: null });
  });

  it('the master places and cancels a TWAP for its sub-account; a stranger can do neither (401)', async () => {
    const t = { symbol: 'ETH', side: 'buy' as const, amount: '0.05', minutes: 5 };
    expect(await failed(client.placeTwapFor(stranger, sub(), t))).toEqual([401, 'INVALID_SIGNATURE']);
    const placed = await client.placeTwapFor(master, sub(), t);
    expect(placed).toMatchObject({ owner: sub(), symbol: 'ETH', side: 'buy', amount: '0.05' });
    expect((await client.twaps(sub())).twaps.map((x) => x.twapId)).toEqual([placed.twapId]);
    expect(await failed(client.cancelTwapFor(stranger, sub(), placed.twapId))).toEqual([401, 'INVALID_SIGNATURE']);
    expect(await client.cancelTwapFor(master, sub(), placed.twapId)).toMatchObject({ twapId: placed.twapId, state: 'cancelled' });
  });

  it('an action for the sub-account spends the master\u2019s nonce: the route hands execution the signer the door verified, not the trader', async () => {
    const nonce = client.nextNonce();
    const order = { symbol: 'ETH', side: 'buy' as const, type: 'limit' as const, price: '900', amount: '0.01' };
    const placed = await client.placeOrderFor(master, sub(), order, nonce);
    expect(placed.status).toBe('open');
    expect(await failed(client.placeOrder(master, order, nonce))).toEqual([409, 'NONCE_USED']);
    const t = await client.scheduleCancelFor(master, sub(), headMs() + 60_000);
    const final = await client.call<any>('GET', `/tx/${t.txHash}`);
    expect(final.body.data.receipt.signer).toBe(lower(master.address));
    await client.cancelOrderFor(master, sub(), placed.orderId);
  });

  it('a master\u2019s signature for a derived address that is no sub-account is 403 at the door and spends no nonce', async () => {
    const nonce = client.nextNonce();
    // A scheduled cancel: nothing but the signer rule stands between it and a block.
    expect(await failed(client.scheduleCancelFor(master, deriveSubAccount(lower(master.address), 1), headMs() + 60_000, { nonce }))).toEqual([403, 'OWNER_ONLY']);
    // The same nonce is still the master's to spend.
    const order = { symbol: 'ETH', side: 'buy' as const, type: 'limit' as const, price: '900', amount: '0.01' };
    expect((await client.placeOrder(master, order, nonce)).status).toBe('open');
  });
});
