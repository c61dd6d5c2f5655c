/**
 * The perpetuals engine: isolated positions against the liquidity pool, at the oracle
 * price (contract [D-orders-perp-positions]; docs/economics.md "Perpetuals").
 *
 * Transactions: open, close (whole or part), set TP/SL. End of every block (after the
 * oracle's medians, src/state/apply.ts): funding on the first block of each hour
 * (funding.ts), TP/SL on each whole second crossed, liquidation every block (perp
 * positions, then orderbook positions: book-liquidation.ts), then ADL when traders'
 * profit passes the pool threshold. A market whose oracle price is not fresh is paused:
 * no open, close, TP/SL, liquidation or funding on it until a fresh price arrives. The
 * markets' records and the engine's stats are markets.ts.
 *
 * Each position's life is machines/position.ts, and the machine decides it: every
 * change of a position (open, close, TP/SL set or hit, liquidation, ADL) is stepped
 * through it (position-step.ts), and what the step leaves (open with its size and
 * targets, or closed/liquidated: deleted) is what is stored; an event it refuses halts
 * the node. The guard functions (openRefusal, tpslRefusal, tpslTrigger) give the error
 * codes and pick the candidates; `liquidatable` is the CHECK_BLOCK fact.
 *
 * Money moves only between the owner's free balance and margin, the pool, the market's
 * funding pot and the fee account, each move written on both sides, so
 *   Σ balances − Σ orderbook cost + pool + Σ funding pots = supply
 * holds to the unit (State.checkInvariants). Every payment out of the pool is capped by
 * what it holds, so it never goes negative; a loss beyond a position's margin is a
 * shortfall that ADL recovers from the most profitable opposing positions.
 */
import { openRefusal, closesAll, tpslRefusal, tpslTrigger, type OpenFacts } from '../../../machines/position';
import { agentRefusalMessage } from '../accounts/agents';
import { orderRefusal, ordersAllowedWithoutFacts, type OrderFacts } from '../../../machines/agent-mode';
import type { Address } from '../../util/bytes';
import type { ExecContext } from '../context';
import { badRequest, forbidden, rejected, TxError } from '../errors';
import type { CloseReason } from '../events';
import { oraclePrice } from '../oracle';
import { hasPerp, requirePerp } from '../pair-markets';
import type { PerpPosition } from '../records';
import type { State } from '../state';
import { authorityOf, isAgentSigner } from '../accounts/subaccounts';
import {
  adlScore,
  ceilDiv,
  compareAdl,
  fundingOwed,
  liquidatable,
  liquidationPrice,
  longShift,
  maintenanceMargin,
  MIN_PERP_MARGIN,
  notional,
  openSize,
  perpFee,
  shortShift,
  upnl,
} from './math';
import { openInterestCap, payFromPool, payToPool, poolValuation, profitLimit } from './pool';
import { liquidateBook } from './book-liquidation';
import type { Price6, Size18, Usdc6 } from '../../util/fixed';
import { positionContext, settleEvent, stepStored, stepToOpen } from './position-step';
import { activeMarkets, bumpStats, collateralOf, maintenanceBps, perpMarket, sideIndex, setMarket, type PerpStats } from './markets';
import { samplePremiums, settleFunding } from './funding';

// ---- records (the markets' own: markets.ts) ---------------------------------------------

function nextPositionId(state: State): bigint {
  const id = (state.meta.get('nextPositionId') as bigint | undefined) ?? 1n;
  state.meta.set('nextPositionId', id + 1n);
  return id;
}

/** Everything a reader wants to know about a position at `nowMs` (GET /v1/perp/positions). */
export function positionView(state: State, p: PerpPosition, nowMs: number) {
  const mm = maintenanceBps(state, p.pairId);
  const op = oraclePrice(state, p.pairId, nowMs);
  const price = op?.price ?? p.entryPrice;
  const { owed, collateral } = collateralOf(state, p);
  const terms = { isLong: p.isLong, entryPrice: p.entryPrice, size: p.size, collateral };
  const pnl = upnl(p.isLong, p.entryPrice, p.size, price);
  return {
    markPrice: price,
    fresh: op?.fresh ?? false,
    upnl: pnl,
    fundingOwed: owed,
    equity: collateral + pnl,
    maintenance: maintenanceMargin(price, p.size, mm),
    liquidationPrice: liquidationPrice(terms, mm),
    notional: notional(price, p.size),
  };
}

