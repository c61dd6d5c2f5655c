/**
 * Perpetuals engine REST (spec "Perpetuals engine REST"; DECISIONS "Orders and
 * trading", "Signatures"): markets, positions, funding, the pool, engine stats, and the
 * signed writes open / close / tpsl (personal signature over the JSON payload) and pool
 * deposit / withdraw (EIP-712). Checks at the door in DECISIONS order: shape (400),
 * signature (401), who may (403), nonce (409); then the transaction goes through
 * consensus and the answer waits until it is final; execution's refusals are 422.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { throwIfFailed, type FinalTx } from '../final';
import { encodeTx, TxKind } from '../../codec/tx';
import { perpCloseMessage, perpOpenMessage, perpTpslMessage } from '../../codec/txs/perps';
import { hashPersonalMessage } from '../../crypto/eip191';
import { hashTypedMessage, type Eip712Messages } from '../../crypto/eip712';
import { verifySigner } from '../../crypto/secp256k1';
import { TxError } from '../../state/errors';
import { parseCloseSize, parseMargin, parsePositionId, parseTarget } from '../../state/ops/perps';
import { oraclePrice } from '../../state/oracle';
import { perpMarket, perpStats, positionView } from '../../state/perps/engine';
import { fundingRate, MIN_PERP_MARGIN } from '../../state/perps/math';
import { openInterestCap, poolValuation, profitLimit } from '../../state/perps/pool';
import { bookLiqStats } from '../../state/perps/book-liquidation';
import type { PerpPosition } from '../../state/records';
import { activeSession, traderRefusal, traderRefusalMessage } from '../../state/sessions';
import { toAddress, type Address } from '../../util/bytes';
import { formatDecimal, parseDecimal } from '../../util/decimal';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, parseSignatureField, price6, signatureSchema, size18, usdc } from '../common';
import { ApiError, errorSchema, ok } from '../envelope';

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
}

/** Shape errors raised by execution's parsers answer as the API's own. */
function shape<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TxError) throw new ApiError(err.status, err.code, err.message);
    throw err;
  }
}

function event(final: FinalTx, type: string): any {
  return (final.receipt.events as any[]).find((e) => e.type === type);
}

/** `positionId` as sent (a JSON number or a string: the signed text depends on which) and its value (400 when malformed). */
function positionIdField(sent: number | string): { positionId: string; positionIdQuoted: boolean; id: bigint } {
  const positionId = String(sent);
  const positionIdQuoted = typeof sent === 'string';
  return { positionId, positionIdQuoted, id: shape(() => parsePositionId(positionId, positionIdQuoted)) };
}

