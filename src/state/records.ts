/** Record types of the chain state and their canonical encodings. */
import { Reader, Writer } from '../codec/binary';
import type { Genesis, PairParams } from '../genesis/types';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../util/bytes';
import type { Price6, Size18, Usdc6 } from '../util/fixed';
import { jsonCodec, type RecordCodec } from './table';

/** Table ids: the first byte of every state key. A retired number is never reused. */
export enum TableId {
  /** name -> record (chain head, supply, params) */
  Meta = 1,
  /** address -> Account */
  Account = 2,
  /** signer address -> the signer's (up to) 100 highest accepted nonces, ascending */
  Nonce = 3,
  /** address -> total USDC the faucet has credited to it */
  FaucetClaim = 4,
  /** pair id (decimal) -> PairParams */
  Pair = 5,
  /** `${owner}:${pairId}` -> Position (orderbook net position of an account in a pair) */
  Position = 6,
  /** order id (decimal) -> OpenOrder (resting orders only; history lives in the indexer) */
  Order = 7,
  /** owner address -> SessionRecord: the session machine's state value and context (machines/session.ts) */
  Session = 8,
  /** owner address -> AgentRecord: the agent-mode machine's state value and context (machines/agent-mode.ts) */
  Agent = 9,
  /** withdrawal id (decimal) -> Withdrawal: the withdrawal machine's state value and context (machines/withdrawal.ts); final ones stay */
  Withdrawal = 10,
  /** position id (decimal) -> PerpPosition: an open isolated perp position (src/state/perps) */
  PerpPosition = 11,
  /** pair id (decimal) -> PerpMarket: funding indices, funding pot, premium samples, recent rates */
  PerpMarket = 12,
  /** "pool" -> PoolRecord: the liquidity pool's USDC and share count */
  Pool = 13,
  /** owner address -> PoolShare: an LP's shares and the block time they unlock */
  PoolShare = 14,
  /** validator address -> ValidatorRecord: the validator-lifecycle machine's state value and context, and the validator's keys (src/state/validators/records.ts) */
  Validator = 15,
  /** validator address -> DowntimeRecord: the heights an active validator's signature is missing from, as runs within the downtime window (src/state/validators/downtime.ts) */
  Downtime = 16,
  /** operation id (0x hex) -> GovernanceRecord: the governance-operation machine's state value and context, and the operation (src/state/governance/operations.ts) */
  Governance = 17,
  /** deposit id (decimal) -> DepositRecord: a bridge deposit credited here, exactly once (src/state/bridge/reads.ts) */
  Deposit = 18,
  /** claim key (`d:<depositId>` or `w:<withdrawalId>:<claim kind>`) -> BridgeVoteRecord: votes of a pending claim (src/state/bridge/votes.ts) */
  BridgeVote = 19,
  /** `${owner}:${cloid}` -> order id: the open order a trader's client order id names (src/state/orders/records.ts; decision 87) */
  OrderCloid = 20,
  /** trader address -> ScheduledCancelRecord: the dead-man switch and its daily count (src/state/timers/scheduled-cancels.ts; decision 90) */
  ScheduledCancel = 21,
  /** TWAP id (decimal) -> TwapRecord: the twap machine's state and context (src/state/timers/twap.ts; decision 91) */
  Twap = 22,
  /** sub-account address -> SubAccountRecord: its master, name, index and creation time (src/state/accounts/subaccounts.ts; decision 93) */
  SubAccount = 23,
  /** `<alert kind>:<id>` -> BridgeAlertRecord: something on the external bridge no chain decision explains, recorded by a quorum (src/state/bridge/alerts.ts; decision 154) */
  BridgeAlert = 30,
  /** validator address -> OracleObservationRecord: that validator's latest accepted observation (src/state/oracle.ts) */
  OracleObservation = 40,
  /** pair id (decimal) -> OracleMedianRecord: the pair's latest weighted median (src/state/oracle.ts) */
  OracleMedian = 41,
}

export interface Account {
  /** USDC, 6 decimals: free to trade or withdraw. */
  usdcFree: Usdc6;
  /** USDC locked by resting orders and pending withdrawals. */
  usdcLocked: Usdc6;
  /** USDC held as margin of open positions. */
  usdcInPositions: Usdc6;
  /** Native token, wei. */
  nativeWei: bigint;
  /** Ethereum-style transaction count (eth_sendRawTransaction nonces). */
  txCount: number;
}