// ---- agent caps and mode on perp opens --------------------------------------------------

/**
 * A perp open signed by the owner's session key answers to the owner's agent mode and
 * caps, as an order does (src/state/accounts/agents.ts): a market order (type 0) at the given
 * leverage, committing `margin` of new margin, and taking the owner's total size in this
 * pair and direction from `before` to `before + size` (REDUCE_ONLY refuses every open:
 * an isolated position never reduces another).
 */
function requirePerpAgent(state: State, owner: Address, settingsOwner: Address, pairId: number, isLong: boolean, leverage: number, margin: bigint, size: bigint): void {
  // The settings are the master's for a sub-account (decision 94); the positions are the account's own.
  const rec = state.agents.get(settingsOwner);
  if (rec === undefined || ordersAllowedWithoutFacts(rec.mode, rec.caps)) return;
  let held = 0n;
  for (const id of state.perp.ownerIds(owner)) {
    const p = state.perpPositions.get(String(id))!;
    if (p.pairId === pairId && p.isLong === isLong) held += p.size;
  }
  const sign = isLong ? 1n : -1n;
  const facts: OrderFacts = { orderType: 0, leverage, margin, positionBefore: sign * held, positionAfter: sign * (held + size) };
  const code = orderRefusal(rec.mode, rec.caps, facts);
  if (code) throw forbidden(code, agentRefusalMessage(code, rec.caps, facts, owner));
}

// ---- open -----------------------------------------------------------------------------

interface OpenInput {
  owner: Address;
  signer: Address;
  pairId: number;
  isLong: boolean;
  leverage: number;
  /** USDC units. */
  margin: Usdc6;
  isAgent: boolean;
}

