/**
 * Perpetuals engine REST (contract [C-perp-*], [D-orders-perp-positions],
 * [D-signatures-perp]): markets, positions, funding, the pool, engine stats, and the
 * signed writes open / close / tpsl (personal signature over the JSON payload) and pool
 * deposit / withdraw (EIP-712). The route builds the transaction and the door
 * (src/api/door.ts) asks its operation (src/state/ops/perp-positions.ts, src/state/ops/pool-shares.ts) in
 * the order of contract [D-envelope-order]:
 * shape (400), signature (401), who may sign (403); then the route's lookups (unknown
 * position 404), the nonce at the mempool (409); then the transaction goes through
 * consensus and the answer waits until it is final; execution's refusals are 422.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { admitAtDoor, ownerOrSessionKey } from '../door';
import { expiresAfterSchema, expiryOf } from '../expires-after';
import { eventOf, throwIfFailed } from '../final';
import { TxKind } from '../../codec/tx';
import { oraclePrice } from '../../state/oracle';
import { positionView } from '../../state/perps/engine';
import { perpMarket, perpStats } from '../../state/perps/markets';
import { hasPerp, marketNames, oracleSourceOf } from '../../state/pair-markets';
import { fundingRate, MIN_PERP_MARGIN } from '../../state/perps/math';
import { parseMargin } from '../../state/ops/perp-positions';
import { openInterestCap, poolValuation, profitLimit } from '../../state/perps/pool';
import { bookLiqStats } from '../../state/perps/book-liquidation';
import { toAddress, type Address } from '../../util/bytes';
import { formatDecimal, parseDecimal } from '../../util/decimal';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, price6, signatureSchema, size18, usdc } from '../common';
import { ApiError, errorSchema, ok } from '../envelope';
import { addr, arr, bool, dec, envelope, EX, hex, int, nullable, obj, openObj, str } from '../schemas';

const side = { type: 'string', enum: ['long', 'short'] } as const;
const perpSignedExample = { wallet: EX.owner, nonce: 1, signature: EX.signature };
const marketSchema = obj({
  pairId: int(), symbol: str(), pair: str('SYMBOL-PERP.'), maxLeverage: int(), maintenanceMarginBps: int(), openInterestCapBps: int(),
  oraclePrice: nullable(dec()), oracleTimestampMs: nullable(int()), oracleFresh: bool(), longSize: dec(), shortSize: dec(), openInterest: dec('USDC.'), openInterestCap: dec('USDC.'),
  positions: int(), fundingRate: dec('Predicted rate of the next settlement, per interval.'),
});
const perpPairSchema = obj({ pairId: int(), symbol: str(), pair: str(), maxLeverage: int(), maintenanceMarginBps: int(), openInterestCapBps: int(), tickSize: dec(), lotSize: dec(), minSize: dec(), markets: arr(str()), oracleSource: str() });
const positionSchema = obj({
  positionId: dec(), pairId: int(), symbol: str(), side, isLong: bool(), size: dec(), entryPrice: dec(), markPrice: dec(), oracleFresh: bool(), margin: dec(), leverage: int(), notional: dec(),
  liquidationPrice: dec(), unrealizedPnl: dec(), fundingOwed: dec(), equity: dec(), maintenanceMargin: dec(), takeProfit: nullable(dec()), stopLoss: nullable(dec()), openedAt: int(), isAgent: bool(),
});
const fundingSchema = obj({
  pairId: int(), symbol: str(), fundingRate: dec(), fundingRate8h: dec(), averagePremium: dec(), intervalMs: int(), nextFundingTime: int(), lastFundingRate: nullable(dec()),
  recent: arr(obj({ time: int(), fundingRate: dec(), amount: dec(), price: dec() })),
});
const poolSchema = obj({
  poolUsdc: dec(), realPoolValue: dec(), traderUnrealizedPnl: dec(), traderUnrealizedProfit: dec(), bookUnrealizedPnl: dec(),
  bookPositions: arr(obj({ pairId: int(), size: dec(), cost: dec(), markPrice: dec(), unrealizedPnl: dec(), fresh: bool() })),
  adlProfitLimit: dec(), totalShares: dec(), protocolShares: dec(), sharePrice: dec(), lockupMs: int(), stale: bool(),
  account: obj({ address: addr(), shares: dec(), value: dec(), unlockMs: nullable(int()) }),
}, ['account']);
const statsSchema = obj({
  height: int(), blockTimeMs: int(), markets: int(), positions: int(), openInterest: dec(),
  pool: obj({ poolUsdc: dec(), realPoolValue: dec(), traderUnrealizedPnl: dec() }),
  liquidations: int(), adlEvents: int(),
  lastLiquidation: nullable(openObj('The last liquidation: positionId, owner, pairId, price, timeMs, shortfall.')),
  lastFundingTime: nullable(int()),
  bookLiquidations: int(), bookBadDebt: dec(),
  lastBookLiquidation: nullable(openObj('The last orderbook liquidation: owner, pairId, size, price, timeMs, shortfall.')),
  oracle: obj({ fresh: int(), stale: int(), maxStalenessMs: int(), pairs: arr(obj({ pairId: int(), symbol: str(), price: nullable(dec()), timestampMs: nullable(int()), ageMs: nullable(int()), fresh: bool() })) }),
});

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const ppbRate = (ppb: bigint) => formatDecimal(ppb, 9);
const positionIdSchema = { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', maxLength: 20 }] } as const;
const networkQuery = { type: 'object', additionalProperties: false, properties: { network: networkSchema } } as const;

interface SignedPerp {
  wallet: string;
  nonce: number | string;
  signature?: string;
  sessionWallet?: string;
  network?: string;
  expiresAfter?: number;
}

export const perpRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;
  const nowMs = () => state().head().timestampMs;
  const pairsSorted = () => [...state().pairs.entries()].map(([, p]) => p).sort((a, b) => a.id - b.id);
  /** The perp markets: the pairs with one (a spot-only pair has none: decision 76). */
  const perpPairsSorted = () => pairsSorted().filter(hasPerp);

  /** Nonce as signed (a JSON number or a decimal string: the signed text depends on which) and its value. */
  const nonceOf = (n: number | string) => ({ nonce: parseNonce(n), nonceQuoted: typeof n === 'string' });
  /** `positionId` as sent: a JSON number or a string (the signed text depends on which). */
  const positionIdOf = (sent: number | string) => ({ positionId: String(sent), positionIdQuoted: typeof sent === 'string' });
  /** The owner (`wallet`) and who signed: `sessionWallet`, else the wallet. */
  const parties = (b: SignedPerp) => ({ owner: toAddress(b.wallet), signer: toAddress(b.sessionWallet ?? b.wallet) });

  /** An open position of `owner` (404 unknown, 403 another's): no operation counterpart at the door yet. */
  const positionOf = (owner: Address, id: bigint): void => {
    const pos = state().perpPositions.get(String(id));
    if (!pos) throw new ApiError(404, 'UNKNOWN_POSITION', `positionId: no open position ${id}`);
    if (pos.owner !== owner) throw new ApiError(403, 'NOT_OWNER', `position ${id} does not belong to ${owner}`);
  };

  const signedProps = { wallet: address, nonce: nonceSchema, signature: signatureSchema, sessionWallet: address, network: networkSchema, expiresAfter: expiresAfterSchema } as const;

  app.post<{ Body: SignedPerp & { action: string; pairId: number; isLong: boolean; leverage: number; margin: string } }>('/v1/perp/open', {
    schema: {
      body: {
        type: 'object',
        required: ['action', 'wallet', 'pairId', 'isLong', 'leverage', 'margin', 'nonce'],
        additionalProperties: false,
        properties: {
          ...signedProps,
          action: { type: 'string', const: 'perp_open' },
          pairId: { type: 'integer', minimum: 0, maximum: 4294967295 },
          isLong: { type: 'boolean' },
          leverage: { type: 'integer', minimum: 1, maximum: 1000 },
          margin: decimalString,
        },
        examples: [{ action: 'perp_open', pairId: 1, isLong: true, leverage: 5, margin: '100', ...perpSignedExample }],
      },
      tags: ['perps'],
      summary: 'Open a perpetual position',
      description: 'Signed by `sessionWallet` (absent: `wallet`), a personal signature over the JSON payload. `margin` in USDC (at least 1), `leverage` up to the pair\u2019s maximum. Answers once final; execution\u2019s refusals are 422.',
      response: {
        200: envelope(obj({ positionId: dec(), pairId: int(), symbol: str(), isLong: bool(), side, size: dec(), entryPrice: dec(), margin: dec(), leverage: int(), liquidationPrice: dec(), fee: dec(), isAgent: bool(), txHash: hex() }), {
          positionId: '7', pairId: 1, symbol: 'BTC', isLong: true, side: 'long', size: '0.0076923', entryPrice: '65000', margin: '99.75', leverage: 5, liquidationPrice: '52650', fee: '0.25', isAgent: false, txHash: EX.hash,
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const { signer } = parties(b);
      const { tx } = admitAtDoor(state(), TxKind.PerpOpen, {
        signature: b.signature,
        signers: [signer],
        body: (signature) => ({ wallet: b.wallet, pairId: b.pairId, isLong: b.isLong, leverage: b.leverage, margin: b.margin, ...nonceOf(b.nonce), signer, signature, ...expiryOf(b.expiresAfter) }),
        routeRules: (body) => {
          if (parseMargin(body.margin) < MIN_PERP_MARGIN) throw new ApiError(400, 'INVALID_MARGIN', 'margin: at least 1 USDC');
          const pair = state().pairs.get(String(body.pairId));
          if (!pair) throw new ApiError(400, 'UNKNOWN_PAIR', `pairId: no pair ${body.pairId}`);
          if (body.leverage > pair.maxLeverage) throw new ApiError(400, 'INVALID_LEVERAGE', `leverage: at most ${pair.maxLeverage} on ${pair.symbol}`);
        },
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'PerpOpened');
      return ok({
        positionId: e.positionId, pairId: e.pairId, symbol: e.symbol, isLong: e.isLong, side: e.isLong ? 'long' : 'short',
        size: size18(e.size), entryPrice: price6(e.entryPrice), margin: usdc(e.margin), leverage: e.leverage,
        liquidationPrice: price6(e.liquidationPrice), fee: usdc(e.fee), isAgent: e.isAgent, txHash: final.receipt.txHash,
      });
    },
  });

  app.post<{ Body: SignedPerp & { action: string; positionId: number | string; size: string } }>('/v1/perp/close', {
    schema: {
      body: {
        type: 'object',
        required: ['action', 'wallet', 'positionId', 'size', 'nonce'],
        additionalProperties: false,
        properties: { ...signedProps, action: { type: 'string', const: 'perp_close' }, positionId: positionIdSchema, size: decimalString },
        examples: [{ action: 'perp_close', positionId: 7, size: '0.0076923', ...perpSignedExample }],
      },
      tags: ['perps'],
      summary: 'Close or reduce a position',
      description: '404 UNKNOWN_POSITION, 403 NOT_OWNER; answers once final with the realised PnL, funding, fee and payout.',
      response: {
        200: envelope(obj({ positionId: dec(), status: { type: 'string', enum: ['closed', 'reduced'] }, closedSize: dec(), remainingSize: dec(), price: dec(), pnl: dec(), funding: dec(), fee: dec(), payout: dec(), txHash: hex() }), {
          positionId: '7', status: 'closed', closedSize: '0.0076923', remainingSize: '0', price: '66000', pnl: '7.69', funding: '0', fee: '0.25', payout: '107.19', txHash: EX.hash,
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const { owner, signer } = parties(b);
      const { tx } = admitAtDoor(state(), TxKind.PerpClose, {
        signature: b.signature,
        signers: [signer],
        body: (signature) => ({ wallet: b.wallet, ...positionIdOf(b.positionId), size: b.size, ...nonceOf(b.nonce), signer, signature, ...expiryOf(b.expiresAfter) }),
      });
      const id = BigInt(tx.body.positionId);
      positionOf(owner, id);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'PerpClosed', (x) => x.positionId === String(id));
      return ok({
        positionId: String(id), status: e.remaining === 0n ? 'closed' : 'reduced', closedSize: size18(e.size), remainingSize: size18(e.remaining),
        price: price6(e.price), pnl: usdc(e.pnl), funding: usdc(e.funding), fee: usdc(e.fee), payout: usdc(e.payout),
        txHash: final.receipt.txHash,
      });
    },
  });

  app.post<{ Body: SignedPerp & { action: string; positionId: number | string; takeProfit: string; stopLoss: string } }>('/v1/perp/tpsl', {
    schema: {
      body: {
        type: 'object',
        required: ['action', 'wallet', 'positionId', 'takeProfit', 'stopLoss', 'nonce'],
        additionalProperties: false,
        properties: { ...signedProps, action: { type: 'string', const: 'perp_tpsl' }, positionId: positionIdSchema, takeProfit: decimalString, stopLoss: decimalString },
        examples: [{ action: 'perp_tpsl', positionId: 7, takeProfit: '70000', stopLoss: '60000', ...perpSignedExample }],
      },
      tags: ['perps'],
      summary: 'Set a position\u2019s take-profit and stop-loss',
      description: 'An empty string clears a target. Answers once final.',
      response: { 200: envelope(obj({ positionId: dec(), takeProfit: str('Price, or "" when none.'), stopLoss: str('Price, or "" when none.'), txHash: hex() }), { positionId: '7', takeProfit: '70000', stopLoss: '60000', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const { owner, signer } = parties(b);
      const { tx } = admitAtDoor(state(), TxKind.PerpTpsl, {
        signature: b.signature,
        signers: [signer],
        body: (signature) => ({ wallet: b.wallet, ...positionIdOf(b.positionId), takeProfit: b.takeProfit, stopLoss: b.stopLoss, ...nonceOf(b.nonce), signer, signature, ...expiryOf(b.expiresAfter) }),
      });
      const id = BigInt(tx.body.positionId);
      positionOf(owner, id);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'PerpTpslSet');
      const target = (v: bigint) => (v === 0n ? '' : price6(v));
      return ok({ positionId: String(id), takeProfit: target(e.takeProfit), stopLoss: target(e.stopLoss), txHash: final.receipt.txHash });
    },
  });

  // ---- reads ---------------------------------------------------------------------------

  /** The funding rate the next settlement would apply, from this interval's premium samples so far. */
  const predictedRate = (pairId: number) => {
    // The limits as executed now: owner governance may have changed them (decision 76).
    const limits = state().params().limits;
    const samples = BigInt(Math.max(1, Math.floor(limits.fundingIntervalMs / Math.max(1, limits.tpslCheckIntervalMs))));
    const avg = perpMarket(state(), pairId).premiumSumPpb / samples;
    return { avg, ...fundingRate(avg, limits.fundingIntervalMs, state().params().perps) };
  };

  const marketItem = (pairId: number, value: bigint) => {
    const s = state();
    const pair = s.pairs.get(String(pairId))!;
    const op = oraclePrice(s, pairId, nowMs());
    const book = s.perp.markets.get(pairId);
    const longSize = book?.long.size ?? 0n;
    const shortSize = book?.short.size ?? 0n;
    const price = op?.price ?? null;
    const rate = predictedRate(pairId);
    return {
      pairId, symbol: pair.symbol, pair: `${pair.symbol}-PERP`, maxLeverage: pair.maxLeverage, maintenanceMarginBps: pair.maintenanceMarginBps,
      openInterestCapBps: pair.openInterestCapBps,
      oraclePrice: price === null ? null : price6(price), oracleTimestampMs: op?.timestampMs ?? null, oracleFresh: op?.fresh ?? false,
      longSize: size18(longSize), shortSize: size18(shortSize),
      openInterest: price === null ? '0' : usdc((price * (longSize + shortSize)) / 10n ** 18n),
      openInterestCap: usdc(openInterestCap(pair.openInterestCapBps, value)),
      positions: (book?.long.count ?? 0) + (book?.short.count ?? 0),
      fundingRate: ppbRate(rate.perIntervalPpb),
    };
  };

  app.get<{ Querystring: { network?: string } }>('/v1/perp/markets', {
    schema: {
      tags: ['perps'],
      summary: 'The perpetual markets',
      description: 'Oracle price and freshness, open interest and its cap, positions and the predicted funding rate of each pair with a perp market.',
      querystring: networkQuery,
      response: {
        200: envelope(arr(marketSchema), [{ pairId: 1, symbol: 'BTC', pair: 'BTC-PERP', maxLeverage: 50, maintenanceMarginBps: 50, openInterestCapBps: 5000, oraclePrice: '65000', oracleTimestampMs: EX.timestampMs, oracleFresh: true, longSize: '0.1', shortSize: '0', openInterest: '6500', openInterestCap: '50000', positions: 1, fundingRate: '0.000125' }]),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const value = poolValuation(state(), nowMs()).realPoolValue;
      return ok(perpPairsSorted().map((p) => marketItem(p.id, value)));
    },
  });

  app.get<{ Querystring: { network?: string } }>('/api/pairs/perps', {
    schema: {
      tags: ['perps'],
      summary: 'The pairs with a perp market',
      querystring: networkQuery,
      response: { 200: envelope(arr(perpPairSchema), [{ pairId: 1, symbol: 'BTC', pair: 'BTC-PERP', maxLeverage: 50, maintenanceMarginBps: 50, openInterestCapBps: 5000, tickSize: '0.01', lotSize: '0.0001', minSize: '0.0001', markets: ['spot', 'perp'], oracleSource: 'feed' }]), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return ok(
        perpPairsSorted().map((p) => ({
          pairId: p.id, symbol: p.symbol, pair: `${p.symbol}-PERP`, maxLeverage: p.maxLeverage, maintenanceMarginBps: p.maintenanceMarginBps,
          openInterestCapBps: p.openInterestCapBps, tickSize: price6(p.tickSize), lotSize: size18(p.lotSize), minSize: size18(p.minSize),
          markets: marketNames(p), oracleSource: oracleSourceOf(p),
        })),
      );
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string } }>('/v1/perp/positions/:address', {
    schema: {
      tags: ['perps'],
      summary: 'An address\u2019s open positions',
      description: 'Each marked at the oracle price at the head\u2019s block time: PnL, funding owed, equity, maintenance margin and liquidation price.',
      params: { type: 'object', properties: { address } },
      querystring: networkQuery,
      response: {
        200: envelope(arr(positionSchema), [{
          positionId: '7', pairId: 1, symbol: 'BTC', side: 'long', isLong: true, size: '0.0076923', entryPrice: '65000', markPrice: '65500', oracleFresh: true, margin: '99.75', leverage: 5, notional: '503.84',
          liquidationPrice: '52650', unrealizedPnl: '3.84', fundingOwed: '0', equity: '103.59', maintenanceMargin: '2.51', takeProfit: null, stopLoss: null, openedAt: EX.timestampMs, isAgent: false,
        }]),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const s = state();
      const owner = toAddress(req.params.address);
      const now = nowMs();
      return ok(
        s.perp.ownerIds(owner).map((id) => {
          const p = s.perpPositions.get(String(id))!;
          const v = positionView(s, p, now);
          return {
            positionId: String(p.id), pairId: p.pairId, symbol: s.pairs.get(String(p.pairId))!.symbol, side: p.isLong ? 'long' : 'short', isLong: p.isLong,
            size: size18(p.size), entryPrice: price6(p.entryPrice), markPrice: price6(v.markPrice), oracleFresh: v.fresh, margin: usdc(p.margin),
            leverage: p.leverage, notional: usdc(v.notional), liquidationPrice: price6(v.liquidationPrice), unrealizedPnl: usdc(v.upnl),
            fundingOwed: usdc(v.fundingOwed), equity: usdc(v.equity), maintenanceMargin: usdc(v.maintenance),
            takeProfit: p.takeProfit === 0n ? null : price6(p.takeProfit), stopLoss: p.stopLoss === 0n ? null : price6(p.stopLoss),
            openedAt: p.openedMs, isAgent: p.isAgent,
          };
        }),
      );
    },
  });

  app.get<{ Querystring: { network?: string } }>('/v1/funding', {
    schema: {
      tags: ['perps'],
      summary: 'Funding rates: predicted and recent',
      querystring: networkQuery,
      response: {
        200: envelope(arr(fundingSchema), [{ pairId: 1, symbol: 'BTC', fundingRate: '0.000125', fundingRate8h: '0.001', averagePremium: '0.0001', intervalMs: 3600000, nextFundingTime: EX.timestampMs + 3600000, lastFundingRate: null, recent: [] }]),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const interval = state().params().limits.fundingIntervalMs;
      const next = (Math.floor(nowMs() / interval) + 1) * interval;
      return ok(
        perpPairsSorted().map((p) => {
          const m = perpMarket(state(), p.id);
          const r = predictedRate(p.id);
          return {
            pairId: p.id, symbol: p.symbol, fundingRate: ppbRate(r.perIntervalPpb), fundingRate8h: ppbRate(r.per8hPpb), averagePremium: ppbRate(r.avg),
            intervalMs: interval, nextFundingTime: next,
            lastFundingRate: m.recent[0] ? ppbRate(m.recent[0].rateHourlyPpb) : null,
            recent: m.recent.map((f) => ({ time: f.timeMs, fundingRate: ppbRate(f.rateHourlyPpb), amount: usdc(f.amount), price: price6(f.price) })),
          };
        }),
      );
    },
  });

  app.get<{ Querystring: { network?: string; address?: string } }>('/v1/pool', {
    schema: {
      tags: ['perps'],
      summary: 'The liquidity pool',
      description: 'Its USDC, value marked to market, traders\u2019 unrealised PnL against it, shares and share price; with `address`, that liquidity provider\u2019s shares, value and unlock time.',
      querystring: { type: 'object', additionalProperties: false, properties: { network: networkSchema, address } },
      response: {
        200: envelope(poolSchema, {
          poolUsdc: '100000', realPoolValue: '99990', traderUnrealizedPnl: '10', traderUnrealizedProfit: '10', bookUnrealizedPnl: '0', bookPositions: [], adlProfitLimit: '90000',
          totalShares: '100000000000', protocolShares: '0', sharePrice: '0.9999', lockupMs: 86400000, stale: false,
          account: { address: EX.address, shares: '1000000000', value: '999.9', unlockMs: EX.timestampMs + 86400000 },
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const s = state();
      const v = poolValuation(s, nowMs());
      const pool = s.poolRecord();
      const sharePrice = v.totalShares > 0n ? formatDecimal((v.realPoolValue * 1_000_000n) / v.totalShares, 6) : '1';
      const lp = req.query.address ? toAddress(req.query.address) : undefined;
      const held = lp ? s.poolShares.get(lp) : undefined;
      return ok({
        poolUsdc: usdc(v.usdc), realPoolValue: usdc(v.realPoolValue), traderUnrealizedPnl: usdc(v.traderPnl), traderUnrealizedProfit: usdc(v.traderProfit),
        bookUnrealizedPnl: usdc(v.bookUpnl),
        bookPositions: v.bookMarks.filter((b) => b.size !== 0n).map((b) => ({ pairId: b.pairId, size: size18(b.size), cost: usdc(b.cost), markPrice: price6(b.price), unrealizedPnl: usdc(b.upnl), fresh: b.fresh })),
        adlProfitLimit: usdc(profitLimit(genesis.perps.adlPoolPnlThresholdBps, v.usdc)), totalShares: String(v.totalShares), protocolShares: String(pool.protocolShares),
        sharePrice, lockupMs: s.params().limits.poolLockupMs, stale: v.stale,
        ...(lp ? { account: { address: lp, shares: String(held?.shares ?? 0n), value: usdc(v.totalShares > 0n ? ((held?.shares ?? 0n) * v.realPoolValue) / v.totalShares : 0n), unlockMs: held?.unlockMs ?? null } } : {}),
      });
    },
  });

  app.get('/stats', {
    schema: {
      tags: ['perps'],
      summary: 'Perpetuals engine statistics',
      description: 'Markets, positions, open interest, the pool, liquidations (position and orderbook), ADL events, the last funding time and each pair\u2019s oracle freshness.',
      response: {
        200: envelope(statsSchema, {
          height: 1024, blockTimeMs: EX.timestampMs, markets: 3, positions: 1, openInterest: '6500', pool: { poolUsdc: '100000', realPoolValue: '99990', traderUnrealizedPnl: '10' },
          liquidations: 0, adlEvents: 0, lastLiquidation: null, lastFundingTime: null, bookLiquidations: 0, bookBadDebt: '0', lastBookLiquidation: null,
          oracle: { fresh: 3, stale: 0, maxStalenessMs: 60000, pairs: [{ pairId: 1, symbol: 'BTC', price: '65000', timestampMs: EX.timestampMs, ageMs: 500, fresh: true }] },
        }),
        ...errors,
      },
    },
    handler: async () => {
      const s = state();
      const now = nowMs();
      const v = poolValuation(s, now);
      const st = perpStats(s);
      const bl = bookLiqStats(s);
      let openInterest = 0n;
      let positions = 0;
      for (const m of v.marks) {
        openInterest += m.openInterest;
        positions += m.positions;
      }
      const oracle = pairsSorted().map((p) => {
        const op = oraclePrice(s, p.id, now);
        return { pairId: p.id, symbol: p.symbol, price: op ? price6(op.price) : null, timestampMs: op?.timestampMs ?? null, ageMs: op ? now - op.timestampMs : null, fresh: op?.fresh ?? false };
      });
      return ok({
        height: node.chain().height, blockTimeMs: now, markets: perpPairsSorted().length, positions, openInterest: usdc(openInterest),
        pool: { poolUsdc: usdc(v.usdc), realPoolValue: usdc(v.realPoolValue), traderUnrealizedPnl: usdc(v.traderPnl) },
        liquidations: st.liquidations, adlEvents: st.adlEvents,
        lastLiquidation: st.lastLiquidation ? { ...st.lastLiquidation, price: price6(st.lastLiquidation.price), shortfall: usdc(st.lastLiquidation.shortfall) } : null,
        lastFundingTime: st.lastFundingMs,
        bookLiquidations: bl.liquidations, bookBadDebt: usdc(bl.badDebt),
        lastBookLiquidation: bl.last ? { ...bl.last, size: size18(bl.last.size), price: price6(bl.last.price), shortfall: usdc(bl.last.shortfall) } : null,
        oracle: { fresh: oracle.filter((o) => o.fresh).length, stale: oracle.filter((o) => !o.fresh).length, maxStalenessMs: genesis.oracle.maxStalenessMs, pairs: oracle },
      });
    },
  });

  // ---- the pool: EIP-712, owner-only -----------------------------------------------------

  app.post<{ Body: { owner: string; amount: string; nonce: number | string; signature?: string; network?: string; expiresAfter?: number } }>('/v1/pool/deposit', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'amount', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, amount: decimalString, nonce: nonceSchema, signature: signatureSchema, network: networkSchema, expiresAfter: expiresAfterSchema },
        examples: [{ owner: EX.owner, amount: '1000', nonce: 1, signature: EX.signature }],
      },
      tags: ['perps'],
      summary: 'Deposit USDC into the liquidity pool',
      description: 'Owner-signed (EIP-712); a session key is refused 403 OWNER_ONLY. `amount` in USDC, at most 6 decimals. Answers once final with the shares minted and their unlock time.',
      response: { 200: envelope(obj({ owner: addr(), amount: dec(), shares: dec(), poolValue: dec(), unlockMs: int(), txHash: hex() }), { owner: EX.owner, amount: '1000', shares: '1000000000', poolValue: '100000', unlockMs: EX.timestampMs + 86400000, txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const owner = toAddress(b.owner);
      const amount = parseDecimal(b.amount, 6);
      if (amount === null || amount === 0n) throw new ApiError(400, 'INVALID_AMOUNT', 'amount: must be a positive USDC decimal string with at most 6 decimals');
      const nonce = parseNonce(b.nonce);
      // Owner-only (src/state/accounts/sessions.ts): the owner's live session key is refused 403 OWNER_ONLY, anyone else 401.
      const { tx, signer } = admitAtDoor(state(), TxKind.PoolDeposit, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, amount, nonce, signature, ...expiryOf(b.expiresAfter) }),
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'PoolDeposited');
      return ok({ owner, amount: usdc(e.amount), shares: String(e.shares), poolValue: usdc(e.poolValue), unlockMs: e.unlockMs, txHash: final.receipt.txHash });
    },
  });

  app.post<{ Body: { owner: string; shares: string; nonce: number | string; signature?: string; network?: string; expiresAfter?: number } }>('/v1/pool/withdraw', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'shares', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, shares: { type: 'string', pattern: '^[1-9][0-9]{0,38}$' }, nonce: nonceSchema, signature: signatureSchema, network: networkSchema, expiresAfter: expiresAfterSchema },
        examples: [{ owner: EX.owner, shares: '1000000000', nonce: 2, signature: EX.signature }],
      },
      tags: ['perps'],
      summary: 'Redeem liquidity pool shares',
      description: 'Owner-signed (EIP-712), after the lockup. Answers once final with the USDC paid.',
      response: { 200: envelope(obj({ owner: addr(), shares: dec(), amount: dec(), poolValue: dec(), txHash: hex() }), { owner: EX.owner, shares: '1000000000', amount: '999.9', poolValue: '99000', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const owner = toAddress(b.owner);
      const shares = BigInt(b.shares);
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.PoolWithdraw, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, shares, nonce, signature, ...expiryOf(b.expiresAfter) }),
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'PoolWithdrawn');
      return ok({ owner, shares: String(e.shares), amount: usdc(e.amount), poolValue: usdc(e.poolValue), txHash: final.receipt.txHash });
    },
  });
};
