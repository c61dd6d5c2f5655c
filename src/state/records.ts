/** Record types of the chain state and their canonical encodings. */
import { Reader, Writer } from '../codec/binary';
import type { Genesis, PairParams } from '../genesis/types';
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
}

export interface Account {
  /** USDC, 6 decimals: free to trade or withdraw. */
  usdcFree: bigint;
  /** USDC locked by resting orders and pending withdrawals. */
  usdcLocked: bigint;
  /** USDC held as margin of open positions. */
  usdcInPositions: bigint;
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
  encode: (a) => new Writer(64).big(a.usdcFree).big(a.usdcLocked).big(a.usdcInPositions).big(a.nativeWei).u64(a.txCount).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const a = { usdcFree: r.big(), usdcLocked: r.big(), usdcInPositions: r.big(), nativeWei: r.big(), txCount: r.u64() };
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

/** Protocol parameters execution reads; from genesis now, governance later. */
export type ChainParams = Pick<
  Genesis,
  'network' | 'chainId' | 'consensus' | 'fees' | 'limits' | 'perps' | 'oracle' | 'owners' | 'feeAccount'
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