export const perpRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const chainId = genesis.chainId;
  const state = () => node.chain().state;
  const nowMs = () => state().head().timestampMs;
  const pairsSorted = () => [...state().pairs.entries()].map(([, p]) => p).sort((a, b) => a.id - b.id);

  /** Nonce as signed (a JSON number or a decimal string) and its value. */
  const nonceOf = (n: number | string) => {
    const nonce = parseNonce(n);
    if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new ApiError(400, 'INVALID_NONCE', 'nonce: a JSON number nonce must be a safe integer (send a string beyond 2^53)');
    return { nonce, nonceQuoted: typeof n === 'string' };
  };

  /** Signature over the JSON text by the signer (sessionWallet, else the wallet), then the trader rule at the head block. */
  const requireSigned = (message: string, b: SignedPerp): { owner: Address; signer: Address; signature: Uint8Array } => {
    const owner = toAddress(b.wallet);
    const signer = toAddress(b.sessionWallet ?? b.wallet);
    const signature = parseSignatureField(b.signature);
    if (!verifySigner(hashPersonalMessage(message), signature, signer)) {
      throw new ApiError(401, 'INVALID_SIGNATURE', `signature: does not recover to ${b.sessionWallet ? 'sessionWallet' : 'wallet'} ${signer}`);
    }
    const code = traderRefusal(state(), owner, signer, nowMs());
    if (code) throw new ApiError(403, code, traderRefusalMessage(code, owner, signer));
    return { owner, signer, signature };
  };

  const positionOf = (owner: Address, id: bigint): PerpPosition => {
    const pos = state().perpPositions.get(String(id));
    if (!pos) throw new ApiError(404, 'UNKNOWN_POSITION', `positionId: no open position ${id}`);
    if (pos.owner !== owner) throw new ApiError(403, 'NOT_OWNER', `position ${id} does not belong to ${owner}`);
    return pos;
  };

  const signedProps = { wallet: address, nonce: nonceSchema, signature: signatureSchema, sessionWallet: address, network: networkSchema } as const;

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
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const margin = shape(() => parseMargin(b.margin));
      if (margin < MIN_PERP_MARGIN) throw new ApiError(400, 'INVALID_MARGIN', 'margin: at least 1 USDC');
      const pair = state().pairs.get(String(b.pairId));
      if (!pair) throw new ApiError(400, 'UNKNOWN_PAIR', `pairId: no pair ${b.pairId}`);
      if (b.leverage > pair.maxLeverage) throw new ApiError(400, 'INVALID_LEVERAGE', `leverage: at most ${pair.maxLeverage} on ${pair.symbol}`);
      const n = nonceOf(b.nonce);
      const fields = { wallet: b.wallet, pairId: b.pairId, isLong: b.isLong, leverage: b.leverage, margin: b.margin, ...n };
      const { signer, signature } = requireSigned(perpOpenMessage(fields), b);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.PerpOpen, { ...fields, signer, signature }), signer);
      throwIfFailed(final);
      const e = event(final, 'PerpOpened');
      return ok({
        positionId: e.positionId as string, pairId: e.pairId, symbol: e.symbol, isLong: e.isLong, side: e.isLong ? 'long' : 'short',
        size: size18(BigInt(e.size)), entryPrice: price6(BigInt(e.entryPrice)), margin: usdc(BigInt(e.margin)), leverage: e.leverage,
        liquidationPrice: price6(BigInt(e.liquidationPrice)), fee: usdc(BigInt(e.fee)), isAgent: e.isAgent, txHash: final.receipt.txHash,
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
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const { positionId, positionIdQuoted, id } = positionIdField(b.positionId);
      shape(() => parseCloseSize(b.size));
      const n = nonceOf(b.nonce);
      const fields = { wallet: b.wallet, positionId, positionIdQuoted, size: b.size, ...n };
      const { owner, signer, signature } = requireSigned(perpCloseMessage(fields), b);
      positionOf(owner, id);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.PerpClose, { ...fields, signer, signature }), signer);
      throwIfFailed(final);
      const e = (final.receipt.events as any[]).find((x) => x.type === 'PerpClosed' && x.positionId === String(id));
      return ok({
        positionId: String(id), status: BigInt(e.remaining) === 0n ? 'closed' : 'reduced', closedSize: size18(BigInt(e.size)), remainingSize: size18(BigInt(e.remaining)),
        price: price6(BigInt(e.price)), pnl: usdc(BigInt(e.pnl)), funding: usdc(BigInt(e.funding)), fee: usdc(BigInt(e.fee)), payout: usdc(BigInt(e.payout)),
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
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const { positionId, positionIdQuoted, id } = positionIdField(b.positionId);
      shape(() => parseTarget(b.takeProfit, 'takeProfit'));
      shape(() => parseTarget(b.stopLoss, 'stopLoss'));
      const n = nonceOf(b.nonce);
      const fields = { wallet: b.wallet, positionId, positionIdQuoted, takeProfit: b.takeProfit, stopLoss: b.stopLoss, ...n };
      const { owner, signer, signature } = requireSigned(perpTpslMessage(fields), b);
      positionOf(owner, id);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.PerpTpsl, { ...fields, signer, signature }), signer);
      throwIfFailed(final);
      const e = event(final, 'PerpTpslSet');
      const target = (v: bigint) => (v === 0n ? '' : price6(v));
      return ok({ positionId: String(id), takeProfit: target(BigInt(e.takeProfit)), stopLoss: target(BigInt(e.stopLoss)), txHash: final.receipt.txHash });
    },
  });

  // ---- reads ---------------------------------------------------------------------------

  /** The funding rate the next settlement would apply, from this interval's premium samples so far. */
  const predictedRate = (pairId: number) => {
    const limits = genesis.limits;
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
    schema: { querystring: networkQuery, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const value = poolValuation(state(), nowMs()).realPoolValue;
      return ok(pairsSorted().map((p) => marketItem(p.id, value)));
    },
  });

  app.get<{ Querystring: { network?: string } }>('/api/pairs/perps', {
    schema: { querystring: networkQuery, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return ok(
        pairsSorted().map((p) => ({
          pairId: p.id, symbol: p.symbol, pair: `${p.symbol}-PERP`, maxLeverage: p.maxLeverage, maintenanceMarginBps: p.maintenanceMarginBps,
          openInterestCapBps: p.openInterestCapBps, tickSize: price6(p.tickSize), lotSize: size18(p.lotSize), minSize: size18(p.minSize),
        })),
      );
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string } }>('/v1/perp/positions/:address', {
    schema: { params: { type: 'object', properties: { address } }, querystring: networkQuery, response: errors },
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
    schema: { querystring: networkQuery, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const interval = genesis.limits.fundingIntervalMs;
      const next = (Math.floor(nowMs() / interval) + 1) * interval;
      return ok(
        pairsSorted().map((p) => {
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
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { network: networkSchema, address } }, response: errors },
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
        sharePrice, lockupMs: genesis.limits.poolLockupMs, stale: v.stale,
        ...(lp ? { account: { address: lp, shares: String(held?.shares ?? 0n), value: usdc(v.totalShares > 0n ? ((held?.shares ?? 0n) * v.realPoolValue) / v.totalShares : 0n), unlockMs: held?.unlockMs ?? null } } : {}),
      });
    },
  });

  app.get('/stats', {
    schema: { response: errors },
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
        height: node.chain().height, blockTimeMs: now, markets: pairsSorted().length, positions, openInterest: usdc(openInterest),
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

  /** The owner, or else the owner's live session key (refused at the door, 403 OWNER_ONLY); anything else 401. */
  const poolSigner = <P extends 'PoolDeposit' | 'PoolWithdraw'>(type: P, message: Eip712Messages[P], signature: Uint8Array, owner: Address): Address => {
    const hash = hashTypedMessage(chainId, type, message);
    if (verifySigner(hash, signature, owner)) return owner;
    const session = activeSession(state(), owner, nowMs());
    if (session && verifySigner(hash, signature, session.sessionKey)) return session.sessionKey;
    throw new ApiError(401, 'INVALID_SIGNATURE', `signature: does not recover to the owner ${owner}`);
  };

  app.post<{ Body: { owner: string; amount: string; nonce: number | string; signature?: string; network?: string } }>('/v1/pool/deposit', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'amount', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, amount: decimalString, nonce: nonceSchema, signature: signatureSchema, network: networkSchema },
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const owner = toAddress(b.owner);
      const amount = parseDecimal(b.amount, 6);
      if (amount === null || amount === 0n) throw new ApiError(400, 'INVALID_AMOUNT', 'amount: must be a positive USDC decimal string with at most 6 decimals');
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      const signer = poolSigner('PoolDeposit', { owner, amount, nonce }, signature, owner);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.PoolDeposit, { owner, signer, amount, nonce, signature }), signer);
      throwIfFailed(final);
      const e = event(final, 'PoolDeposited');
      return ok({ owner, amount: usdc(BigInt(e.amount)), shares: String(e.shares), poolValue: usdc(BigInt(e.poolValue)), unlockMs: e.unlockMs, txHash: final.receipt.txHash });
    },
  });

  app.post<{ Body: { owner: string; shares: string; nonce: number | string; signature?: string; network?: string } }>('/v1/pool/withdraw', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'shares', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, shares: { type: 'string', pattern: '^[1-9][0-9]{0,38}$' }, nonce: nonceSchema, signature: signatureSchema, network: networkSchema },
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const owner = toAddress(b.owner);
      const shares = BigInt(b.shares);
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      const signer = poolSigner('PoolWithdraw', { owner, shares, nonce }, signature, owner);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.PoolWithdraw, { owner, signer, shares, nonce, signature }), signer);
      throwIfFailed(final);
      const e = event(final, 'PoolWithdrawn');
      return ok({ owner, shares: String(e.shares), amount: usdc(BigInt(e.amount)), poolValue: usdc(BigInt(e.poolValue)), txHash: final.receipt.txHash });
    },
  });
};