export function openPosition(ctx: ExecContext, o: OpenInput): PerpPosition {
  const { state, params, header } = ctx;
  const now = header.timestampMs;
  const pair = state.pairs.get(String(o.pairId));
  if (!pair) throw badRequest('UNKNOWN_PAIR', `pairId: no pair ${o.pairId}`);
  const op = oraclePrice(state, o.pairId, now);
  const price = op?.price ?? 0n;
  const size = op ? openSize(o.margin, o.leverage, price) : 0n;
  const facts: OpenFacts = { perpListed: hasPerp(pair), hasPrice: op !== undefined, fresh: op?.fresh ?? false, leverage: o.leverage, maxLeverage: pair.maxLeverage, margin: o.margin, minMargin: MIN_PERP_MARGIN, size };
  const refusal = openRefusal(facts);
  // Shape (400) first, then who may (403), then execution (422): contract [D-envelope-order].
  if (refusal === 'INVALID_LEVERAGE') throw badRequest('INVALID_LEVERAGE', `leverage: must be an integer from 1 to ${pair.maxLeverage} on ${pair.symbol}`);
  if (refusal === 'INVALID_MARGIN' && o.margin < MIN_PERP_MARGIN) throw badRequest('INVALID_MARGIN', `margin: at least ${MIN_PERP_MARGIN} USDC units (1 USDC)`);
  if (o.isAgent !== isAgentSigner(state, o.owner, o.signer)) throw new Error(`perp open: isAgent ${o.isAgent} but signer ${o.signer}, owner ${o.owner}`);
  if (o.isAgent) requirePerpAgent(state, o.owner, authorityOf(state, o.owner), o.pairId, o.isLong, o.leverage, o.margin, size);
  if (refusal === 'MARKET_NOT_LISTED') requirePerp(pair);
  if (refusal === 'NO_ORACLE_PRICE') throw rejected('NO_ORACLE_PRICE', `pair ${pair.symbol} has no oracle price yet`);
  if (refusal === 'ORACLE_STALE') throw rejected('ORACLE_STALE', `the oracle price of ${pair.symbol} is stale (observed at ${op!.timestampMs}, block time ${now}): opening is paused`);
  if (refusal === 'INVALID_MARGIN') throw rejected('POSITION_TOO_SMALL', `margin: ${o.margin} at ${o.leverage}x buys no size at price ${price}`);

  const book = state.perp.market(o.pairId);
  const value = poolValuation(state, now).realPoolValue;
  const oiAfter = notional(price, book.long.size + book.short.size + size);
  const cap = openInterestCap(pair.openInterestCapBps, value);
  if (oiAfter > cap) throw rejected('OPEN_INTEREST_CAP', `open interest of ${pair.symbol} would reach ${oiAfter}, above its cap ${cap} (${pair.openInterestCapBps} bps of pool value ${value})`);
  const entryNotional = notional(price, size);
  const fee = perpFee(entryNotional, params.fees.takerFeeBps);
  const account = state.account(o.owner);
  if (account.usdcFree < o.margin + fee) {
    throw rejected('INSUFFICIENT_BALANCE', `free balance ${account.usdcFree} is below margin ${o.margin} + fee ${fee} USDC units`);
  }

  const id = nextPositionId(state);
  const market = perpMarket(state, o.pairId);
  const position: PerpPosition = {
    id, owner: o.owner, pairId: o.pairId, isLong: o.isLong, size, entryPrice: price, margin: o.margin, leverage: o.leverage,
    fundingIndex: sideIndex(market, o.isLong), takeProfit: 0n, stopLoss: 0n,
    liquidationPrice: liquidationPrice({ isLong: o.isLong, entryPrice: price, size, collateral: o.margin }, pair.maintenanceMarginBps),
    openedMs: now, isAgent: o.isAgent,
  };
  stepToOpen(null, pair.maintenanceMarginBps, { type: 'OPEN', facts, position: positionContext(position, pair.maintenanceMarginBps) });
  state.accounts.set(o.owner, { ...account, usdcFree: account.usdcFree - o.margin - fee, usdcInPositions: account.usdcInPositions + o.margin });
  credit(state, params.feeAccount, fee);
  state.perpPositions.set(String(id), position);
  ctx.emit({
    type: 'PerpOpened', positionId: String(id), owner: o.owner, signer: o.signer, pairId: o.pairId, symbol: pair.symbol, isLong: o.isLong,
    size, entryPrice: price, margin: o.margin, leverage: o.leverage, fee, liquidationPrice: position.liquidationPrice, isAgent: o.isAgent,
  });
  return position;
}

function credit(state: State, to: Address, usdc: bigint): void {
  if (usdc === 0n) return;
  const a = state.account(to);
  state.accounts.set(to, { ...a, usdcFree: a.usdcFree + usdc });
}

// ---- close ----------------------------------------------------------------------------

/** Prices the indexes hold as numbers: exact below 2^53. */
const MAX_PRICE = BigInt(Number.MAX_SAFE_INTEGER);

interface Settled {
  positionId: bigint;
  /** Size closed. */
  size: Size18;
  full: boolean;
  pnl: Usdc6;
  /** Funding realized (positive: paid by the position). */
  funding: Usdc6;
  fee: Usdc6;
  /** USDC to the owner's free balance. */
  payout: Usdc6;
  /** Loss and funding the margin could not cover (bad debt): ADL recovers it. */
  shortfall: Usdc6;
  /** Profit kept back by ADL to cover another position's shortfall. */
  withheld: Usdc6;
  /** Profit the pool could not pay (it never goes negative). */
  haircut: Usdc6;
}

