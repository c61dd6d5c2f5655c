/**
 * The API concern: serves REST, JSON-RPC and the WebSocket on {base_url} (and the
 * session-and-agent routes on their own port). It builds the node's face the routes see
 * (src/api/node-api.ts: NodeApi) from its dependencies (ApiDeps) and registers the routes with
 * it; the routes import nothing of actors or src/node. Requests that submit a
 * transaction wait until the block carrying it is final; the chain actor's 'applied'
 * and 'committed' messages arrive in this actor's mailbox and release them.
 *
 * A full disk (decision 121): while the node's storage guard is `full`, every write
 * (submitAndWait, submit) is refused 503 STORAGE_UNAVAILABLE with Retry-After before it
 * reaches the mempool, and the requests waiting when the disk filled are answered the
 * same way (this node can no longer tell when they are final: the client asks another
 * node, or this one after Retry-After, by hash). Reads go on.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { decodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { ApiError, installErrorHandling, installValidation } from '../../src/api/envelope';
import { checkResponsesFromEnv, installOpenApi, installReplySerializer } from '../../src/api/openapi';
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import { healthRoutes } from '../../src/api/routes/health';
import { rpcRoutes } from '../../src/api/routes/rpc';
import { wsRoutes, WsHub } from '../../src/api/routes/ws';
import { chainInfoRoutes } from '../../src/api/routes/chain-info';
import { validatorRoutes } from '../../src/api/routes/validators';
import { governanceRoutes } from '../../src/api/routes/governance';
import { statusRoutes } from '../../src/api/routes/status';
import { blockRoutes } from '../../src/api/routes/block';
import { faucetRoutes } from '../../src/api/routes/faucet';
import { txRoutes } from '../../src/api/routes/tx';
import { tradingRoutes } from '../../src/api/routes/trading';
import { marketRoutes } from '../../src/api/routes/market';
import { nativeRoutes } from '../../src/api/routes/native';
import { withdrawRoutes } from '../../src/api/routes/withdraw';
import { twapRoutes } from '../../src/api/routes/twap';
import { perpRoutes } from '../../src/api/routes/perps';
import { bridgeRoutes } from '../../src/api/routes/bridge';
import { sessionRoutes } from '../../src/api/routes/sessions';
import { subAccountRoutes } from '../../src/api/routes/subaccounts';
import { metricsRoutes } from '../../src/api/routes/metrics';
import { auditRoutes } from '../../src/api/routes/audit';
import { AuditLog } from '../../src/audit/transitions';
import { PROMETHEUS_CONTENT_TYPE, type NodeMetrics } from '../../src/metrics/node-metrics';
import type { Logger } from '../../src/util/log';
import type { NodeConfig } from '../../src/config/node-config';
import type { Chain } from '../../src/chain/chain';
import type { Indexer } from '../../src/indexer/indexer';
import { TxError } from '../../src/state/errors';
import { validatorRecord } from '../../src/state/validators/records';
import { freeBytesOf, type StorageGuard } from '../../src/storage/storage-guard';
import { bytesToHex, type Address } from '../../src/util/bytes';
import { privateKeyToAddress } from '../../src/crypto/secp256k1';
import type { FinalTx } from '../../src/api/final';
import { BODY_LIMIT_BYTES, BRIDGE_BALANCE_WAIT_MS, CATCHING_UP_LAG_BLOCKS, INDEX_WAIT_MS, WS_MAX_PAYLOAD_BYTES } from '../../src/api/limits';
import { installCatchingUpGuard } from '../../src/api/catching-up';
import { BridgeClient } from '../../src/bridge/evm';
import type { NodeApi } from '../../src/api/node-api';
import type { ActorBehavior, ActorRef } from '../actor';
import type { BridgeStats } from '../bridge/messages';
import type { ConsensusInfo } from '../consensus/messages';
import type { MempoolMsg, PoolEntry } from '../mempool/messages';
import type { P2PInfo, P2PPeer } from '../p2p/messages';
import { pendingDuplicate } from '../mempool/pool';
import type { ApiMsg } from './messages';
import { CodecError } from '../../src/codec/binary';
import { rateLimitRoutes } from '../../src/api/routes/rate-limit';
import { NO_SIGNATURES, type SignatureCounts } from '../../src/state/signer-cache';
import { actionWeight, RATE_LIMIT_DEFAULTS, RateLimiter } from '../../src/api/rate-limit';

/**
 * What the API uses of the node (built by src/node/node.ts): what NodeApi serves is read
 * from these. The views of other actors are getters, read per request (the p2p actor's
 * transport, consensus's view and the bridge's counters exist once those actors run).
 */
