/**
 * POST /api/validators/register on the onboarding service (contract [C-onboard-register],
 * [C-auth-register], [C-auth-onboard-token]; decision 79): a self-funded registration
 * the service checks and then submits as the RegisterValidator transaction to the
 * network's node (`--node URL`, its POST /tx, as `npm run node -- validator register`
 * does), answering with the transaction hash once it is final.
 *
 * Checks, in order, each refusal the error envelope and nothing submitted:
 *   1. the fields' shape: the JSON schema (missing, extra, non-string: 400
 *      INVALID_REQUEST), then field by field the checks RegisterValidator's execution
 *      makes (src/state/ops/validator-registration.ts registrationShape: 400
 *      INVALID_VALIDATOR, INVALID_AMOUNT or INVALID_NONCE naming the field; a signature not
 *      of 128 hex 400 INVALID_SIGNATURE_FORMAT);
 *   2. the EIP-191 signature over the registration text (src/codec/txs/validators.ts
 *      registrationDigest, the transaction's own) recovers to the candidate: else 401
 *      INVALID_SIGNATURE;
 *   3. the candidate is approved in the onboarding book: else 403 NOT_AUTHORIZED (pending,
 *      rejected or never applied; registration comes after approval);
 *   4. its node is synced: the network's node lists a peer that announced a listen address
 *      at the candidate's endpoint, whose head it probed within PEER_HEIGHT_FRESH_MS, at
 *      most SYNC_LAG_BLOCKS_MAX blocks behind its own (plus the blocks made since the probe) (GET /v1/network/peers): else 409
 *      NOT_SYNCED saying which;
 *   5. the node's own answer: its refusal (a duplicate 409, funds 422, …) is passed on as
 *      it came; a node that cannot be reached is 503 NOT_SYNCED.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError, errorSchema, ok } from '../api/envelope';
import { okSchema } from '../api/common';
import { encodeTx, TxKind } from '../codec/tx';
import { registrationDigest, type RegisterValidatorBody } from '../codec/txs/validators';
import { verifySigner } from '../crypto/secp256k1';
import { badRequest, unauthorized } from '../state/errors';
import { registrationShape } from '../state/ops/validator-registration';
import type { ChainParams } from '../state/records';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../util/bytes';
import type { OnboardingBook } from './book';
import { ADDRESS } from './fields';

/** How far behind the network node's head a candidate's node may be and count as synced. */
export const SYNC_LAG_BLOCKS_MAX = 5;
/** How old the node's last probe of the candidate's head may be (the node probes every 2 s). */
export const PEER_HEIGHT_FRESH_MS = 30_000;
/** How long the node has to answer a read, and to make a submitted transaction final. */
const NODE_READ_TIMEOUT_MS = 10_000;
const NODE_SUBMIT_TIMEOUT_MS = 60_000;

export interface RegisterRequest {
  op: 'RegisterValidator';
  candidate: string;
  vrf_pubkey: string;
  ecdsa_pubkey: string;
  name: string;
  endpoint: string;
  bond: string;
  nonce: string;
  signature: string;
}

/** What the route needs of the network: its chain id and parameters, and its node's REST address. */
export interface RegisterNetwork {
  chainId: number;
  params: ChainParams;
  nodeUrl: string;
  /** The network's block time: how many blocks a probe's age may account for. */
  blockTimeMs: number;
  nowMs?: () => number;
}

const invalid = (field: string, why: string) => badRequest('INVALID_VALIDATOR', `${field}: ${why}`);

