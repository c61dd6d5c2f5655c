/**
 * WebSocket at /ws: JSON-RPC over the socket (every HTTP method works here too) plus
 * subscriptions. eth_subscribe params: ["newHeads"] (Ethereum headers, as viem's
 * watchBlocks expects); topics the contract leaves open (contract [C-events-open]):
 * ["trades", {symbol}], ["orderbook", {symbol}], ["orders", {address}], ["fills", {address}], each answered first with a snapshot
 * (the book's resting orders, the trader's every open order, recent trades/fills); and
 * ["audit", {machine?, address?}] (docs/audit.md): each machine transition this node
 * records, as it is recorded, after a snapshot of the recent ones.
 * The first message of a subscription with a snapshot carries `isSnapshot: true`.
 * `{"method":"post","id":…,"request":{"type":"action","path":"/v1/order","payload":{…}}}`
 * (`"method": "DELETE"` in the request for the cancel routes) sends a signed action over the socket: it is answered by the very route of that path
 * (fastify inject, charged to the socket's IP), so every check of the REST route applies;
 * the answer is `{"channel":"post","id":…,"response":{"status":…,"body":{…the REST answer}}}`.
 * Bounds: 32 subscriptions per connection, 4 MiB of unsent data; a slower consumer is
 * closed with code 1008 and the reason. A ping every 30 s; no pong by the next, closed.
 * Rate limits (src/api/rate-limit.ts): sockets held per IP (beyond: closed 1008 at once),
 * and every message spends 1 of the IP's weight (beyond: an error answer with retryAfter).
 */
import type { RoutePlugin } from '../route-plugin';
import type { WebSocket } from 'ws';
import type { NodeApi } from '../node-api';
import type { Block } from '../../codec/block';
import type { BlockResult } from '../../state/apply';
import type { TradeExecutedEvent } from '../../state/events';
import { isAddress } from '../../util/bytes';
import { NO_TX_HASH } from '../../indexer/indexer';
import { formatBlock, q } from '../../rpc/format';
import { handleJsonRpc, type RpcContext } from '../../rpc/methods';
import { JSONRPC_ERRORS } from '../../rpc/constants';
import { plainJson, price6, size18, usdc } from '../common';
import { MACHINE_ROLES } from '../../../machines/index';
import type { AuditTransition } from '../../audit/transitions';
import type { RateLimiter } from '../rate-limit';
import { WS_AUDIT_SNAPSHOT_TRANSITIONS, WS_BOOK_DEPTH_ORDERS, WS_MAX_BUFFERED_BYTES, WS_MAX_SUBSCRIPTIONS, WS_PING_MS } from '../limits';


type Sub =
  | { kind: 'newHeads' }
  | { kind: 'trades'; symbol: string; pairId: number }
  | { kind: 'orderbook'; symbol: string; pairId: number }
  | { kind: 'orders'; address: string }
  | { kind: 'fills'; address: string }
  | { kind: 'audit'; machine?: string; address?: string };

interface Client {
  socket: WebSocket;
  subs: Map<string, Sub>;
  alive: boolean;
  /** The client's address, as its rate limits are keyed. */
  ip: string;
}


export class WsHub {
  readonly clients = new Set<Client>();
  private nextId = 1;
  dropped = 0;
  /** Commit time of the last block pushed, for the lag bench. */
  lastPushMs = 0;

  newId(): string {
    return q(this.nextId++);
  }

  send(c: Client, msg: unknown): void {
    if (c.socket.readyState !== c.socket.OPEN) return;
    if (c.socket.bufferedAmount > WS_MAX_BUFFERED_BYTES) {
      this.dropped++;
      c.socket.close(1008, 'slow consumer: send buffer full');
      return;
    }
    c.socket.send(JSON.stringify(msg));
  }