export interface ApiDeps {
  /** Its listeners and rate limits, the finality wait, and what the routes show of the node (genesis, key, bridge file, data folder). */
  config: Pick<NodeConfig, 'api' | 'sessionApi' | 'rateLimit' | 'finalityTimeoutMs' | 'genesis' | 'genesisHash' | 'blockTimeMs' | 'validatorKey' | 'bridge' | 'dataDir'>;
  log: Logger;
  /** The node's software version (GET /status, /openapi.json). */
  version: string;
  /** The executed chain, read-only (the chain actor's; open before the actors start). */
  chain: () => Chain;
  /** The open index; undefined while it (re)starts. */
  indexer: () => Indexer | undefined;
  /** The mempool, which takes every transaction submitted. */
  actors: { mempool: ActorRef<MempoolMsg> };
  /** GET /metrics and the API's latency observed into it; absent in tests (an empty text). */
  metrics?: Pick<NodeMetrics, 'apiRequest' | 'text'>;
  /** GET /v1/audit/transitions and the `audit` topic; absent in tests (an empty log). */
  audit?: AuditLog;
  /** The disk as the node's writers found it (decision 121): writes refused while full; absent in tests. */
  storage?: Pick<StorageGuard, 'full' | 'report' | 'retryAfterSec' | 'onChange'>;
  /** Consensus's view (a solo node, or one without p2p: none). */
  consensusInfo?(): ConsensusInfo | undefined;
  /** The p2p transport's identity, peers and counters, and the peers with their heads (none without p2p). */
  p2pInfo?(): P2PInfo | undefined;
  p2pPeers?(): Promise<P2PPeer[] | undefined>;
  /** The bridge actor's counters (a node that runs none: none). */
  bridgeStats?(): BridgeStats | undefined;
  /** Each actor's lifecycle state and mailbox counters. */
  actorStats(): Record<string, unknown>;
  /** Transaction signatures recovered and reused (the mempool's cache). */
  signatureStats?(): SignatureCounts;
}

