/**
 * Events execution emits into receipts: the contract between execution and the
 * indexer, the WebSocket and the API. `ChainEvent` is the union of every kind; an emit
 * site with an unknown kind or a missing or mistyped field does not compile. Amounts
 * are bigint, their scale in the type (src/util/fixed.ts): prices Price6 (×1e6), sizes
 * Size18 (×1e18), USDC Usdc6 (6 decimals); native tokens in wei. Order,
 * position and withdrawal ids are decimal strings of their chain-wide counters.
 * Fields are only ever added: receipts already stored keep what they were written with.
 */
import type { Address, Hex } from '../util/bytes';
import type { Price6, Size18, Usdc6 } from '../util/fixed';
import type { TimeInForce } from '../codec/txs/options';
import type { ErrorCode, RejectionStatus } from './errors';

export type OrderStatus = 'open' | 'partial' | 'filled' | 'cancelled' | 'rejected';

/**
 * Why the engine ended a resting or incoming order: a market order's unfilled rest, a
 * self-trade, its owner, an orderbook liquidation; an IOC order's unfilled rest, a
 * reduce-only order the owner's shrunk position no longer allows (decision 87), a
 * scheduled cancel (part B's dead-man switch).
 */
export type CancelReason = 'market-rest' | 'self-trade' | 'user' | 'liquidation' | 'ioc' | 'reduce-only' | 'scheduled';

// ---- the exchange (src/state/orders/execution.ts, ops/rest-orders.ts, ops/native-orders.ts) ----

/**
 * An order's terms as signed: what placeOrder takes (OrderInput, src/state/orders/execution.ts)
 * and what OrderPlaced reports, one shape so the two cannot drift apart.
 */
export interface OrderTerms {
  owner: Address;
  /** The session key that signed, or the owner itself. */
  signer: Address;
  pairId: number;
  side: 0 | 1; // 0 Buy, 1 Sell
  orderType: 0 | 1; // 0 Market, 1 Limit
  /** Limit price, or a market order's worst price (0 when none). */
  price: Price6;
  size: Size18;
  leverage: number;
  /** Signed by the owner's session key (signer ≠ owner). */
  isAgent: boolean;
  /** Client order id (0x + 32 lower-case hex), when the order carries one (decision 87). */
  cloid?: Hex;
  /** Time in force; absent: the default Gtc. */
  tif?: TimeInForce;
}

/** An order was accepted by execution (before any matching); `size` is the size it entered with (a reduce-only order's, capped). */
export interface OrderPlacedEvent extends OrderTerms {
  type: 'OrderPlaced';
  orderId: string;
  symbol: string;
  reduceOnly?: true;
}

/** One match between a resting (maker) and an incoming (taker) order, at the maker's price. */
export interface TradeExecutedEvent {
  type: 'TradeExecuted';
  pairId: number;
  symbol: string;
  price: Price6;
  size: Size18;
  /** price × size / 1e18, exact USDC units. */
  usdc: Usdc6;
  buyer: Address;
  seller: Address;
  buyerIsAgent: boolean;
  sellerIsAgent: boolean;
  takerSide: 0 | 1;
  makerOrderId: string;
  takerOrderId: string;
  /** Taker fee in USDC units. */
  takerFee: Usdc6;
  /** The maker's and the taker's client order ids, when they carry one (decision 87). */
  makerCloid?: Hex;
  takerCloid?: Hex;
  /** Maker fee in USDC units, charged to the resting order's owner; absent when 0 (genesis `fees.makerFeeBps` 0, as before it was charged). */
  makerFee?: Usdc6;
}

/** An order's status or filled amount changed (after placement, on each fill, on cancel). */
export interface OrderUpdatedEvent {
  type: 'OrderUpdated';
  orderId: string;
  owner: Address;
  pairId: number;
  status: OrderStatus;
  filled: Size18;
  remaining: Size18;
  /** Why it ended when cancelled by the engine. */
  reason?: CancelReason;
  /** The order's client order id, when it carries one (decision 87). */
  cloid?: Hex;
}

/**
 * A resting order's price and size changed in place, keeping its id (decision 88).
 * `size` is the order's new total (filled + remaining); `requeued` true when it lost
 * its time priority (price changed or the size grew); `locked` the USDC units its
 * rest now holds.
 */