/**
 * Closes `closeSize` of a position (all of it when ≥ its size) at `price`. Funding the
 * position owes is realized first (into the pot), then: profit is paid by the pool (less
 * any ADL `withhold`), a loss goes to the pool, the fee to the fee account, the rest to
 * the owner. Whatever the margin cannot cover is the returned shortfall. Never throws
 * a TxError: it serves transactions and the end-of-block steps alike.
 */
export function settlePosition(ctx: ExecContext, pos: PerpPosition, closeSize: Size18, price: Price6, reason: CloseReason, withhold: Usdc6 = 0n): Settled {
  const { state, params } = ctx;
  const pair = state.pairs.get(String(pos.pairId))!;
  const market = perpMarket(state, pos.pairId);
  const index = sideIndex(market, pos.isLong);
  const owed = fundingOwed(pos.size, index, pos.fundingIndex);
  const account = state.account(pos.owner);
  let inPositions = account.usdcInPositions;
  // The machine decides whether this closes the whole position: a part that would leave
  // less than the minimum margin closes it whole (no dust positions: their liquidation
  // keys would be wide, checked every block); TP/SL, liquidation close it whole.
  const fresh = oraclePrice(state, pos.pairId, ctx.header.timestampMs)?.fresh ?? false;
  const stepped = stepStored(pos, pair.maintenanceMarginBps, settleEvent(pos, pos.margin - owed, closeSize, price, fresh, reason, pair.maintenanceMarginBps));
  const full = stepped.value !== 'open';
  const size = full ? pos.size : closeSize;

  let potDelta = 0n;
  let avail: bigint;
  let keepMargin = 0n;
  if (full) {
    avail = pos.margin;
    inPositions -= pos.margin;
    if (owed < 0n) {
      potDelta += owed;
      avail -= owed;
    }
  } else {
    // Part: the whole position's funding goes into (or out of) its margin first, then
    // the closed share of that margin is released.
    potDelta += owed;
    const margin = pos.margin - owed;
    inPositions -= owed;
    const released = (margin * size) / pos.size;
    keepMargin = margin - released;
    avail = released;
    inPositions -= released;
  }
  const entryAll = notional(pos.entryPrice, pos.size);
  const entryClosed = entryAll - notional(pos.entryPrice, pos.size - size);
  const exitNotional = notional(price, size);
  const pnl = pos.isLong ? exitNotional - entryClosed : entryClosed - exitNotional;

  let withheld = 0n;
  let haircut = 0n;
  if (pnl > 0n) {
    withheld = withhold < pnl ? withhold : pnl;
    const paid = payFromPool(state, pnl - withheld);
    haircut = pnl - withheld - paid;
    avail += paid;
  }
  let fundingShort = 0n;
  if (full && owed > 0n) {
    const f = owed < avail ? owed : avail;
    potDelta += f;
    avail -= f;
    fundingShort = owed - f;
  }
  let lossShort = 0n;
  if (pnl < 0n) {
    const l = -pnl < avail ? -pnl : avail;
    payToPool(state, l);
    avail -= l;
    lossShort = -pnl - l;
  }
  const feeWanted = perpFee(exitNotional, params.fees.takerFeeBps);
  const fee = feeWanted < avail ? feeWanted : avail;
  avail -= fee;
  // Funding a bankrupt payer could not pay is fronted by the pool, so receivers are never
  // paid out of thin air; it is part of the shortfall ADL recovers for the pool.
  const fronted = fundingShort > 0n ? payFromPool(state, fundingShort) : 0n;
  if (potDelta !== 0n || fronted !== 0n) setMarket(state, pos.pairId, { ...market, fundingPot: market.fundingPot + potDelta + fronted });

  state.accounts.set(pos.owner, { ...account, usdcFree: account.usdcFree + avail, usdcInPositions: inPositions });
  credit(state, params.feeAccount, fee);
  if (full) state.perpPositions.delete(String(pos.id));
  else {
    const next = { ...pos, size: stepped.context.size, margin: keepMargin, fundingIndex: index };
    next.liquidationPrice = liquidationPrice({ isLong: next.isLong, entryPrice: next.entryPrice, size: next.size, collateral: next.margin }, pair.maintenanceMarginBps);
    state.perpPositions.set(String(pos.id), next);
  }
  const shortfall = fundingShort + lossShort;
  ctx.emit({
    type: 'PerpClosed', positionId: String(pos.id), owner: pos.owner, pairId: pos.pairId, symbol: pair.symbol, isLong: pos.isLong, reason,
    size, remaining: full ? 0n : pos.size - size, price, entryPrice: pos.entryPrice, pnl, funding: owed, fee, payout: avail,
    ...(shortfall > 0n ? { shortfall } : {}), ...(withheld > 0n ? { withheld } : {}), ...(haircut > 0n ? { haircut } : {}),
  });
  return { positionId: pos.id, size, full, pnl, funding: owed, fee, payout: avail, shortfall, withheld, haircut };
}

