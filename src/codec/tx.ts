/**
 * Transaction envelope: `u8 version | u32 chainId | u8 kind | body`, where the body's
 * layout belongs to the kind (src/codec/txs/*). The transaction hash is keccak256 of
 * the whole envelope, except Ethereum transactions, whose hash is Ethereum's own.
 * Decoding is strict: unknown version or kind, trailing bytes and non-canonical
 * fields are errors, so one transaction has exactly one encoding and one hash.
 */
import { keccak256 } from '../crypto/keccak';
import { CodecError, Reader, Writer } from './binary';

export const TX_VERSION = 1;

/** Transaction kinds. A retired number is never reused. */
export enum TxKind {
  /** Devnet faucet credit, signed by the genesis faucet key. */
  Faucet = 1,
  /** POST /v1/order: REST fields as signed (personal sign over the packed digest). */
  RestOrder = 2,
  /** POST /v1/order/batch: up to 10 limit orders, applied in order. */
  RestBatch = 3,
  /** DELETE /v1/order/{orderId}. */
  RestCancel = 4,
  /** DELETE /v1/order/cancel-all. */
  RestCancelAll = 5,
  /** POST /order/place: EIP-712 PlaceOrder. */
  NativePlace = 6,
  /** POST /order/cancel: EIP-712 CancelOrder. */
  NativeCancel = 7,
  /** POST /v1/order/modify: new price and size of 1 to 10 resting orders, keeping their ids (issue 24, decision 88). */
  RestModify = 8,
  /** POST /order/modify: EIP-712 ModifyOrder (decision 88). */
  NativeModify = 9,
  /** POST /session/create: EIP-712 SessionCreate, owner-only (src/codec/txs/sessions.ts). */
  SessionCreate = 10,
  /** POST /session/revoke: EIP-712 SessionRevoke, owner-only. */
  SessionRevoke = 11,
  /** POST /agent/caps: EIP-712 SetAgentCaps, owner-only. */
  SetAgentCaps = 12,
  /** POST /agent/mode: EIP-712 SetAgentMode, owner-only. */
  SetAgentMode = 13,
  /** POST /withdraw: EIP-712 Withdraw, owner-only (src/codec/txs/withdraw.ts). */
  Withdraw = 14,
  /** DELETE /v1/order/by-cloid/{cloid}: cancel the open order a client order id names (decision 87). */
  RestCancelByCloid = 15,
  /** POST /order/cancel-by-cloid: EIP-712 CancelByCloid (decision 87). */
  NativeCancelByCloid = 16,
  /** POST /v1/order/schedule-cancel: the dead-man switch (src/codec/txs/timers.ts; decision 90). */
  ScheduleCancel = 17,
  /** POST /v1/twap: a TWAP order (src/codec/txs/timers.ts; decision 91). */
  TwapPlace = 18,
  /** POST /v1/twap/cancel: stops a running TWAP. */
  TwapCancel = 19,
  /** eth_sendRawTransaction: a native-token transfer in an Ethereum transaction (src/codec/txs/eth.ts). */
  EthTx = 20,
  /** POST /v1/subaccount/create: EIP-712 SubAccountCreate, owner-only (src/codec/txs/subaccounts.ts; decision 93). */
  SubAccountCreate = 21,
  /** POST /v1/subaccount/transfer: EIP-712 SubAccountTransfer, owner-only (master ↔ its sub-account). */
  SubAccountTransfer = 22,
  /** POST /v1/perp/open: the session key's (or owner's) personal signature over the JSON payload (src/codec/txs/perps.ts). */
  PerpOpen = 30,
  /** POST /v1/perp/close: whole or part of a position. */
  PerpClose = 31,
  /** POST /v1/perp/tpsl: take-profit and stop-loss targets. */
  PerpTpsl = 32,
  /** POST /v1/pool/deposit: EIP-712 PoolDeposit, owner-only. */
  PoolDeposit = 33,
  /** POST /v1/pool/withdraw: EIP-712 PoolWithdraw, owner-only. */
  PoolWithdraw = 34,
  /** A validator's signed price observation (src/codec/txs/oracle.ts): no nonce, no fee. */
  OracleObservation = 40,
  /** A validator's self-registration: EIP-191 text of [D-signatures-register] (src/codec/txs/validators.ts). */
  RegisterValidator = 50,
  /** A validator leaves: its bond returns after the unbonding window (src/codec/txs/validators.ts). */
  Unbond = 51,
  /** A jailed validator asks to rejoin after the jail window (src/codec/txs/validators.ts). */
  Unjail = 52,
  /** Two conflicting signed votes of one validator, put in a block by its proposer (src/codec/txs/evidence.ts): no nonce, no fee. */
  DoubleSignEvidence = 53,
  /** The network's operator approves a candidate: RegisterValidator is refused without it (src/codec/txs/validators.ts; decision 159). */
  ApproveValidator = 54,
  /** An owner proposes a governance operation: EIP-712 GovernancePropose (src/codec/txs/governance.ts; decision 74). */
  GovernancePropose = 60,
  /** A second owner approves it: EIP-712 GovernanceApprove (its timelock starts; a halt executes at once). */
  GovernanceApprove = 61,
  /** An owner executes a ready operation: EIP-712 GovernanceExecute. */
  GovernanceExecute = 62,
  /** An owner cancels a pending operation: EIP-712 GovernanceCancel. */
  GovernanceCancel = 63,
  /** A validator's signed claims about the external chain: deposits, withdrawals queued, paid or void (src/codec/txs/bridge.ts; decision 82): no nonce, no fee. */
  BridgeAttestation = 70,
  /** A validator's signatures over pending withdrawals' v3 digests, for the bridge contract (src/codec/txs/bridge.ts; decision 83): no nonce, no fee. */
  WithdrawalSignatures = 71,
  /** A validator's signatures over recorded bridge validator sets, for the contract's updateValidatorSet (src/codec/txs/bridge-set.ts; decision 151): no nonce, no fee. */
  BridgeSetSignatures = 72,
}

