/**
 * The margin requirement a withdrawal must leave covered (docs/economics.md "Withdrawals
 * and margin"). Perp positions are isolated: their margin left the free balance when
 * they opened and a loss never reaches beyond it, so they need nothing from free
 * balance. An orderbook position's loss beyond its margin is taken from free balance
 * (docs/economics.md "Bad debt"), so free balance after a withdrawal must cover, for
 * each orderbook position, how far its equity (margin + unrealized PnL at the mark)
 * falls short of its maintenance margin (the pair's maintenanceMarginBps of notional).
 * Mark: the oracle price, else the book's mid, else the position's entry (PnL 0).
 *
 * The same rule holds for every way collateral leaves an account: a withdrawal, and a
 * SubAccountTransfer out of the master or out of a sub-account (requireMarginAfter;
 * decision 163).
 */
import type { Address } from '../../util/bytes';
import { rejected } from '../errors';
import { oraclePrice } from '../oracle';
import type { State } from '../state';
import { absBig, BPS, notional } from './math';

export function orderbookMarginShortfall(state: State, owner: Address, nowMs: number): bigint {
  let shortfall = 0n;
  for (const key of state.pairs.sortedKeys()) {
    const pair = state.pairs.get(key)!;
    const pos = state.positions.get(`${owner}:${pair.id}`);
    if (!pos || pos.size === 0n) continue;
    const mark = markPrice(state, pair.id, nowMs);
    const size = absBig(pos.size);
    const value = mark === null ? pos.cost : pos.size > 0n ? notional(mark, size) : -notional(mark, size);
    const equity = pos.margin + value - pos.cost;
    const maintenance = (notional(mark ?? 0n, size) * BigInt(pair.maintenanceMarginBps)) / BPS;
    if (equity < maintenance) shortfall += maintenance - equity;
  }
  return shortfall;
}

/**
 * 422 MARGIN_REQUIRED unless `owner`'s free balance after `debit` USDC units leave it
 * still covers what its orderbook positions require at `nowMs`. The caller has checked the
 * free balance covers `debit` itself (INSUFFICIENT_BALANCE first).
 */
export function requireMarginAfter(state: State, owner: Address, debit: bigint, nowMs: number, field: string): void {
  const left = state.account(owner).usdcFree - debit;
  const required = orderbookMarginShortfall(state, owner, nowMs);
  if (left < required) {
    throw rejected('MARGIN_REQUIRED', `${field}: free balance of ${owner} after it would be ${left}, below the ${required} USDC units the account's orderbook positions require`);
  }
}

function markPrice(state: State, pairId: number, nowMs: number): bigint | null {
  const op = oraclePrice(state, pairId, nowMs);
  if (op) return op.price;
  const book = state.books.get(pairId);
  const bid = book?.bestBid() ?? null;
  const ask = book?.bestAsk() ?? null;
  if (bid !== null && ask !== null) return (bid + ask) / 2n;
  return null;
}
