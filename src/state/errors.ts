/**
 * Why a transaction or request is refused: the error codes of the envelope (docs/api.md
 * "Errors of these routes"), the statuses they answer with, and TxError, the refusal
 * execution and the door (mempool, API) throw. `status` is the HTTP status the API
 * answers with (contract [D-envelope-status]: 400 shape, 401 signature, 403 not allowed, 404 unknown,
 * 409 nonce, 410 an onboarding token used up or expired, 422 execution); `code` is the UPPER_SNAKE error code of the envelope. A
 * code outside `ErrorCode` does not compile at a throw site: a new refusal is added
 * here, where docs/api.md's lists are checked against it.
 */

/** 400: the shape of the request or transaction, naming the field. */
export type ShapeErrorCode =
  | 'INVALID_REQUEST'
  | 'MALFORMED_TX'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNSUPPORTED_TX_TYPE'
  | 'EVM_DISABLED'
  | 'INTRINSIC_GAS_TOO_LOW'
  | 'FEE_TOO_LOW'
  | 'WRONG_CHAIN'
  | 'WRONG_NETWORK'
  | 'INVALID_SIGNATURE_FORMAT'
  | 'INVALID_NONCE'
  | 'INVALID_AMOUNT'
  | 'BELOW_MINIMUM'
  | 'INVALID_PRICE'
  | 'INVALID_SIDE'
  | 'INVALID_TYPE'
  | 'INVALID_SYMBOL'
  | 'INVALID_LEVERAGE'
  | 'INVALID_MARGIN'
  | 'INVALID_ORDER_ID'
  | 'INVALID_POSITION_ID'
  | 'INVALID_BATCH'
  | 'INVALID_TPSL'
  | 'INVALID_WALLET'
  | 'INVALID_SHARES'
  | 'INVALID_INTERVAL'
  | 'INVALID_SESSION_KEY'
  | 'INVALID_EXPIRY'
  | 'INVALID_MODE'
  | 'INVALID_CAPS'
  | 'INVALID_OBSERVATION'
  | 'INVALID_VALIDATOR'
  | 'INVALID_EVIDENCE'
  | 'INVALID_OPERATION'
  /** A bridge attestation or withdrawal-signature list that is not canonical (src/state/ops/bridge-attestation.ts). */
  | 'INVALID_ATTESTATION'
  /** An action option the kind does not take, or one out of range (src/codec/txs/options.ts; decision 87). */
  | 'INVALID_OPTIONS'
  /** A sub-account name outside 1–32 of A–Z a–z 0–9 _ - . (src/state/accounts/subaccounts.ts; decision 93). */
  | 'INVALID_NAME'
  /** A ScheduleCancel time or a TWAP's fields out of range (src/state/ops/timers.ts; decisions 90–91). */
  | 'INVALID_TIME'
  | 'INVALID_TWAP'
  | 'UNKNOWN_PAIR';

/** 401: the signature is missing or recovers to someone else. */
export type SignatureErrorCode =
  | 'MISSING_SIGNATURE'
  | 'INVALID_SIGNATURE'
  /** The onboarding operator's signed request: its timestamp is outside the accepted window (decision 78). */
  | 'REQUEST_EXPIRED'
  /** An onboarding download token that is malformed or was never issued (decision 78). */
  | 'INVALID_TOKEN';

/** 403: the signer may not do this (machines/session.ts, machines/agent.ts refusals among them). */
export type ForbiddenErrorCode =
  | 'NOT_OWNER'
  | 'OWNER_ONLY'
  | 'NOT_AUTHORIZED'
  | 'SESSION_REVOKED'
  | 'SESSION_EXPIRED'
  | 'AGENT_MODE_OFF'
  | 'AGENT_REDUCE_ONLY'
  | 'CAP_LEVERAGE'
  | 'CAP_ORDER_TYPE'
  | 'CAP_INPUT'
  | 'CAP_POSITION'
  | 'NOT_FAUCET'
  | 'NOT_VALIDATOR'
  | 'NOT_GOVERNANCE_OWNER'
  | 'SAME_OWNER'
  /** The onboarding operator's routes answer loopback callers only (decision 78). */
  | 'LOOPBACK_ONLY'
  /** The onboarding request is signed by someone other than the service's operator (decision 78). */
  | 'NOT_OPERATOR'
  /** A sub-account transfer naming another master's sub-account (decision 93). */
  | 'NOT_MASTER';