  notify(c: Client, id: string, result: unknown): void {
    this.send(c, { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } });
  }

  /** After each committed block: headers, trades, book changes, a trader's orders and fills. */
  onCommitted(node: NodeApi, block: Block, result: BlockResult): void {
    if (this.clients.size === 0) return;
    const g = node.genesis;
    let head: unknown;
    // The receipts' events by index, then the block's own (TWAP slices, scheduled cancels), as the indexer reads them.
    const events = result.receipts.flatMap((r) => (r.status === 'ok' ? r.events.map((e) => ({ e, txHash: r.txHash })) : []));
    for (const e of result.blockEvents ?? []) events.push({ e, txHash: NO_TX_HASH });
    const touchedPairs = new Set<number>();
    for (const { e } of events) if ('pairId' in e && typeof e.pairId === 'number') touchedPairs.add(e.pairId);
    for (const c of this.clients) {
      for (const [id, s] of c.subs) {
        switch (s.kind) {
          case 'newHeads':
            head ??= formatBlock({ block, receipts: result.receipts, stateRoot: result.stateRoot, chainId: g.chainId, gasPriceWei: g.fees.gasPriceWei, maxTxBytes: g.consensus.maxTxBytes, full: false, blockGasLimit: 30_000_000n });
            this.notify(c, id, head);
            break;
          case 'trades':
            for (const { e, txHash } of events) if (e.type === 'TradeExecuted' && e.pairId === s.pairId) this.notify(c, id, tradeItem(e, txHash, block.header.timestampMs));
            break;
          case 'orderbook':
            if (touchedPairs.has(s.pairId)) this.notify(c, id, bookSnapshot(node, s.pairId, s.symbol));
            break;
          case 'orders':
            for (const { e, txHash } of events) if ((e.type === 'OrderPlaced' || e.type === 'OrderUpdated' || e.type === 'OrderModified') && e.owner === s.address) this.notify(c, id, { ...plainJson<Record<string, unknown>>(e), txHash });
            break;
          case 'fills':
            for (const { e, txHash } of events) {
              if (e.type !== 'TradeExecuted' || (e.buyer !== s.address && e.seller !== s.address)) continue;
              this.notify(c, id, { ...tradeItem(e, txHash, block.header.timestampMs), side: e.buyer === s.address ? 'buy' : 'sell', usdcSettled: usdc(e.usdc) });
            }
            break;
        }
      }
    }
    this.lastPushMs = performance.now();
  }

  /** A machine transition the audit log recorded: to every `audit` subscription it matches. */
  onAudit(t: AuditTransition): void {
    for (const c of this.clients) {
      for (const [id, s] of c.subs) {
        if (s.kind !== 'audit') continue;
        if (s.machine !== undefined && s.machine !== t.machine) continue;
        if (s.address !== undefined && !t.addresses.includes(s.address)) continue;
        this.notify(c, id, t);
      }
    }
  }

  closeAll(): void {
    for (const c of this.clients) c.socket.close(1001, 'node stopping');
    this.clients.clear();
  }
}

function tradeItem(e: TradeExecutedEvent, txHash: string, timeMs: number) {
  return {
    symbol: e.symbol, price: price6(e.price), amount: size18(e.size), buyer: e.buyer, seller: e.seller,
    buyerIsAgent: e.buyerIsAgent, takerSide: e.takerSide === 0 ? 'buy' : 'sell', txHash, time: timeMs,
  };
}

function bookSnapshot(node: NodeApi, pairId: number, symbol: string) {
  const { bids, asks } = node.chain().state.book(pairId).topOrders(WS_BOOK_DEPTH_ORDERS);
  const level = (o: { id: bigint; price: bigint; remaining: bigint; isAgent: boolean; owner: string }) => ({ id: String(o.id), price: price6(o.price), amount: size18(o.remaining), isAgent: o.isAgent });
  return { symbol, bids: bids.map(level), asks: asks.map(level) };
}

