/**
 * The API concern: serves REST (and later JSON-RPC and the WebSocket) on {base_url}.
 * Requests that submit a transaction wait until the block carrying it is final; the
 * chain actor's 'committed' messages arrive in this actor's mailbox and release them.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Block } from '../../src/codec/block';
import { decodeTx, type Tx } from '../../src/codec/tx';
import { ApiError, installErrorHandling, installValidation } from '../../src/api/envelope';
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import { healthRoutes } from '../../src/api/routes/health';
import { rpcRoutes } from '../../src/api/routes/rpc';
import { wsRoutes, WsHub } from '../../src/api/routes/ws';
import { chainInfoRoutes } from '../../src/api/routes/chain-info';
import { statusRoutes } from '../../src/api/routes/status';
import { blockRoutes } from '../../src/api/routes/block';
import { faucetRoutes } from '../../src/api/routes/faucet';
import { txRoutes } from '../../src/api/routes/tx';
import { tradingRoutes } from '../../src/api/routes/trading';
import { marketRoutes } from '../../src/api/routes/market';
import { nativeRoutes } from '../../src/api/routes/native';
import { withdrawRoutes } from '../../src/api/routes/withdraw';
import { perpRoutes } from '../../src/api/routes/perps';
import { sessionRoutes } from '../../src/api/routes/sessions';
import type { Logger } from '../../src/util/log';
import type { BlockResult } from '../../src/state/apply';
import type { Receipt } from '../../src/state/context';
import { TxError } from '../../src/state/errors';
import type { NodeContext } from '../../src/node/context';
import { bytesToHex, type Address } from '../../src/util/bytes';
import type { ActorBehavior } from '../actor';
import type { PoolEntry } from '../mempool/pool';
import { CodecError } from '../../src/codec/binary';

/**
 * 'applied': a BFT-decided block is applied in memory (its waiting requests are
 * answered); 'committed': it is on disk too (WebSocket pushes, and the answers of
 * blocks that had no 'applied').
 */
export type ApiMsg = { type: 'committed' | 'applied'; block: Block; result: BlockResult };

export interface FinalTx {
  receipt: Receipt;
  height: number;
  blockHash: string;
}

/** What route plugins get: the node, and submission that resolves once final. */
export interface ApiDeps {
  node: NodeContext;
  /**
   * The index once it holds every block up to `height` (default: the chain's head when
   * called), waiting at most INDEX_WAIT_MS; undefined while it is starting. Reads of
   * indexed data go through this: what was final before a read arrived is in its answer.
   */
  indexAt(height?: number): Promise<import('../../src/indexer/indexer').Indexer | undefined>;
  /**
   * Submits a transaction and resolves once it is final. Routes that built the
   * transaction pass the Tx itself and the signer they already verified, so it is
   * neither decoded nor recovered again at the mempool.
   */
  submitAndWait(tx: Uint8Array | Tx, signer?: Address): Promise<FinalTx>;
  /** Admits a transaction to the mempool without waiting for finality (eth_sendRawTransaction). */
  submit(tx: Tx): Promise<void>;
}

/** How long a read of indexed data waits for the index to hold the blocks final before it. */
export const INDEX_WAIT_MS = 1_000;

/** Largest request body the server reads (a block's worth of one tx is far smaller). */
export const BODY_LIMIT_BYTES = 256 * 1024;