function ownedPosition(state: State, owner: Address, positionId: bigint): PerpPosition {
  const pos = state.perpPositions.get(String(positionId));
  if (!pos) throw new TxError(404, 'UNKNOWN_POSITION', `positionId: no open position ${positionId}`);
  if (pos.owner !== owner) throw forbidden('NOT_OWNER', `position ${positionId} does not belong to ${owner}`);
  return pos;
}

/** A close by its owner (or the owner's session key): at the fresh oracle price; `size` 0 or ≥ the position closes it all. */
export function closePosition(ctx: ExecContext, owner: Address, positionId: bigint, size: Size18): Settled {
  const { state, header } = ctx;
  const pos = ownedPosition(state, owner, positionId);
  const op = oraclePrice(state, pos.pairId, header.timestampMs);
  if (!op) throw rejected('NO_ORACLE_PRICE', `pair ${pos.pairId} has no oracle price`);
  if (!op.fresh) throw rejected('ORACLE_STALE', `the oracle price of pair ${pos.pairId} is stale (observed at ${op.timestampMs}): closing waits for a fresh price`);
  const s = settlePosition(ctx, pos, closesAll(pos.size, size) ? pos.size : size, op.price, 'close');
  if (s.shortfall > 0n) coverShortfall(ctx, pos.pairId, pos.isLong, s.shortfall, op.price);
  return s;
}

/** Sets (or with 0, unsets) the position's take-profit and stop-loss prices. */
export function setTpsl(ctx: ExecContext, owner: Address, positionId: bigint, takeProfit: Price6, stopLoss: Price6): PerpPosition {
  const { state } = ctx;
  const pos = ownedPosition(state, owner, positionId);
  if (takeProfit > MAX_PRICE || stopLoss > MAX_PRICE) throw badRequest('INVALID_TPSL', `takeProfit, stopLoss: at most ${MAX_PRICE} (×1e-6)`);
  if (tpslRefusal(pos.isLong, takeProfit, stopLoss)) {
    throw badRequest('INVALID_TPSL', pos.isLong ? 'stopLoss: a long\'s stop-loss must be below its take-profit' : 'stopLoss: a short\'s stop-loss must be above its take-profit');
  }
  const stepped = stepToOpen(pos, maintenanceBps(state, pos.pairId), { type: 'SET_TPSL', takeProfit, stopLoss });
  const next = { ...pos, takeProfit: stepped.context.takeProfit, stopLoss: stepped.context.stopLoss };
  state.perpPositions.set(String(pos.id), next);
  ctx.emit({ type: 'PerpTpslSet', positionId: String(pos.id), owner, pairId: pos.pairId, takeProfit, stopLoss });
  return next;
}

// ---- ADL -------------------------------------------------------------------------------

interface Ranked {
  pos: PerpPosition;
  upnl: bigint;
  score: bigint;
  id: bigint;
}

function rankInProfit(state: State, ids: Iterable<number>, price: bigint): Ranked[] {
  const out: Ranked[] = [];
  for (const id of ids) {
    const pos = state.perpPositions.get(String(id))!;
    const pnl = upnl(pos.isLong, pos.entryPrice, pos.size, price);
    if (pnl > 0n) out.push({ pos, upnl: pnl, score: adlScore(pnl, pos.leverage, pos.margin), id: pos.id });
  }
  return out.sort(compareAdl);
}

