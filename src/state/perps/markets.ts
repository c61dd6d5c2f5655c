/**
 * The perp markets' records, read and written by the engine (engine.ts), funding
 * (funding.ts) and the API's reads: a pair's market (side indices, funding pot,
 * premium samples, recent rates), its maintenance margin, the collateral standing
 * behind a position, and the engine's running stats (liquidations, ADL, last funding).
 */
import type { Address } from '../../util/bytes';
import type { Usdc6 } from '../../util/fixed';
import { EMPTY_PERP_MARKET, type PerpMarket, type PerpPosition } from '../records';
import { hasPerp } from '../pair-markets';
import type { State } from '../state';
import { fundingOwed } from './math';

export function perpMarket(state: State, pairId: number): PerpMarket {
  return state.perpMarkets.get(String(pairId)) ?? EMPTY_PERP_MARKET;
}

export function setMarket(state: State, pairId: number, m: PerpMarket): void {
  state.perpMarkets.set(String(pairId), m);
}

export function sideIndex(m: PerpMarket, isLong: boolean): bigint {
  return isLong ? m.fundingIndexLong : m.fundingIndexShort;
}

export function maintenanceBps(state: State, pairId: number): number {
  const pair = state.pairs.get(String(pairId));
  if (!pair) throw new Error(`perp position on unknown pair ${pairId}`);
  return pair.maintenanceMarginBps;
}

/** The collateral standing behind a position now: margin less the funding it owes. */
export function collateralOf(state: State, p: PerpPosition): { owed: Usdc6; collateral: Usdc6 } {
  const owed = fundingOwed(p.size, sideIndex(perpMarket(state, p.pairId), p.isLong), p.fundingIndex);
  return { owed, collateral: p.margin - owed };
}

// ---- stats and iteration order ------------------------------------------------------

export interface PerpStats {
  liquidations: number;
  adlEvents: number;
  lastLiquidation: { positionId: string; owner: Address; pairId: number; price: bigint; timeMs: number; shortfall: bigint } | null;
  lastFundingMs: number | null;
}

const EMPTY_PERP_STATS: PerpStats = { liquidations: 0, adlEvents: 0, lastLiquidation: null, lastFundingMs: null };

export function perpStats(state: State): PerpStats {
  return (state.meta.get('perpStats') as PerpStats | undefined) ?? EMPTY_PERP_STATS;
}

export function bumpStats(state: State, f: (s: PerpStats) => PerpStats): void {
  state.meta.set('perpStats', f(perpStats(state)));
}

/** Pair ids of markets holding positions, ascending. */
export function activeMarkets(state: State): number[] {
  const out: number[] = [];
  for (const [pairId, m] of state.perp.markets) if (m.long.count + m.short.count > 0) out.push(pairId);
  return out.sort((a, b) => a - b);
}

/** Pair ids of the perp markets, ascending: every pair with a perp market (a spot-only pair has no funding: decision 76). */
export function perpPairIds(state: State): number[] {
  return state.pairs
    .sortedKeys()
    .filter((k) => hasPerp(state.pairs.get(k)!))
    .map(Number)
    .sort((a, b) => a - b);
}