export const EMPTY_ACCOUNT: Readonly<Account> = Object.freeze({
  usdcFree: 0n,
  usdcLocked: 0n,
  usdcInPositions: 0n,
  nativeWei: 0n,
  txCount: 0,
});

export function accountUsdc(a: Account): bigint {
  return a.usdcFree + a.usdcLocked + a.usdcInPositions;
}

export const accountCodec: RecordCodec<Account> = {
  // usdcFree is signed: only a maker's loss beyond its means (bad debt) makes it negative.
  encode: (a) => new Writer(64).sbig(a.usdcFree).big(a.usdcLocked).big(a.usdcInPositions).big(a.nativeWei).u64(a.txCount).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const a = { usdcFree: r.sbig(), usdcLocked: r.big(), usdcInPositions: r.big(), nativeWei: r.big(), txCount: r.u64() };
    r.end();
    return a;
  },
};

export const bigintListCodec: RecordCodec<bigint[]> = {
  encode: (list) => {
    const w = new Writer(8 + list.length * 9).u32(list.length);
    for (const v of list) w.big(v);
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const n = r.u32();
    const out: bigint[] = [];
    for (let i = 0; i < n; i++) out.push(r.big());
    r.end();
    return out;
  },
};

export const bigintCodec: RecordCodec<bigint> = {
  encode: (v) => new Writer(33).big(v).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const v = r.big();
    r.end();
    return v;
  },
};

export const pairCodec: RecordCodec<PairParams> = jsonCodec<PairParams>(
  (p) => p,
  (j) => ({
    ...j,
    tickSize: BigInt(j.tickSize),
    lotSize: BigInt(j.lotSize),
    minSize: BigInt(j.minSize),
    initialPrice: BigInt(j.initialPrice),
  }),
);

/** Head of the executed chain, part of the state so that the root covers it. */
export interface ChainHead {
  height: number;
  timestampMs: number;
  blockHash: string;
}

/** USDC and native token in existence; changes only by deposits, withdrawals and the faucet. */
export interface Supply {
  usdc: bigint;
  nativeWei: bigint;
}

/** Protocol parameters execution reads (meta `params`): the genesis's, as owner governance has changed them since (decisions 74, 76). */
export type ChainParams = Pick<
  Genesis,
  'network' | 'chainId' | 'consensus' | 'fees' | 'limits' | 'perps' | 'oracle' | 'owners' | 'feeAccount' | 'bridge'
> & { faucet?: Omit<NonNullable<Genesis['faucet']>, 'privateKey'> };

/** Meta records are few and rarely written: canonical JSON, bigints tagged so they decode back exactly. */
export const metaCodec: RecordCodec<unknown> = jsonCodec<unknown>(tagBigints, untagBigints);

function tagBigints(v: unknown): unknown {
  if (typeof v === 'bigint') return { $big: v.toString() };
  if (Array.isArray(v)) return v.map(tagBigints);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = tagBigints(x);
    return out;
  }
  return v;
}

function untagBigints(v: any): unknown {
  if (Array.isArray(v)) return v.map(untagBigints);
  if (v && typeof v === 'object') {
    if (typeof v.$big === 'string' && Object.keys(v).length === 1) return BigInt(v.$big);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = untagBigints(x);
    return out;
  }
  return v;
}

/**
 * An account's net position in one pair from orderbook trading (contract
 * [D-orders-book-positions]). `cost` is the exact signed USDC paid for the open size (buys add, sells
 * subtract), so the entry price is cost / size and Σ balances − Σ cost is conserved
 * exactly by every trade (docs/economics.md).
 */
export interface Position {
  /** Signed, ×1e18: positive long, negative short. */
  size: Size18;
  /** Signed USDC units paid for the open size. */
  cost: Usdc6;
  /** USDC units held as margin (counted in the account's usdcInPositions). */
  margin: Usdc6;
}

export const positionCodec: RecordCodec<Position> = {
  encode: (p) => new Writer(48).sbig(p.size).sbig(p.cost).big(p.margin).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const p = { size: r.sbig(), cost: r.sbig(), margin: r.big() };
    r.end();
    return p;
  },
};