/**
 * A loss beyond a position's margin (`shortfall`) is covered by deleveraging the most
 * profitable positions on the other side of the same market, ranked by PnL ratio ×
 * leverage: each is closed at the oracle price, only as much as needed, and the profit
 * of the closed part is kept back up to what is still uncovered (the pool pays that
 * much less). Nobody without an opposing open position pays anything. Returns what was
 * recovered.
 */
export function coverShortfall(ctx: ExecContext, pairId: number, lossWasLong: boolean, shortfall: Usdc6, price: Price6): Usdc6 {
  const { state } = ctx;
  const m = state.perp.market(pairId);
  const ranked = rankInProfit(state, (lossWasLong ? m.short : m.long).ids, price);
  let left = shortfall;
  let closed = 0;
  for (const r of ranked) {
    if (left <= 0n) break;
    const size = r.upnl <= left ? r.pos.size : ceilDiv(r.pos.size * left, r.upnl);
    const s = settlePosition(ctx, r.pos, size, price, 'adl', left);
    left -= s.withheld;
    closed++;
  }
  ctx.emit({ type: 'AdlExecuted', cause: 'shortfall', pairId, shortfall, recovered: shortfall - left, positions: closed });
  bumpStats(state, (s) => ({ ...s, adlEvents: s.adlEvents + 1 }));
  return shortfall - left;
}

/**
 * ADL on the pool threshold: when traders' unrealized profit passes
 * perps.adlPoolPnlThresholdBps of the pool's USDC, the most profitable positions
 * (markets with a fresh price, ranked as above) are closed at the oracle price, their
 * profit paid, until it is back within the threshold. So the pool cannot be drained.
 */
function adlForPool(ctx: ExecContext): number {
  const { state, params, header } = ctx;
  let v = poolValuation(state, header.timestampMs);
  if (v.traderProfit <= profitLimit(params.perps.adlPoolPnlThresholdBps, v.usdc)) return 0;
  const before = v.traderProfit;
  const candidates: (Ranked & { price: bigint })[] = [];
  for (const mark of v.marks) {
    if (!mark.fresh) continue;
    const m = state.perp.markets.get(mark.pairId)!;
    if (mark.longUpnl > 0n) for (const r of rankInProfit(state, m.long.ids, mark.price)) candidates.push({ ...r, price: mark.price });
    if (mark.shortUpnl > 0n) for (const r of rankInProfit(state, m.short.ids, mark.price)) candidates.push({ ...r, price: mark.price });
  }
  candidates.sort(compareAdl);
  let closed = 0;
  for (const c of candidates) {
    if (v.traderProfit <= profitLimit(params.perps.adlPoolPnlThresholdBps, v.usdc)) break;
    settlePosition(ctx, c.pos, c.pos.size, c.price, 'adl');
    closed++;
    v = poolValuation(state, header.timestampMs);
  }
  ctx.emit({ type: 'AdlExecuted', cause: 'pool-threshold', profitBefore: before, profitAfter: v.traderProfit, poolUsdc: v.usdc, positions: closed });
  bumpStats(state, (s) => ({ ...s, adlEvents: s.adlEvents + 1 }));
  return closed;
}

// ---- the end-of-block steps (funding: funding.ts) ------------------------------------------

const crossed = (prevMs: number, nowMs: number, intervalMs: number) => intervalMs > 0 && Math.floor(nowMs / intervalMs) > Math.floor(prevMs / intervalMs);



