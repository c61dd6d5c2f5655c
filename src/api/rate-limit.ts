/**
 * The API's rate limits (issue 24 deliver 4; decision 98; docs/api.md "Rate limits").
 * Budgets of weight per window, counted in fixed windows (a key's window starts with
 * its first request and lasts `windowMs`):
 *   - per IP, on every route and every WebSocket message: @fastify/rate-limit's
 *     onRequest hook, keyed by the client's address (IPv6 by /64, the plugin's
 *     normalizeIP), weight by route (ROUTE_WEIGHTS, else 1);
 *   - per signer address, on signed actions: charged after the door verified the
 *     signature (so nobody spends another address's budget by naming it), before the
 *     mempool: 1 per action, or 1 per item of an action that carries a list (a batch
 *     of orders counts each order);
 *   - WebSocket connections held at once per IP.
 * A request over a budget is answered 429 `RATE_LIMITED` in the error envelope with a
 * `Retry-After` header (whole seconds until the window ends); refused requests count
 * too, so a client that ignores Retry-After stays refused until the window ends.
 * Limits are the node's own (NodeConfig.rateLimit, flags of `start`), not consensus:
 * they protect this node's API, and a transaction gossiped from another node is not
 * charged again.
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './envelope';

export interface RateLimitConfig {
  /** Length of one counting window. */
  windowMs: number;
  /** Weight one IP may spend per window on every route and WebSocket message; 0: no limit. */
  ipWeightPerWindow: number;
  /** Weight one signer address may spend per window on signed actions; 0: no limit. */
  addressWeightPerWindow: number;
  /** WebSocket connections one IP may hold at once; 0: no limit. */
  wsConnectionsPerIp: number;
}

/**
 * The defaults (a node given no rateLimit config): Hyperliquid's REST budget, 1200 weight
 * a minute per IP; the same per address; 10 sockets per IP (a client needs one, a
 * few for separate strategies).
 */
export const RATE_LIMIT_DEFAULTS: RateLimitConfig = { windowMs: 60_000, ipWeightPerWindow: 1200, addressWeightPerWindow: 1200, wsConnectionsPerIp: 10 };

/** No limit at all (the in-process test nodes' setting, `--no-rate-limit`). */
export const RATE_LIMIT_OFF: RateLimitConfig = { windowMs: 60_000, ipWeightPerWindow: 0, addressWeightPerWindow: 0, wsConnectionsPerIp: 0 };

/** Keys one store keeps at most; the oldest window is forgotten first (a forgotten key starts a fresh window). */
export const RATE_LIMIT_KEYS_MAX = 100_000;

/**
 * Per-IP weight of the routes that cost more than 1 (`METHOD url-pattern`): answers that
 * scan a log or build a large document.
 */
export const ROUTE_WEIGHTS: Readonly<Record<string, number>> = {
  'GET /v1/audit/transitions': 5,
  'GET /v1/audit/instances': 5,
  'GET /openapi.json': 5,
  'GET /metrics': 5,
};

/**
 * Separates an IP key from the weight a weighted route's key generator appends for the
 * store (`#` occurs in no IP address); a key without it weighs 1.
 */
const WEIGHT_MARK = '#';

/**
 * The key of a client address's budget: an IPv4 address as it is, IPv6 by its /64
 * (@fastify/rate-limit's normalizeIP; an IPv4-mapped IPv6 address becomes its IPv4 one).
 * An IPv4 address has no `:`, so it skips normalizeIP's IPv6 test (a long regular
 * expression: about 1 µs a request, a sixth of the limiter's cost); an IPv6 client's key is
 * computed once and remembered.
 */
export function clientKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  let key = ipv6Keys.get(ip);
  if (key === undefined) {
    if (ipv6Keys.size >= IPV6_KEYS_MAX) ipv6Keys.clear();
    key = normalizeIP(ip);
    ipv6Keys.set(ip, key);
  }
  return key;
}

/** IPv6 addresses already normalized (a client keeps its address across requests), forgotten all at once when full. */
const ipv6Keys = new Map<string, string>();
const IPV6_KEYS_MAX = 10_000;

