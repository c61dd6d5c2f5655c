/**
 * Sub-accounts through real HTTP and the typed client (decisions 93–94): open, fund and
 * list; trade as a sub-account with the master's signature (REST and native), with the
 * master's session key (an agent order under the master's mode), perps; isolation of
 * balances, orders and positions (the master's cancel-all leaves the sub-account's
 * orders); bad input per field answered 400 before the signature; a non-master refused;
 * the per-master limit (a genesis of 2) and names unique per master.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient, type NativeOrder } from '../../src/client';
import { deriveSubAccount } from '../../src/signing/eip712-subaccounts';
import { placeOrderDigest } from '../../src/signing/exchange-digest';
import { genesisHash } from '../../src/genesis/load';
import { bytesToHex, type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, useDevnetNode, waitFor } from '../helpers/devnet';

const { genesis: base } = devnetGenesis(1);
const genesis = { ...base, limits: { ...base.limits, maxSubAccounts: 2 } };
const env = useDevnetNode({ genesis, genesisHash: genesisHash(genesis) });
let client: ExchangeClient;
const [alice, bob, carol, dave] = DEVNET_KEYS.accounts.slice(0, 4).map((a) => privateKeyToAccount(a.privateKey));
const lower = (a: string) => a.toLowerCase() as Address;
const usd = (n: number) => BigInt(Math.round(n * 1e6));
const size = (n: number) => BigInt(Math.round(n * 1000)) * 10n ** 15n;
const nowS = () => Math.floor(Date.now() / 1000);

async function expectError(p: Promise<unknown>, status: number, code: string) {
  const err = await p.then(() => undefined, (e) => e);
  expect(err, 'expected the call to fail').toBeInstanceOf(ExchangeApiError);
  expect([err.status, err.code], err.message).toEqual([status, code]);
  expect(err.body).toMatchObject({ success: false, error: { code } });
}

const post = (path: string, body: unknown) => client.call<any>('POST', path, body);
const codeOf = (r: { status: number; body: any }) => [r.status, r.body?.error?.code];

beforeAll(() => {
  client = new ExchangeClient(env.url, { chainId: genesis.chainId });
});

describe('open, fund, list', () => {
  it('create answers the derived address; the list and /v1/account name the master; transfer both ways moves free USDC', async () => {
    const created = await client.createSubAccount(alice, 'Market-Making');
    const sub = deriveSubAccount(lower(alice.address), 0);
    expect(created).toMatchObject({ master: lower(alice.address), subAccount: sub, name: 'Market-Making', index: 0 });
    const list = await client.subAccounts(alice.address);
    expect(list).toEqual([expect.objectContaining({ address: sub, master: lower(alice.address), name: 'Market-Making', index: 0, freeBalance: '0', totalBalance: '0' })]);
    expect(await client.subAccounts(bob.address)).toEqual([]);
    expect((await client.account(sub)).master).toBe(lower(alice.address));
    expect((await client.account(alice.address)).master).toBeUndefined();

    const aliceFree0 = Number((await client.account(alice.address)).freeBalance);
    expect(await client.subAccountTransfer(alice, { subAccount: sub, deposit: true, amount: '5000' })).toMatchObject({ master: lower(alice.address), subAccount: sub, deposit: true, amount: '5000' });
    expect(await client.subAccountTransfer(alice, { subAccount: sub, deposit: false, amount: '1000.5' })).toMatchObject({ deposit: false, amount: '1000.5' });
    expect((await client.account(sub)).freeBalance).toBe('3999.5');
    expect(Number((await client.account(alice.address)).freeBalance)).toBeCloseTo(aliceFree0 - 3999.5, 6);
    // Only free balance moves: more than the sub-account holds is refused by execution.
    await expectError(client.subAccountTransfer(alice, { subAccount: sub, deposit: false, amount: '4000' }), 422, 'INSUFFICIENT_BALANCE');
    expect((await client.subAccounts(alice.address))[0].freeBalance).toBe('3999.5');
  });

  it('names are unique per master ignoring case; at most limits.maxSubAccounts (2 in this genesis); another master may reuse a name', async () => {
    await expectError(client.createSubAccount(alice, 'market-making'), 422, 'SUB_ACCOUNT_NAME_TAKEN');
    expect(await client.createSubAccount(alice, 'hedge')).toMatchObject({ index: 1, subAccount: deriveSubAccount(lower(alice.address), 1) });
    await expectError(client.createSubAccount(alice, 'third'), 422, 'SUB_ACCOUNT_LIMIT');
    expect((await client.subAccounts(alice.address)).map((s) => s.name)).toEqual(['Market-Making', 'hedge']);
    expect(await client.createSubAccount(bob, 'hedge')).toMatchObject({ master: lower(bob.address), index: 0 });
  });

  it('bad input per field is 400 before the signature; a wrong signature 401; an unknown sub-account 404; another master\u2019s 403', async () => {
    const good = await client.subAccountCreateBody(carol, 'ok');
    for (const [name, want] of [['', 'INVALID_NAME'], ['x'.repeat(33), 'INVALID_NAME'], ['has space', 'INVALID_NAME'], ['semi;colon', 'INVALID_NAME']] as const) {
      // Unsigned (a signature over another name): the shape answers first.
      expect(codeOf(await post('/v1/subaccount/create', { ...good, name })), name).toEqual([400, want]);
    }
    for (const patch of [{ owner: '0x12' }, { nonce: -1 }, { expiresAfter: -5 }, { expiresAfter: 'soon' }, { cloid: `0x${'00'.repeat(16)}` }, { extra: 1 }]) {
      expect((await post('/v1/subaccount/create', { ...good, ...patch })).status, JSON.stringify(patch)).toBe(400);
    }
    const { signature, ...unsigned } = good;
    expect(codeOf(await post('/v1/subaccount/create', unsigned))).toEqual([401, 'MISSING_SIGNATURE']);
    expect(codeOf(await post('/v1/subaccount/create', { ...good, name: 'other' }))).toEqual([401, 'INVALID_SIGNATURE']);
    void signature;

    const aliceSub = deriveSubAccount(lower(alice.address), 0);
    const t = await client.subAccountTransferBody(carol, { subAccount: aliceSub, deposit: true, amount: '1' });
    for (const [patch, want] of [
      [{ amount: '0' }, 'INVALID_AMOUNT'], [{ amount: '1.0000001' }, 'INVALID_AMOUNT'], [{ amount: '-1' }, 'INVALID_AMOUNT'], [{ subAccount: carol.address }, 'INVALID_WALLET'],
    ] as const) {
      expect(codeOf(await post('/v1/subaccount/transfer', { ...t, ...patch })), JSON.stringify(patch)).toEqual([400, want]);
    }
    for (const patch of [{ deposit: 'yes' }, { subAccount: 'x' }, { tif: 'Ioc' }]) expect((await post('/v1/subaccount/transfer', { ...t, ...patch })).status).toBe(400);
    // Carol signs for Alice's sub-account: not hers.
    expect(codeOf(await post('/v1/subaccount/transfer', t))).toEqual([403, 'NOT_MASTER']);
    const unknown = await client.subAccountTransferBody(carol, { subAccount: deriveSubAccount(lower(carol.address), 0), deposit: true, amount: '1' });
    expect(codeOf(await post('/v1/subaccount/transfer', unknown))).toEqual([404, 'UNKNOWN_SUB_ACCOUNT']);
    // Signed by someone other than the owner named: 401 (only the master signs these).
    const byDave = await client.subAccountCreateBody(dave, 'dave');
    expect(codeOf(await post('/v1/subaccount/create', { ...byDave, owner: carol.address }))).toEqual([401, 'INVALID_SIGNATURE']);
  });

  it('expiresAfter is signed and enforced: past the block time 422 ACTION_EXPIRED, ahead accepted', async () => {
    await expectError(client.createSubAccount(dave, 'late', { expiresAfter: BigInt(Date.now() - 60_000) }), 422, 'ACTION_EXPIRED');
    expect(await client.createSubAccount(dave, 'inTime', { expiresAfter: BigInt(Date.now() + 60_000) })).toMatchObject({ index: 0 });
  });
});

describe('trading as a sub-account', () => {
  const sub = () => deriveSubAccount(lower(alice.address), 0);
  const buy = (owner: Address, price = 1000): NativeOrder => ({ owner, pairId: 1, side: 'Buy', orderType: 'Limit', price: usd(price), size: size(0.01) });

  it('REST: the master signs the digest bound to the sub-account; the order is the sub-account\u2019s; the master\u2019s cancel-all leaves it', async () => {
    const placed = await client.placeOrderFor(alice, sub(), { symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01' });
    expect(placed.status).toBe('open');
    const own = await client.placeOrder(alice, { symbol: 'ETH', side: 'buy', type: 'limit', price: '901', amount: '0.01' });
    expect((await client.orders(sub())).map((o: any) => o.orderId)).toContain(placed.orderId);
    expect((await client.orders(alice.address)).map((o: any) => o.orderId)).not.toContain(placed.orderId);
    expect((await client.account(sub())).lockedBalance).not.toBe('0');
    // The master's own cancel-all: its order only.
    const all = await client.cancelAll(alice);
    expect(all.cancelledIds).toContain(own.orderId);
    expect(all.cancelledIds).not.toContain(placed.orderId);
    expect((await client.orders(sub())).map((o: any) => o.orderId)).toContain(placed.orderId);
    // The sub-account's cancel-all, signed by the master.
    expect((await client.cancelAllFor(alice, sub())).cancelledIds).toEqual([placed.orderId]);
    const again = await client.placeOrderFor(alice, sub(), { symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01' });
    expect(await client.cancelOrderFor(alice, sub(), again.orderId)).toMatchObject({ orderId: again.orderId, status: 'cancelled' });
  });

  it('REST: an unbound signature, a non-master\u2019s bound signature, and a bound signature moved to the master are 401', async () => {
    const nonce = client.nextNonce();
    const digest = placeOrderDigest({ symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01', nonce });
    const order = { symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01', nonce: Number(nonce) };
    // The master's plain signature, naming the sub-account as trader.
    const plain = await alice.signMessage({ message: { raw: bytesToHex(digest) } });
    expect(codeOf(await post('/v1/order', { ...order, trader: sub(), signature: plain }))).toEqual([401, 'INVALID_SIGNATURE']);
    // Bob binds to Alice's sub-account: he is not its master.
    const { subAccountActionDigest } = await import('../../src/signing/eip712-subaccounts');
    const bobBound = await bob.signMessage({ message: { raw: bytesToHex(subAccountActionDigest(sub(), digest)) } });
    expect(codeOf(await post('/v1/order', { ...order, trader: sub(), signature: bobBound }))).toEqual([401, 'INVALID_SIGNATURE']);
    // Alice's bound signature cannot be replayed as Alice's own order, nor for her other sub-account.
    const aliceBound = await alice.signMessage({ message: { raw: bytesToHex(subAccountActionDigest(sub(), digest)) } });
    expect(codeOf(await post('/v1/order', { ...order, trader: alice.address, signature: aliceBound }))).toEqual([401, 'INVALID_SIGNATURE']);
    expect(codeOf(await post('/v1/order', { ...order, trader: deriveSubAccount(lower(alice.address), 1), signature: aliceBound }))).toEqual([401, 'INVALID_SIGNATURE']);
  });

  it('native: the master places for the sub-account (not an agent order); a non-master is 403; its session key trades under the master\u2019s agent mode', async () => {
    const byMaster = await client.placeNative(alice, buy(sub(), 950));
    expect(byMaster).toMatchObject({ success: true, status: 'open' });
    const book = await client.orderbook('ETH');
    expect(book.bids.find((l: any) => l.id === byMaster.order_id)?.isAgent).toBe(false);
    await expectError(client.placeNative(bob, buy(sub(), 950)), 403, 'NOT_AUTHORIZED');
    await expectError(client.cancelNative(bob, sub(), BigInt(byMaster.order_id)), 403, 'NOT_AUTHORIZED');

    const sk = privateKeyToAccount(generatePrivateKey());
    await client.createSession(alice, { sessionKey: sk.address, expiresAt: nowS() + 3600 });
    const byAgent = await client.placeNative(sk, buy(sub(), 951));
    expect(byAgent).toMatchObject({ success: true, status: 'open' });
    expect((await client.orderbook('ETH')).bids.find((l: any) => l.id === byAgent.order_id)?.isAgent).toBe(true);
    expect((await client.openOrders(sub())).orders.map((o: any) => o.order_id ?? o.orderId)).toEqual(expect.arrayContaining([byMaster.order_id, byAgent.order_id]));
    // The master's agent mode governs its session key's orders for the sub-account too.
    await client.setAgentMode(alice, 0);
    await expectError(client.placeNative(sk, buy(sub(), 952)), 403, 'AGENT_MODE_OFF');
    await client.setAgentMode(alice, 2);
    expect(await client.cancelNative(alice, sub(), BigInt(byAgent.order_id))).toMatchObject({ success: true });
    expect(await client.cancelNative(sk, sub(), BigInt(byMaster.order_id))).toMatchObject({ success: true });
  });

  it('a fill settles on the sub-account alone; perp positions are its own; it cannot withdraw', async () => {
    const s = sub();
    const aliceBefore = await client.account(alice.address);
    const bid = await client.placeOrderFor(alice, s, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1000', amount: '0.01' });
    const sell = await client.placeOrder(carol, { symbol: 'ETH', side: 'sell', type: 'limit', price: '1000', amount: '0.01' });
    expect(sell.status).toBe('filled');
    await waitFor(async () => ((await client.fills(s)).length > 0 ? true : undefined), 10_000, 'the sub-account\u2019s fill indexed');
    expect((await client.fills(s))[0]).toMatchObject({ orderId: bid.orderId });
    expect(Number((await client.account(s)).inPositions)).toBeGreaterThan(0);
    expect((await client.account(alice.address)).inPositions).toBe(aliceBefore.inPositions);

    await waitFor(async () => {
      const m = await client.perpMarkets();
      return m.some((x: any) => x.symbol === 'ETH' && x.oracleFresh) || undefined;
    }, 20_000, 'a fresh ETH oracle price');
    const opened = await client.perpOpen(alice, { wallet: s, pairId: 1, isLong: true, leverage: 5, margin: '20' });
    expect(opened.isAgent).toBe(false);
    expect((await client.positions(s)).map((p: any) => p.positionId)).toEqual([opened.positionId]);
    expect((await client.positions(alice.address)).map((p: any) => p.positionId)).not.toContain(opened.positionId);
    await expectError(client.perpOpen(bob, { wallet: s, pairId: 1, isLong: true, leverage: 5, margin: '20' }), 403, 'NOT_AUTHORIZED');
    expect(await client.perpClose(alice, { wallet: s, positionId: opened.positionId })).toMatchObject({ status: 'closed' });

    // No key exists for the sub-account and the master may not sign its withdrawal (owner-only): funds go back by transfer first.
    await expectError(client.withdraw(alice, { owner: s, amount: 1_000_000n, destination: alice.address }), 403, 'OWNER_ONLY');
    expect(Number((await client.account(s)).lockedBalance)).toBe(0);
  }, 40_000);
});
