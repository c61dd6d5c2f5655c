/**
 * The perpetuals REST routes through real HTTP against a started devnet node whose
 * oracle actor signs devnet prices every second, signed by viem wallets (personal sign
 * over the JSON payload; EIP-712 PoolDeposit / PoolWithdraw): every route, its fields,
 * session keys and agent mode, and each error class in the order of contract [D-envelope-order].
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it, beforeAll } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, useDevnetNode, waitFor } from '../helpers/devnet';

const env = useDevnetNode();
let client: ExchangeClient;
/** ETH's market as read before any test deposits or trades: the pool still holds its genesis 10,000,000 USDC. */
let ethAtGenesis: Awaited<ReturnType<ExchangeClient['perpMarkets']>>[number] | undefined;
const [alice, bob, carol] = DEVNET_KEYS.accounts.slice(0, 3).map((a) => privateKeyToAccount(a.privateKey));
const lower = (a: string) => a.toLowerCase();

async function expectError(p: Promise<unknown>, status: number, code: string) {
  const err = await p.then(() => undefined, (e) => e);
  expect(err, 'expected the call to fail').toBeInstanceOf(ExchangeApiError);
  expect([err.status, err.code]).toEqual([status, code]);
  expect(err.body).toMatchObject({ success: false, error: { code } });
}

beforeAll(async () => {
  client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
  // The oracle actor's first medians: wait until ETH and BTC have a fresh price.
  const markets = await waitFor(async () => {
    const m = await client.perpMarkets();
    return m.filter((x: any) => x.oracleFresh && (x.symbol === 'ETH' || x.symbol === 'BTC')).length === 2 ? m : undefined;
  }, 20_000, 'fresh oracle prices');
  ethAtGenesis = markets.find((m) => m.symbol === 'ETH');
}, 30_000);