async function subscribe(node: NodeApi, hub: WsHub, c: Client, params: unknown[]): Promise<{ id: string; snapshot?: unknown } | { error: string }> {
  if (c.subs.size >= WS_MAX_SUBSCRIPTIONS) return { error: `at most ${WS_MAX_SUBSCRIPTIONS} subscriptions per connection` };
  const [kind, opts] = params as [unknown, Record<string, unknown> | undefined];
  const state = node.chain().state;
  const pairOf = (symbol: unknown) => (typeof symbol === 'string' ? state.symbolToPair.get(symbol.toUpperCase()) : undefined);
  let sub: Sub;
  let snapshot: unknown;
  if (kind === 'newHeads') sub = { kind: 'newHeads' };
  else if (kind === 'trades' || kind === 'orderbook') {
    const pairId = pairOf(opts?.symbol);
    if (pairId === undefined) return { error: `${kind}: params[1].symbol must name a pair` };
    const symbol = state.pairs.get(String(pairId))!.symbol;
    sub = { kind, symbol, pairId };
    snapshot = kind === 'orderbook' ? bookSnapshot(node, pairId, symbol) : ((await (await node.indexAt())?.trades(symbol, 50)) ?? []);
  } else if (kind === 'orders' || kind === 'fills') {
    if (!isAddress(opts?.address)) return { error: `${kind}: params[1].address must be an address` };
    const address = (opts!.address as string).toLowerCase();
    sub = { kind, address };
    if (kind === 'orders') {
      snapshot = state.openOrderIds(address as `0x${string}`).map((id) => {
        const o = state.orders.get(String(id))!;
        return { orderId: String(o.id), pairId: o.pairId, side: o.side === 0 ? 'buy' : 'sell', price: price6(o.price), amount: size18(o.size), remaining: size18(o.remaining), status: o.remaining < o.size ? 'partial' : 'open' };
      });
    } else snapshot = (await (await node.indexAt())?.fills(address, 50)) ?? [];
  } else if (kind === 'audit') {
    const machine = opts?.machine;
    if (machine !== undefined && !MACHINE_ROLES.some((r) => r.id === machine)) return { error: 'audit: params[1].machine must name a machine of machines/index.ts' };
    if (opts?.address !== undefined && !isAddress(opts.address)) return { error: 'audit: params[1].address must be an address' };
    const address = opts?.address === undefined ? undefined : (opts.address as string).toLowerCase();
    sub = { kind: 'audit', machine: machine as string | undefined, address };
    snapshot = node.audit().recent({ machine: sub.machine, address, limit: WS_AUDIT_SNAPSHOT_TRANSITIONS });
  } else return { error: `unknown subscription ${String(kind).slice(0, 32)}; use newHeads, trades, orderbook, orders, fills or audit` };
  const id = hub.newId();
  c.subs.set(id, sub);
  return { id, snapshot };
}

/** A JSON object, read as a JSON-RPC request whose fields are still to be checked. */
function isRequestObject(v: unknown): v is { method?: unknown; params?: unknown; id?: unknown } {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** EIP-1474's "limit exceeded" JSON-RPC error code: a message over the IP's rate limit. */
const WS_LIMIT_EXCEEDED = -32005;

/** What a `post` message may name: a POST route's path (no scheme, query or fragment). */
const POST_PATH = /^\/[A-Za-z0-9/_-]{1,128}$/;

/** The route a `post` message is answered by: the server's own, with the socket's IP. */
export type InjectPost = (o: { method: 'POST' | 'DELETE'; url: string; payload: unknown; remoteAddress: string; headers: Record<string, string> }) => Promise<{ statusCode: number; body: string }>;

/**
 * A `post` message: the signed action's REST route answers it (the same schema, door,
 * rate limits and envelope); the answer goes back on the socket with the request's id.
 */
async function post(inject: InjectPost, hub: WsHub, c: Client, msg: { id?: unknown; request?: unknown }): Promise<void> {
  const id = msg.id ?? null;
  const req = msg.request as { type?: unknown; method?: unknown; path?: unknown; payload?: unknown } | undefined;
  const method = req?.method ?? 'POST';
  if (!req || typeof req !== 'object' || req.type !== 'action' || (method !== 'POST' && method !== 'DELETE') || typeof req.path !== 'string' || !POST_PATH.test(req.path) || req.path === '/ws' || !req.payload || typeof req.payload !== 'object') {
    hub.send(c, { channel: 'post', id, error: { code: JSONRPC_ERRORS.INVALID_PARAMS, message: 'post: request must be {"type":"action","method"?:"POST"|"DELETE","path":"/v1/…","payload":{…the REST body}}' } });
    return;
  }
  const r = await inject({ method, url: req.path, payload: req.payload, remoteAddress: c.ip, headers: { 'content-type': 'application/json' } });
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    body = r.body;
  }
  hub.send(c, { channel: 'post', id, response: { status: r.statusCode, body } });
}