export function apiBehavior(deps: ApiDeps, onListening?: (address: string) => void): ActorBehavior<ApiMsg> {
  let app: FastifyInstance | undefined;
  let api: NodeApi | undefined;
  const wsHub = new WsHub();
  /** The API's rate limits (src/api/rate-limit.ts), made at start from the node's config. */
  let limiter: RateLimiter | undefined;
  /** The session-and-agent port (config.sessionApi), when configured. */
  let sessionApp: FastifyInstance | undefined;
  const waiters = new Map<string, { resolve(v: FinalTx): void; reject(e: unknown): void; timer: NodeJS.Timeout }>();
  let unsubscribeStorage: (() => void) | undefined;

  /** Refuses a write while the disk is full (decision 121). */
  const checkWritable = () => {
    const g = deps.storage;
    if (g?.full) throw storageUnavailable(g.report().folder, g.retryAfterSec);
  };

  const submitAndWait = async (input: Uint8Array | Tx, signer?: Address): Promise<FinalTx> => {
    checkWritable();
    let tx: Tx;
    try {
      tx = input instanceof Uint8Array ? decodeTx(input, deps.config.genesis.consensus.maxTxBytes) : input;
    } catch (err) {
      const bytes = input as Uint8Array;
      if (err instanceof CodecError) {
        deps.log.info({ code: err.code, reason: err.message, bytes: bytes.length }, 'malformed transaction refused at the door');
        throw new TxError(400, err.code === 'TOO_LARGE' ? 'PAYLOAD_TOO_LARGE' : 'MALFORMED_TX', `tx: ${err.message}`);
      }
      throw err;
    }
    // A signed action's signer, verified at the door, spends its own budget (the faucet's
    // claims are the node's signature: their budget is the claimer's IP).
    if (signer && tx.kind !== TxKind.Faucet) limiter?.chargeAddress(signer, actionWeight(tx.body));
    const hashHex = bytesToHex(tx.hash);
    if (waiters.has(hashHex)) throw pendingDuplicate(tx, hashHex, signer);
    // Register before submitting, so a commit can never slip between the two.
    const final = new Promise<FinalTx>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(hashHex);
        reject(new ApiError(504, 'NOT_FINAL_YET', `transaction ${hashHex} accepted but not final within ${deps.config.finalityTimeoutMs} ms; query it by hash`));
      }, deps.config.finalityTimeoutMs);
      waiters.set(hashHex, { resolve, reject, timer });
    });
    try {
      await deps.actors.mempool.ask<PoolEntry>((reply) => ({ type: 'submit', tx, signer, reply }));
    } catch (err) {
      if (err instanceof TxError) deps.log.info({ txHash: hashHex, code: err.code, reason: err.message }, 'transaction refused at the door');
      const w = waiters.get(hashHex);
      if (w) clearTimeout(w.timer);
      waiters.delete(hashHex);
      final.catch(() => undefined);
      throw err;
    }
    return final;
  };

  /**
   * Read-your-writes without slowing writes: an answer goes out once its transaction is
   * final, and a read of indexed data waits (bounded) until the index has every block
   * committed before the read arrived, so a trader who placed an order and then lists
   * their orders sees it. (Writes used to wait for the index instead; under load that
   * put the index on every order's path to its answer.)
   */
  const indexAt = async (height?: number) => {
    const ix = deps.indexer();
    // The head as applied in memory: an answer may go out before its block is on disk.
    // With the disk full the index waits for the probe: answer from what it holds.
    if (ix && !deps.storage?.full && ix.indexedHeight() < (height ??= deps.chain().state.head().height)) await ix.waitForHeight(height, INDEX_WAIT_MS);
    return deps.indexer();
  };

  return {
    async start(ctx) {
      if (!deps.config.api) return;
      app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: true });
      installErrorHandling(app, ctx.log);
      installValidation(app);
      installLatencyMetrics(app, deps.metrics);
      limiter = new RateLimiter(deps.config.rateLimit ?? RATE_LIMIT_DEFAULTS);
      await limiter.install(app);
      const served = nodeApi(deps, submitAndWait, indexAt, checkWritable);
      // The disk filled: the requests waiting for finality get 503 now, not 504 later.
      unsubscribeStorage = deps.storage?.onChange((full) => {
        if (!full || !deps.storage) return;
        const e = storageUnavailable(deps.storage.report().folder, deps.storage.retryAfterSec, true);
        for (const w of waiters.values()) {
          clearTimeout(w.timer);
          w.reject(e);
        }
        waiters.clear();
      });
      // Reads of the head answer 503 NOT_SYNCED while the node catches up (src/api/catching-up.ts).
      installCatchingUpGuard(app, served);
      // Before the routes: its onRoute hook collects them for /openapi.json.
      installOpenApi(app, { version: served.version, checkResponses: checkResponsesFromEnv() });
      api = served;
      await app.register(cors, { origin: '*', methods: ['GET', 'POST', 'DELETE', 'OPTIONS'] });
      await app.register(websocket, { options: { maxPayload: WS_MAX_PAYLOAD_BYTES } });
      await app.register(rpcRoutes, { node: served });
      const root = app;
      await app.register(wsRoutes, { node: served, hub: wsHub, limiter, inject: (o) => root.inject({ ...o, payload: JSON.stringify(o.payload) }) });
      await app.register(chainInfoRoutes, { node: served });
      await app.register(validatorRoutes, { node: served });
      await app.register(governanceRoutes, { node: served });
      await app.register(healthRoutes, { node: served });
      await app.register(statusRoutes, { node: served });
      await app.register(blockRoutes, { node: served });
      await app.register(txRoutes, { node: served });
      await app.register(tradingRoutes, { node: served });
      await app.register(marketRoutes, { node: served });
      await app.register(nativeRoutes, { node: served });
      await app.register(withdrawRoutes, { node: served });
      await app.register(twapRoutes, { node: served });
      await app.register(bridgeRoutes, { node: served });
      await app.register(perpRoutes, { node: served });
      await app.register(sessionRoutes, { node: served });
      await app.register(subAccountRoutes, { node: served });
      await app.register(metricsRoutes, { node: served });
      await app.register(rateLimitRoutes, { limiter });
      await app.register(auditRoutes, { node: served });
      if (deps.config.genesis.faucet) await app.register(faucetRoutes, { node: served });
      const address = await app.listen({ host: deps.config.api.host, port: deps.config.api.port });
      ctx.log.info({ address }, 'API listening');
      onListening?.(address);
      if (deps.config.sessionApi) sessionApp = await listenSessionApi(deps.config, served, ctx.log, deps.metrics, limiter);
    },
    handle(msg) {
      const height = msg.block.header.height;
      if (api && msg.type === 'committed') wsHub.onCommitted(api, msg.block, msg.result);
      const blockHash = bytesToHex(msg.result.blockHash);
      for (const receipt of msg.result.receipts) {
        const w = waiters.get(receipt.txHash);
        if (!w) continue;
        clearTimeout(w.timer);
        waiters.delete(receipt.txHash);
        w.resolve({ receipt, height, blockHash });
      }
    },
    async stop() {
      unsubscribeStorage?.();
      unsubscribeStorage = undefined;
      for (const w of waiters.values()) {
        clearTimeout(w.timer);
        w.reject(new ApiError(503, 'SHUTTING_DOWN', 'the node is stopping'));
      }
      waiters.clear();
      await sessionApp?.close();
      sessionApp = undefined;
      await app?.close();
      app = undefined;
    },
  };
}

