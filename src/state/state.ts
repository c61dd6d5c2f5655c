/**
 * The chain state: every table, the running totals the invariants check, and the
 * incremental state tree. Execution mutates it only through the tables' journaled
 * writes; flush() ends a block, turning what changed into storage writes and a root.
 */
import type { Address } from '../util/bytes';
import {
  accountCodec,
  accountUsdc,
  bigintCodec,
  bigintListCodec,
  EMPTY_ACCOUNT,
  metaCodec,
  orderCodec,
  pairCodec,
  positionCodec,
  sessionCodec,
  agentCodec,
  type SessionRecord,
  type AgentRecord,
  TableId,
  type Account,
  type OpenOrder,
  type Withdrawal,
  withdrawalCodec,
  oracleObservationCodec,
  oracleMedianCodec,
  type OracleObservationRecord,
  type OracleMedianRecord,
  type Position,
  type ChainHead,
  type ChainParams,
  type Supply,
  perpPositionCodec,
  perpMarketCodec,
  poolCodec,
  poolShareCodec,
  EMPTY_POOL,
  type PerpPosition,
  type PerpMarket,
  type PoolRecord,
  type PoolShare,
} from './records';
import { PerpBook } from './perps/book';
import { BookLiqIndex, POOL_BOOK_OWNER } from './perps/book-index';
import { Journal, Table } from './table';
import { StateTree } from './tree';
import type { PairParams } from '../genesis/types';
import { OrderBook } from './orderbook/engine';
import { downtimeCodec, validatorCodec, type DowntimeRecord, type ValidatorRecord } from './validators/types';
import { governanceCodec, type GovernanceRecord } from './governance/record';
import { scheduledCancelCodec, twapCodec, type ScheduledCancelRecord, type TwapRecord } from './timers/records';
import { DueIndex } from './timers/due-index';
import { subAccountCodec, type SubAccountRecord } from './accounts/subaccount-record';
import { bridgeAlertCodec, bridgeVoteCodec, depositCodec, isFinalWithdrawal, withdrawalLock, type BridgeAlertRecord, type BridgeVoteRecord, type DepositRecord } from './bridge/records';

/** One state change of a block: value null means deleted. */
export interface StateChange {
  key: Uint8Array;
  value: Uint8Array | null;
}

export class InvariantError extends Error {
  constructor(message: string) {
    super(`state invariant broken: ${message}`);
    this.name = 'InvariantError';
  }
}

export class State {
  readonly journal = new Journal();
  readonly tree = new StateTree();
  /**
   * Sums kept exact through every write and rollback: USDC and native token held by
   * accounts, native token locked in validator bonds, Σ position cost, USDC locked by resting orders, and net size per pair.
   */
  readonly totals = { usdc: 0n, nativeWei: 0n, bondLockedWei: 0n, cost: 0n, usdcLocked: 0n, orderLocked: 0n, withdrawalLocked: 0n, usdcInPositions: 0n, orderbookMargin: 0n };
  readonly netSize = new Map<number, bigint>();
  /** Derived indexes (not state): rebuilt on load, kept by the tables' change hooks. */
  readonly symbolToPair = new Map<string, number>();
  readonly ownerOrders = new Map<string, Set<string>>();
  /** Resting reduce-only orders per owner: their upkeep (src/state/orders/reduce-only.ts) runs only for owners that have any. */
  readonly reduceOnlyOrders = new Map<string, number>();
  /** Withdrawal ids (decimal) per owner, final ones included (GET /withdrawals/{address}: src/state/bridge/reads.ts withdrawalsOf). */
  readonly ownerWithdrawals = new Map<string, Set<string>>();
  /** Ids (decimal) of the withdrawals not yet paid or refunded (src/state/bridge/reads.ts pendingWithdrawals). */
  readonly pendingWithdrawalIds = new Set<string>();
  /**
   * The matching engines, one per pair: an index over the Order table, rebuilt on load.
   * Not journaled: execution mutates a book only after every check passed, so nothing
   * after the mutation can fail (a failure there halts the node).
   */
  readonly books = new Map<number, OrderBook>();
  /** Open perp positions by market, side, owner, liquidation price and TP/SL level (src/state/perps/book.ts). */
  readonly perp = new PerpBook((pairId) => this.pairs.get(String(pairId))?.maintenanceMarginBps ?? 0);
  /** Orderbook positions by liquidation key, and the pool's orderbook positions (src/state/perps/book-index.ts). */
  readonly bookLiq = new BookLiqIndex((pairId) => this.pairs.get(String(pairId))?.maintenanceMarginBps ?? 0);

