/**
 * A pair's markets and its oracle source (decision 76): what every reader of the pair
 * list asks before treating a pair as a spot book or a perp market, and where the
 * validators' oracle actor takes its price from.
 *
 * A genesis pair has neither field (the genesis file format has none): it has both
 * markets and the devnet source. A pair added by governance (AddPair) carries both
 * fields. Spot orders on a pair without a spot book and perp opens on a pair without a
 * perp market are refused (422 MARKET_NOT_LISTED); funding runs over perp markets only;
 * the oracle prices every pair whatever its markets (the spot book's margin and
 * liquidation read the oracle mark too).
 */
import { PAIR_MARKET_PERP, PAIR_MARKET_SPOT, PAIR_MARKETS_BOTH, type PairParams } from '../genesis/types';
import { rejected } from './errors';

/** The deterministic devnet price path (src/oracle/devnet-source.ts): the one source this node implements. */
export const DEVNET_ORACLE_SOURCE = 'devnet-path';
/** The longest oracle source name a pair may carry. */
export const ORACLE_SOURCE_CHARS_MAX = 64;
/** Lower-case letters and digits first, then also `.`, `_`, `:`, `/`, `-` (a feed id such as `chainlink:eth-usd`). */
export const ORACLE_SOURCE_PATTERN = /^[a-z0-9][a-z0-9._:/-]{0,63}$/;

type MarketName = 'spot' | 'perp';

function marketsOf(p: PairParams): number {
  return p.markets ?? PAIR_MARKETS_BOTH;
}

export function hasSpot(p: PairParams): boolean {
  return (marketsOf(p) & PAIR_MARKET_SPOT) !== 0;
}

export function hasPerp(p: PairParams): boolean {
  return (marketsOf(p) & PAIR_MARKET_PERP) !== 0;
}

/** The markets by name, spot first: what the pair reads show. */
export function marketNames(p: PairParams): MarketName[] {
  const out: MarketName[] = [];
  if (hasSpot(p)) out.push('spot');
  if (hasPerp(p)) out.push('perp');
  return out;
}

export function oracleSourceOf(p: PairParams): string {
  return p.oracleSource ?? DEVNET_ORACLE_SOURCE;
}

/** 422 MARKET_NOT_LISTED unless the pair has a spot book (every spot order path, before it touches the book). */
export function requireSpot(p: PairParams): void {
  if (!hasSpot(p)) throw rejected('MARKET_NOT_LISTED', `pairId: ${p.symbol} (pair ${p.id}) has no spot market, only ${marketNames(p).join(', ')}`);
}

/** 422 MARKET_NOT_LISTED unless the pair has a perp market (perp opens). */
export function requirePerp(p: PairParams): void {
  if (!hasPerp(p)) throw rejected('MARKET_NOT_LISTED', `pairId: ${p.symbol} (pair ${p.id}) has no perp market, only ${marketNames(p).join(', ')}`);
}
