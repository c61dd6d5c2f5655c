/**
 * AddPair (decision 76): a pair added by owner governance, under the genesis loader's
 * rules for `pairs` (src/genesis/load.ts parsePairs), so a pair added later is one the
 * genesis could have held, and two fields a genesis pair leaves out:
 *
 * - `markets`: its spot book, its perp market or both (a bitmask, 1 spot, 2 perp; a
 *   genesis pair has both). The increments (tickSize, lotSize, minSize) and the
 *   leverage rules (maxLeverage within limits.maxLeverage, maintenanceMarginBps = 10000
 *   / maxLeverage / 2) are given for every pair, as the spot book is leveraged too;
 *   openInterestCapBps binds only a perp market. Spot orders on a pair without a spot
 *   book and perp opens on a pair without a perp market are refused with 422
 *   MARKET_NOT_LISTED (src/state/pair-markets.ts).
 * - `oracleSource`: where validators take its price from: `devnet-path` (the seeded
 *   deterministic path of src/oracle/devnet-source.ts, keyed by the pair id and starting
 *   at initialPrice; what a genesis pair reads as) or a named external feed, 1 to 64
 *   characters of a-z, 0-9 and `._:/-` starting with a letter or digit. Execution takes
 *   any well-formed name: a node whose oracle actor does not implement the source leaves
 *   the pair out of its observations (and says so once), so the pair has no price until
 *   validators that implement it observe it, and perp opens and TP/SL wait for that price
 *   as on any stale market.
 *
 * Execution writes the pair into state.pairs (TableId.Pair), which every reader takes
 * its pairs from: the REST and native order paths, the perp engine, funding, the oracle
 * (observations and medians), the market routes. Its book and perp market start empty.
 * The transaction that executes it runs under the block's start; the pair trades from
 * the block after (its orders are ordinary transactions of later blocks, and perps need
 * the pair's first oracle median, which validators' observations of later blocks bring).
 */
import type { AddedPair } from '../codec/txs/governance';
import { PAIR_MARKETS_BOTH, type PairParams } from '../genesis/types';
import { badRequest } from './errors';
import { ORACLE_SOURCE_CHARS_MAX, ORACLE_SOURCE_PATTERN } from './pair-markets';
import type { ChainParams } from './records';
import type { State } from './state';

const U32_MAX = 0xffff_ffff;
const U128_MAX = 2n ** 128n - 1n;
const BPS = 10_000;

const invalid = (field: string, why: string) => badRequest('INVALID_OPERATION', `operation.pair.${field}: ${why}`);

/** The pair's own fields, as the genesis loader checks them, and its markets and oracle source (400 INVALID_OPERATION naming the field). */
export function pairShape(p: AddedPair, params: ChainParams): void {
  if (!Number.isInteger(p.id) || p.id < 1 || p.id > U32_MAX) throw invalid('id', `must be an integer from 1 to ${U32_MAX}, got ${p.id}`);
  if (!/^[A-Z0-9]{1,12}$/.test(p.symbol)) throw invalid('symbol', `must be 1 to 12 characters of A-Z and 0-9, got ${JSON.stringify(p.symbol)}`);
  if (p.tickSize < 1n || p.tickSize > U128_MAX) throw invalid('tickSize', `must be positive, got ${p.tickSize}`);
  if (p.lotSize < 1n || p.lotSize > U128_MAX) throw invalid('lotSize', `must be positive, got ${p.lotSize}`);
  if (p.minSize < p.lotSize || p.minSize > U128_MAX) throw invalid('minSize', `must be at least lotSize (${p.lotSize}), got ${p.minSize}`);
  if (p.minSize % p.lotSize !== 0n) throw invalid('minSize', `must be a multiple of lotSize (${p.lotSize}), got ${p.minSize}`);
  const maxLev = params.limits.maxLeverage;
  if (!Number.isInteger(p.maxLeverage) || p.maxLeverage < 1 || p.maxLeverage > maxLev) throw invalid('maxLeverage', `must be an integer from 1 to limits.maxLeverage (${maxLev}), got ${p.maxLeverage}`);
  if ((BPS / 2) % p.maxLeverage !== 0) throw invalid('maxLeverage', `must divide 5000 so that the maintenance margin is a whole number of bps, got ${p.maxLeverage}`);
  const mm = BPS / p.maxLeverage / 2;
  if (p.maintenanceMarginBps !== mm) throw invalid('maintenanceMarginBps', `must be half the initial margin at maxLeverage, 10000 / ${p.maxLeverage} / 2 = ${mm}, got ${p.maintenanceMarginBps}`);
  if (!Number.isInteger(p.openInterestCapBps) || p.openInterestCapBps < 1 || p.openInterestCapBps > BPS) throw invalid('openInterestCapBps', `must be from 1 to ${BPS}, got ${p.openInterestCapBps}`);
  if (p.initialPrice < p.tickSize || p.initialPrice > U128_MAX) throw invalid('initialPrice', `must be at least tickSize (${p.tickSize}), got ${p.initialPrice}`);
  if (!Number.isInteger(p.markets) || p.markets < 1 || p.markets > PAIR_MARKETS_BOTH) throw invalid('markets', `must be 1 (spot), 2 (perp) or 3 (both), got ${p.markets}`);
  if (typeof p.oracleSource !== 'string' || p.oracleSource.length > ORACLE_SOURCE_CHARS_MAX || !ORACLE_SOURCE_PATTERN.test(p.oracleSource)) {
    throw invalid('oracleSource', `must be 1 to ${ORACLE_SOURCE_CHARS_MAX} characters of a-z, 0-9 and ._:/- starting with a letter or digit (devnet-path, or a feed id), got ${JSON.stringify(p.oracleSource.slice(0, 80))}`);
  }
}

/** 400 INVALID_OPERATION when the state already holds a pair of this id or symbol: at proposal and again at execution. */
export function pairIsNew(state: State, p: PairParams): void {
  if (state.pairs.has(String(p.id))) throw invalid('id', `pair ${p.id} exists (${state.pairs.get(String(p.id))!.symbol})`);
  const holder = state.symbolToPair.get(p.symbol);
  if (holder !== undefined) throw invalid('symbol', `${p.symbol} is pair ${holder}'s symbol`);
}

/** Executes an AddPair: checks it again at the state it runs on, then writes the pair. */
export function addPair(state: State, params: ChainParams, p: AddedPair): void {
  pairShape(p, params);
  pairIsNew(state, p);
  state.pairs.set(String(p.id), { ...p });
}