  readonly meta: Table<unknown>;
  readonly accounts: Table<Account>;
  readonly nonces: Table<bigint[]>;
  readonly faucetClaims: Table<bigint>;
  readonly pairs: Table<PairParams>;
  readonly positions: Table<Position>;
  readonly orders: Table<OpenOrder>;
  /** `${owner}:${cloid}` -> the open order's id (src/state/orders/records.ts). */
  readonly orderCloids: Table<bigint>;
  readonly withdrawals: Table<Withdrawal>;
  /** Session keys, one per owner (machines/session.ts snapshots). */
  readonly sessions: Table<SessionRecord>;
  /** Agent mode and caps per owner (machines/agent-mode.ts snapshots). */
  readonly agents: Table<AgentRecord>;
  /** Open isolated perp positions (src/state/perps). */
  readonly perpPositions: Table<PerpPosition>;
  /** Per pair: funding indices, pot, premium samples, recent rates. */
  readonly perpMarkets: Table<PerpMarket>;
  /** The liquidity pool ("pool") and LP shares per owner. */
  readonly pool: Table<PoolRecord>;
  readonly poolShares: Table<PoolShare>;
  /** Each validator's latest accepted price observation (src/state/oracle.ts). */
  readonly oracleObservations: Table<OracleObservationRecord>;
  /** Each pair's latest oracle median (src/state/oracle.ts). */
  readonly oracleMedians: Table<OracleMedianRecord>;
  /** Validators beyond the implicit genesis records (src/state/validators/records.ts). */
  readonly validators: Table<ValidatorRecord>;
  /** Missed commits of active validators within the downtime window (src/state/validators/downtime.ts). */
  readonly downtime: Table<DowntimeRecord>;
  /** Owner governance operations (src/state/governance/operations.ts). */
  readonly governance: Table<GovernanceRecord>;
  /** Bridge deposits credited here, by deposit id (src/state/bridge/reads.ts). */
  readonly deposits: Table<DepositRecord>;
  /** Pending votes per bridge claim key (src/state/bridge/votes.ts). */
  readonly bridgeVotes: Table<BridgeVoteRecord>;
  /** Bridge alerts a quorum attested, by `<alert kind>:<id>` (src/state/bridge/alerts.ts). */
  readonly bridgeAlerts: Table<BridgeAlertRecord>;
  /** The dead-man switch per trader (src/state/timers/scheduled-cancels.ts). */
  readonly scheduledCancels: Table<ScheduledCancelRecord>;
  /** TWAP orders by id (src/state/timers/twap.ts). */
  readonly twaps: Table<TwapRecord>;
  /** Derived: scheduled cancels by (time, trader), and running TWAPs by (next slice time, id) (src/state/timers/due-index.ts). */
  readonly cancelsDue = new DueIndex();
  readonly twapsDue = new DueIndex();
  /** Derived: TWAP ids per owner. */
  readonly ownerTwaps = new Map<string, Set<string>>();
  /** Sub-accounts by address (src/state/accounts/subaccounts.ts). */
  readonly subAccounts: Table<SubAccountRecord>;
  private readonly tables = new Map<number, Table<any>>();

