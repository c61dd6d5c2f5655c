/**
 * 503 NOT_SYNCED while the node catches up (issue 39 item 6; contract [D-envelope-error]:
 * "503 node not synced"). A node whose head is well behind the head its peers show
 * (NodeApi.catchingUp: more than CATCHING_UP_LAG_BLOCKS, about a second of blocks) would
 * answer a balance, an orderbook or an account from a state minutes old as if it were
 * current; a client cannot tell such a 200 from a true one. So every GET route answers
 * 503 NOT_SYNCED then, naming the node's head and the network's, except the routes that
 * do not read the head's state: the node's own condition (/health, /status, /metrics,
 * the network and peers, the rate limits, the audit log), blocks it holds (a block is
 * the same at any head; one above its head is 404), the chain's fixed configuration,
 * the pages and documents, and the WebSocket (its messages carry their heights). Writes
 * pass: a full node relays a transaction to the validators whatever its own head.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './envelope';
import type { NodeApi } from './node-api';

/** GET routes (fastify's patterns) that answer while the node catches up. */
export const ANSWERED_WHILE_CATCHING_UP: ReadonlySet<string> = new Set([
  '/health',
  '/status',
  '/metrics',
  '/chain-config',
  '/block/:height',
  '/v1/network',
  '/v1/network/peers',
  '/v1/rate-limit',
  '/v1/audit/machines',
  '/v1/audit/instances',
  '/v1/audit/transitions',
  '/audit',
  '/docs',
  '/openapi.json',
  '/ws',
]);

/** How long a client should wait before asking again: the catch-up goes on at hundreds of blocks a second. */
const RETRY_AFTER_SEC = 1;

/** Installs the guard on a server (the main API and the session-and-agent port). */
export function installCatchingUpGuard(app: FastifyInstance, node: Pick<NodeApi, 'catchingUp'>): void {
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET') return;
    const route = request.routeOptions.url;
    // An unknown path is 404 whatever the head.
    if (route === undefined || ANSWERED_WHILE_CATCHING_UP.has(route)) return;
    const behind = node.catchingUp();
    if (behind === null) return;
    throw new ApiError(
      503,
      'NOT_SYNCED',
      `this node is catching up: its head is ${behind.height}, the network's ${behind.target}; what it would answer is ${behind.target - behind.height} blocks old. Retry shortly, or ask a node at the head (GET /status shows its sync)`,
      RETRY_AFTER_SEC,
    );
  });
}
