/**
 * Funding of the perp markets (contract [C-limits-funding], [D-orders-funding]; decisions
 * 35 and 36): a premium sample per pair on each whole second crossed, and on the first
 * block of each funding interval the settlement of the interval's rate, peer to peer
 * through the side indices, over the pairs with a perp market (decision 76). Called from
 * the end of the block (engine.ts, endBlockPerps).
 */
import type { ExecContext } from '../context';
import { oraclePrice } from '../oracle';
import { PERP_RECENT_RATES } from '../records';
import { credit } from '../accounts/vault';
import { fundingRate, fundingSettlement, premiumPpb } from './math';
import { perpPairIds, bumpStats, perpMarket, setMarket } from './markets';
import { payFromPool } from './pool';

/**
 * Funding, on the first block of each funding interval: per pair with a fresh price,
 * the rate of contract [C-limits-funding] from the interval's average premium, settled
 * peer to peer through the side indices (math.fundingSettlement). A market without positions has its pot's dust
 * swept (to the fee account; a deficit is covered by the pool).
 */
export function settleFunding(ctx: ExecContext): void {
  const { state, params, header } = ctx;
  const now = header.timestampMs;
  const samples = BigInt(Math.max(1, Math.floor(params.limits.fundingIntervalMs / Math.max(1, params.limits.tpslCheckIntervalMs))));
  for (const pairId of perpPairIds(state)) {
    const op = oraclePrice(state, pairId, now);
    const market = perpMarket(state, pairId);
    if (!op?.fresh) {
      // No settlement on an old price; the interval's samples do not carry into the next.
      if (market.premiumSumPpb !== 0n) setMarket(state, pairId, { ...market, premiumSumPpb: 0n });
      continue;
    }
    const avgPremium = market.premiumSumPpb / samples;
    const rate = fundingRate(avgPremium, params.limits.fundingIntervalMs, params.perps);
    const book = state.perp.markets.get(pairId);
    const longSize = book?.long.size ?? 0n;
    const shortSize = book?.short.size ?? 0n;
    const s = fundingSettlement(rate.perIntervalPpb, op.price, longSize, shortSize);
    let pot = market.fundingPot;
    if (longSize === 0n && shortSize === 0n && pot !== 0n) {
      if (pot > 0n) {
        credit(state, params.feeAccount, pot);
        pot = 0n;
      } else pot += payFromPool(state, -pot);
    }
    const record = { timeMs: now, rateHourlyPpb: rate.perIntervalPpb, amount: s.amount, price: op.price };
    setMarket(state, pairId, {
      ...market,
      fundingIndexLong: market.fundingIndexLong + s.longStep,
      fundingIndexShort: market.fundingIndexShort + s.shortStep,
      fundingPot: pot,
      premiumSumPpb: 0n,
      recent: [record, ...market.recent].slice(0, PERP_RECENT_RATES),
    });
    ctx.emit({ type: 'FundingSettled', pairId, ratePer8hPpb: rate.per8hPpb, rateHourlyPpb: rate.perIntervalPpb, avgPremiumPpb: avgPremium, amount: s.amount, price: op.price, longSize, shortSize });
  }
  bumpStats(state, (st) => ({ ...st, lastFundingMs: now }));
}

/** One premium sample per pair with a fresh price and a two-sided book: (mid − oracle) / oracle. */
export function samplePremiums(ctx: ExecContext): void {
  const { state, header } = ctx;
  for (const pairId of perpPairIds(state)) {
    const op = oraclePrice(state, pairId, header.timestampMs);
    if (!op?.fresh) continue;
    const book = state.books.get(pairId);
    const bid = book?.bestBid() ?? null;
    const ask = book?.bestAsk() ?? null;
    if (bid === null || ask === null) continue;
    const sample = premiumPpb((bid + ask) / 2n, op.price);
    if (sample === 0n) continue;
    const market = perpMarket(state, pairId);
    setMarket(state, pairId, { ...market, premiumSumPpb: market.premiumSumPpb + sample });
  }
}