export function routeWeight(method: string, url: string | undefined): number {
  return ROUTE_WEIGHTS[`${method} ${url}`] ?? 1;
}

interface Window {
  current: number;
  startMs: number;
}

/** One key's budget as a client reads it (GET /v1/rate-limit). */
export interface BudgetView {
  limit: number;
  used: number;
  remaining: number;
  /** Whole seconds until the window ends (0: no window open, the whole budget is there). */
  resetSec: number;
  windowMs: number;
}

/**
 * A fixed-window counter per key that adds a weight per hit: @fastify/rate-limit's store
 * interface (`incr(key, cb, windowMs, max)`), where a weighted route's key ends with
 * `#<weight>`, and a direct `charge` for the per-address and WebSocket budgets. One
 * store is shared by every route (`child` returns it), so an IP has one budget across
 * the API.
 */
export class WeightedWindowStore {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly maxKeys = RATE_LIMIT_KEYS_MAX) {}

  /** Adds `weight` to `key`'s window: the weight spent in it so far and the milliseconds left. */
  charge(key: string, weight: number, windowMs: number, nowMs = Date.now()): { current: number; ttl: number } {
    let w = this.windows.get(key);
    if (!w || w.startMs + windowMs <= nowMs) {
      if (w) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      w = { current: 0, startMs: nowMs };
      // Insertion order is window-start order: the first key is the oldest window.
      this.windows.set(key, w);
    }
    w.current += weight;
    return { current: w.current, ttl: w.startMs + windowMs - nowMs };
  }

  /** What `key` has spent in its open window, without charging: 0 and no time left when none is open. */
  peek(key: string, windowMs: number, nowMs = Date.now()): { current: number; ttl: number } {
    const w = this.windows.get(key);
    return !w || w.startMs + windowMs <= nowMs ? { current: 0, ttl: 0 } : { current: w.current, ttl: w.startMs + windowMs - nowMs };
  }

  incr(key: string, cb: (err: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
    const at = key.indexOf(WEIGHT_MARK);
    cb(null, at < 0 ? this.charge(key, 1, timeWindow) : this.charge(key.slice(0, at), Number(key.slice(at + 1)), timeWindow));
  }

  child(): WeightedWindowStore {
    return this;
  }
}

/** A 429 answer: the envelope's RATE_LIMITED, its Retry-After in whole seconds. */
export function rateLimited(message: string, ttlMs: number): ApiError {
  return new ApiError(429, 'RATE_LIMITED', message, Math.max(1, Math.ceil(ttlMs / 1000)));
}

/**
 * The node's limiter: the per-IP hook on a fastify app, the per-address charge of signed
 * actions, the WebSocket connection count and per-message charge.
 */
export class RateLimiter {
  /** Per-IP windows: the plugin's store, and the WebSocket messages'. */
  readonly ipStore = new WeightedWindowStore();
  /** Per-signer windows of signed actions. */
  readonly addressStore = new WeightedWindowStore();
  private readonly sockets = new Map<string, number>();

  constructor(readonly config: RateLimitConfig) {}

  /** The client address an IP budget is keyed by (IPv6 by /64). */
  ipKey(ip: string): string {
    return clientKey(ip);
  }

