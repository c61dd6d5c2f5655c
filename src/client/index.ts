/**
 * A typed client for the node's REST API: it signs exactly as the node verifies
 * (viem accounts: personal sign over the packed REST digest; EIP-712 for native
 * operations) and calls every route. Errors come back as ExchangeApiError carrying
 * the HTTP status and the envelope's code and message.
 */
import type { LocalAccount, TypedDataDefinition } from 'viem';
import { bytesToHex } from '../util/bytes';
import { batchDigest, batchOptionsText, cancelAllDigest, cancelCloidDigest, cancelDigest, modifyDigest, placeOrderDigest } from '../signing/exchange-digest';
import { eip712Domain, EIP712_TYPES } from '../signing/eip712';
import { subAccountActionDigest, subAccountTypes } from '../signing/eip712-subaccounts';
import { orderTypedDataTypes, type OrderPrimaryType } from '../signing/eip712-orders';
import { optionsText } from '../signing/action-options';
import type { ActionOptions, TimeInForce } from '../codec/txs/options';
import { typedDataTypesWithOptions } from '../signing/eip712-options';
import { scheduleCancelDigest, twapCancelDigest, twapPlaceDigest } from '../signing/timer-digest';
import type { RouteBody, RouteData, RouteKey, RouteParams, RouteQuery, RouteReply } from '../api/route-table';

/** One part of a request: required when the route's schema requires any of it, absent when the route takes none. */
type Part<Name extends string, T> = [T] extends [undefined] ? { [N in Name]?: never } : {} extends T ? { [N in Name]?: T } : { [N in Name]: T };
/** What a route takes: its path parameters, query and body. */
export type RouteRequest<K extends RouteKey> = Part<'params', RouteParams<K>> & Part<'query', RouteQuery<K>> & Part<'body', RouteBody<K>>;
/** The request argument, optional when the route needs nothing. */
type RequestArgs<K extends RouteKey> = {} extends RouteRequest<K> ? [req?: RouteRequest<K>] : [req: RouteRequest<K>];

/**
 * An EIP-712 request whose types are chosen at run time (by the action and whether it
 * carries options), which viem's literal typing of `types` and `message` cannot follow.
 */
function typedData(chainId: number, types: object, primaryType: string, message: Record<string, unknown>): TypedDataDefinition {
  return { domain: eip712Domain(chainId), types, primaryType, message } as TypedDataDefinition;
}

/** The envelope's error fields of an answer, where it has them. */
function errorOf(body: unknown): { code?: string; message?: string } {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'object' && error !== null ? (error as { code?: string; message?: string }) : {};
}

export class ExchangeApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
    /** A 429's Retry-After: seconds until the rate-limit window ends (docs/api.md "Rate limits"). */
    readonly retryAfterSec?: number,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'ExchangeApiError';
  }
}

/** Order options (issue 24, decision 87): signed with the order, sent as these fields. */
export interface OrderOptions {
  /** Client order id: "0x" and 32 lower-case hex digits. */
  cloid?: `0x${string}`;
  /** Time in force: Gtc (default), Ioc, Alo (post-only). */
  tif?: TimeInForce;
  reduceOnly?: boolean;
  /** Block time (ms) after which the action is refused. */
  expiresAfter?: number | bigint;
}

export interface RestOrder extends OrderOptions {
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: string;
  amount: string;
}

/** One modify: the order's new price and new unfilled size (decimal strings). */
export interface RestModify {
  orderId: string;
  price: string;
  amount: string;
}

/** The option fields of a request body, as the routes' schemas name them. */
interface WireOptions {
  cloid?: string;
  tif?: string;
  reduceOnly?: true;
  expiresAfter?: number;
}

/** The signed options and their wire fields (absent ones left out; reduceOnly false is absent). */
function optionParts(o: OrderOptions): { options: ActionOptions; wire: WireOptions } {
  const options: ActionOptions = {};
  const wire: WireOptions = {};
  if (o.cloid !== undefined) wire.cloid = options.cloid = o.cloid;
  if (o.tif !== undefined) wire.tif = options.tif = o.tif;
  if (o.reduceOnly) {
    options.reduceOnly = true;
    wire.reduceOnly = true;
  }
  if (o.expiresAfter !== undefined) {
    options.expiresAfter = BigInt(o.expiresAfter);
    wire.expiresAfter = Number(o.expiresAfter);
  }
  return { options, wire };
}

/** A placed order's result (POST /v1/order). */
export type OrderResult = RouteData<'POST /v1/order'>;

export interface NativeOrder extends OrderOptions {
  owner: `0x${string}`;
  pairId: number;
  side: 'Buy' | 'Sell';
  orderType: 'Market' | 'Limit';
  /** ×1e6 */
  price: bigint;
  /** ×1e18 */
  size: bigint;
  leverage?: number;
  nonce?: bigint;
}

export interface SessionCreateParams {
  /** Defaults to the signer (a session key signing for its owner is refused: 403). */
  owner?: `0x${string}`;
  sessionKey: `0x${string}`;
  /** Unix seconds. */
  expiresAt: number | bigint;
  nonce?: bigint;
  /** Block time (ms) after which the action is refused 422 ACTION_EXPIRED (decision 90). */
  expiresAfter?: number;
}