/** The request as the transaction's body, each field checked as RegisterValidator's execution checks it (400 naming the field). */
export function registrationBody(r: RegisterRequest, params: ChainParams): RegisterValidatorBody {
  if (!ADDRESS.test(r.candidate)) throw invalid('candidate', `must be 0x and 40 hex characters, got ${JSON.stringify(r.candidate.slice(0, 50))}`);
  if (!/^0x[0-9a-fA-F]{64}$/.test(r.vrf_pubkey)) throw invalid('vrf_pubkey', 'must be an Ed25519 public key of 32 bytes (0x and 64 hex)');
  if (!/^0x[0-9a-fA-F]{66}$/.test(r.ecdsa_pubkey)) throw invalid('ecdsa_pubkey', 'must be a compressed secp256k1 public key of 33 bytes beginning 02 or 03 (0x and 66 hex)');
  if (!/^[0-9]{1,40}$/.test(r.bond)) throw badRequest('INVALID_AMOUNT', `bond: must be a decimal string of wei, got ${JSON.stringify(r.bond.slice(0, 50))}`);
  if (!/^[0-9]{1,20}$/.test(r.nonce)) throw badRequest('INVALID_NONCE', `nonce: must be a decimal u64, got ${JSON.stringify(r.nonce.slice(0, 30))}`);
  if (!/^(?:0x)?[0-9a-fA-F]{128}$/.test(r.signature)) throw badRequest('INVALID_SIGNATURE_FORMAT', 'signature: must be 128 hex characters (the 64-byte form)');
  const body: RegisterValidatorBody = {
    candidate: r.candidate.toLowerCase() as Address,
    vrfPubkey: r.vrf_pubkey.toLowerCase() as Hex,
    ecdsaPubkey: r.ecdsa_pubkey.toLowerCase() as Hex,
    name: r.name,
    endpoint: r.endpoint,
    bond: BigInt(r.bond),
    nonce: BigInt(r.nonce),
    signature: hexToBytes(r.signature.startsWith('0x') ? r.signature : `0x${r.signature}`),
  };
  registrationShape(body, params);
  return body;
}

/** Where an endpoint `host:port` shows among a peer's multiaddrs: /ip4|ip6|dns|dns4|dns6/<host>/tcp/<port>. */
export function listensAt(multiaddr: string, endpoint: string): boolean {
  const m = /^(.*):([0-9]+)$/.exec(endpoint);
  if (!m) return false;
  const host = m[1].replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const a = /^\/(ip4|ip6|dns|dns4|dns6)\/([^/]+)\/tcp\/([0-9]+)(?:\/|$)/.exec(multiaddr);
  return a !== null && a[2].toLowerCase() === host && a[3] === m[2];
}

interface PeersView {
  blockHeight: number;
  peers: { peerId: string; listen: string[]; height: number | null; heightAtMs: number | null }[];
}

async function nodeJson<T>(url: string, init: RequestInit & { timeoutMs: number }): Promise<{ status: number; body: { success?: boolean; data?: T; error?: { code: string; message: string } } | null }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (err) {
    throw new ApiError(503, 'NOT_SYNCED', `the network's node at ${url} did not answer (${err instanceof Error ? err.message : String(err)}); try again`);
  }
  return { status: res.status, body: (await res.json().catch(() => null)) as never };
}

/** Refuses (409 NOT_SYNCED) unless the node sees a peer at `endpoint` within SYNC_LAG_BLOCKS_MAX of its head, probed recently. */
export async function checkSynced(nodeUrl: string, endpoint: string, nowMs: number, blockTimeMs: number): Promise<{ peerId: string; height: number; head: number }> {
  const { status, body } = await nodeJson<PeersView>(`${nodeUrl}/v1/network/peers`, { timeoutMs: NODE_READ_TIMEOUT_MS });
  if (status !== 200 || !body?.data) throw new ApiError(503, 'NOT_SYNCED', `the network's node answered ${status} to GET /v1/network/peers`);
  const { blockHeight: head, peers } = body.data;
  const at = peers.filter((p) => p.listen.some((a) => listensAt(a, endpoint)));
  if (at.length === 0) {
    throw new ApiError(409, 'NOT_SYNCED', `endpoint: no node listening at ${endpoint} is connected to the network; start it (start.sh of the boot bundle) and let it sync, then register`);
  }
  const fresh = at.filter((p) => p.height !== null && p.heightAtMs !== null && nowMs - p.heightAtMs <= PEER_HEIGHT_FRESH_MS);
  const best = fresh.sort((a, b) => b.height! - a.height!)[0];
  if (best === undefined) throw new ApiError(409, 'NOT_SYNCED', `endpoint: the node at ${endpoint} has not reported its height yet; try again in a few seconds`);
  // The probe is up to a few seconds old: the blocks made since then do not count against it.
  const allowed = SYNC_LAG_BLOCKS_MAX + Math.ceil(Math.max(0, nowMs - best.heightAtMs!) / Math.max(1, blockTimeMs));
  if (head - best.height! > allowed) {
    throw new ApiError(409, 'NOT_SYNCED', `endpoint: the node at ${endpoint} is at height ${best.height}, ${head - best.height!} blocks behind the network's ${head} (at most ${allowed}: ${SYNC_LAG_BLOCKS_MAX} and the blocks since it was asked); wait until it has synced`);
  }
  return { peerId: best.peerId, height: best.height!, head };
}