export interface OrderModifiedEvent {
  type: 'OrderModified';
  orderId: string;
  owner: Address;
  pairId: number;
  symbol: string;
  side: 0 | 1;
  price: Price6;
  size: Size18;
  remaining: Size18;
  previousPrice: Price6;
  previousRemaining: Size18;
  requeued: boolean;
  locked: Usdc6;
  cloid?: Hex;
  /** Why the size differs from what was asked: a reduce-only order shrunk to the position. */
  reason?: 'reduce-only';
}

/** One order of a REST batch was refused; the others stand (src/state/ops/rest-orders.ts). */
export interface OrderRejectedEvent {
  type: 'OrderRejected';
  /** Position of the order in the batch. */
  index: number;
  code: ErrorCode;
  message: string;
  errorStatus: RejectionStatus;
}

/** A REST cancel-all: the ids of the orders it cancelled, in id order. */
export interface CancelAllEvent {
  type: 'CancelAll';
  trader: Address;
  cancelledIds: string[];
}

/** A maker's fill left its free balance negative (USDC units short). */
export interface BadDebtEvent {
  type: 'BadDebt';
  owner: Address;
  pairId: number;
  usdc: Usdc6;
}

/** The three events the indexer builds trades, fills and orders from. */
export type ExchangeEvent = OrderPlacedEvent | TradeExecutedEvent | OrderUpdatedEvent;

// ---- funds -----------------------------------------------------------------------------------

/** The devnet faucet credited an address (USDC units, wei). */
export interface FaucetCreditEvent {
  type: 'FaucetCredit';
  to: Address;
  usdc: Usdc6;
  nativeWei: bigint;
}

/** A native-token transfer of an Ethereum transaction (wei; gas at the chain's price). */
export interface TransferEvent {
  type: 'Transfer';
  from: Address;
  to: Address;
  value: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
}

/** A withdrawal request: amount + fee (USDC units) moved from free to locked. */
export interface WithdrawalRequestedEvent {
  type: 'WithdrawalRequested';
  withdrawalId: string;
  owner: Address;
  amount: Usdc6;
  fee: Usdc6;
  destination: Address;
}

// ---- the bridge (src/state/ops/bridge-attestation.ts, withdrawal-signatures.ts; src/state/bridge/) ----

/** A validator's attestation was applied: how many claims it carried, how many counted as votes, how many were late (settled or already voted). */
export interface BridgeAttestationEvent {
  type: 'BridgeAttestation';
  validator: Address;
  claims: number;
  counted: number;
  late: number;
}

/** The chain recorded a new bridge validator set (decision 151): the contract's next set, to be signed by the set before it. */
export interface BridgeSetRecordedEvent {
  type: 'BridgeSetRecorded';
  setNonce: string;
  validators: Address[];
  powers: string[];
}

/** The chain recorded a new bridge owner set (its owners changed: decision 149), for the contract's updateOwners. */
export interface BridgeOwnersRecordedEvent {
  type: 'BridgeOwnersRecorded';
  ownerSetNonce: string;
  owners: Address[];
  threshold: string;
}

/** A validator's signatures over recorded bridge sets were applied. */
export interface BridgeSetSignaturesEvent {
  type: 'BridgeSetSignatures';
  validator: Address;
  items: number;
  counted: number;
}

/** A validator's withdrawal signatures were applied: how many were kept on their records, how many were late. */
export interface WithdrawalSignaturesEvent {
  type: 'WithdrawalSignatures';
  validator: Address;
  items: number;
  counted: number;
  late: number;
}

/** A bridge deposit credited to the recipient's free balance (in deposit-id order, exactly once). */
export interface DepositCreditedEvent {
  type: 'DepositCredited';
  depositId: string;
  recipient: Address;
  amount: Usdc6;
  /** The external deposit transaction. */
  externalTx: Hex;
}

/** A withdrawal's signers passed 2/3 of the current power: the relayer may queue it. */
export interface WithdrawalSignedEvent {
  type: 'WithdrawalSigned';
  withdrawalId: string;
  owner: Address;
  signatures: number;
}

/** A quorum attested the withdrawal queued on the external chain. */
export interface WithdrawalSubmittedEvent {
  type: 'WithdrawalSubmitted';
  withdrawalId: string;
  owner: Address;
  externalTx: Hex;
}