/** 404: the thing named does not exist (or no longer). */
export type NotFoundErrorCode = 'NOT_FOUND' | 'UNKNOWN_ORDER' | 'UNKNOWN_POSITION' | 'NO_ACTIVE_SESSION' | 'UNKNOWN_OPERATION' | 'UNKNOWN_SUB_ACCOUNT' | 'UNKNOWN_TWAP';

/** 409: the nonce, the transaction, the observation's time or the evidence (its offender already tombstoned) was already used. */
export type ConflictErrorCode = 'NONCE_USED' | 'NONCE_MISMATCH' | 'NONCE_TOO_LOW' | 'NONCE_TOO_HIGH' | 'DUPLICATE_TX' | 'OBSERVATION_NOT_NEWER' | 'VALIDATOR_EXISTS' | 'ALREADY_TOMBSTONED' | 'OPERATION_EXISTS' | 'APPLICANT_STATE' | 'ATTESTATION_STALE'
  /** The trader already has an open order with this client order id (decision 87). */
  | 'DUPLICATE_CLOID';

/**
 * 410: an onboarding download token that was good once: this artifact already downloaded with it, or its 24 hours over (decision 78);
 * data this node no longer keeps (PRUNED: a block below its base, index records past their retention; decision 135).
 */
export type GoneErrorCode = 'TOKEN_USED' | 'TOKEN_EXPIRED' | 'PRUNED';

/** 422: refused by execution against the state at the block's time. */
export type ExecutionErrorCode =
  | 'INSUFFICIENT_BALANCE'
  | 'INSUFFICIENT_FUNDS'
  | 'INSUFFICIENT_SHARES'
  | 'MARGIN_REQUIRED'
  | 'NO_LIQUIDITY'
  | 'NO_ORACLE_PRICE'
  | 'ORACLE_STALE'
  | 'OPEN_INTEREST_CAP'
  | 'POSITION_TOO_SMALL'
  | 'POOL_LOCKED'
  | 'POOL_UTILIZED'
  | 'POOL_INSOLVENT'
  | 'DEPOSIT_TOO_SMALL'
  | 'FAUCET_DISABLED'
  | 'FAUCET_LIMIT'
  | 'OBSERVATION_STALE'
  | 'OBSERVATION_IN_FUTURE'
  | 'INVALID_EXPIRY'
  | 'VALIDATOR_STATE'
  | 'ACTIVE_SET_FLOOR'
  | 'JAIL_NOT_SERVED'
  | 'EVIDENCE_TOO_OLD'
  | 'EVIDENCE_IN_FUTURE'
  | 'OPERATION_STATE'
  | 'TIMELOCK_NOT_PASSED'
  | 'CHAIN_HALTED'
  /** An ALO (post-only) order, or any modify, whose price would meet the opposite side (decisions 87, 88). */
  | 'WOULD_TAKE'
  /** A reduce-only order with nothing left to reduce: the position is flat, on its side, or taken by older reduce-only orders (decision 87). */
  | 'WOULD_INCREASE_POSITION'
  /** A cancel or modify of an order that exists but is no longer open: filled or cancelled (decision 89). */
  | 'ORDER_NOT_OPEN'
  /** The block time has passed the action's expiresAfter (src/state/action-expiry.ts; decision 90). */
  | 'ACTION_EXPIRED'
  /** A scheduled cancel less than 5 s ahead, or past the day's limit; a TwapCancel of a TWAP no longer running (decisions 90–91). */
  | 'SCHEDULE_TOO_SOON'
  | 'SCHEDULE_LIMIT'
  | 'TWAP_STATE'
  /** A spot order on a pair without a spot book, or a perp open on a pair without a perp market (decision 76). */
  | 'MARKET_NOT_LISTED'
  /** A bridge attestation or withdrawal signature on a network whose genesis has no bridge (decision 82). */
  | 'BRIDGE_DISABLED'
  /** A deposit claim MAX_DEPOSITS_AHEAD or more past the next deposit id (decision 82). */
  | 'DEPOSIT_TOO_FAR_AHEAD'
  /** A withdrawal claim or signature for a withdrawal id this chain never issued (decision 83). */
  | 'UNKNOWN_WITHDRAWAL'
  /** A Queued or Paid claim whose recipient, amount or validUntil is not the chain's record; an alert the chain's state does not bear out; a validator's alert votes past the bound (decision 154). */
  | 'CLAIM_MISMATCH'
  | 'ALERT_UNFOUNDED'
  | 'TOO_MANY_ALERTS'
  /** A master already has limits.maxSubAccounts sub-accounts (decision 93). */
  | 'SUB_ACCOUNT_LIMIT'
  /** A master already has a sub-account of that name (letter case ignored). */
  | 'SUB_ACCOUNT_NAME_TAKEN'
  /** A sub-account cannot itself open sub-accounts. */
  | 'SUB_ACCOUNT_NESTED'
  /** A failed receipt without a code (never written by this execution; the API's fallback). */
  | 'REJECTED';

