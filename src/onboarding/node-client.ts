/**
 * The onboarding service's client of the network's node (decision 79): what POST
 * /api/validators/register does over the network once the request passed its own checks.
 * It reads the node's GET /v1/network/peers and refuses 409 NOT_SYNCED unless a synced
 * peer listens at the candidate's endpoint (src/onboarding/register.ts `syncedPeer`),
 * then submits the RegisterValidator transaction to the node's POST /tx and answers
 * once it is final; the node's refusal is passed on with its status and code.
 *
 * One attempt each: the node-client actor (actors/onboarding/node-client-actor.ts) runs
 * registrations one at a time and tries again, with backoff, when `retryable` says the
 * node could not be reached before anything was sent.
 */
import { ApiError } from '../api/envelope';
import { bytesToHex } from '../util/bytes';
import type { NodeRegistrar } from './book';
import { syncedPeer, type PeersView, type RegisterNetwork } from './register';

/** How long the node has to answer a read, and to make a submitted transaction final. */
export const NODE_READ_TIMEOUT_MS = 10_000;
export const NODE_SUBMIT_TIMEOUT_MS = 60_000;

/** Errors of a connection that was never made: the request did not reach the node, so sending it again is safe. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** The node did not answer (503 NOT_SYNCED); `retryable` when the request never reached it. */
export class NodeUnreachableError extends ApiError {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(503, 'NOT_SYNCED', message);
  }
}

/** True for a failure the node never saw: a read or a submission may be sent again. */
export function retryable(err: unknown): boolean {
  return err instanceof NodeUnreachableError && err.retryable;
}

function connectCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

async function nodeJson<T>(url: string, init: RequestInit & { timeoutMs: number }): Promise<{ status: number; body: { success?: boolean; data?: T; error?: { code: string; message: string } } | null }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (err) {
    const code = connectCode(err);
    throw new NodeUnreachableError(
      `the network's node at ${url} did not answer (${err instanceof Error ? err.message : String(err)}${code ? `: ${code}` : ''}); try again`,
      code !== undefined && NOT_CONNECTED.has(code),
    );
  }
  return { status: res.status, body: (await res.json().catch(() => null)) as never };
}

/** The network's node over HTTP: the sync check, then the submission; one attempt each. */
export function httpNodeRegistrar(network: Pick<RegisterNetwork, 'nodeUrl' | 'blockTimeMs' | 'nowMs'>): NodeRegistrar {
  const nodeUrl = network.nodeUrl.replace(/\/$/, '');
  const now = network.nowMs ?? Date.now;
  return {
    async register(endpoint, tx) {
      const peers = await nodeJson<PeersView>(`${nodeUrl}/v1/network/peers`, { timeoutMs: NODE_READ_TIMEOUT_MS });
      if (peers.status !== 200 || !peers.body?.data) throw new ApiError(503, 'NOT_SYNCED', `the network's node answered ${peers.status} to GET /v1/network/peers`);
      syncedPeer(peers.body.data, endpoint, now(), network.blockTimeMs);
      return submitToNode(nodeUrl, tx);
    },
  };
}

/** Submits `tx` to the node's POST /tx and resolves once it is final; the node's refusal is passed on with its status and code. */
export async function submitToNode(nodeUrl: string, tx: Uint8Array): Promise<{ txHash: string; height: number }> {
  const { status, body } = await nodeJson<{ txHash: string; height: number }>(`${nodeUrl.replace(/\/$/, '')}/tx`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tx: bytesToHex(tx) }),
    timeoutMs: NODE_SUBMIT_TIMEOUT_MS,
  });
  if (status === 200 && body?.success && body.data) return { txHash: body.data.txHash, height: body.data.height };
  const e = body?.error;
  throw new ApiError(status >= 400 && status < 600 ? status : 502, (e?.code ?? 'INTERNAL') as never, e?.message ?? `the network's node answered ${status} to POST /tx`);
}
