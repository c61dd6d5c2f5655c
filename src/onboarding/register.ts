/**
 * POST /api/validators/register on the onboarding service (contract [C-onboard-register],
 * [C-auth-register], [C-auth-onboard-token]; decision 79): a self-funded registration
 * the service checks and then submits as the RegisterValidator transaction to the
 * network's node (`--node URL`, its POST /tx, as `npm run node -- validator register`
 * does), answering with the transaction hash once it is final.
 *
 * Checks, in order, each refusal the error envelope and nothing submitted:
 *   1. the fields' shape: the JSON schema (missing, extra, non-string: 400
 *      INVALID_REQUEST; `nonce` a JSON integer up to 2^53 − 1 or a decimal string), then field by field the checks RegisterValidator's execution
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
 * Steps 4 and 5 are the node client's (`NodeRegistrar`, src/onboarding/book.ts): in the
 * service the node-client actor (actors/onboarding/node-client-actor.ts), one
 * registration at a time, trying again with backoff while the node cannot be reached;
 * this file reads nothing over the network.
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
import { hexToBytes, type Address, type Hex } from '../util/bytes';
import type { NodeRegistrar, OnboardingBook } from './book';
import { ADDRESS } from './fields';

/** How far behind the network node's head a candidate's node may be and count as synced. */
export const SYNC_LAG_BLOCKS_MAX = 5;
/** How old the node's last probe of the candidate's head may be (the node probes every 2 s). */
export const PEER_HEIGHT_FRESH_MS = 30_000;

export interface RegisterRequest {
  op: 'RegisterValidator';
  candidate: string;
  vrf_pubkey: string;
  ecdsa_pubkey: string;
  name: string;
  endpoint: string;
  bond: string;
  /** A JSON integer (exact: at most 2^53 − 1) or a decimal string, as every other signed route takes it. */
  nonce: number | string;
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

const with0x = (hex: string): Hex => (hex.startsWith('0x') ? hex : `0x${hex}`).toLowerCase() as Hex;

const invalid = (field: string, why: string) => badRequest('INVALID_VALIDATOR', `${field}: ${why}`);

/** The request as the transaction's body, each field checked as RegisterValidator's execution checks it (400 naming the field). */
export function registrationBody(r: RegisterRequest, params: ChainParams): RegisterValidatorBody {
  if (!ADDRESS.test(r.candidate)) throw invalid('candidate', `must be 0x and 40 hex characters, got ${JSON.stringify(r.candidate.slice(0, 50))}`);
  // The contract writes keys as bare hex (64 and 66 characters); 0x is taken too.
  if (!/^(?:0x)?[0-9a-fA-F]{64}$/.test(r.vrf_pubkey)) throw invalid('vrf_pubkey', 'must be an Ed25519 public key of 32 bytes (64 hex, 0x optional)');
  if (!/^(?:0x)?[0-9a-fA-F]{66}$/.test(r.ecdsa_pubkey)) throw invalid('ecdsa_pubkey', 'must be a compressed secp256k1 public key of 33 bytes beginning 02 or 03 (66 hex, 0x optional)');
  if (!/^[0-9]{1,40}$/.test(r.bond)) throw badRequest('INVALID_AMOUNT', `bond: must be a decimal string of wei, got ${JSON.stringify(r.bond.slice(0, 50))}`);
  const nonceText = typeof r.nonce === 'number' ? String(r.nonce) : r.nonce;
  if (!/^[0-9]{1,20}$/.test(nonceText) || BigInt(nonceText) >= 1n << 64n) throw badRequest('INVALID_NONCE', `nonce: must be a u64, a JSON integer or a decimal string, got ${JSON.stringify(nonceText.slice(0, 30))}`);
  if (!/^(?:0x)?[0-9a-fA-F]{128}$/.test(r.signature)) throw badRequest('INVALID_SIGNATURE_FORMAT', 'signature: must be 128 hex characters (the 64-byte form)');
  const body: RegisterValidatorBody = {
    candidate: r.candidate.toLowerCase() as Address,
    vrfPubkey: with0x(r.vrf_pubkey),
    ecdsaPubkey: with0x(r.ecdsa_pubkey),
    name: r.name,
    endpoint: r.endpoint,
    bond: BigInt(r.bond),
    nonce: BigInt(nonceText),
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

/** What GET /v1/network/peers answers (the part the sync check reads). */
export interface PeersView {
  blockHeight: number;
  peers: { peerId: string; listen: string[]; height: number | null; heightAtMs: number | null }[];
}

/**
 * The sync check over the node's peers view: the freshest peer listening at `endpoint`,
 * at most SYNC_LAG_BLOCKS_MAX behind the node's head (plus the blocks made since its
 * probe); otherwise 409 NOT_SYNCED saying which. Pure: the node client
 * (src/onboarding/node-client.ts) reads the view and calls it.
 */
export function syncedPeer(view: PeersView, endpoint: string, nowMs: number, blockTimeMs: number): { peerId: string; height: number; head: number } {
  const { blockHeight: head, peers } = view;
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
    // The schema keeps an integer exact: a JSON number above 2^53 − 1 has lost digits already (send a string).
    nonce: { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', maxLength: 100 }] },
    signature: hexField,
  },
} as const;

const answerSchema = {
  type: 'object',
  required: ['op', 'candidate', 'txHash', 'height'],
  properties: { op: { type: 'string' }, candidate: { type: 'string' }, txHash: { type: 'string' }, height: { type: 'integer' } },
} as const;

/** The route; `node` is the network's node as the service reaches it (the node-client actor, or a direct client). */
export function registerRegisterRoute(app: FastifyInstance, book: Pick<OnboardingBook, 'status'>, network: Pick<RegisterNetwork, 'chainId' | 'params'>, node: NodeRegistrar): void {
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
      const r = await node.register(body.endpoint, encodeTx(network.chainId, TxKind.RegisterValidator, body).bytes);
      return ok({ op: 'RegisterValidator', candidate: body.candidate, txHash: r.txHash, height: r.height });
    },
  );
}