/** A resting order (open or partially filled). */
export interface OpenOrder {
  id: bigint;
  owner: Address;
  signer: Address;
  pairId: number;
  side: 0 | 1;
  price: Price6;
  size: Size18;
  remaining: Size18;
  leverage: number;
  /** USDC units still locked for the unfilled rest (part of the owner's usdcLocked). */
  locked: Usdc6;
  isAgent: boolean;
  /** Block time of placement. */
  createdMs: number;
  /** Client order id (decision 87): unique per owner among open orders. */
  cloid?: Hex;
  /** Time in force of a resting order: IOC never rests (decision 87). */
  tif: 'Gtc' | 'Alo';
  /** Never increases the owner's position: shrunk or cancelled as the position shrinks (decision 87). */
  reduceOnly: boolean;
  /**
   * Time priority within its price level when it is not the id: a modify that moves the
   * price or grows the size draws a new one from the order-id counter (decision 88).
   */
  seq?: bigint;
}

/** Trailer flags of a stored order: absent when Gtc, no cloid, not reduce-only, seq = id (so older records keep their bytes). */
const ORDER_CLOID = 1;
const ORDER_ALO = 2;
const ORDER_REDUCE_ONLY = 4;
const ORDER_SEQ = 8;

export const orderCodec: RecordCodec<OpenOrder> = {
  encode: (o) => {
    const w = new Writer(160)
      .big(o.id)
      .address(o.owner)
      .address(o.signer)
      .u32(o.pairId)
      .u8(o.side)
      .big(o.price)
      .big(o.size)
      .big(o.remaining)
      .u16(o.leverage)
      .big(o.locked)
      .bool(o.isAgent)
      .u64(o.createdMs);
    writeOrderTrailer(w, o);
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const o: OpenOrder = {
      id: r.big(),
      owner: r.address(),
      signer: r.address(),
      pairId: r.u32(),
      side: r.u8() as 0 | 1,
      price: r.big(),
      size: r.big(),
      remaining: r.big(),
      leverage: r.u16(),
      locked: r.big(),
      isAgent: r.bool(),
      createdMs: r.u64(),
      tif: 'Gtc',
      reduceOnly: false,
    };
    if (o.side > 1) throw new Error('order side out of range');
    if (r.remaining > 0) {
      const flags = r.u8();
      if (flags === 0 || flags > 15) throw new Error(`order trailer flags ${flags} out of range`);
      if (flags & ORDER_CLOID) o.cloid = bytesToHex(r.fixed(16));
      if (flags & ORDER_ALO) o.tif = 'Alo';
      if (flags & ORDER_REDUCE_ONLY) o.reduceOnly = true;
      if (flags & ORDER_SEQ) o.seq = r.big();
    }
    r.end();
    return o;
  },
};

function writeOrderTrailer(w: Writer, o: OpenOrder): void {
  const seq = o.seq !== undefined && o.seq !== o.id;
  const flags = (o.cloid !== undefined ? ORDER_CLOID : 0) | (o.tif === 'Alo' ? ORDER_ALO : 0) | (o.reduceOnly ? ORDER_REDUCE_ONLY : 0) | (seq ? ORDER_SEQ : 0);
  if (flags === 0) return;
  w.u8(flags);
  if (o.cloid !== undefined) w.fixed(hexToBytes(o.cloid), 16);
  if (seq) w.big(o.seq!);
}

/**
 * An owner's session: the stored snapshot of machines/session.ts (`state` is its value;
 * `none` is the absence of a record). Written only by SessionCreate and SessionRevoke;
 * a session whose expiry passed without an event is still `active` here and is read as
 * expired at the block time (src/state/accounts/sessions.ts).
 */
export interface SessionRecord {
  state: 'active' | 'revoked' | 'expired';
  sessionKey: Address;
  expiresAtMs: number;
  createdAtMs: number;
  /** Nonce of the SessionCreate that started it. */
  nonce: bigint;
}

const SESSION_STATE_CODES = ['active', 'revoked', 'expired'] as const;

export const sessionCodec: RecordCodec<SessionRecord> = {
  encode: (v) =>
    new Writer(80).u8(SESSION_STATE_CODES.indexOf(v.state)).address(v.sessionKey).u64(v.expiresAtMs).u64(v.createdAtMs).big(v.nonce).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const code = r.u8();
    const state = SESSION_STATE_CODES[code];
    if (state === undefined) throw new Error(`session state code ${code} out of range`);
    const v: SessionRecord = { state, sessionKey: r.address(), expiresAtMs: r.u64(), createdAtMs: r.u64(), nonce: r.big() };
    r.end();
    return v;
  },
};

/** Agent caps as stored (integers only, contract [C-res-agent-caps]). */
export interface AgentCapsRecord {
  maxLeverageBps: bigint;
  allowedOrderTypes: number;
  maxInputPerTrade: Usdc6;
  maxTotalPosition: Size18;
}