export interface AgentCapsParams {
  owner?: `0x${string}`;
  /** Basis points: 200000 = 20x. */
  maxLeverage: number | bigint;
  /** Bit 0 Market, bit 1 Limit. */
  allowedOrderTypes: number;
  /** USDC units (6 decimals). */
  maxInputPerTrade: bigint;
  /** Size units (18 decimals). */
  maxTotalPosition: bigint;
  nonce?: bigint;
  expiresAfter?: number;
}

export interface TwapParams {
  symbol: string;
  side: 'buy' | 'sell';
  /** Total size, decimal. */
  amount: string;
  /** 5 to 1440. */
  minutes: number;
  randomize?: boolean;
  nonce?: bigint;
  /** Block time (ms) after which the placement is refused. */
  expiresAfter?: number;
}

/** A TWAP's progress (GET /v1/twap/id/{id}). */
export type TwapProgress = RouteData<'GET /v1/twap/id/:id'>;

/** A candle interval GET /v1/candles takes. */
export type CandleInterval = NonNullable<NonNullable<RouteQuery<'GET /v1/candles/:symbol'>>['interval']>;

/** A page request of a history (decision 95): times are block times, Unix ms, inclusive. */
export interface PageRequest {
  startTime?: number;
  endTime?: number;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  limit?: number;
}

/** One page of a history: its items (newest first; candles oldest first within the page) and the next page's cursor. */
export interface PageResult<T> {
  data: T[];
  /** null: this page is the last (present on every paged answer). */
  nextCursor?: string | null;
}

/** The query of a page request: startTime defaults to 0, which makes the request a page even without bounds. */
function pageQuery(p: PageRequest): PageRequest & { startTime: number } {
  return { ...p, startTime: p.startTime ?? 0 };
}

/** A native action's answer once submitted (POST /session/create, /agent/caps, …). */
export type SubmittedResult = RouteReply<'POST /session/create'>;

/** One sub-account as GET /v1/subaccounts/{master} lists it. */
export type SubAccountItem = RouteData<'GET /v1/subaccounts/:master'>[number];

/** One agent as GET /v1/agents lists it. */
export type AgentListItem = RouteData<'GET /v1/agents'>[number];

export interface PerpOpenParams {
  /** The owner; defaults to the signer. */
  wallet?: `0x${string}`;
  pairId: number;
  isLong: boolean;
  leverage: number;
  /** USDC decimal string: "20" is 20 USDC. */
  margin: string;
  nonce?: bigint;
  expiresAfter?: number;
}

/** An opened position (POST /v1/perp/open). */
export type PerpOpenResult = RouteData<'POST /v1/perp/open'>;

/** Units of 10^-decimals of a decimal string (throws on a malformed one). */
function decimalUnits(value: string, decimals: number): bigint {
  const m = /^(0|[1-9][0-9]*)(\.([0-9]+))?$/.exec(value);
  if (!m || (m[3] ?? '').length > decimals) throw new TypeError(`not a decimal with at most ${decimals} decimals: ${value}`);
  return BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt((m[3] ?? '').padEnd(decimals, '0') || '0');
}

/** The `expiresAfter` body field when set (decision 90). */
const expiry = (expiresAfter: number | undefined) => (expiresAfter === undefined ? {} : { expiresAfter });

/** Signatures on the wire: 65 bytes by default, or the 64-byte r‖s form. */
export type SignatureForm = 65 | 64;

/** One rate-limit budget as GET /v1/rate-limit shows it. */
export type RateBudget = NonNullable<RouteData<'GET /v1/rate-limit'>['ip']>;

export class ExchangeClient {
  private lastNonce = 0n;

  constructor(
    readonly baseUrl: string,
    readonly opts: { chainId: number; signatureForm?: SignatureForm } = { chainId: 713799 },
  ) {}

  /** Milliseconds since the epoch (the nonce contract [D-nonces-window] recommends), strictly increasing per client. */
  nextNonce(): bigint {
    const now = BigInt(Date.now());
    this.lastNonce = now > this.lastNonce ? now : this.lastNonce + 1n;
    return this.lastNonce;
  }

  private wire(sig: `0x${string}`): string {
    return this.opts.signatureForm === 64 ? sig.slice(0, 130) : sig;
  }

