/**
 * AddPair (decision 76): a pair added by owner governance, under the genesis loader's
 * rules for one pair (src/genesis/sections.ts parsePair, called here), so a pair added later is one the
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
import type { AddedPair } from '../../codec/txs/governance';
import { GenesisError } from '../../genesis/fields';
import { parsePair } from '../../genesis/sections';
import { PAIR_MARKETS_BOTH, type PairParams } from '../../genesis/types';
import { badRequest } from '../errors';
import { ORACLE_SOURCE_CHARS_MAX, ORACLE_SOURCE_PATTERN } from '../pair-markets';
import type { ChainParams } from '../records';
import type { State } from '../state';

const invalid = (field: string, why: string) => badRequest('INVALID_OPERATION', `operation.pair.${field}: ${why}`);

/**
 * The pair's own fields under the genesis loader's rules for one pair (src/genesis/sections.ts
 * parsePair, against the limits in force), and its markets and oracle source (400
 * INVALID_OPERATION naming the field).
 */
export function pairShape(p: AddedPair, params: ChainParams): void {
  const { markets, oracleSource, ...fields } = p;
  try {
    parsePair(fields, 'operation.pair', params.limits);
  } catch (err) {
    if (err instanceof GenesisError) throw badRequest('INVALID_OPERATION', err.message);
    throw err;
  }
  if (!Number.isInteger(markets) || markets < 1 || markets > PAIR_MARKETS_BOTH) throw invalid('markets', `must be 1 (spot), 2 (perp) or 3 (both), got ${markets}`);
  if (typeof oracleSource !== 'string' || oracleSource.length > ORACLE_SOURCE_CHARS_MAX || !ORACLE_SOURCE_PATTERN.test(oracleSource)) {
    throw invalid('oracleSource', `must be 1 to ${ORACLE_SOURCE_CHARS_MAX} characters of a-z, 0-9 and ._:/- starting with a letter or digit (devnet-path, or a feed id), got ${JSON.stringify(String(oracleSource).slice(0, 80))}`);
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