/** TP/SL, on each whole second crossed: positions whose target the fresh price reached close at that price. */
export function checkTpsl(ctx: ExecContext): number {
  const { state, header } = ctx;
  let closed = 0;
  for (const pairId of activeMarkets(state)) {
    const op = oraclePrice(state, pairId, header.timestampMs);
    if (!op?.fresh) continue;
    const m = state.perp.markets.get(pairId)!;
    const p = Number(op.price);
    const ids = [...new Set([...m.up.ascendingTo(p), ...m.down.descendingTo(p)])].sort((a, b) => a - b);
    for (const id of ids) {
      const pos = state.perpPositions.get(String(id));
      if (!pos) continue;
      const hit = tpslTrigger(pos, op.price);
      if (!hit) continue;
      const s = settlePosition(ctx, pos, pos.size, op.price, hit);
      closed++;
      if (s.shortfall > 0n) coverShortfall(ctx, pairId, pos.isLong, s.shortfall, op.price);
    }
  }
  return closed;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const toKey = (v: bigint) => Number(v > SAFE ? SAFE : v < -SAFE ? -SAFE : v);

/** Candidates of a market's liquidation scan: the index entries the price reaches, ascending id. */
function liquidationCandidates(state: State, pairId: number, price: Price6): number[] {
  const m = state.perp.markets.get(pairId);
  if (!m) return [];
  const mm = maintenanceBps(state, pairId);
  const market = perpMarket(state, pairId);
  const longs = m.liqLong.descendingTo(toKey(price - longShift(market.fundingIndexLong, mm)));
  const shorts = m.liqShort.ascendingTo(toKey(price - shortShift(market.fundingIndexShort, mm)));
  return [...longs, ...shorts].sort((a, b) => a - b);
}

/**
 * Liquidation, every block: per market with a fresh price, the positions whose equity
 * is below maintenance close at the oracle price (what equity is left, less the fee,
 * goes back to the owner); the shortfall of the bankrupt ones is covered by ADL.
 */
export function liquidate(ctx: ExecContext): number {
  const { state, header } = ctx;
  let count = 0;
  let last: PerpStats['lastLiquidation'] = null;
  for (const pairId of activeMarkets(state)) {
    const op = oraclePrice(state, pairId, header.timestampMs);
    if (!op?.fresh) continue;
    const mm = maintenanceBps(state, pairId);
    const due: PerpPosition[] = [];
    for (const id of liquidationCandidates(state, pairId, op.price)) {
      const pos = state.perpPositions.get(String(id))!;
      const { collateral } = collateralOf(state, pos);
      if (liquidatable({ isLong: pos.isLong, entryPrice: pos.entryPrice, size: pos.size, collateral }, op.price, mm)) due.push(pos);
    }
    const shortfall = { long: 0n, short: 0n };
    for (const pos of due) {
      const s = settlePosition(ctx, pos, pos.size, op.price, 'liquidation');
      if (pos.isLong) shortfall.long += s.shortfall;
      else shortfall.short += s.shortfall;
      count++;
      last = { positionId: String(pos.id), owner: pos.owner, pairId, price: op.price, timeMs: header.timestampMs, shortfall: s.shortfall };
    }
    if (shortfall.long > 0n) coverShortfall(ctx, pairId, true, shortfall.long, op.price);
    if (shortfall.short > 0n) coverShortfall(ctx, pairId, false, shortfall.short, op.price);
  }
  if (count > 0) bumpStats(state, (st) => ({ ...st, liquidations: st.liquidations + count, lastLiquidation: last }));
  return count;
}

/** The perp steps of the end of a block, after the oracle's (src/state/apply.ts). */
export function endBlockPerps(ctx: ExecContext, prevBlockMs: number): void {
  const { params, header } = ctx;
  const now = header.timestampMs;
  if (crossed(prevBlockMs, now, params.limits.fundingIntervalMs)) settleFunding(ctx);
  if (crossed(prevBlockMs, now, params.limits.tpslCheckIntervalMs)) {
    samplePremiums(ctx);
    checkTpsl(ctx);
  }
  liquidate(ctx);
  // Orderbook positions below maintenance pass to the pool (src/state/perps/book-liquidation.ts),
  // before threshold ADL so that it sees the pool after any bad debt it paid.
  liquidateBook(ctx);
  adlForPool(ctx);
}