export const wsRoutes: RoutePlugin<{ node: NodeApi; hub: WsHub; limiter: RateLimiter; inject: InjectPost }> = async (app, { node, hub, limiter, inject }) => {
  const ctx: RpcContext = node;
  const ping = setInterval(() => {
    for (const c of hub.clients) {
      if (!c.alive) {
        c.socket.terminate();
        hub.clients.delete(c);
        continue;
      }
      c.alive = false;
      c.socket.ping();
    }
  }, WS_PING_MS);
  const offAudit = node.audit().subscribe((t) => hub.onAudit(t));
  app.addHook('onClose', async () => {
    offAudit();
    clearInterval(ping);
    hub.closeAll();
  });

  app.get('/ws', {
    websocket: true,
    schema: {
      tags: ['rpc'],
      summary: 'WebSocket: JSON-RPC and subscriptions',
      description: 'Upgrade to a WebSocket carrying JSON-RPC 2.0: every HTTP method, plus eth_subscribe / eth_unsubscribe for newHeads and the exchange topics trades, orderbook, orders and fills (an orderbook subscription starts with a snapshot). At most 32 subscriptions per connection, 64 KiB per frame; a client that does not answer pings, or lets 4 MiB pile up unread, is closed.',
    },
  }, (socket, request) => {
    const c: Client = { socket, subs: new Map(), alive: true, ip: request.ip };
    if (!limiter.openSocket(c.ip)) {
      socket.close(1008, `at most ${limiter.config.wsConnectionsPerIp} WebSocket connections per IP`);
      return;
    }
    hub.clients.add(c);
    socket.on('pong', () => (c.alive = true));
    socket.on('close', () => {
      hub.clients.delete(c);
      limiter.closeSocket(c.ip);
    });
    socket.on('message', async (data: Buffer) => {
      const limited = limiter.chargeIpMessage(c.ip);
      if (limited) {
        hub.send(c, { jsonrpc: '2.0', id: null, error: { code: WS_LIMIT_EXCEEDED, message: limited.message, data: { code: limited.code, retryAfter: limited.retryAfterSec } } });
        return;
      }
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString('utf8'));
      } catch {
        hub.send(c, { jsonrpc: '2.0', id: null, error: { code: JSONRPC_ERRORS.PARSE, message: 'parse error' } });
        return;
      }
      if (isRequestObject(msg) && msg.method === 'eth_subscribe') {
        const r = await subscribe(node, hub, c, Array.isArray(msg.params) ? msg.params : []);
        if ('error' in r) hub.send(c, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: JSONRPC_ERRORS.INVALID_PARAMS, message: r.error } });
        else {
          hub.send(c, { jsonrpc: '2.0', id: msg.id ?? null, result: r.id });
          if (r.snapshot !== undefined) hub.notify(c, r.id, { snapshot: true, isSnapshot: true, data: r.snapshot });
        }
        return;
      }
      if (isRequestObject(msg) && msg.method === 'post') {
        await post(inject, hub, c, msg as { id?: unknown; request?: unknown });
        return;
      }
      if (isRequestObject(msg) && msg.method === 'eth_unsubscribe') {
        const id = Array.isArray(msg.params) ? msg.params[0] : undefined;
        hub.send(c, { jsonrpc: '2.0', id: msg.id ?? null, result: typeof id === 'string' && c.subs.delete(id) });
        return;
      }
      const out = await handleJsonRpc(ctx, msg);
      if (out !== undefined) hub.send(c, out);
    });
  });
};