/** A quorum attested the payout: amount + fee leave the owner's lock, the fee goes to the fee account, amount is burned here. */
export interface WithdrawalPaidEvent {
  type: 'WithdrawalPaid';
  withdrawalId: string;
  owner: Address;
  amount: Usdc6;
  fee: Usdc6;
  externalTx: Hex;
}

/** A quorum attested the withdrawal can never be paid: amount + fee back to the owner's free balance. */
export interface WithdrawalRefundedEvent {
  type: 'WithdrawalRefunded';
  withdrawalId: string;
  owner: Address;
  amount: Usdc6;
  fee: Usdc6;
  reason: 'expired' | 'cancelled';
  /** The external cancel transaction; zeros when expired. */
  externalTx: Hex;
}

/**
 * A quorum of validators attested something on the external bridge that no decision of
 * this chain explains (decision 154): a forged or altered withdrawal queued or paid, a set
 * or owner change. Recorded once per (kind, id) (src/state/bridge/alerts.ts).
 */
export interface BridgeAlertEvent {
  type: 'BridgeAlert';
  alert: 'forged_queue' | 'forged_paid' | 'unexplained_set' | 'unexplained_owners';
  /** The withdrawal id, or the set / owner nonce (the event's block when it names none). */
  id: string;
  /** The external transaction that holds the event. */
  externalTx: Hex;
}

// ---- sessions and agents (src/state/ops/session-keys.ts, agent-settings.ts) ----------------------

/** A master opened a sub-account (src/state/ops/subaccount-actions.ts; decision 93). */
export interface SubAccountCreatedEvent {
  type: 'SubAccountCreated';
  master: Address;
  subAccount: Address;
  name: string;
  index: number;
}

/** USDC moved between a master and its sub-account: deposit = master → sub-account. */
export interface SubAccountTransferredEvent {
  type: 'SubAccountTransferred';
  master: Address;
  subAccount: Address;
  deposit: boolean;
  usdc: bigint;
}

export interface SessionCreatedEvent {
  type: 'SessionCreated';
  owner: Address;
  sessionKey: Address;
  expiresAtMs: number;
  /** The session key this one replaced while still active, else null. */
  replaced: Address | null;
}

export interface SessionRevokedEvent {
  type: 'SessionRevoked';
  owner: Address;
  sessionKey: Address;
}

export interface AgentCapsSetEvent {
  type: 'AgentCapsSet';
  owner: Address;
  /** Basis points. */
  maxLeverageBps: bigint;
  /** Bitmask of order types (bit 0 Market, bit 1 Limit). */
  allowedOrderTypes: number;
  /** USDC units. */
  maxInputPerTrade: Usdc6;
  /** Size units (×1e18). */
  maxTotalPosition: Size18;
}

export interface AgentModeSetEvent {
  type: 'AgentModeSet';
  owner: Address;
  /** 0 OFF, 1 REDUCE_ONLY, 2 ACTIVE. */
  mode: number;
  /** Its wire name: OFF, REDUCE_ONLY or ACTIVE (machines/agent-mode.ts AGENT_MODE_WIRE). */
  modeName: string;
}

// ---- the oracle (src/state/ops/oracle-observation.ts) --------------------------------------------------

export interface OracleObservationEvent {
  type: 'OracleObservation';
  validator: Address;
  timestampMs: number;
  /** How many prices the observation carried. */
  prices: number;
}

// ---- perps (src/state/perps) ---------------------------------------------------------------

export interface PerpOpenedEvent {
  type: 'PerpOpened';
  positionId: string;
  owner: Address;
  signer: Address;
  pairId: number;
  symbol: string;
  isLong: boolean;
  size: Size18;
  entryPrice: Price6;
  margin: Usdc6;
  leverage: number;
  fee: Usdc6;
  liquidationPrice: Price6;
  isAgent: boolean;
}

/** Why a perp position (or part of it) closed. */
export type CloseReason = 'close' | 'tp' | 'sl' | 'liquidation' | 'adl';