  constructor() {
    this.meta = this.add(new Table(TableId.Meta, 'meta', metaCodec, this.journal));
    this.accounts = this.add(
      new Table(TableId.Account, 'accounts', accountCodec, this.journal, (prev, next) => {
        this.totals.usdc += (next ? accountUsdc(next) : 0n) - (prev ? accountUsdc(prev) : 0n);
        this.totals.nativeWei += (next?.nativeWei ?? 0n) - (prev?.nativeWei ?? 0n);
        this.totals.usdcLocked += (next?.usdcLocked ?? 0n) - (prev?.usdcLocked ?? 0n);
        this.totals.usdcInPositions += (next?.usdcInPositions ?? 0n) - (prev?.usdcInPositions ?? 0n);
      }),
    );
    this.nonces = this.add(new Table(TableId.Nonce, 'nonces', bigintListCodec, this.journal));
    this.faucetClaims = this.add(new Table(TableId.FaucetClaim, 'faucetClaims', bigintCodec, this.journal));
    this.pairs = this.add(
      new Table(TableId.Pair, 'pairs', pairCodec, this.journal, (prev, next) => {
        // The liquidation index keys positions it has not re-keyed yet with the margin in force when they were written.
        const changedId = (next ?? prev)!.id;
        if (prev?.maintenanceMarginBps !== next?.maintenanceMarginBps) this.bookLiq.settle((id) => (id === changedId ? (prev?.maintenanceMarginBps ?? 0) : (this.pairs.get(String(id))?.maintenanceMarginBps ?? 0)));
        if (prev) this.symbolToPair.delete(prev.symbol);
        if (next) this.symbolToPair.set(next.symbol, next.id);
      }),
    );
    this.positions = this.add(
      new Table<Position>(TableId.Position, 'positions', positionCodec, this.journal, (prev, next, key) => {
        this.totals.cost += (next?.cost ?? 0n) - (prev?.cost ?? 0n);
        this.totals.orderbookMargin += (next?.margin ?? 0n) - (prev?.margin ?? 0n);
        const pairId = Number(key.slice(key.indexOf(':') + 1));
        this.netSize.set(pairId, (this.netSize.get(pairId) ?? 0n) + (next?.size ?? 0n) - (prev?.size ?? 0n));
        this.bookLiq.onChange(prev, next, key);
      }),
    );
    this.orders = this.add(
      new Table<OpenOrder>(TableId.Order, 'orders', orderCodec, this.journal, (prev, next, key) => {
        this.totals.orderLocked += (next?.locked ?? 0n) - (prev?.locked ?? 0n);
        if (prev?.reduceOnly) this.reduceOnlyOrders.set(prev.owner, (this.reduceOnlyOrders.get(prev.owner) ?? 1) - 1);
        if (next?.reduceOnly) this.reduceOnlyOrders.set(next.owner, (this.reduceOnlyOrders.get(next.owner) ?? 0) + 1);
        if (prev && !next) this.ownerOrders.get(prev.owner)?.delete(key);
        if (next && !prev) {
          let set = this.ownerOrders.get(next.owner);
          if (!set) this.ownerOrders.set(next.owner, (set = new Set()));
          set.add(key);
        }
      }),
    );
    this.orderCloids = this.add(new Table(TableId.OrderCloid, 'orderCloids', bigintCodec, this.journal));
    this.withdrawals = this.add(
      new Table<Withdrawal>(TableId.Withdrawal, 'withdrawals', withdrawalCodec, this.journal, (prev, next, key) => {
        // Only a non-final withdrawal holds its amount + fee locked; paid and refunded ones stay listed.
        this.totals.withdrawalLocked += withdrawalLock(next) - withdrawalLock(prev);
        if (next && !isFinalWithdrawal(next)) this.pendingWithdrawalIds.add(key);
        else this.pendingWithdrawalIds.delete(key);
        if (prev && !next) this.ownerWithdrawals.get(prev.owner)?.delete(key);
        if (next && !prev) {
          let set = this.ownerWithdrawals.get(next.owner);
          if (!set) this.ownerWithdrawals.set(next.owner, (set = new Set()));
          set.add(key);
        }
      }),
    );
    this.sessions = this.add(new Table(TableId.Session, 'sessions', sessionCodec, this.journal));
    this.agents = this.add(new Table(TableId.Agent, 'agents', agentCodec, this.journal));
    this.perpPositions = this.add(
      new Table<PerpPosition>(TableId.PerpPosition, 'perpPositions', perpPositionCodec, this.journal, (prev, next) => this.perp.onChange(prev, next)),
    );
    this.perpMarkets = this.add(new Table(TableId.PerpMarket, 'perpMarkets', perpMarketCodec, this.journal));
    this.pool = this.add(new Table(TableId.Pool, 'pool', poolCodec, this.journal));
    this.poolShares = this.add(new Table(TableId.PoolShare, 'poolShares', poolShareCodec, this.journal));
    this.oracleObservations = this.add(new Table(TableId.OracleObservation, 'oracleObservations', oracleObservationCodec, this.journal));
    this.oracleMedians = this.add(new Table(TableId.OracleMedian, 'oracleMedians', oracleMedianCodec, this.journal));
    this.validators = this.add(
      new Table<ValidatorRecord>(TableId.Validator, 'validators', validatorCodec, this.journal, (prev, next) => {
        this.totals.bondLockedWei += (next?.context.lockedWei ?? 0n) - (prev?.context.lockedWei ?? 0n);
      }),
    );
    this.downtime = this.add(new Table(TableId.Downtime, 'downtime', downtimeCodec, this.journal));
    this.governance = this.add(new Table(TableId.Governance, 'governance', governanceCodec, this.journal));
    this.deposits = this.add(new Table(TableId.Deposit, 'deposits', depositCodec, this.journal));
    this.bridgeVotes = this.add(new Table(TableId.BridgeVote, 'bridgeVotes', bridgeVoteCodec, this.journal));
    this.bridgeAlerts = this.add(new Table(TableId.BridgeAlert, 'bridgeAlerts', bridgeAlertCodec, this.journal));
    this.scheduledCancels = this.add(
      new Table<ScheduledCancelRecord>(TableId.ScheduledCancel, 'scheduledCancels', scheduledCancelCodec, this.journal, (prev, next, key) => {
        if (prev?.timeMs != null) this.cancelsDue.remove(prev.timeMs, key);
        if (next?.timeMs != null) this.cancelsDue.add(next.timeMs, key);
      }),
    );
    this.twaps = this.add(
      new Table<TwapRecord>(TableId.Twap, 'twaps', twapCodec, this.journal, (prev, next, key) => {
        // Ids are zero-padded in the index so that equal times run in id order.
        const id = key.padStart(20, '0');
        if (prev?.state === 'running') this.twapsDue.remove(prev.context.nextSliceMs, id);
        if (next?.state === 'running') this.twapsDue.add(next.context.nextSliceMs, id);
        if (prev && !next) this.ownerTwaps.get(prev.owner)?.delete(key);
        if (next && !prev) {
          let set = this.ownerTwaps.get(next.owner);
          if (!set) this.ownerTwaps.set(next.owner, (set = new Set()));
          set.add(key);
        }
      }),
    );
    this.subAccounts = this.add(new Table(TableId.SubAccount, 'subAccounts', subAccountCodec, this.journal));
  }