/**
 * An owner's agent settings: the stored snapshot of machines/agent-mode.ts. `mode` is
 * the mode region's value; the caps region is `set` exactly when `caps` is not null.
 * No record means the machine's initial state: mode active, caps not set.
 */
export interface AgentRecord {
  mode: 'off' | 'reduceOnly' | 'active';
  caps: AgentCapsRecord | null;
}

const AGENT_MODE_CODES = ['off', 'reduceOnly', 'active'] as const;

export const agentCodec: RecordCodec<AgentRecord> = {
  encode: (v) => {
    const w = new Writer(64).u8(AGENT_MODE_CODES.indexOf(v.mode)).bool(v.caps !== null);
    if (v.caps) w.big(v.caps.maxLeverageBps).u32(v.caps.allowedOrderTypes).big(v.caps.maxInputPerTrade).big(v.caps.maxTotalPosition);
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const code = r.u8();
    const mode = AGENT_MODE_CODES[code];
    if (mode === undefined) throw new Error(`agent mode code ${code} out of range`);
    const caps = r.bool() ? { maxLeverageBps: r.big(), allowedOrderTypes: r.u32(), maxInputPerTrade: r.big(), maxTotalPosition: r.big() } : null;
    r.end();
    return { mode, caps };
  },
};

// Withdrawal (TableId.Withdrawal), DepositRecord and BridgeVoteRecord live in ./bridge/records.ts.
export { type Withdrawal, withdrawalCodec } from './bridge/records';

/** A validator's latest accepted price observation (TableId.OracleObservation). */
export interface OracleObservationRecord {
  timestampMs: number;
  /** Strictly ascending by pairId; prices ×1e6. */
  prices: { pairId: number; price: bigint }[];
}

export const oracleObservationCodec: RecordCodec<OracleObservationRecord> = {
  encode: (o) => {
    const w = new Writer(16 + o.prices.length * 13).u64(o.timestampMs).u32(o.prices.length);
    for (const p of o.prices) w.u32(p.pairId).big(p.price);
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const timestampMs = r.u64();
    const n = r.u32();
    const prices: OracleObservationRecord['prices'] = [];
    for (let i = 0; i < n; i++) prices.push({ pairId: r.u32(), price: r.big() });
    r.end();
    return { timestampMs, prices };
  },
};

/** A pair's oracle median (TableId.OracleMedian): the price ×1e6 and the time its quorum had observed by. */
export interface OracleMedianRecord {
  price: Price6;
  timestampMs: number;
}

export const oracleMedianCodec: RecordCodec<OracleMedianRecord> = {
  encode: (m) => new Writer(48).big(m.price).u64(m.timestampMs).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const m = { price: r.big(), timestampMs: r.u64() };
    r.end();
    return m;
  },
};

// ---- perpetuals (src/state/perps) -------------------------------------------------

/**
 * An open isolated perp position against the liquidity pool (contract
 * [D-orders-perp-positions]). Closed positions are deleted; their history is in the receipts' events.
 * `margin` is counted in the owner's usdcInPositions. Funding accrues lazily: what the
 * position owes (or is owed) is size × (the side's funding index − fundingIndex) /
 * FUNDING_SCALE, rounded up, realized when the position closes or shrinks.
 */
export interface PerpPosition {
  id: bigint;
  owner: Address;
  pairId: number;
  isLong: boolean;
  /** ×1e18. */
  size: Size18;
  /** Oracle price at open, ×1e6. */
  entryPrice: Price6;
  /** USDC units deposited as margin (less funding realized by partial closes). */
  margin: Usdc6;
  leverage: number;
  /** The side's cumulative funding index when funding was last realized (signed). */
  fundingIndex: bigint;
  /** ×1e6; 0 = unset. */
  takeProfit: Price6;
  /** ×1e6; 0 = unset. */
  stopLoss: Price6;
  /** ×1e6: the liquidation price at the last write (funding accrued since moves it; reads recompute). 0 = none. */
  liquidationPrice: Price6;
  openedMs: number;
  /** Signed by the owner's session key. */
  isAgent: boolean;
}