/** 503 STORAGE_UNAVAILABLE with Retry-After: the write was not taken (or, `waiting`, taken but its finality cannot be followed here). */
function storageUnavailable(folder: string, retryAfterSec: number, waiting = false): ApiError {
  const message = waiting
    ? `this node's disk is full (${folder}): it cannot follow this transaction to finality; query it by hash on another node, or here after space returns`
    : `this node's disk is full (${folder}): it takes no writes until space returns; retry after ${retryAfterSec} s or send to another node`;
  return new ApiError(503, 'STORAGE_UNAVAILABLE', message, retryAfterSec);
}

/**
 * The node as the routes see it (src/api/node-api.ts): built here, from this actor's
 * dependencies, so that no route reaches an actor or the node itself.
 */
function nodeApi(n: ApiDeps, submitAndWait: NodeApi['submitAndWait'], indexAt: NodeApi['indexAt'], checkWritable: () => void): NodeApi {
  const address = n.config.validatorKey ? privateKeyToAddress(n.config.validatorKey) : undefined;
  const deployment = n.config.bridge;
  // Reads only (the bridge's balance for /reserves); the bridge actor has its own client.
  // A test's bundle without an audit log: an empty one, never fed.
  const audit = n.audit ?? new AuditLog();
  const external =
    deployment && n.config.genesis.bridge
      ? new BridgeClient({ rpcUrl: deployment.rpcUrl, bridge: deployment.bridge, usdc: deployment.usdc, expectedChainId: n.config.genesis.bridge.externalChainId })
      : undefined;
  return {
    genesis: n.config.genesis,
    version: n.version,
    genesisHash: n.config.genesisHash,
    blockTimeMs: n.config.blockTimeMs,
    validatorAddress: address,
    chain: () => n.chain(),
    indexAt,
    submitAndWait,
    async submit(tx) {
      checkWritable();
      await n.actors.mempool.ask<PoolEntry>((reply) => ({ type: 'submit', tx, reply }));
    },
    status() {
      const consensus = n.consensusInfo?.();
      const chain = n.chain();
      const sync = {
        height: chain.height,
        target: Math.max(chain.height, consensus?.syncTarget ?? 0),
        blocksPerSecond: consensus?.syncBlocksPerSecond ?? 0,
      };
      const validator = address === undefined ? null : { address, status: validatorRecord(chain.state, address)?.status ?? ('observer' as const) };
      return { syncing: consensus?.syncing ?? false, sync, validator, p2p: n.p2pInfo?.() ?? null, consensus: consensus ?? null, actors: n.actorStats(), signatures: n.signatureStats?.() ?? NO_SIGNATURES };
    },
    storage() {
      const g = n.storage;
      if (!g) return { storage: 'ok', folder: n.config.dataDir, freeBytes: freeBytesOf(n.config.dataDir), parts: [], retryAfterSec: 0 };
      return { ...g.report(), retryAfterSec: g.full ? g.retryAfterSec : 0 };
    },
    syncProgress() {
      const consensus = n.consensusInfo?.();
      if (!consensus?.syncing) return null;
      const currentBlock = n.chain().height;
      return { startingBlock: consensus.syncStartHeight, currentBlock, highestBlock: Math.max(currentBlock, consensus.syncTarget) };
    },
    catchingUp() {
      const consensus = n.consensusInfo?.();
      if (!consensus) return null;
      const height = n.chain().height;
      return consensus.syncTarget - height > CATCHING_UP_LAG_BLOCKS ? { height, target: consensus.syncTarget } : null;
    },
    p2pAddresses() {
      const info = n.p2pInfo?.();
      return info ? { peerId: info.peerId, listen: info.listen } : null;
    },
    async p2pPeers() {
      return (await n.p2pPeers?.()) ?? [];
    },
    bridge() {
      return { rpcUrl: deployment?.rpcUrl ?? null, stats: n.bridgeStats?.() ?? null };
    },
    async bridgeExternalBalance() {
      if (!external) return null;
      const read = (async () => {
        const head = await external.head();
        return { balance: await external.usdcBalanceOfBridge(head.number), block: head.number };
      })();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), BRIDGE_BALANCE_WAIT_MS)));
      try {
        // Unreachable or slow: the answer says so (null) rather than failing the whole read.
        return await Promise.race([read.catch(() => null), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async metrics() {
      return n.metrics ? n.metrics.text() : { contentType: PROMETHEUS_CONTENT_TYPE, text: '' };
    },
    audit: () => audit,
  };
}

/**
 * API latency per route (GET /metrics): every answered request observed once, labelled
 * by the route's pattern (`/v1/order/:orderId`, never the raw URL: the series stay
 * bounded), its method and status class. fastify's elapsedTime runs from the request's
 * arrival (its onRequest) to the end of the answer (onResponse).
 */
function installLatencyMetrics(app: FastifyInstance, metrics: ApiDeps['metrics']): void {
  if (!metrics) return;
  app.addHook('onResponse', async (request, reply) => {
    metrics.apiRequest(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
}

/** Where each node's session-and-agent listener is bound (tests bind port 0), by config. */
const sessionApiAddresses = new WeakMap<ApiDeps['config'], string>();

export function sessionApiAddress(config: ApiDeps['config']): string | undefined {
  return sessionApiAddresses.get(config);
}

/**
 * The second listener (contract [C-limits-ports], [D-ports]: the session and agent API
 * on each validator's port 9001, bound to 127.0.0.1 by default): only the /session/* and /agent/* routes, with the
 * same envelope, validation and submission as {base_url}.
 */
export async function listenSessionApi(config: ApiDeps['config'], node: NodeApi, log: Logger, metrics?: ApiDeps['metrics'], limiter?: RateLimiter): Promise<FastifyInstance> {
  const { host, port } = config.sessionApi!;
  const sessionApp = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: true });
  installErrorHandling(sessionApp, log);
  installValidation(sessionApp);
  installLatencyMetrics(sessionApp, metrics);
  installReplySerializer(sessionApp, checkResponsesFromEnv());
  installCatchingUpGuard(sessionApp, node);
  // The same budgets as the main port's: one store, so an IP or address has one budget across both.
  await limiter?.install(sessionApp);
  await sessionApp.register(cors, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'] });
  await sessionApp.register(sessionRoutes, { node });
  const address = await sessionApp.listen({ host, port });
  sessionApiAddresses.set(config, address);
  log.info({ address }, 'session and agent API listening');
  return sessionApp;
}