  /**
   * Raw call: the HTTP status and parsed body, never throws for HTTP errors. The way to
   * send what no route's types allow (the tests' malformed and refused requests), so its
   * answer is `unknown` unless the caller names a type; `request` is the typed way.
   */
  async call<Body = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body; retryAfterSec?: number }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    const retryAfter = res.headers.get('retry-after');
    // The caller's claim of the body's type (unknown by default); nothing checks it here.
    const answer = parsed as Body;
    return retryAfter === null ? { status: res.status, body: answer } : { status: res.status, body: answer, retryAfterSec: Number(retryAfter) };
  }

  /**
   * A route by its key in the route table (src/api/route-table.ts): the path parameters
   * filled in, the query and the body as the route's schemas type them, so a call that
   * names no route or sends what its schemas refuse does not compile. The parsed answer,
   * typed by the route's 200 schema; an HTTP error throws ExchangeApiError.
   */
  async request<K extends RouteKey>(route: K, ...[req]: RequestArgs<K>): Promise<RouteReply<K>> {
    const { params = {}, query = {}, body } = (req ?? {}) as { params?: object; query?: object; body?: unknown };
    const space = route.indexOf(' ');
    const values = new Map(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const search = new URLSearchParams(Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
    const path = route.slice(space + 1).replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(values.get(name) ?? ''));
    const r = await this.call(route.slice(0, space), search.size > 0 ? `${path}?${search}` : path, body);
    if (r.status >= 400) {
      const e = errorOf(r.body);
      throw new ExchangeApiError(r.status, e.code ?? 'HTTP_ERROR', e.message ?? String(r.body), r.body, r.retryAfterSec);
    }
    // The answer as the node's reply schema describes it (the node checks its replies against it in the tests).
    return r.body as RouteReply<K>;
  }

  /** The `data` of an answer in the exchange envelope. */
  private async data<K extends RouteKey>(route: K, ...args: RequestArgs<K>): Promise<RouteData<K>> {
    return ((await this.request(route, ...args)) as { data: RouteData<K> }).data;
  }

  // ---- signing -------------------------------------------------------------------

  async signOrder(account: LocalAccount, o: RestOrder, nonce = this.nextNonce()) {
    const { options, wire } = optionParts(o);
    const digest = placeOrderDigest({ symbol: o.symbol, side: o.side, type: o.type, price: o.price ?? '', amount: o.amount, nonce, options: optionsText(options) });
    const signature = await account.signMessage({ message: { raw: bytesToHex(digest) } });
    const fields = { symbol: o.symbol, side: o.side, type: o.type, ...(o.price !== undefined ? { price: o.price } : {}), amount: o.amount };
    return { ...fields, ...wire, trader: account.address, nonce: Number(nonce), signature: this.wire(signature) };
  }

  // ---- exchange REST: trading ------------------------------------------------------

  async placeOrder(account: LocalAccount, o: RestOrder, nonce?: bigint): Promise<OrderResult> {
    return this.data('POST /v1/order', { body: await this.signOrder(account, o, nonce) });
  }

  /** Items may carry cloid, tif and reduceOnly; `batch.expiresAfter` is the batch's own. */
  async placeBatch(account: LocalAccount, orders: Omit<RestOrder, 'type' | 'expiresAfter'>[], nonce = this.nextNonce(), batch: { expiresAfter?: number | bigint } = {}) {
    const items = orders.map((o) => ({ symbol: o.symbol, side: o.side, price: o.price ?? '', amount: o.amount }));
    const parts = orders.map((o) => optionParts(o));
    const own = optionParts(batch);
    const text = batchOptionsText(parts.map((p) => optionsText(p.options)), optionsText(own.options));
    const signature = await account.signMessage({ message: { raw: bytesToHex(batchDigest(items, nonce, text)) } });
    return this.data('POST /v1/order/batch', { body: {
      orders: items.map((it, i) => ({ ...it, ...parts[i].wire })), ...own.wire, trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
    } });
  }

  // ---- issue 24: modify, cancel by client order id (decisions 87, 88) ----------------

  /** POST /v1/order/modify: 1 to 10 modifies in one signed action. */
  async modifyOrders(account: LocalAccount, items: RestModify[], nonce = this.nextNonce(), opts: { expiresAfter?: number | bigint } = {}) {
    const { options, wire } = optionParts(opts);
    const orders = items.map((m) => ({ orderId: m.orderId, price: m.price, amount: m.amount }));
    const signature = await account.signMessage({ message: { raw: bytesToHex(modifyDigest(orders, nonce, optionsText(options))) } });
    return this.data('POST /v1/order/modify', { body: {
      orders, ...wire, trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
    } });
  }

  /** DELETE /v1/order/by-cloid/{cloid}. */
  async cancelByCloid(account: LocalAccount, cloid: string, nonce = this.nextNonce(), opts: { expiresAfter?: number | bigint } = {}) {
    const { options, wire } = optionParts(opts);
    const signature = await account.signMessage({ message: { raw: bytesToHex(cancelCloidDigest(cloid, nonce, optionsText(options))) } });
    return this.data('DELETE /v1/order/by-cloid/:cloid', {
      params: { cloid }, body: { ...wire, trader: account.address, nonce: Number(nonce), signature: this.wire(signature) },
    });
  }

  /** GET /v1/order/by-cloid/{trader}/{cloid}: the open order, from the chain state. */
  orderByCloid = (trader: string, cloid: string) => this.data('GET /v1/order/by-cloid/:trader/:cloid', { params: { trader, cloid } });

  /** An EIP-712 order action, with `string options` when it carries options. */
  private async signOrderTyped(signer: LocalAccount, primaryType: OrderPrimaryType, message: Record<string, unknown>, options: ActionOptions) {
    const text = optionsText(options);
    const signature = await signer.signTypedData(typedData(this.opts.chainId, orderTypedDataTypes(primaryType, text), primaryType, text === '' ? message : { ...message, options: text }));
    return this.wire(signature);
  }

  /** POST /order/modify (native): `size` the new unfilled size ×1e18, `price` ×1e6. */
  async modifyNative(signer: LocalAccount, p: { owner: `0x${string}`; orderId: bigint; price: bigint; size: bigint; nonce?: bigint; expiresAfter?: number | bigint }) {
    const nonce = p.nonce ?? this.nextNonce();
    const { options, wire } = optionParts(p);
    const signature = await this.signOrderTyped(signer, 'ModifyOrder', { owner: p.owner, orderId: p.orderId, price: p.price, size: p.size, nonce }, options);
    return this.request('POST /order/modify', { body: {
      order_id: String(p.orderId), price: String(p.price), size: String(p.size), owner: p.owner, session_key: signer.address, ...wire, signature, nonce: Number(nonce),
    } });
  }

  /** POST /order/cancel-by-cloid (native). */
  async cancelByCloidNative(signer: LocalAccount, owner: `0x${string}`, cloid: `0x${string}`, nonce = this.nextNonce(), opts: { expiresAfter?: number | bigint } = {}) {
    const { options, wire } = optionParts(opts);
    const signature = await this.signOrderTyped(signer, 'CancelByCloid', { owner, cloid, nonce }, options);
    return this.request('POST /order/cancel-by-cloid', { body: {
      cloid, owner, session_key: signer.address, ...wire, signature, nonce: Number(nonce),
    } });
  }

  async cancelOrder(account: LocalAccount, orderId: string, nonce = this.nextNonce(), opts: { expiresAfter?: number | bigint } = {}) {
    const { options, wire } = optionParts(opts);
    const signature = await account.signMessage({ message: { raw: bytesToHex(cancelDigest(orderId, nonce, optionsText(options))) } });
    return this.data('DELETE /v1/order/:orderId', {
      params: { orderId }, body: { ...wire, trader: account.address, nonce: Number(nonce), signature: this.wire(signature) },
    });
  }

  async cancelAll(account: LocalAccount, nonce = this.nextNonce()) {
    const signature = await account.signMessage({ message: { raw: bytesToHex(cancelAllDigest(nonce)) } });
    return this.data('DELETE /v1/order/cancel-all', { body: {
      trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
    } });
  }

  // ---- timers: the dead-man switch and TWAP orders (decisions 90–91) ---------------------

  /** Signs a ScheduleCancel: `time` a block time in ms, or null to clear; `expiresAfter` optional. */
  async scheduleCancelBody(account: LocalAccount, time: number | null, p: { nonce?: bigint; expiresAfter?: number } = {}) {
    const nonce = p.nonce ?? this.nextNonce();
    const options = p.expiresAfter === undefined ? undefined : { expiresAfter: BigInt(p.expiresAfter) };
    const digest = scheduleCancelDigest(time === null ? null : BigInt(time), nonce, options);
    const signature = await account.signMessage({ message: { raw: bytesToHex(digest) } });
    return { trader: account.address, time, nonce: Number(nonce), signature: this.wire(signature), ...(p.expiresAfter === undefined ? {} : { expiresAfter: p.expiresAfter }) };
  }

  async scheduleCancel(account: LocalAccount, time: number | null, p: { nonce?: bigint; expiresAfter?: number } = {}) {
    return this.data('POST /v1/order/schedule-cancel', { body: await this.scheduleCancelBody(account, time, p) });
  }

  scheduledCancel = (trader: string) => this.data('GET /v1/order/schedule-cancel/:trader', { params: { trader } });

  async twapBody(account: LocalAccount, t: TwapParams) {
    const nonce = t.nonce ?? this.nextNonce();
    const options = t.expiresAfter === undefined ? undefined : { expiresAfter: BigInt(t.expiresAfter) };
    const randomize = t.randomize ?? false;
    const digest = twapPlaceDigest({ symbol: t.symbol, side: t.side, amount: t.amount, minutes: t.minutes, randomize, nonce, options });
    const signature = await account.signMessage({ message: { raw: bytesToHex(digest) } });
    return {
      symbol: t.symbol, side: t.side, amount: t.amount, minutes: t.minutes, randomize, trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
      ...(t.expiresAfter === undefined ? {} : { expiresAfter: t.expiresAfter }),
    };
  }

  async placeTwap(account: LocalAccount, t: TwapParams) {
    return this.data('POST /v1/twap', { body: await this.twapBody(account, t) });
  }

  async cancelTwap(account: LocalAccount, twapId: string, p: { nonce?: bigint; expiresAfter?: number } = {}) {
    const nonce = p.nonce ?? this.nextNonce();
    const options = p.expiresAfter === undefined ? undefined : { expiresAfter: BigInt(p.expiresAfter) };
    const signature = await account.signMessage({ message: { raw: bytesToHex(twapCancelDigest(twapId, nonce, options)) } });
    return this.data('POST /v1/twap/cancel', { body: {
      twapId, trader: account.address, nonce: Number(nonce), signature: this.wire(signature), ...(p.expiresAfter === undefined ? {} : { expiresAfter: p.expiresAfter }),
    } });
  }

  /** POST /v1/order/schedule-cancel for `subAccount`, signed by its master (the digest bound to it). */
  async scheduleCancelFor(master: LocalAccount, subAccount: `0x${string}`, time: number | null, p: { nonce?: bigint; expiresAfter?: number } = {}) {
    const nonce = p.nonce ?? this.nextNonce();
    const options = p.expiresAfter === undefined ? undefined : { expiresAfter: BigInt(p.expiresAfter) };
    const signature = await this.signFor(master, subAccount, scheduleCancelDigest(time === null ? null : BigInt(time), nonce, options));
    return this.data('POST /v1/order/schedule-cancel', { body: {
      trader: subAccount, time, nonce: Number(nonce), signature, ...(p.expiresAfter === undefined ? {} : { expiresAfter: p.expiresAfter }),
    } });
  }

  /** POST /v1/twap for `subAccount`, signed by its master. */
  async placeTwapFor(master: LocalAccount, subAccount: `0x${string}`, t: TwapParams) {
    const nonce = t.nonce ?? this.nextNonce();
    const options = t.expiresAfter === undefined ? undefined : { expiresAfter: BigInt(t.expiresAfter) };
    const randomize = t.randomize ?? false;
    const signature = await this.signFor(master, subAccount, twapPlaceDigest({ symbol: t.symbol, side: t.side, amount: t.amount, minutes: t.minutes, randomize, nonce, options }));
    return this.data('POST /v1/twap', { body: {
      symbol: t.symbol, side: t.side, amount: t.amount, minutes: t.minutes, randomize, trader: subAccount, nonce: Number(nonce), signature,
      ...(t.expiresAfter === undefined ? {} : { expiresAfter: t.expiresAfter }),
    } });
  }

  /** POST /v1/twap/cancel for `subAccount`, signed by its master. */
  async cancelTwapFor(master: LocalAccount, subAccount: `0x${string}`, twapId: string, p: { nonce?: bigint; expiresAfter?: number } = {}) {
    const nonce = p.nonce ?? this.nextNonce();
    const options = p.expiresAfter === undefined ? undefined : { expiresAfter: BigInt(p.expiresAfter) };
    const signature = await this.signFor(master, subAccount, twapCancelDigest(twapId, nonce, options));
    return this.data('POST /v1/twap/cancel', { body: {
      twapId, trader: subAccount, nonce: Number(nonce), signature, ...(p.expiresAfter === undefined ? {} : { expiresAfter: p.expiresAfter }),
    } });
  }

  twaps = (address: string) => this.data('GET /v1/twap/:address', { params: { address } });
  twap = (twapId: string) => this.data('GET /v1/twap/id/:id', { params: { id: twapId } });

  // ---- native routes ----------------------------------------------------------------

  async placeNative(signer: LocalAccount, o: NativeOrder) {
    const nonce = o.nonce ?? this.nextNonce();
    const message = {
      owner: o.owner, pairId: BigInt(o.pairId), side: o.side === 'Buy' ? 0n : 1n, orderType: o.orderType === 'Limit' ? 1n : 0n,
      price: o.price, size: o.size, leverage: BigInt(o.leverage ?? 1), nonce,
    };
    const { options, wire } = optionParts(o);
    const signature = await this.signOrderTyped(signer, 'PlaceOrder', message, options);
    return this.request('POST /order/place', { body: {
      pair_id: o.pairId, side: o.side, size: String(o.size), owner: o.owner, session_key: signer.address, order_type: o.orderType,
      price: String(o.price), leverage: o.leverage ?? 1, ...wire, signature, nonce: Number(nonce),
    } });
  }

  async cancelNative(signer: LocalAccount, owner: `0x${string}`, orderId: bigint, nonce = this.nextNonce(), opts: { expiresAfter?: number | bigint } = {}) {
    const { options, wire } = optionParts(opts);
    const signature = await this.signOrderTyped(signer, 'CancelOrder', { owner, orderId, nonce }, options);
    return this.request('POST /order/cancel', { body: {
      order_id: String(orderId), owner, session_key: signer.address, ...wire, signature, nonce: Number(nonce),
    } });
  }

  // ---- sessions and agents (also served on the node's session port) --------------------

  /**
   * Signs an EIP-712 message of the contract's types; with `expiresAfter` the type gains
   * its trailing `string options` member (decision 90) and the message its options text.
   */
  private async signTyped(
    signer: LocalAccount,
    primaryType: 'SessionCreate' | 'SessionRevoke' | 'SetAgentCaps' | 'SetAgentMode' | 'Withdraw' | 'PoolDeposit' | 'PoolWithdraw',
    message: Record<string, unknown>,
    expiresAfter?: number,
  ) {
    const options = expiresAfter === undefined ? undefined : { expiresAfter: BigInt(expiresAfter) };
    const types = options ? typedDataTypesWithOptions(primaryType, options) : EIP712_TYPES;
    const signed = options ? { ...message, options: optionsText(options) } : message;
    const signature = await signer.signTypedData(typedData(this.opts.chainId, types, primaryType, signed));
    return this.wire(signature);
  }

  /** The signed JSON body of POST /session/create (`owner` defaults to the signer). */
  async sessionCreateBody(signer: LocalAccount, p: SessionCreateParams) {
    const nonce = p.nonce ?? this.nextNonce();
    const expiresAt = BigInt(p.expiresAt);
    const signature = await this.signTyped(signer, 'SessionCreate', { sessionKey: p.sessionKey, expiresAt, nonce }, p.expiresAfter);
    return { owner: p.owner ?? signer.address, session_key: p.sessionKey, expires_at: Number(expiresAt), nonce: Number(nonce), signature, ...expiry(p.expiresAfter) };
  }

  async createSession(signer: LocalAccount, p: SessionCreateParams) {
    return this.request('POST /session/create', { body: await this.sessionCreateBody(signer, p) });
  }

  async sessionRevokeBody(signer: LocalAccount, p: { owner?: `0x${string}`; nonce?: bigint; expiresAfter?: number } = {}) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    return { owner, nonce: Number(nonce), signature: await this.signTyped(signer, 'SessionRevoke', { owner, nonce }, p.expiresAfter), ...expiry(p.expiresAfter) };
  }

  async revokeSession(signer: LocalAccount, p: { owner?: `0x${string}`; nonce?: bigint; expiresAfter?: number } = {}) {
    return this.request('POST /session/revoke', { body: await this.sessionRevokeBody(signer, p) });
  }

  sessionValid = (owner: string, sessionKey: string) => this.request('GET /session/valid', { query: { owner, session_key: sessionKey } });
  getSession = (owner: string) =>
    this.request('GET /session/get', { query: { owner } });

  /** The signed JSON body of POST /agent/caps. */
  async agentCapsBody(signer: LocalAccount, c: AgentCapsParams) {
    const owner = c.owner ?? signer.address;
    const nonce = c.nonce ?? this.nextNonce();
    const message = {
      owner, maxLeverage: BigInt(c.maxLeverage), allowedOrderTypes: BigInt(c.allowedOrderTypes), maxInputPerTrade: c.maxInputPerTrade, maxTotalPosition: c.maxTotalPosition, nonce,
    };
    return {
      owner, max_leverage: Number(c.maxLeverage), allowed_order_types: c.allowedOrderTypes, max_input_per_trade: String(c.maxInputPerTrade),
      max_total_position: String(c.maxTotalPosition), nonce: Number(nonce), signature: await this.signTyped(signer, 'SetAgentCaps', message, c.expiresAfter), ...expiry(c.expiresAfter),
    };
  }

  async setAgentCaps(signer: LocalAccount, c: AgentCapsParams) {
    return this.request('POST /agent/caps', { body: await this.agentCapsBody(signer, c) });
  }

  async agentModeBody(signer: LocalAccount, mode: number, p: { owner?: `0x${string}`; nonce?: bigint; expiresAfter?: number } = {}) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    return { owner, mode, nonce: Number(nonce), signature: await this.signTyped(signer, 'SetAgentMode', { owner, mode: BigInt(mode), nonce }, p.expiresAfter), ...expiry(p.expiresAfter) };
  }

  /** 0 OFF, 1 REDUCE_ONLY, 2 ACTIVE. */
  async setAgentMode(signer: LocalAccount, mode: number, p: { owner?: `0x${string}`; nonce?: bigint; expiresAfter?: number } = {}) {
    return this.request('POST /agent/mode', { body: await this.agentModeBody(signer, mode, p) });
  }

  /** agentCaps(owner) as the 0x080B precompile returns it. */
  agentCaps = (owner: string) =>
    this.request('GET /agent/caps', { query: { owner } });
  agents = (limit = 100) => this.data('GET /v1/agents', { query: { limit } });
  agent = (address: string) => this.data('GET /v1/agents/:address', { params: { address } });

  /** POST /withdraw: `amount` in USDC units the destination receives; signed by `signer` for `owner`. */
  async withdraw(signer: LocalAccount, p: { owner?: `0x${string}`; amount: bigint; destination: `0x${string}`; nonce?: bigint; expiresAfter?: number }) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    const signature = await this.signTyped(signer, 'Withdraw', { owner, amount: p.amount, destination: p.destination, nonce }, p.expiresAfter);
    return this.request('POST /withdraw', { body: {
      owner, amount: String(p.amount), destination: p.destination, nonce: Number(nonce), signature, ...expiry(p.expiresAfter),
      ...(signer.address.toLowerCase() !== owner.toLowerCase() ? { session_key: signer.address } : {}),
    } });
  }

  // ---- perpetuals and the pool ----------------------------------------------------------

  /**
   * The signed body of POST /v1/perp/open: `signer` personal-signs JSON.stringify of
   * {action, wallet, pairId, isLong, leverage, margin, nonce} (contract [D-signatures-perp]). `wallet`
   * defaults to the signer; a session key signing for its owner adds `sessionWallet`.
   */
  async perpOpenBody(signer: LocalAccount, p: PerpOpenParams) {
    const payload = { action: 'perp_open' as const, wallet: p.wallet ?? signer.address, pairId: p.pairId, isLong: p.isLong, leverage: p.leverage, margin: p.margin, nonce: Number(p.nonce ?? this.nextNonce()) };
    return this.signPerp(signer, payload, p.expiresAfter);
  }

  async perpOpen(signer: LocalAccount, p: PerpOpenParams) {
    return this.data('POST /v1/perp/open', { body: await this.perpOpenBody(signer, p) });
  }

  /** POST /v1/perp/close; `size` "0" (default) closes the whole position. */
  async perpCloseBody(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; size?: string; nonce?: bigint; expiresAfter?: number }) {
    const payload = { action: 'perp_close' as const, wallet: p.wallet ?? signer.address, positionId: p.positionId, size: p.size ?? '0', nonce: Number(p.nonce ?? this.nextNonce()) };
    return this.signPerp(signer, payload, p.expiresAfter);
  }

  async perpClose(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; size?: string; nonce?: bigint; expiresAfter?: number }) {
    return this.data('POST /v1/perp/close', { body: await this.perpCloseBody(signer, p) });
  }

  /** POST /v1/perp/tpsl; "" unsets a target. */
  async perpTpslBody(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; takeProfit: string; stopLoss: string; nonce?: bigint; expiresAfter?: number }) {
    const payload = { action: 'perp_tpsl' as const, wallet: p.wallet ?? signer.address, positionId: p.positionId, takeProfit: p.takeProfit, stopLoss: p.stopLoss, nonce: Number(p.nonce ?? this.nextNonce()) };
    return this.signPerp(signer, payload, p.expiresAfter);
  }

  async perpTpsl(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; takeProfit: string; stopLoss: string; nonce?: bigint; expiresAfter?: number }) {
    return this.data('POST /v1/perp/tpsl', { body: await this.perpTpslBody(signer, p) });
  }

  /** Personal-signs the JSON payload; with `expiresAfter` the signed JSON gains a last key "options" (decision 90) and the body an `expiresAfter` field. */
  private async signPerp<T extends { wallet: string }>(signer: LocalAccount, payload: T, expiresAfter?: number) {
    const signed = expiresAfter === undefined ? payload : { ...payload, options: optionsText({ expiresAfter: BigInt(expiresAfter) }) };
    const signature = this.wire(await signer.signMessage({ message: JSON.stringify(signed) }));
    const session = signer.address.toLowerCase() !== payload.wallet.toLowerCase() ? { sessionWallet: signer.address } : {};
    return { ...payload, signature, ...session, ...expiry(expiresAfter) };
  }

  /** POST /v1/pool/deposit: `amount` a USDC decimal string; EIP-712 PoolDeposit over its units. */
  async poolDeposit(signer: LocalAccount, p: { owner?: `0x${string}`; amount: string; nonce?: bigint; expiresAfter?: number }) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    const units = decimalUnits(p.amount, 6);
    const signature = await this.signTyped(signer, 'PoolDeposit', { owner, amount: units, nonce }, p.expiresAfter);
    return this.data('POST /v1/pool/deposit', { body: {
      owner, amount: p.amount, nonce: Number(nonce), signature, ...expiry(p.expiresAfter),
    } });
  }

  /** POST /v1/pool/withdraw: burns `shares` (integer string). */
  async poolWithdraw(signer: LocalAccount, p: { owner?: `0x${string}`; shares: bigint; nonce?: bigint; expiresAfter?: number }) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    const signature = await this.signTyped(signer, 'PoolWithdraw', { owner, shares: p.shares, nonce }, p.expiresAfter);
    return this.data('POST /v1/pool/withdraw', { body: {
      owner, shares: String(p.shares), nonce: Number(nonce), signature, ...expiry(p.expiresAfter),
    } });
  }

  perpMarkets = () => this.data('GET /v1/perp/markets');
  perpPairs = () => this.data('GET /api/pairs/perps');
  positions = (address: string) => this.data('GET /v1/perp/positions/:address', { params: { address } });
  funding = () => this.data('GET /v1/funding');
  pool = (address?: string) => this.data('GET /v1/pool', { query: { address } });
  engineStats = () => this.data('GET /stats');

  // ---- sub-accounts (decisions 93–94) -------------------------------------------------

  private async signSubAccount(master: LocalAccount, primaryType: 'SubAccountCreate' | 'SubAccountTransfer', message: Record<string, unknown>, expiresAfter?: bigint) {
    const options = optionsText(expiresAfter === undefined ? undefined : { expiresAfter });
    const types = subAccountTypes(primaryType, options !== '');
    const full = options === '' ? message : { ...message, options };
    return this.wire(await master.signTypedData(typedData(this.opts.chainId, types, primaryType, full)));
  }

  /** The signed JSON body of POST /v1/subaccount/create. */
  async subAccountCreateBody(master: LocalAccount, name: string, p: { nonce?: bigint; expiresAfter?: bigint } = {}) {
    const nonce = p.nonce ?? this.nextNonce();
    const signature = await this.signSubAccount(master, 'SubAccountCreate', { owner: master.address, name, nonce }, p.expiresAfter);
    return { owner: master.address, name, nonce: Number(nonce), signature, ...(p.expiresAfter === undefined ? {} : { expiresAfter: Number(p.expiresAfter) }) };
  }

  async createSubAccount(master: LocalAccount, name: string, p: { nonce?: bigint; expiresAfter?: bigint } = {}) {
    return this.data('POST /v1/subaccount/create', { body: await this.subAccountCreateBody(master, name, p) });
  }

  /** The signed JSON body of POST /v1/subaccount/transfer: `amount` a USDC decimal string; deposit true is master → sub-account. */
  async subAccountTransferBody(master: LocalAccount, p: { subAccount: `0x${string}`; deposit: boolean; amount: string; nonce?: bigint; expiresAfter?: bigint }) {
    const nonce = p.nonce ?? this.nextNonce();
    const message = { owner: master.address, subAccount: p.subAccount, deposit: p.deposit, usdc: decimalUnits(p.amount, 6), nonce };
    const signature = await this.signSubAccount(master, 'SubAccountTransfer', message, p.expiresAfter);
    return {
      owner: master.address, subAccount: p.subAccount, deposit: p.deposit, amount: p.amount, nonce: Number(nonce), signature,
      ...(p.expiresAfter === undefined ? {} : { expiresAfter: Number(p.expiresAfter) }),
    };
  }

  async subAccountTransfer(master: LocalAccount, p: { subAccount: `0x${string}`; deposit: boolean; amount: string; nonce?: bigint; expiresAfter?: bigint }) {
    return this.data('POST /v1/subaccount/transfer', { body: await this.subAccountTransferBody(master, p) });
  }

  subAccounts = (master: string) => this.data('GET /v1/subaccounts/:master', { params: { master } });

  /** A REST digest signed by the master for its sub-account (bound to it: src/state/accounts/subaccounts.ts). */
  private async signFor(master: LocalAccount, subAccount: `0x${string}`, digest: Uint8Array) {
    return this.wire(await master.signMessage({ message: { raw: bytesToHex(subAccountActionDigest(subAccount, digest)) } }));
  }

  /** POST /v1/order as `subAccount`, signed by its master (without options: the digest signed here has none). */
  async placeOrderFor(master: LocalAccount, subAccount: `0x${string}`, o: Omit<RestOrder, keyof OrderOptions>, nonce = this.nextNonce()) {
    const digest = placeOrderDigest({ symbol: o.symbol, side: o.side, type: o.type, price: o.price ?? '', amount: o.amount, nonce });
    const fields = { symbol: o.symbol, side: o.side, type: o.type, ...(o.price !== undefined ? { price: o.price } : {}), amount: o.amount };
    return this.data('POST /v1/order', { body: { ...fields, trader: subAccount, nonce: Number(nonce), signature: await this.signFor(master, subAccount, digest) } });
  }

  /** DELETE /v1/order/{orderId} of `subAccount`, signed by its master. */
  async cancelOrderFor(master: LocalAccount, subAccount: `0x${string}`, orderId: string, nonce = this.nextNonce()) {
    const signature = await this.signFor(master, subAccount, cancelDigest(orderId, nonce));
    return this.data('DELETE /v1/order/:orderId', { params: { orderId }, body: { trader: subAccount, nonce: Number(nonce), signature } });
  }

  /** DELETE /v1/order/cancel-all of `subAccount`, signed by its master. */
  async cancelAllFor(master: LocalAccount, subAccount: `0x${string}`, nonce = this.nextNonce()) {
    const signature = await this.signFor(master, subAccount, cancelAllDigest(nonce));
    return this.data('DELETE /v1/order/cancel-all', { body: {
      trader: subAccount, nonce: Number(nonce), signature,
    } });
  }

  // ---- reads ------------------------------------------------------------------------

  health = () => this.request('GET /health');
  /** GET /v1/rate-limit: this client's IP budget and, with `address`, that signer's (null: unlimited). */
  rateLimit = (address?: string) => this.data('GET /v1/rate-limit', { query: { address } });
  price = (symbol: string) => this.request('GET /v1/price/:symbol', { params: { symbol } });
  prices = () => this.data('GET /v1/price/all');
  candles = (symbol: string, interval: CandleInterval = '1m', limit = 100) => this.request('GET /v1/candles/:symbol', { params: { symbol }, query: { interval, limit } });
  trades = (symbol: string, limit = 50) => this.data('GET /v1/trades/:symbol', { params: { symbol }, query: { limit } });
  orderbook = (symbol: string, depth = 20) => this.data('GET /v1/orderbook/:symbol', { params: { symbol }, query: { depth } });
  stats = () => this.data('GET /v1/stats');
  leaderboard = (type: 'agents' | 'all' = 'all') => this.data('GET /v1/leaderboard', { query: { type } });
  pairs = () => this.data('GET /v1/pairs');
  account = (address: string) => this.data('GET /v1/account/:address', { params: { address } });
  orders = (address: string) => this.data('GET /v1/orders/:address', { params: { address } });
  fills = (address: string) => this.data('GET /v1/fills/:address', { params: { address } });

  // ---- histories by page (decision 95) ----------------------------------------------

  tradesPage = (symbol: string, p: PageRequest = {}) => this.request('GET /v1/trades/:symbol', { params: { symbol }, query: pageQuery(p) });
  fillsPage = (address: string, p: PageRequest = {}) => this.request('GET /v1/fills/:address', { params: { address }, query: pageQuery(p) });
  ordersPage = (address: string, p: PageRequest = {}) => this.request('GET /v1/orders/:address', { params: { address }, query: pageQuery(p) });
  candlesPage = (symbol: string, interval: CandleInterval = '1m', p: PageRequest = {}) =>
    this.request('GET /v1/candles/:symbol', { params: { symbol }, query: { ...pageQuery(p), interval } });

  /** Every trade of a pair in the range, newest first, page after page. */
  allTrades = (symbol: string, p: Omit<PageRequest, 'cursor'> = {}) => this.pages((cursor) => this.tradesPage(symbol, { ...p, cursor }));
  /** Every fill of an address in the range, newest first. */
  allFills = (address: string, p: Omit<PageRequest, 'cursor'> = {}) => this.pages((cursor) => this.fillsPage(address, { ...p, cursor }));
  /** Every order an address placed in the range, newest first. */
  allOrders = (address: string, p: Omit<PageRequest, 'cursor'> = {}) => this.pages((cursor) => this.ordersPage(address, { ...p, cursor }));
  /** Every candle of the range, in the pages' order: newest page first, each page oldest first. */
  allCandles = (symbol: string, interval: CandleInterval = '1m', p: Omit<PageRequest, 'cursor'> = {}) => this.pages((cursor) => this.candlesPage(symbol, interval, { ...p, cursor }));

  /** The items of page after page, until a page's nextCursor is null. */
  private async *pages<T>(fetchPage: (cursor: string | undefined) => Promise<PageResult<T>>): AsyncGenerator<T, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield* page.data;
      if (page.nextCursor === null || page.nextCursor === undefined) return;
      cursor = page.nextCursor;
    }
  }
  order = (orderId: string) => this.data('GET /v1/order/:orderId', { params: { orderId } });
  nativeOrderbook = (pairId: number) => this.request('GET /orderbook/:pair_id', { params: { pair_id: String(pairId) } });
  openOrders = (address: string) => this.request('GET /orders/:address', { params: { address } });
  balance = (address: string) => this.request('GET /balance/:address', { params: { address } });
  reserves = () => this.request('GET /reserves');
  faucet = (address: string, amount = '1000') => this.data('POST /faucet', { body: { address, amount } });
}