export const perpPositionCodec: RecordCodec<PerpPosition> = {
  encode: (p) =>
    new Writer(160)
      .big(p.id)
      .address(p.owner)
      .u32(p.pairId)
      .bool(p.isLong)
      .big(p.size)
      .big(p.entryPrice)
      .big(p.margin)
      .u16(p.leverage)
      .sbig(p.fundingIndex)
      .big(p.takeProfit)
      .big(p.stopLoss)
      .big(p.liquidationPrice)
      .u64(p.openedMs)
      .bool(p.isAgent)
      .finish(),
  decode: (b) => {
    const r = new Reader(b);
    const p: PerpPosition = {
      id: r.big(),
      owner: r.address(),
      pairId: r.u32(),
      isLong: r.bool(),
      size: r.big(),
      entryPrice: r.big(),
      margin: r.big(),
      leverage: r.u16(),
      fundingIndex: r.sbig(),
      takeProfit: r.big(),
      stopLoss: r.big(),
      liquidationPrice: r.big(),
      openedMs: r.u64(),
      isAgent: r.bool(),
    };
    r.end();
    return p;
  },
};

/** One settled funding rate: the hourly rate in parts per billion (signed; positive: longs pay). */
interface FundingRecord {
  timeMs: number;
  rateHourlyPpb: bigint;
  /** USDC units that moved from the paying side to the receiving side. */
  amount: Usdc6;
  /** Oracle price used, ×1e6. */
  price: Price6;
}

/** Per pair: the funding state (positions' sizes and entry notionals are derived, not stored). */
export interface PerpMarket {
  /** Cumulative funding owed per unit of size by longs (×FUNDING_SCALE per 1e18 units; signed). */
  fundingIndexLong: bigint;
  /** The same for shorts. */
  fundingIndexShort: bigint;
  /** USDC realized from payers and not yet realized by receivers (signed: receivers may realize first). */
  fundingPot: Usdc6;
  /** Σ of the premium samples (ppb) taken since the last settlement; missing samples count 0. */
  premiumSumPpb: bigint;
  /** Newest first, at most PERP_RECENT_RATES. */
  recent: FundingRecord[];
}

export const PERP_RECENT_RATES = 24;

export const EMPTY_PERP_MARKET: Readonly<PerpMarket> = Object.freeze({
  fundingIndexLong: 0n,
  fundingIndexShort: 0n,
  fundingPot: 0n,
  premiumSumPpb: 0n,
  recent: [],
});

export const perpMarketCodec: RecordCodec<PerpMarket> = {
  encode: (m) => {
    const w = new Writer(64 + m.recent.length * 40).sbig(m.fundingIndexLong).sbig(m.fundingIndexShort).sbig(m.fundingPot).sbig(m.premiumSumPpb).u8(m.recent.length);
    for (const f of m.recent) w.u64(f.timeMs).sbig(f.rateHourlyPpb).big(f.amount).big(f.price);
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const m: PerpMarket = { fundingIndexLong: r.sbig(), fundingIndexShort: r.sbig(), fundingPot: r.sbig(), premiumSumPpb: r.sbig(), recent: [] };
    const n = r.u8();
    if (n > PERP_RECENT_RATES) throw new Error(`perp market holds ${n} recent rates, at most ${PERP_RECENT_RATES}`);
    for (let i = 0; i < n; i++) m.recent.push({ timeMs: r.u64(), rateHourlyPpb: r.sbig(), amount: r.big(), price: r.big() });
    r.end();
    return m;
  },
};

/** The liquidity pool: counterparty to every perp position. */
export interface PoolRecord {
  /** USDC units the pool holds. Never negative. */
  usdc: Usdc6;
  /** Shares outstanding, including the protocol's (genesis) shares. */
  totalShares: bigint;
  /** Shares minted at genesis for perps.initialPoolUsdc: owned by no account, never withdrawn. */
  protocolShares: bigint;
}

export const EMPTY_POOL: Readonly<PoolRecord> = Object.freeze({ usdc: 0n, totalShares: 0n, protocolShares: 0n });

export const poolCodec: RecordCodec<PoolRecord> = {
  encode: (p) => new Writer(48).big(p.usdc).big(p.totalShares).big(p.protocolShares).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const p = { usdc: r.big(), totalShares: r.big(), protocolShares: r.big() };
    r.end();
    return p;
  },
};

/** An LP's pool shares; each deposit locks all of them until unlockMs (block time). */
export interface PoolShare {
  shares: bigint;
  unlockMs: number;
}

export const poolShareCodec: RecordCodec<PoolShare> = {
  encode: (s) => new Writer(24).big(s.shares).u64(s.unlockMs).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const s = { shares: r.big(), unlockMs: r.u64() };
    r.end();
    return s;
  },
};