export interface PerpClosedEvent {
  type: 'PerpClosed';
  positionId: string;
  owner: Address;
  pairId: number;
  symbol: string;
  isLong: boolean;
  reason: CloseReason;
  /** Size closed. */
  size: Size18;
  remaining: Size18;
  price: Price6;
  entryPrice: Price6;
  pnl: Usdc6;
  /** Funding realized (positive: paid by the position). */
  funding: Usdc6;
  fee: Usdc6;
  payout: Usdc6;
  /** Present when positive: loss and funding the margin could not cover. */
  shortfall?: Usdc6;
  /** Present when positive: profit kept back by ADL. */
  withheld?: Usdc6;
  /** Present when positive: profit the pool could not pay. */
  haircut?: Usdc6;
}

export interface PerpTpslSetEvent {
  type: 'PerpTpslSet';
  positionId: string;
  owner: Address;
  pairId: number;
  /** Prices ×1e6; 0 unset. */
  takeProfit: Price6;
  stopLoss: Price6;
}

/** ADL covering one position's shortfall from the other side of its market. */
export interface AdlShortfallEvent {
  type: 'AdlExecuted';
  cause: 'shortfall';
  pairId: number;
  shortfall: Usdc6;
  recovered: Usdc6;
  positions: number;
}

/** ADL bringing traders' unrealized profit back within the pool threshold. */
export interface AdlPoolThresholdEvent {
  type: 'AdlExecuted';
  cause: 'pool-threshold';
  profitBefore: Usdc6;
  profitAfter: Usdc6;
  poolUsdc: Usdc6;
  positions: number;
}

export type AdlExecutedEvent = AdlShortfallEvent | AdlPoolThresholdEvent;

export interface FundingSettledEvent {
  type: 'FundingSettled';
  pairId: number;
  ratePer8hPpb: bigint;
  rateHourlyPpb: bigint;
  avgPremiumPpb: bigint;
  amount: Usdc6;
  price: Price6;
  longSize: Size18;
  shortSize: Size18;
}

export interface PoolDepositedEvent {
  type: 'PoolDeposited';
  owner: Address;
  amount: Usdc6;
  shares: bigint;
  poolValue: Usdc6;
  totalShares: bigint;
  unlockMs: number;
}

export interface PoolWithdrawnEvent {
  type: 'PoolWithdrawn';
  owner: Address;
  shares: bigint;
  amount: Usdc6;
  poolValue: Usdc6;
  totalShares: bigint;
}

/** An orderbook position liquidated at the end of a block (src/state/perps/book-liquidation.ts). */
export interface BookLiquidatedEvent {
  type: 'BookLiquidated';
  owner: Address;
  pairId: number;
  symbol: string;
  /** Signed, ×1e18. */
  size: Size18;
  price: Price6;
  cost: Usdc6;
  margin: Usdc6;
  pnl: Usdc6;
  fee: Usdc6;
  payout: Usdc6;
  /** Present when the equity was negative. */
  shortfall?: Usdc6;
  coveredByOwner?: Usdc6;
  coveredByPool?: Usdc6;
  ordersCancelled: string[];
}

// ---- validators (src/state/validators/downtime.ts, ops/double-sign-evidence.ts; decision 72) ----

/** An active validator missed more of the downtime window than allowed: jailed and slashed (a block event). */
export interface ValidatorJailedEvent {
  type: 'ValidatorJailed';
  validator: Address;
  /** Heights of the window whose commit lacks its signature. */
  missed: number;
  /** Taken from the bond, wei. */
  slashedWei: bigint;
  /** The locked part of the slash, burned, wei. */
  burnedWei: bigint;
  jailedUntilEpoch: number;
}

/** Double-sign evidence was executed: the offender is tombstoned for good. */
export interface ValidatorTombstonedEvent {
  type: 'ValidatorTombstoned';
  validator: Address;
  /** Height of the two conflicting votes. */
  height: number;
  slashedWei: bigint;
  burnedWei: bigint;
}

// ---- governance (src/state/ops/governance-operations.ts; decision 74) ----

/** An owner transaction moved a governance operation: proposed, approved, executed or cancelled. */
export interface GovernanceOperationEvent {
  type: 'GovernanceOperation';
  operationId: string;
  /** The operation kind's name (SetParam, Halt, Resume, AdminSeedValidator). */
  kind: string;
  state: 'proposed' | 'approved' | 'ready' | 'executed' | 'cancelled' | 'expired';
  /** The owner whose transaction it was. */
  owner: Address;
}

/** An owner's cancel of an operation that a second owner's cancel must confirm (decision 162); the operation's state is unchanged. */
export interface GovernanceCancelRequestedEvent {
  type: 'GovernanceCancelRequested';
  operationId: string;
  kind: string;
  owner: Address;
}