export function apiBehavior(node: () => NodeContext, onListening?: (address: string) => void): ActorBehavior<ApiMsg> {
  let app: FastifyInstance | undefined;
  let deps: ApiDeps | undefined;
  const wsHub = new WsHub();
  /** The session-and-agent port (config.sessionApi), when configured. */
  let sessionApp: FastifyInstance | undefined;
  const waiters = new Map<string, { resolve(v: FinalTx): void; reject(e: unknown): void; timer: NodeJS.Timeout }>();

  const submitAndWait = async (input: Uint8Array | Tx, signer?: Address): Promise<FinalTx> => {
    const n = node();
    let tx: Tx;
    try {
      tx = input instanceof Uint8Array ? decodeTx(input, n.config.genesis.consensus.maxTxBytes) : input;
    } catch (err) {
      const bytes = input as Uint8Array;
      if (err instanceof CodecError) {
        n.log.info({ code: err.code, reason: err.message, bytes: bytes.length }, 'malformed transaction refused at the door');
        throw new TxError(400, err.code === 'TOO_LARGE' ? 'PAYLOAD_TOO_LARGE' : 'MALFORMED_TX', `tx: ${err.message}`);
      }
      throw err;
    }
    const hashHex = bytesToHex(tx.hash);
    if (waiters.has(hashHex)) throw new TxError(409, 'DUPLICATE_TX', `transaction ${hashHex} is already pending`);
    // Register before submitting, so a commit can never slip between the two.
    const final = new Promise<FinalTx>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(hashHex);
        reject(new ApiError(504, 'NOT_FINAL_YET', `transaction ${hashHex} accepted but not final within ${n.config.finalityTimeoutMs} ms; query it by hash`));
      }, n.config.finalityTimeoutMs);
      waiters.set(hashHex, { resolve, reject, timer });
    });
    try {
      await n.actors.mempool.ask<PoolEntry>((reply) => ({ type: 'submit', tx, signer, reply }));
    } catch (err) {
      if (err instanceof TxError) n.log.info({ txHash: hashHex, code: err.code, reason: err.message }, 'transaction refused at the door');
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
    const n = node();
    const ix = n.indexer();
    // The head as applied in memory: an answer may go out before its block is on disk.
    if (ix && ix.indexedHeight() < (height ??= n.chain().state.head().height)) await ix.waitForHeight(height, INDEX_WAIT_MS);
    return n.indexer();
  };

  return {
    async start(ctx) {
      const n = node();
      if (!n.config.api) return;
      app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: true });
      installErrorHandling(app, ctx.log);
      installValidation(app);
      const submit = async (tx: Tx): Promise<void> => {
        await n.actors.mempool.ask<PoolEntry>((reply) => ({ type: 'submit', tx, reply }));
      };
      deps = { node: n, submitAndWait, submit, indexAt };
      await app.register(cors, { origin: '*', methods: ['GET', 'POST', 'DELETE', 'OPTIONS'] });
      await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
      await app.register(rpcRoutes, { deps });
      await app.register(wsRoutes, { deps, hub: wsHub });
      await app.register(chainInfoRoutes, { deps });
      await app.register(healthRoutes, { deps });
      await app.register(statusRoutes, { deps });
      await app.register(blockRoutes, { deps });
      await app.register(txRoutes, { deps });
      await app.register(tradingRoutes, { deps });
      await app.register(marketRoutes, { deps });
      await app.register(nativeRoutes, { deps });
      await app.register(withdrawRoutes, { deps });
      await app.register(perpRoutes, { deps });
      await app.register(sessionRoutes, { deps });
      if (n.config.genesis.faucet) await app.register(faucetRoutes, { deps });
      const address = await app.listen({ host: n.config.api.host, port: n.config.api.port });
      ctx.log.info({ address }, 'API listening');
      onListening?.(address);
      if (n.config.sessionApi) sessionApp = await listenSessionApi(n, deps, ctx.log);
    },
    handle(msg) {
      const height = msg.block.header.height;
      if (deps && msg.type === 'committed') wsHub.onCommitted(deps, msg.block, msg.result);
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

/** A final but failed transaction answers with the status its error class carries. */
export function throwIfFailed(final: FinalTx): void {
  const r = final.receipt;
  if (r.status === 'failed') throw new ApiError(r.errorStatus ?? 422, r.code ?? 'REJECTED', r.message ?? 'rejected by execution');
}

/** Where each node's session-and-agent listener is bound (tests bind port 0), by config. */
const sessionApiAddresses = new WeakMap<NodeContext['config'], string>();

export function sessionApiAddress(config: NodeContext['config']): string | undefined {
  return sessionApiAddresses.get(config);
}

/**
 * The second listener (spec: the session and agent API on each validator's port 9001,
 * bound to 127.0.0.1 by default): only the /session/* and /agent/* routes, with the
 * same envelope, validation and submission as {base_url}.
 */
export async function listenSessionApi(n: NodeContext, deps: ApiDeps, log: Logger): Promise<FastifyInstance> {
  const { host, port } = n.config.sessionApi!;
  const sessionApp = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: true });
  installErrorHandling(sessionApp, log);
  installValidation(sessionApp);
  await sessionApp.register(cors, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'] });
  await sessionApp.register(sessionRoutes, { deps });
  const address = await sessionApp.listen({ host, port });
  sessionApiAddresses.set(n.config, address);
  log.info({ address }, 'session and agent API listening');
  return sessionApp;
}