/** 429: the client spent its rate-limit budget (src/api/rate-limit.ts; decision 98). */
export type RateLimitErrorCode = 'RATE_LIMITED';

/** The node's own state: 5xx. */
export type NodeErrorCode =
  | 'MEMPOOL_FULL'
  | 'NOT_SYNCED'
  | 'SHUTTING_DOWN'
  | 'NOT_FINAL_YET'
  | 'INTERNAL'
  | 'ARTIFACT_UNAVAILABLE'
  | 'APPLICATIONS_FULL'
  /** 503: an onboarding service's actor has its mailbox full (or did not answer in time); with Retry-After. */
  | 'SERVICE_BUSY'
  /** 503: the node's disk is full; every write is refused until space returns, with Retry-After (decision 121). */
  | 'STORAGE_UNAVAILABLE';

/** Every code the envelope answers with. */
export type ErrorCode =
  | ShapeErrorCode
  | SignatureErrorCode
  | ForbiddenErrorCode
  | NotFoundErrorCode
  | ConflictErrorCode
  | GoneErrorCode
  | RateLimitErrorCode
  | ExecutionErrorCode
  | NodeErrorCode;

/** The statuses a refused transaction answers with (the door's 503 when the node cannot take it). */
export type RejectionStatus = 400 | 401 | 403 | 404 | 409 | 422 | 503;

/**
 * A refused operation's reason, one value wherever it is refused: thrown at the door
 * (mempool, API) as a TxError, stored in a failed receipt (`errorStatus`, `code`,
 * `message`: see receiptRejection in src/state/context.ts) and in an `OrderRejected`
 * event of a batch.
 */
export interface Rejection {
  readonly status: RejectionStatus;
  readonly code: ErrorCode;
  readonly message: string;
}

export class TxError extends Error implements Rejection {
  constructor(
    readonly status: RejectionStatus,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TxError';
  }

  /** The reason as a plain value (what a receipt or an event stores). */
  rejection(): Rejection {
    return { status: this.status, code: this.code, message: this.message };
  }
}

export const badRequest = (code: ShapeErrorCode, message: string) => new TxError(400, code, message);
export const unauthorized = (message: string) => new TxError(401, 'INVALID_SIGNATURE', message);
export const forbidden = (code: ForbiddenErrorCode, message: string) => new TxError(403, code, message);
export const rejected = (code: ExecutionErrorCode, message: string) => new TxError(422, code, message);
export const conflict = (code: ConflictErrorCode, message: string) => new TxError(409, code, message);

