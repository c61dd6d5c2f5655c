/**
 * A typed client for the node's REST API: it signs exactly as the node verifies
 * (viem accounts: personal sign over the packed REST digest; EIP-712 for native
 * operations) and calls every route. Errors come back as ExchangeApiError carrying
 * the HTTP status and the envelope's code and message.
 */
import type { LocalAccount } from 'viem';
import { bytesToHex } from '../util/bytes';
import { batchDigest, cancelAllDigest, cancelDigest, placeOrderDigest } from '../crypto/exchange-digest';
import { eip712Domain, EIP712_TYPES } from '../crypto/eip712';

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

export interface RestOrder {
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: string;
  amount: string;
}

export interface OrderResult {
  orderId: string;
  symbol: string;
  side: string;
  price: string;
  amount: string;
  status: string;
  filled: string;
  txHash: string;
}

export interface NativeOrder {
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
}

export interface SubmittedResult {
  success: true;
  status: 'submitted';
  tx_hash: string;
}

export interface AgentListItem {
  address: string;
  mode: 'OFF' | 'REDUCE_ONLY' | 'ACTIVE';
  capsSet: boolean;
  sessionActive: boolean;
  trades: number;
  volume: string;
  firstSeen: number | null;
}

export interface PerpOpenParams {
  /** The owner; defaults to the signer. */
  wallet?: `0x${string}`;
  pairId: number;
  isLong: boolean;
  leverage: number;
  /** USDC decimal string: "20" is 20 USDC. */
  margin: string;
  nonce?: bigint;
}

export interface PerpOpenResult {
  positionId: string;
  pairId: number;
  symbol: string;
  isLong: boolean;
  side: 'long' | 'short';
  size: string;
  entryPrice: string;
  margin: string;
  leverage: number;
  liquidationPrice: string;
  fee: string;
  isAgent: boolean;
  txHash: string;
}

/** Units of 10^-decimals of a decimal string (throws on a malformed one). */
function decimalUnits(value: string, decimals: number): bigint {
  const m = /^(0|[1-9][0-9]*)(\.([0-9]+))?$/.exec(value);
  if (!m || (m[3] ?? '').length > decimals) throw new TypeError(`not a decimal with at most ${decimals} decimals: ${value}`);
  return BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt((m[3] ?? '').padEnd(decimals, '0') || '0');
}

