/**
 * AddPair (decision 76): a pair added by owner governance, under the genesis loader's
 * rules for `pairs` (src/genesis/load.ts parsePairs), so a pair added later is one the
 * genesis could have held.
 *
 * A pair is at once a spot order book and a perp market, as every genesis pair is: its
 * PairParams carry the increments (tickSize, lotSize, minSize), the perp parameters
 * (maxLeverage within limits.maxLeverage, maintenanceMarginBps = 10000 / maxLeverage / 2,
 * openInterestCapBps) and initialPrice, the start of its oracle path: the oracle source
 * of a pair is the network's (on the devnet the seeded deterministic path of
 * src/oracle/devnet-source.ts, keyed by the pair id and starting at initialPrice), which
 * every validator's oracle actor reads for each pair of the state (state.pairs).
 *
 * Execution writes the pair into state.pairs (TableId.Pair), which every reader takes
 * its pairs from: the REST and native order paths, the perp engine, funding, the oracle
 * (observations and medians), the market routes. Its book and perp market start empty.
 * The transaction that executes it runs under the block's start; the pair trades from
 * the block after (its orders are ordinary transactions of later blocks, and perps need
 * the pair's first oracle median, which validators' observations of later blocks bring).
 */
import type { PairParams } from '../genesis/types';
import { badRequest } from './errors';
import type { ChainParams } from './records';
import type { State } from './state';

const U32_MAX = 0xffff_ffff;
const U128_MAX = 2n ** 128n - 1n;
const BPS = 10_000;

const invalid = (field: string, why: string) => badRequest('INVALID_OPERATION', `operation.pair.${field}: ${why}`);

/** The pair's own fields, as the genesis loader checks them (400 INVALID_OPERATION naming the field). */
export function pairShape(p: PairParams, params: ChainParams): void {
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
}

/** 400 INVALID_OPERATION when the state already holds a pair of this id or symbol: at proposal and again at execution. */
export function pairIsNew(state: State, p: PairParams): void {
  if (state.pairs.has(String(p.id))) throw invalid('id', `pair ${p.id} exists (${state.pairs.get(String(p.id))!.symbol})`);
  const holder = state.symbolToPair.get(p.symbol);
  if (holder !== undefined) throw invalid('symbol', `${p.symbol} is pair ${holder}'s symbol`);
}

/** Executes an AddPair: checks it again at the state it runs on, then writes the pair. */
export function addPair(state: State, params: ChainParams, p: PairParams): void {
  pairShape(p, params);
  pairIsNew(state, p);
  state.pairs.set(String(p.id), { ...p });
}