describe('markets', () => {
  // Shows contract [C-perp-reads].
  it('GET /api/pairs/perps and /v1/perp/markets list every pair in state with its parameters', async () => {
    const pairs = await client.perpPairs();
    expect(pairs.map((p) => p.pairId)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    for (const p of pairs) {
      expect(p.maxLeverage).toBeLessThanOrEqual(50);
      expect(p.maintenanceMarginBps).toBe(10_000 / p.maxLeverage / 2);
    }
    expect(pairs[0]).toMatchObject({ symbol: 'ETH', pair: 'ETH-PERP', maxLeverage: 50, maintenanceMarginBps: 100, openInterestCapBps: 5000 });
    // The open-interest cap is 50% of the pool's value, which deposits, fees and open
    // positions move: the 5,000,000 is read from the genesis pool of 10,000,000, before any test ran.
    expect(ethAtGenesis).toMatchObject({ pairId: 1, maxLeverage: 50, oracleFresh: true, openInterestCap: '5000000' });
    const markets = await client.perpMarkets();
    const eth = markets.find((m) => m.symbol === 'ETH')!;
    expect(eth).toMatchObject({ pairId: 1, maxLeverage: 50, oracleFresh: true, openInterestCapBps: 5000 });
    expect(Number(eth.oraclePrice)).toBeGreaterThan(0);
  });
});

describe('positions through REST', () => {
  // Shows contract [C-perp-open], [C-state-position-open], [C-state-position-close], [C-state-position-tpsl],
  //   [D-orders-perp-positions].
  it('open → positionId; positions show entry, size, margin, leverage, liquidation price, PnL, TP/SL; tpsl; partial and whole close', async () => {
    const free0 = Number((await client.account(alice.address)).freeBalance);
    const opened = await client.perpOpen(alice, { pairId: 1, isLong: true, leverage: 10, margin: '100' });
    expect(opened.positionId).toMatch(/^[0-9]+$/);
    expect(opened).toMatchObject({ symbol: 'ETH', side: 'long', margin: '100', leverage: 10, isAgent: false });
    expect(opened.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    // Size = 1,000 / entry; the fee is 3 bps of the entry notional.
    const size = Number(opened.size);
    expect(size * Number(opened.entryPrice)).toBeCloseTo(1000, 2);
    expect(Number(opened.fee)).toBeCloseTo(0.3, 5);
    expect(Number(opened.liquidationPrice)).toBeLessThan(Number(opened.entryPrice));
    expect(Number((await client.account(alice.address)).freeBalance)).toBeCloseTo(free0 - 100.3, 5);

    const [pos] = (await client.positions(alice.address)).filter((p: any) => p.positionId === opened.positionId);
    expect(pos).toMatchObject({ positionId: opened.positionId, symbol: 'ETH', side: 'long', size: opened.size, entryPrice: opened.entryPrice, margin: '100', leverage: 10, takeProfit: null, stopLoss: null, isAgent: false });
    for (const k of ['liquidationPrice', 'unrealizedPnl', 'markPrice', 'equity', 'fundingOwed'] as const) expect(typeof pos[k]).toBe('string');

    const entry = Number(opened.entryPrice);
    // Canonical decimal texts (the answers drop trailing zeros).
    const tp = String(Number((entry * 1.5).toFixed(2)));
    const sl = String(Number((entry * 0.5).toFixed(2)));
    expect(await client.perpTpsl(alice, { positionId: opened.positionId, takeProfit: tp, stopLoss: sl })).toMatchObject({ positionId: opened.positionId, takeProfit: tp, stopLoss: sl });
    const [withTargets] = (await client.positions(alice.address)).filter((p: any) => p.positionId === opened.positionId);
    expect(withTargets).toMatchObject({ takeProfit: tp, stopLoss: sl });

    const part = await client.perpClose(alice, { positionId: opened.positionId, size: '0.1' });
    expect(part).toMatchObject({ positionId: opened.positionId, status: 'reduced', closedSize: '0.1' });
    const whole = await client.perpClose(alice, { positionId: opened.positionId });
    expect(whole).toMatchObject({ status: 'closed', remainingSize: '0' });
    expect((await client.positions(alice.address)).find((p: any) => p.positionId === opened.positionId)).toBeUndefined();
  });

  it('a session key opens for its owner (sessionWallet, an agent position); agent mode OFF refuses it; closing stays allowed', async () => {
    const sk = privateKeyToAccount(generatePrivateKey());
    await client.createSession(bob, { sessionKey: sk.address, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    const opened = await client.perpOpen(sk, { wallet: bob.address, pairId: 2, isLong: false, leverage: 5, margin: '50' });
    expect(opened).toMatchObject({ symbol: 'BTC', side: 'short', isAgent: true });
    const [pos] = await client.positions(bob.address);
    expect(pos).toMatchObject({ positionId: opened.positionId, isAgent: true });
    await client.setAgentMode(bob, 0);
    await expectError(client.perpOpen(sk, { wallet: bob.address, pairId: 2, isLong: false, leverage: 5, margin: '50' }), 403, 'AGENT_MODE_OFF');
    expect(await client.perpClose(sk, { wallet: bob.address, positionId: opened.positionId })).toMatchObject({ status: 'closed' });
  });

  it('errors in the contract order: 400 shape, 401 signature, 403 signer, 409 nonce, 404 unknown, 422 execution', async () => {
    const body = await client.perpOpenBody(alice, { pairId: 1, isLong: true, leverage: 10, margin: '20' });
    const post = (b: unknown) => client.call<any>('POST', '/v1/perp/open', b);
    const code = async (b: unknown) => {
      const r = await post(b);
      return [r.status, r.body.error?.code];
    };
    expect(await code({ ...body, action: 'perp_close' })).toEqual([400, 'INVALID_REQUEST']);
    expect(await code({ ...body, margin: 20 })).toEqual([400, 'INVALID_REQUEST']);
    expect(await code({ ...body, margin: '20.0000001' })).toEqual([400, 'INVALID_MARGIN']);
    expect(await code({ ...body, pairId: 99 })).toEqual([400, 'UNKNOWN_PAIR']);
    expect(await code({ ...body, pairId: 5, leverage: 11 })).toEqual([400, 'INVALID_LEVERAGE']);
    expect(await code({ ...body, extra: 1 })).toEqual([400, 'INVALID_REQUEST']);
    expect(await code({ ...body, network: 'mainnet' })).toEqual([400, 'WRONG_NETWORK']);
    const { signature: _s, ...unsigned } = body;
    expect(await code(unsigned)).toEqual([401, 'MISSING_SIGNATURE']);
    expect(await code({ ...body, margin: '21' })).toEqual([401, 'INVALID_SIGNATURE']);
    // Carol signs for alice's wallet: a valid signature by a key that is not alice's session key.
    const carolFor = await client.perpOpenBody(carol, { wallet: alice.address, pairId: 1, isLong: true, leverage: 10, margin: '20' });
    expect(await code(carolFor)).toEqual([403, 'NOT_AUTHORIZED']);
    expect((await post(body)).status).toBe(200);
    expect(await code(body)).toEqual([409, 'NONCE_USED']);
    await expectError(client.perpClose(alice, { positionId: '999999' }), 404, 'UNKNOWN_POSITION');
    const poor = privateKeyToAccount(generatePrivateKey());
    await expectError(client.perpOpen(poor, { pairId: 1, isLong: true, leverage: 2, margin: '10' }), 422, 'INSUFFICIENT_BALANCE');
    await expectError(client.perpTpsl(alice, { positionId: '999999', takeProfit: '', stopLoss: '' }), 404, 'UNKNOWN_POSITION');
  });
});

describe('the pool, funding and engine reads', () => {
  // Shows contract [C-perp-reads].
  it('GET /v1/pool values the pool; deposit mints shares at its value, locked an hour; a session key may not deposit', async () => {
    const pool = await client.pool();
    expect(Number(pool.realPoolValue)).toBeGreaterThan(9_000_000);
    expect(pool).toMatchObject({ lockupMs: 3_600_000, protocolShares: '10000000000000', bookUnrealizedPnl: '0', bookPositions: [] });
    const dep = await client.poolDeposit(carol, { amount: '1000' });
    expect(dep.owner).toBe(lower(carol.address));
    expect(BigInt(dep.shares)).toBeGreaterThan(0n);
    expect(dep.unlockMs).toBeGreaterThan(Date.now() + 3_500_000);
    const mine = await client.pool(carol.address);
    expect(mine.account).toMatchObject({ shares: dep.shares, unlockMs: dep.unlockMs });
    await expectError(client.poolWithdraw(carol, { shares: BigInt(dep.shares) }), 422, 'POOL_LOCKED');
    const sk = privateKeyToAccount(generatePrivateKey());
    await client.createSession(carol, { sessionKey: sk.address, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    await expectError(client.poolDeposit(sk, { owner: carol.address, amount: '1' }), 403, 'OWNER_ONLY');
    const reserves = await client.reserves();
    expect(reserves.vlp_pool_value).toBeGreaterThan(10_000_000 * 1e6);
    expect(typeof reserves.vlp_pool_value).toBe('number');
  });

  // Shows contract [C-perp-reads], [C-limits-funding].
  it('GET /v1/funding gives the current rate per pair (0.00125% an hour without a book) and recent rates', async () => {
    const funding = await client.funding();
    expect(funding).toHaveLength(15);
    const sui = funding.find((f) => f.symbol === 'SUI')!;
    expect(sui).toMatchObject({ fundingRate: '0.0000125', fundingRate8h: '0.0001', intervalMs: 3_600_000 });
    // Block time is wall time: a run that crosses the hour has settled once, at the same no-book rate.
    expect(sui.recent.length).toBeLessThanOrEqual(1);
    for (const r of sui.recent) expect(r).toMatchObject({ fundingRate: '0.0000125', time: expect.any(Number) });
    expect(sui.recent.every((r: any) => r.time % 3_600_000 < 60_000)).toBe(true);
    expect(funding[0].nextFundingTime % 3_600_000).toBe(0);
  });

  // Shows contract [C-perp-reads].
  it('GET /stats reports markets, positions, open interest, liquidations, funding and oracle freshness', async () => {
    await client.perpOpen(alice, { pairId: 1, isLong: false, leverage: 3, margin: '30' });
    const stats = await client.engineStats();
    expect(stats).toMatchObject({ markets: 15, liquidations: 0, lastLiquidation: null, bookLiquidations: 0, bookBadDebt: '0', lastBookLiquidation: null });
    expect(stats.positions).toBeGreaterThanOrEqual(1);
    expect(Number(stats.openInterest)).toBeGreaterThan(0);
    expect(stats.oracle.pairs).toHaveLength(15);
    expect(stats.oracle.fresh).toBeGreaterThan(0);
    expect(stats.oracle.pairs[0]).toMatchObject({ pairId: 1, symbol: 'ETH', fresh: true });
  });
});