/** Submits the transaction to the node's POST /tx; its refusal is passed on with its status and code. */
async function submitTx(nodeUrl: string, tx: Uint8Array): Promise<{ txHash: string; height: number }> {
  const { status, body } = await nodeJson<{ txHash: string; height: number }>(`${nodeUrl}/tx`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tx: bytesToHex(tx) }),
    timeoutMs: NODE_SUBMIT_TIMEOUT_MS,
  });
  if (status === 200 && body?.success && body.data) return body.data;
  const e = body?.error;
  throw new ApiError(status >= 400 && status < 600 ? status : 502, (e?.code ?? 'INTERNAL') as never, e?.message ?? `the network's node answered ${status} to POST /tx`);
}

const hexField = { type: 'string', maxLength: 200 } as const;
const requestSchema = {
  type: 'object',
  required: ['op', 'candidate', 'vrf_pubkey', 'ecdsa_pubkey', 'name', 'endpoint', 'bond', 'nonce', 'signature'],
  additionalProperties: false,
  properties: {
    op: { type: 'string', enum: ['RegisterValidator'] },
    candidate: hexField,
    vrf_pubkey: hexField,
    ecdsa_pubkey: hexField,
    name: { type: 'string', maxLength: 400 },
    endpoint: { type: 'string', maxLength: 400 },
    bond: { type: 'string', maxLength: 100 },
    nonce: { type: 'string', maxLength: 100 },
    signature: hexField,
  },
} as const;

const answerSchema = {
  type: 'object',
  required: ['op', 'candidate', 'txHash', 'height'],
  properties: { op: { type: 'string' }, candidate: { type: 'string' }, txHash: { type: 'string' }, height: { type: 'integer' } },
} as const;

export function registerRegisterRoute(app: FastifyInstance, book: Pick<OnboardingBook, 'status'>, network: RegisterNetwork): void {
  const nodeUrl = network.nodeUrl.replace(/\/$/, '');
  const now = network.nowMs ?? Date.now;
  app.post<{ Body: RegisterRequest }>(
    '/api/validators/register',
    {
      schema: {
        body: requestSchema,
        response: { 200: okSchema(answerSchema), 400: errorSchema, 401: errorSchema, 403: errorSchema, 409: errorSchema, 422: errorSchema, 503: errorSchema },
      },
    },
    async (request) => {
      const body = registrationBody(request.body, network.params);
      if (!verifySigner(registrationDigest(network.chainId, body), body.signature, body.candidate)) {
        throw unauthorized(`signature: does not recover to the candidate ${body.candidate} over chain ${network.chainId}'s registration text`);
      }
      const { status } = await book.status(body.candidate);
      if (status !== 'approved') {
        throw new ApiError(403, 'NOT_AUTHORIZED', `candidate: ${body.candidate} is ${status === 'not_found' ? 'not an applicant' : status}; only an approved applicant registers`);
      }
      await checkSynced(nodeUrl, body.endpoint, now(), network.blockTimeMs);
      const r = await submitTx(nodeUrl, encodeTx(network.chainId, TxKind.RegisterValidator, body).bytes);
      return ok({ op: 'RegisterValidator', candidate: body.candidate, txHash: r.txHash, height: r.height });
    },
  );
}