// ---- timers: the dead-man switch and TWAP orders (src/state/timers/scheduled-cancels.ts, twap.ts; decisions 90–91) ----

/** A ScheduleCancel set (timeMs) or cleared (null) the trader's dead-man switch; `count` schedules set this UTC day. */
export interface CancelScheduledEvent {
  type: 'CancelScheduled';
  trader: Address;
  timeMs: number | null;
  count: number;
}

/** The dead-man switch fired at the end of a block: the trader's open orders were cancelled (reason 'scheduled'). */
export interface ScheduledCancelFiredEvent {
  type: 'ScheduledCancelFired';
  trader: Address;
  timeMs: number;
  cancelledIds: string[];
}

/** A TWAP order was accepted. */
export interface TwapPlacedEvent {
  type: 'TwapPlaced';
  twapId: string;
  owner: Address;
  pairId: number;
  symbol: string;
  side: 0 | 1;
  size: bigint;
  minutes: number;
  randomize: boolean;
  slicesTotal: number;
}

/** One slice of a TWAP: executed (orderId, filled) or missed / refused (code). */
export interface TwapSliceEvent {
  type: 'TwapSlice';
  twapId: string;
  owner: Address;
  /** 0-based slice number. */
  slice: number;
  size: bigint;
  orderId?: string;
  filled: bigint;
  code?: string;
}

/** A TWAP reached a final state: completed, failed or cancelled. */
export interface TwapEndedEvent {
  type: 'TwapEnded';
  twapId: string;
  owner: Address;
  state: 'completed' | 'failed' | 'cancelled';
  filled: bigint;
  remaining: bigint;
}

export type TimerEvent = CancelScheduledEvent | ScheduledCancelFiredEvent | TwapPlacedEvent | TwapSliceEvent | TwapEndedEvent;

/** Every event execution emits. */
export type ChainEvent =
  | OrderPlacedEvent
  | TradeExecutedEvent
  | OrderUpdatedEvent
  | OrderModifiedEvent
  | OrderRejectedEvent
  | CancelAllEvent
  | BadDebtEvent
  | FaucetCreditEvent
  | TransferEvent
  | WithdrawalRequestedEvent
  | BridgeAttestationEvent
  | WithdrawalSignaturesEvent
  | BridgeSetRecordedEvent
  | BridgeOwnersRecordedEvent
  | BridgeSetSignaturesEvent
  | DepositCreditedEvent
  | WithdrawalSignedEvent
  | WithdrawalSubmittedEvent
  | WithdrawalPaidEvent
  | WithdrawalRefundedEvent
  | BridgeAlertEvent
  | SessionCreatedEvent
  | SubAccountCreatedEvent
  | SubAccountTransferredEvent
  | SessionRevokedEvent
  | AgentCapsSetEvent
  | AgentModeSetEvent
  | OracleObservationEvent
  | PerpOpenedEvent
  | PerpClosedEvent
  | PerpTpslSetEvent
  | AdlExecutedEvent
  | FundingSettledEvent
  | PoolDepositedEvent
  | PoolWithdrawnEvent
  | BookLiquidatedEvent
  | ValidatorJailedEvent
  | ValidatorTombstonedEvent
  | GovernanceOperationEvent
  | GovernanceCancelRequestedEvent
  | TimerEvent;

export type ChainEventType = ChainEvent['type'];

/** The event of one kind: `EventOf<'PerpClosed'>`. */
export type EventOf<T extends ChainEventType> = Extract<ChainEvent, { type: T }>;

/** The first event of kind `type` in `events` (a receipt's), narrowed. */
export function findEvent<T extends ChainEventType>(events: readonly ChainEvent[], type: T, where?: (e: EventOf<T>) => boolean): EventOf<T> | undefined {
  for (const e of events) if (e.type === type && (!where || where(e as EventOf<T>))) return e as EventOf<T>;
  return undefined;
}

/** The last event of kind `type` in `events`, narrowed. */
export function findLastEvent<T extends ChainEventType>(events: readonly ChainEvent[], type: T, where?: (e: EventOf<T>) => boolean): EventOf<T> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === type && (!where || where(e as EventOf<T>))) return e as EventOf<T>;
  }
  return undefined;
}