  /** The engine of a pair (created on first use). */
  book(pairId: number): OrderBook {
    let b = this.books.get(pairId);
    if (!b) this.books.set(pairId, (b = new OrderBook(pairId)));
    return b;
  }

  position(owner: Address, pairId: number): Position {
    return this.positions.get(`${owner}:${pairId}`) ?? { size: 0n, cost: 0n, margin: 0n };
  }

  /** Open order ids of an owner, ascending (execution-safe order). */
  openOrderIds(owner: Address): bigint[] {
    return [...(this.ownerOrders.get(owner) ?? [])].map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The liquidity pool (src/state/perps/pool.ts). */
  poolRecord(): PoolRecord {
    return this.pool.get('pool') ?? EMPTY_POOL;
  }

  /**
   * After loading stored records: rebuild the books from the resting orders, in id
   * order, and the orderbook-position liquidation index from the positions (its keys
   * need the pairs' maintenance margins, which may have loaded after the positions).
   */
  rebuildIndexes(): void {
    this.bookLiq.clear();
    for (const [key, p] of this.positions.entries()) this.bookLiq.onChange(undefined, p, key);
    this.books.clear();
    // In time-priority order (seq: a modified order's new place, decision 88; else the id).
    const seq = (o: OpenOrder) => o.seq ?? o.id;
    const all = [...this.orders.entries()].map(([, o]) => o).sort((a, b) => (seq(a) < seq(b) ? -1 : seq(a) > seq(b) ? 1 : 0));
    for (const o of all) this.book(o.pairId).restore({ id: o.id, owner: o.owner, side: o.side, price: o.price, remaining: o.remaining, isAgent: o.isAgent, seq: seq(o) });
  }

  private add<T>(table: Table<T>): Table<T> {
    if (this.tables.has(table.id)) throw new Error(`table id ${table.id} used twice`);
    this.tables.set(table.id, table);
    return table;
  }

  account(address: Address): Account {
    return this.accounts.get(address) ?? EMPTY_ACCOUNT;
  }

  params(): ChainParams {
    return this.meta.get('params') as ChainParams;
  }

  head(): ChainHead {
    return (this.meta.get('head') as ChainHead | undefined) ?? { height: 0, timestampMs: 0, blockHash: '0x' };
  }

  supply(): Supply {
    return (this.meta.get('supply') as Supply | undefined) ?? { usdc: 0n, nativeWei: 0n };
  }

  /** Loads one stored record (startup). */
  loadRecord(storageKey: Uint8Array, value: Uint8Array): void {
    const table = this.tables.get(storageKey[0]);
    if (!table) throw new Error(`stored state has unknown table id ${storageKey[0]}`);
    const key = new TextDecoder().decode(storageKey.subarray(1));
    table.load(key, table.codec.decode(value));
    this.tree.update(storageKey, value);
  }

  /** Invariants checked at the end of every block; a broken one halts the node. */
  checkInvariants(): void {
    const supply = this.supply();
    // Native tokens are in balances or locked in validator bonds (decision 68).
    if (this.totals.nativeWei + this.totals.bondLockedWei !== supply.nativeWei) {
      throw new InvariantError(`native token held ${this.totals.nativeWei} + locked in bonds ${this.totals.bondLockedWei} differs from supply ${supply.nativeWei}`);
    }
    // Conservation in the cash view: Σ balances − Σ position cost + the perp pool and
    // funding pots is the supply (docs/economics.md). Perp margins are in the balances.
    const pool = this.poolRecord();
    let pots = 0n;
    for (const [, m] of this.perpMarkets.entries()) pots += m.fundingPot;
    if (pool.usdc < 0n) throw new InvariantError(`the liquidity pool holds ${pool.usdc} USDC units`);
    if (this.totals.usdc - this.totals.cost + pool.usdc + pots !== supply.usdc) {
      throw new InvariantError(
        `USDC: balances ${this.totals.usdc} − position cost ${this.totals.cost} + pool ${pool.usdc} + funding pots ${pots} differs from supply ${supply.usdc}`,
      );
    }
    if (this.totals.usdcInPositions !== this.totals.orderbookMargin + this.perp.totalMargin) {
      throw new InvariantError(
        `USDC in positions ${this.totals.usdcInPositions} differs from orderbook margin ${this.totals.orderbookMargin} + perp margin ${this.perp.totalMargin}`,
      );
    }
    if (this.totals.usdcLocked !== this.totals.orderLocked + this.totals.withdrawalLocked) {
      throw new InvariantError(
        `locked USDC ${this.totals.usdcLocked} differs from the locks of resting orders ${this.totals.orderLocked} and pending withdrawals ${this.totals.withdrawalLocked}`,
      );
    }
    for (const [pairId, net] of this.netSize) {
      if (net !== 0n) throw new InvariantError(`pair ${pairId}: positions do not net to zero (${net})`);
    }
    // The pool's orderbook positions (taken over in liquidations) carry no margin: the
    // pool's USDC stands behind them, and they count in Σ cost and the pairs' net above.
    for (const [pairId, p] of this.bookLiq.poolPositions) {
      if (p.margin !== 0n) throw new InvariantError(`pair ${pairId}: the pool's orderbook position holds margin ${p.margin}`);
      if (this.positions.get(`${POOL_BOOK_OWNER}:${pairId}`) !== p) throw new InvariantError(`pair ${pairId}: the pool's orderbook position is not the indexed one`);
    }
  }

  /**
   * Ends a block: encodes every key written since the last flush (in sorted order, so
   * the change list is identical on every node), updates the tree and returns the root.
   */
  flush(): { changes: StateChange[]; root: Uint8Array } {
    const changes: StateChange[] = [];
    const tables = [...this.journal.dirty.keys()].sort((a, b) => a.id - b.id);
    for (const table of tables) {
      const keys = [...this.journal.dirty.get(table)!].sort();
      for (const key of keys) {
        const storageKey = table.storageKey(key);
        const value = table.has(key) ? table.codec.encode(table.get(key)) : null;
        this.tree.update(storageKey, value);
        changes.push({ key: storageKey, value });
      }
    }
    this.journal.dirty.clear();
    this.journal.clearUndo();
    return { changes, root: this.tree.root() };
  }

  root(): Uint8Array {
    return this.tree.root();
  }
}