/** Every ErrorCode once, at run time: a missing or unknown key does not compile. */
const CODES: { readonly [C in ErrorCode]: true } = {
  INVALID_REQUEST: true, MALFORMED_TX: true, PAYLOAD_TOO_LARGE: true, UNSUPPORTED_MEDIA_TYPE: true, UNSUPPORTED_TX_TYPE: true,
  EVM_DISABLED: true, INTRINSIC_GAS_TOO_LOW: true, FEE_TOO_LOW: true, WRONG_CHAIN: true, WRONG_NETWORK: true,
  INVALID_SIGNATURE_FORMAT: true, INVALID_NONCE: true, INVALID_AMOUNT: true, BELOW_MINIMUM: true, INVALID_PRICE: true,
  INVALID_SIDE: true, INVALID_TYPE: true, INVALID_SYMBOL: true, INVALID_LEVERAGE: true, INVALID_MARGIN: true,
  INVALID_ORDER_ID: true, INVALID_POSITION_ID: true, INVALID_BATCH: true, INVALID_TPSL: true, INVALID_WALLET: true,
  INVALID_SHARES: true, INVALID_INTERVAL: true, INVALID_SESSION_KEY: true, INVALID_EXPIRY: true, INVALID_MODE: true,
  INVALID_CAPS: true, INVALID_OBSERVATION: true, INVALID_VALIDATOR: true, INVALID_EVIDENCE: true, INVALID_OPERATION: true, INVALID_ATTESTATION: true, INVALID_OPTIONS: true, INVALID_TIME: true, INVALID_TWAP: true, UNKNOWN_PAIR: true,
  MISSING_SIGNATURE: true, INVALID_SIGNATURE: true, REQUEST_EXPIRED: true, INVALID_TOKEN: true,
  NOT_OWNER: true, OWNER_ONLY: true, NOT_AUTHORIZED: true, SESSION_REVOKED: true, SESSION_EXPIRED: true,
  AGENT_MODE_OFF: true, AGENT_REDUCE_ONLY: true, CAP_LEVERAGE: true, CAP_ORDER_TYPE: true, CAP_INPUT: true,
  CAP_POSITION: true, NOT_FAUCET: true, NOT_VALIDATOR: true, NOT_GOVERNANCE_OWNER: true, SAME_OWNER: true, LOOPBACK_ONLY: true, NOT_OPERATOR: true,
  NOT_FOUND: true, UNKNOWN_ORDER: true, UNKNOWN_POSITION: true, NO_ACTIVE_SESSION: true, UNKNOWN_OPERATION: true, UNKNOWN_TWAP: true,
  NONCE_USED: true, NONCE_MISMATCH: true, NONCE_TOO_LOW: true, NONCE_TOO_HIGH: true, DUPLICATE_TX: true, DUPLICATE_CLOID: true,
  WOULD_TAKE: true, WOULD_INCREASE_POSITION: true, ORDER_NOT_OPEN: true,
  INSUFFICIENT_BALANCE: true, INSUFFICIENT_FUNDS: true, INSUFFICIENT_SHARES: true, MARGIN_REQUIRED: true, NO_LIQUIDITY: true,
  NO_ORACLE_PRICE: true, ORACLE_STALE: true, OPEN_INTEREST_CAP: true, POSITION_TOO_SMALL: true, POOL_LOCKED: true,
  POOL_UTILIZED: true, POOL_INSOLVENT: true, DEPOSIT_TOO_SMALL: true, FAUCET_DISABLED: true, FAUCET_LIMIT: true,
  OBSERVATION_NOT_NEWER: true, VALIDATOR_EXISTS: true, VALIDATOR_STATE: true, ACTIVE_SET_FLOOR: true, JAIL_NOT_SERVED: true, EVIDENCE_TOO_OLD: true, EVIDENCE_IN_FUTURE: true, ALREADY_TOMBSTONED: true, OPERATION_EXISTS: true, APPLICANT_STATE: true, TOKEN_USED: true, TOKEN_EXPIRED: true, PRUNED: true, OPERATION_STATE: true, TIMELOCK_NOT_PASSED: true, CHAIN_HALTED: true, ACTION_EXPIRED: true, SCHEDULE_TOO_SOON: true, SCHEDULE_LIMIT: true, TWAP_STATE: true, MARKET_NOT_LISTED: true, OBSERVATION_STALE: true, OBSERVATION_IN_FUTURE: true, ATTESTATION_STALE: true, BRIDGE_DISABLED: true, DEPOSIT_TOO_FAR_AHEAD: true, UNKNOWN_WITHDRAWAL: true, REJECTED: true,
  // Bridge alerts (decision 154).
  CLAIM_MISMATCH: true, ALERT_UNFOUNDED: true, TOO_MANY_ALERTS: true,
  // Sub-accounts (decision 93).
  INVALID_NAME: true, NOT_MASTER: true, UNKNOWN_SUB_ACCOUNT: true, SUB_ACCOUNT_LIMIT: true, SUB_ACCOUNT_NAME_TAKEN: true, SUB_ACCOUNT_NESTED: true,
  RATE_LIMITED: true,
  MEMPOOL_FULL: true, NOT_SYNCED: true, SHUTTING_DOWN: true, NOT_FINAL_YET: true, INTERNAL: true, ARTIFACT_UNAVAILABLE: true, APPLICATIONS_FULL: true, SERVICE_BUSY: true,
  STORAGE_UNAVAILABLE: true,
};

/** Every code the envelope answers with, in a fixed order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.keys(CODES) as ErrorCode[];

export function isErrorCode(v: unknown): v is ErrorCode {
  return typeof v === 'string' && Object.hasOwn(CODES, v);
}