/** Signatures on the wire: 65 bytes by default, or the 64-byte r‖s form. */
export type SignatureForm = 65 | 64;

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

  /** Raw call: the HTTP status and parsed body, never throws for HTTP errors. */
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; retryAfterSec?: number }> {
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
    return retryAfter === null ? { status: res.status, body: parsed } : { status: res.status, body: parsed, retryAfterSec: Number(retryAfter) };
  }

  private async ok<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.call(method, path, body);
    if (r.status >= 400) {
      const e = (r.body as any)?.error ?? {};
      throw new ExchangeApiError(r.status, e.code ?? 'HTTP_ERROR', e.message ?? String(r.body), r.body, r.retryAfterSec);
    }
    return r.body as T;
  }

  private async data<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.ok<{ data: T }>(method, path, body)).data;
  }

  // ---- signing -------------------------------------------------------------------

  async signOrder(account: LocalAccount, o: RestOrder, nonce = this.nextNonce()) {
    const digest = placeOrderDigest({ symbol: o.symbol, side: o.side, type: o.type, price: o.price ?? '', amount: o.amount, nonce });
    const signature = await account.signMessage({ message: { raw: bytesToHex(digest) } });
    return { ...o, trader: account.address, nonce: Number(nonce), signature: this.wire(signature) };
  }

  // ---- exchange REST: trading ------------------------------------------------------

  async placeOrder(account: LocalAccount, o: RestOrder, nonce?: bigint): Promise<OrderResult> {
    return this.data('POST', '/v1/order', await this.signOrder(account, o, nonce));
  }

  async placeBatch(account: LocalAccount, orders: Omit<RestOrder, 'type'>[], nonce = this.nextNonce()) {
    const items = orders.map((o) => ({ symbol: o.symbol, side: o.side, price: o.price ?? '', amount: o.amount }));
    const signature = await account.signMessage({ message: { raw: bytesToHex(batchDigest(items, nonce)) } });
    return this.data<{ trader: string; orders: any[]; txHash: string }>('POST', '/v1/order/batch', {
      orders: items, trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
    });
  }

  async cancelOrder(account: LocalAccount, orderId: string, nonce = this.nextNonce()) {
    const signature = await account.signMessage({ message: { raw: bytesToHex(cancelDigest(orderId, nonce)) } });
    return this.data<{ orderId: string; status: string; txHash: string }>('DELETE', `/v1/order/${orderId}`, {
      trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
    });
  }

  async cancelAll(account: LocalAccount, nonce = this.nextNonce()) {
    const signature = await account.signMessage({ message: { raw: bytesToHex(cancelAllDigest(nonce)) } });
    return this.data<{ trader: string; totalOrders: number; openOrders: number; cancelled: number; cancelledIds: string[] }>('DELETE', '/v1/order/cancel-all', {
      trader: account.address, nonce: Number(nonce), signature: this.wire(signature),
    });
  }

  // ---- native routes ----------------------------------------------------------------

  async placeNative(signer: LocalAccount, o: NativeOrder) {
    const nonce = o.nonce ?? this.nextNonce();
    const message = {
      owner: o.owner, pairId: o.pairId, side: o.side === 'Buy' ? 0 : 1, orderType: o.orderType === 'Limit' ? 1 : 0,
      price: o.price, size: o.size, leverage: o.leverage ?? 1, nonce,
    };
    const signature = await signer.signTypedData({ domain: eip712Domain(this.opts.chainId) as any, types: EIP712_TYPES as any, primaryType: 'PlaceOrder', message: message as any });
    return this.ok<{ success: true; order_id: string; status: string; tx_hash: string }>('POST', '/order/place', {
      pair_id: o.pairId, side: o.side, size: String(o.size), owner: o.owner, session_key: signer.address, order_type: o.orderType,
      price: String(o.price), leverage: o.leverage ?? 1, signature: this.wire(signature), nonce: Number(nonce),
    });
  }

  async cancelNative(signer: LocalAccount, owner: `0x${string}`, orderId: bigint, nonce = this.nextNonce()) {
    const signature = await signer.signTypedData({ domain: eip712Domain(this.opts.chainId) as any, types: EIP712_TYPES as any, primaryType: 'CancelOrder', message: { owner, orderId, nonce } as any });
    return this.ok<{ success: true; order_id: string; status: string }>('POST', '/order/cancel', {
      order_id: String(orderId), owner, session_key: signer.address, signature: this.wire(signature), nonce: Number(nonce),
    });
  }

  // ---- sessions and agents (also served on the node's session port) --------------------

  private async signTyped(signer: LocalAccount, primaryType: 'SessionCreate' | 'SessionRevoke' | 'SetAgentCaps' | 'SetAgentMode', message: Record<string, unknown>) {
    const signature = await signer.signTypedData({ domain: eip712Domain(this.opts.chainId) as any, types: EIP712_TYPES as any, primaryType, message: message as any });
    return this.wire(signature);
  }

  /** The signed JSON body of POST /session/create (`owner` defaults to the signer). */
  async sessionCreateBody(signer: LocalAccount, p: SessionCreateParams) {
    const nonce = p.nonce ?? this.nextNonce();
    const expiresAt = BigInt(p.expiresAt);
    const signature = await this.signTyped(signer, 'SessionCreate', { sessionKey: p.sessionKey, expiresAt, nonce });
    return { owner: p.owner ?? signer.address, session_key: p.sessionKey, expires_at: Number(expiresAt), nonce: Number(nonce), signature };
  }

  async createSession(signer: LocalAccount, p: SessionCreateParams) {
    return this.ok<SubmittedResult>('POST', '/session/create', await this.sessionCreateBody(signer, p));
  }

  async sessionRevokeBody(signer: LocalAccount, p: { owner?: `0x${string}`; nonce?: bigint } = {}) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    return { owner, nonce: Number(nonce), signature: await this.signTyped(signer, 'SessionRevoke', { owner, nonce }) };
  }

  async revokeSession(signer: LocalAccount, p: { owner?: `0x${string}`; nonce?: bigint } = {}) {
    return this.ok<SubmittedResult>('POST', '/session/revoke', await this.sessionRevokeBody(signer, p));
  }

  sessionValid = (owner: string, sessionKey: string) => this.ok<{ valid: boolean }>('GET', `/session/valid?owner=${owner}&session_key=${sessionKey}`);
  getSession = (owner: string) =>
    this.ok<{ owner: string; session_key: string; expires_at: number; created_at: number; nonce: number | string; state: 'active' }>('GET', `/session/get?owner=${owner}`);

  /** The signed JSON body of POST /agent/caps. */
  async agentCapsBody(signer: LocalAccount, c: AgentCapsParams) {
    const owner = c.owner ?? signer.address;
    const nonce = c.nonce ?? this.nextNonce();
    const message = {
      owner, maxLeverage: BigInt(c.maxLeverage), allowedOrderTypes: BigInt(c.allowedOrderTypes), maxInputPerTrade: c.maxInputPerTrade, maxTotalPosition: c.maxTotalPosition, nonce,
    };
    return {
      owner, max_leverage: Number(c.maxLeverage), allowed_order_types: c.allowedOrderTypes, max_input_per_trade: String(c.maxInputPerTrade),
      max_total_position: String(c.maxTotalPosition), nonce: Number(nonce), signature: await this.signTyped(signer, 'SetAgentCaps', message),
    };
  }

  async setAgentCaps(signer: LocalAccount, c: AgentCapsParams) {
    return this.ok<SubmittedResult>('POST', '/agent/caps', await this.agentCapsBody(signer, c));
  }

  async agentModeBody(signer: LocalAccount, mode: number, p: { owner?: `0x${string}`; nonce?: bigint } = {}) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    return { owner, mode, nonce: Number(nonce), signature: await this.signTyped(signer, 'SetAgentMode', { owner, mode: BigInt(mode), nonce }) };
  }

  /** 0 OFF, 1 REDUCE_ONLY, 2 ACTIVE. */
  async setAgentMode(signer: LocalAccount, mode: number, p: { owner?: `0x${string}`; nonce?: bigint } = {}) {
    return this.ok<SubmittedResult>('POST', '/agent/mode', await this.agentModeBody(signer, mode, p));
  }

  /** agentCaps(owner) as the 0x080B precompile returns it. */
  agentCaps = (owner: string) =>
    this.ok<{ owner: string; mode: 0 | 1 | 2; mode_name: string; caps_set: boolean; max_leverage: string; allowed_order_types: number; max_input_per_trade: string; max_total_position: string }>('GET', `/agent/caps?owner=${owner}`);
  agents = (limit = 100) => this.data<AgentListItem[]>('GET', `/v1/agents?limit=${limit}`);
  agent = (address: string) => this.data<AgentListItem & { isAgent: boolean; caps: unknown }>('GET', `/v1/agents/${address}`);

  /** POST /withdraw: `amount` in USDC units the destination receives; signed by `signer` for `owner`. */
  async withdraw(signer: LocalAccount, p: { owner?: `0x${string}`; amount: bigint; destination: `0x${string}`; nonce?: bigint }) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    const signature = await signer.signTypedData({
      domain: eip712Domain(this.opts.chainId) as any, types: EIP712_TYPES as any, primaryType: 'Withdraw',
      message: { owner, amount: p.amount, destination: p.destination, nonce } as any,
    });
    return this.ok<{ success: true; status: string; withdrawal_id: string; amount: string; fee: string; tx_hash: string }>('POST', '/withdraw', {
      owner, amount: String(p.amount), destination: p.destination, nonce: Number(nonce), signature: this.wire(signature),
      ...(signer.address.toLowerCase() !== owner.toLowerCase() ? { session_key: signer.address } : {}),
    });
  }

  // ---- perpetuals and the pool ----------------------------------------------------------

  /**
   * The signed body of POST /v1/perp/open: `signer` personal-signs JSON.stringify of
   * {action, wallet, pairId, isLong, leverage, margin, nonce} (contract [D-signatures-perp]). `wallet`
   * defaults to the signer; a session key signing for its owner adds `sessionWallet`.
   */
  async perpOpenBody(signer: LocalAccount, p: PerpOpenParams) {
    const payload = { action: 'perp_open', wallet: p.wallet ?? signer.address, pairId: p.pairId, isLong: p.isLong, leverage: p.leverage, margin: p.margin, nonce: Number(p.nonce ?? this.nextNonce()) };
    return this.signPerp(signer, payload);
  }

  async perpOpen(signer: LocalAccount, p: PerpOpenParams) {
    return this.data<PerpOpenResult>('POST', '/v1/perp/open', await this.perpOpenBody(signer, p));
  }

  /** POST /v1/perp/close; `size` "0" (default) closes the whole position. */
  async perpCloseBody(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; size?: string; nonce?: bigint }) {
    const payload = { action: 'perp_close', wallet: p.wallet ?? signer.address, positionId: p.positionId, size: p.size ?? '0', nonce: Number(p.nonce ?? this.nextNonce()) };
    return this.signPerp(signer, payload);
  }

  async perpClose(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; size?: string; nonce?: bigint }) {
    return this.data<{ positionId: string; status: 'closed' | 'reduced'; closedSize: string; remainingSize: string; price: string; pnl: string; funding: string; fee: string; payout: string; txHash: string }>(
      'POST', '/v1/perp/close', await this.perpCloseBody(signer, p),
    );
  }

  /** POST /v1/perp/tpsl; "" unsets a target. */
  async perpTpslBody(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; takeProfit: string; stopLoss: string; nonce?: bigint }) {
    const payload = { action: 'perp_tpsl', wallet: p.wallet ?? signer.address, positionId: p.positionId, takeProfit: p.takeProfit, stopLoss: p.stopLoss, nonce: Number(p.nonce ?? this.nextNonce()) };
    return this.signPerp(signer, payload);
  }

  async perpTpsl(signer: LocalAccount, p: { wallet?: `0x${string}`; positionId: string; takeProfit: string; stopLoss: string; nonce?: bigint }) {
    return this.data<{ positionId: string; takeProfit: string; stopLoss: string; txHash: string }>('POST', '/v1/perp/tpsl', await this.perpTpslBody(signer, p));
  }

  private async signPerp<T extends { wallet: string }>(signer: LocalAccount, payload: T) {
    const signature = this.wire(await signer.signMessage({ message: JSON.stringify(payload) }));
    const session = signer.address.toLowerCase() !== payload.wallet.toLowerCase() ? { sessionWallet: signer.address } : {};
    return { ...payload, signature, ...session };
  }

  /** POST /v1/pool/deposit: `amount` a USDC decimal string; EIP-712 PoolDeposit over its units. */
  async poolDeposit(signer: LocalAccount, p: { owner?: `0x${string}`; amount: string; nonce?: bigint }) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    const units = decimalUnits(p.amount, 6);
    const signature = await signer.signTypedData({ domain: eip712Domain(this.opts.chainId) as any, types: EIP712_TYPES as any, primaryType: 'PoolDeposit', message: { owner, amount: units, nonce } as any });
    return this.data<{ owner: string; amount: string; shares: string; poolValue: string; unlockMs: number; txHash: string }>('POST', '/v1/pool/deposit', {
      owner, amount: p.amount, nonce: Number(nonce), signature: this.wire(signature),
    });
  }

  /** POST /v1/pool/withdraw: burns `shares` (integer string). */
  async poolWithdraw(signer: LocalAccount, p: { owner?: `0x${string}`; shares: bigint; nonce?: bigint }) {
    const owner = p.owner ?? signer.address;
    const nonce = p.nonce ?? this.nextNonce();
    const signature = await signer.signTypedData({ domain: eip712Domain(this.opts.chainId) as any, types: EIP712_TYPES as any, primaryType: 'PoolWithdraw', message: { owner, shares: p.shares, nonce } as any });
    return this.data<{ owner: string; shares: string; amount: string; poolValue: string; txHash: string }>('POST', '/v1/pool/withdraw', {
      owner, shares: String(p.shares), nonce: Number(nonce), signature: this.wire(signature),
    });
  }

  perpMarkets = () => this.data<any[]>('GET', '/v1/perp/markets');
  perpPairs = () => this.data<{ pairId: number; symbol: string; maxLeverage: number; maintenanceMarginBps: number; openInterestCapBps: number; markets: ('spot' | 'perp')[]; oracleSource: string }[]>('GET', '/api/pairs/perps');
  positions = (address: string) => this.data<any[]>('GET', `/v1/perp/positions/${address}`);
  funding = () => this.data<any[]>('GET', '/v1/funding');
  pool = (address?: string) => this.data<any>('GET', `/v1/pool${address ? `?address=${address}` : ''}`);
  engineStats = () => this.data<any>('GET', '/stats');

  // ---- reads ------------------------------------------------------------------------

  health = () => this.ok<{ status: string; chain: string; chainId: number }>('GET', '/health');
  price = (symbol: string) => this.ok<{ symbol: string; pair: string; pairId: number; price: string }>('GET', `/v1/price/${symbol}`);
  prices = () => this.data<{ symbol: string; pair: string; pairId: number; price: string }[]>('GET', '/v1/price/all');
  candles = (symbol: string, interval = '1m', limit = 100) => this.ok<{ data: any[]; symbol: string; interval: string; count: number }>('GET', `/v1/candles/${symbol}?interval=${interval}&limit=${limit}`);
  trades = (symbol: string, limit = 50) => this.data<any[]>('GET', `/v1/trades/${symbol}?limit=${limit}`);
  orderbook = (symbol: string, depth = 20) => this.data<{ symbol: string; midPrice: string; bids: any[]; asks: any[] }>('GET', `/v1/orderbook/${symbol}?depth=${depth}`);
  stats = () => this.data<{ totalPairs: number; totalOrders: number; tvl: string; agentTrades: number; humanTrades: number }>('GET', '/v1/stats');
  leaderboard = (type: 'agents' | 'all' = 'all') => this.data<any[]>('GET', `/v1/leaderboard?type=${type}`);
  pairs = () => this.data<{ pairId: number; symbol: string; markets: ('spot' | 'perp')[]; oracleSource: string }[]>('GET', '/v1/pairs');
  account = (address: string) => this.data<{ address: string; freeBalance: string; lockedBalance: string; totalBalance: string; isAgent: boolean }>('GET', `/v1/account/${address}`);
  orders = (address: string) => this.data<any[]>('GET', `/v1/orders/${address}`);
  fills = (address: string) => this.data<any[]>('GET', `/v1/fills/${address}`);
  order = (orderId: string) => this.data<any>('GET', `/v1/order/${orderId}`);
  nativeOrderbook = (pairId: number) => this.ok<{ pair_id: number; bids: any[]; asks: any[] }>('GET', `/orderbook/${pairId}`);
  openOrders = (address: string) => this.ok<{ address: string; orders: any[] }>('GET', `/orders/${address}`);
  balance = (address: string) => this.ok<{ total: number; free_balance: number; locked: number; available: number; reserved: number; in_positions: number }>('GET', `/balance/${address}`);
  reserves = () => this.ok<{ total_usdc_vault: number; vlp_pool_value: number }>('GET', '/reserves');
  faucet = (address: string, amount = '1000') => this.data<{ txHash: string; height: number }>('POST', '/faucet', { address, amount });
}