  /**
   * Registers @fastify/rate-limit on `app` (every route, onRequest): the per-IP budget.
   * Nothing when the per-IP limit is 0.
   *
   * Built for the cost per request (docs/performance.md "Rate-limit overhead"): the key is
   * the client address (`clientKey`); only the few heavier routes get a key generator of
   * their own (set on the route before the plugin sees it) that appends their weight, so
   * no request looks its route up. The `x-ratelimit-*` headers go out on a 429 only, with
   * `Retry-After`; a client reads its budget from GET /v1/rate-limit.
   */
  async install(app: FastifyInstance): Promise<void> {
    const { ipWeightPerWindow: max, windowMs } = this.config;
    if (max === 0) return;
    const store = this.ipStore;
    // Before the plugin's own onRoute hook, which reads the route's rateLimit config.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const weight = Math.max(...methods.map((m) => routeWeight(m, route.url)));
      if (weight === 1) return;
      const mark = `${WEIGHT_MARK}${weight}`;
      route.config = { ...(route.config as object), rateLimit: { keyGenerator: (req: FastifyRequest) => `${clientKey(req.ip)}${mark}` } } as never;
    });
    await app.register(rateLimit, {
      global: true,
      hook: 'onRequest',
      max,
      timeWindow: windowMs,
      // The plugin's stores are constructed with `new`: hand it the shared one.
      store: function SharedStore() {
        return store;
      } as never,
      keyGenerator: (req: FastifyRequest) => clientKey(req.ip),
      addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
      // The plugin has set Retry-After and the x-ratelimit-* headers; the envelope's handler writes the body.
      errorResponseBuilder: (req, ctx) =>
        new ApiError(429, 'RATE_LIMITED', `rate limit: this IP spent its ${ctx.max} weight of the ${windowMs / 1000} s window; retry in ${ctx.after}`),
    });
  }

  /** The budgets as a client reads them: its IP's (when limited), and a signer's when asked. */
  budgets(ip: string, address?: string): { ip: BudgetView | null; address?: BudgetView | null } {
    const { ipWeightPerWindow, addressWeightPerWindow, windowMs } = this.config;
    const view = (limit: number, spent: { current: number; ttl: number }): BudgetView => ({
      limit,
      used: spent.current,
      remaining: Math.max(0, limit - spent.current),
      resetSec: Math.ceil(spent.ttl / 1000),
      windowMs,
    });
    const out: { ip: BudgetView | null; address?: BudgetView | null } = {
      ip: ipWeightPerWindow === 0 ? null : view(ipWeightPerWindow, this.ipStore.peek(this.ipKey(ip), windowMs)),
    };
    if (address !== undefined) out.address = addressWeightPerWindow === 0 ? null : view(addressWeightPerWindow, this.addressStore.peek(address.toLowerCase(), windowMs));
    return out;
  }

  /** Charges a signed action of `weight` to `signer`; throws 429 RATE_LIMITED beyond its budget. */
  chargeAddress(signer: string, weight: number): void {
    const { addressWeightPerWindow: max, windowMs } = this.config;
    if (max === 0) return;
    const { current, ttl } = this.addressStore.charge(signer.toLowerCase(), weight, windowMs);
    if (current > max) throw rateLimited(`rate limit: ${signer} spent its ${max} weight of signed actions in the ${windowMs / 1000} s window; retry in ${Math.ceil(ttl / 1000)} s`, ttl);
  }

  /** Charges one WebSocket message (weight 1) to the IP's budget: the refusal, or undefined. */
  chargeIpMessage(ip: string): ApiError | undefined {
    const { ipWeightPerWindow: max, windowMs } = this.config;
    if (max === 0) return undefined;
    const { current, ttl } = this.ipStore.charge(this.ipKey(ip), 1, windowMs);
    return current > max ? rateLimited(`rate limit: this IP spent its ${max} weight of the ${windowMs / 1000} s window; retry in ${Math.ceil(ttl / 1000)} s`, ttl) : undefined;
  }

  /** A WebSocket opens: false (and nothing counted) when the IP holds its limit already. */
  openSocket(ip: string): boolean {
    const key = this.ipKey(ip);
    const held = this.sockets.get(key) ?? 0;
    if (this.config.wsConnectionsPerIp > 0 && held >= this.config.wsConnectionsPerIp) return false;
    this.sockets.set(key, held + 1);
    return true;
  }

  closeSocket(ip: string): void {
    const key = this.ipKey(ip);
    const held = (this.sockets.get(key) ?? 1) - 1;
    if (held <= 0) this.sockets.delete(key);
    else this.sockets.set(key, held);
  }
}

/**
 * The per-address weight of a signed action: 1, or the length of the longest list its
 * body carries (a batch of n orders weighs n).
 */
export function actionWeight(body: unknown): number {
  let weight = 1;
  if (body && typeof body === 'object') for (const v of Object.values(body)) if (Array.isArray(v) && v.length > weight) weight = v.length;
  return weight;
}