interface TxKindCodec<B> {
  kind: TxKind;
  name: string;
  encodeBody(w: Writer, body: B): void;
  decodeBody(r: Reader): B;
  /** Overrides keccak256(envelope) where the kind has a hash of its own (Ethereum txs). */
  hash?(body: B, envelope: Uint8Array): Uint8Array;
}

export interface Tx<B = unknown> {
  chainId: number;
  kind: TxKind;
  body: B;
  /** The canonical envelope bytes. */
  bytes: Uint8Array;
  hash: Uint8Array;
}

const registry = new Map<TxKind, TxKindCodec<any>>();

export function registerTxKind<B>(codec: TxKindCodec<B>): void {
  if (registry.has(codec.kind)) throw new Error(`tx kind ${codec.kind} registered twice`);
  registry.set(codec.kind, codec);
}

function txKindCodec(kind: TxKind): TxKindCodec<unknown> {
  const codec = registry.get(kind);
  if (!codec) throw new CodecError('UNKNOWN_KIND', `unknown transaction kind ${kind}`);
  return codec;
}

export function txKindName(kind: TxKind): string {
  return registry.get(kind)?.name ?? `kind-${kind}`;
}

export function encodeTx<B>(chainId: number, kind: TxKind, body: B): Tx<B> {
  const codec = txKindCodec(kind) as TxKindCodec<B>;
  const w = new Writer(128).u8(TX_VERSION).u32(chainId).u8(kind);
  codec.encodeBody(w, body);
  const bytes = w.finish();
  return { chainId, kind, body, bytes, hash: codec.hash ? codec.hash(body, bytes) : keccak256(bytes) };
}

export function decodeTx(bytes: Uint8Array, maxTxBytes: number): Tx {
  if (bytes.length > maxTxBytes) throw new CodecError('TOO_LARGE', `transaction of ${bytes.length} bytes exceeds ${maxTxBytes}`);
  const r = new Reader(bytes, maxTxBytes);
  const version = r.u8();
  if (version !== TX_VERSION) throw new CodecError('VERSION', `unknown transaction version ${version}`);
  const chainId = r.u32();
  const kind = r.u8() as TxKind;
  const codec = txKindCodec(kind);
  const body = codec.decodeBody(r);
  r.end();
  const copy = bytes.slice();
  return { chainId, kind, body, bytes: copy, hash: codec.hash ? codec.hash(body, copy) : keccak256(copy) };
}
