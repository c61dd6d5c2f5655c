/**
 * Session and agent routes (spec "Session API", "Agent API"): native, so plain objects
 * (DECISIONS), errors in the envelope. Served on {base_url} and on the node's session
 * and agent port (config `sessionApi`, default 9001).
 *
 * Writes are owner-signed EIP-712 typed data (64- or 65-byte signatures) and answer
 * `{success: true, status: "submitted", tx_hash}` once the transaction is final. A
 * signature that recovers to neither the owner nor the owner's live session key is 401;
 * one by the session key is handed to the door, whose owner-only signer rule refuses it
 * (403 OWNER_ONLY): a session key can only trade.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { throwIfFailed } from '../final';
import { encodeTx, TxKind } from '../../codec/tx';
import { hashTypedMessage, type Eip712Messages, type Eip712PrimaryType } from '../../crypto/eip712';
import { verifySigner } from '../../crypto/secp256k1';
import { AGENT_MODES, AGENT_MODE_WIRE } from '../../../machines/agent-mode';
import { agentCapsOf } from '../../state/agents';
import { agentCapsShape, agentModeShape, sessionCreateShape } from '../../state/ops/sessions';
import { activeSession } from '../../state/sessions';
import type { State } from '../../state/state';
import { toAddress, type Address } from '../../util/bytes';
import { address, nonceSchema, parseNonce, parseSignatureField, signatureSchema } from '../common';
import { ApiError, errorSchema } from '../envelope';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const uintString = { type: 'string', pattern: '^(0|[1-9][0-9]{0,77})$' } as const;

/** A nonce on the way out: a JSON number while exact, else a decimal string. */
const nonceOut = (n: bigint): number | string => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : String(n));

export function sessionObject(owner: Address, s: { sessionKey: Address; expiresAtMs: number; createdAtMs: number; nonce: bigint }) {
  return {
    owner,
    session_key: s.sessionKey,
    expires_at: Math.floor(s.expiresAtMs / 1000),
    created_at: Math.floor(s.createdAtMs / 1000),
    nonce: nonceOut(s.nonce),
    state: 'active' as const,
  };
}

export function agentCapsObject(state: State, owner: Address) {
  const v = agentCapsOf(state, owner);
  return {
    owner,
    mode: v.mode,
    mode_name: AGENT_MODE_WIRE[AGENT_MODES[v.mode]],
    caps_set: v.capsSet,
    max_leverage: String(v.maxLeverageBps),
    allowed_order_types: v.allowedOrderTypes,
    max_input_per_trade: String(v.maxInput),
    max_total_position: String(v.maxTotal),
  };
}

export const sessionRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const chainId = node.genesis.chainId;
  const state = () => node.chain().state;
  const headTimeMs = () => state().head().timestampMs;

  /**
   * Who signed: the owner, or else the owner's live session key (whose operation the
   * door will refuse, 403); anything else is 401.
   */
  const signerOf = <P extends Eip712PrimaryType>(type: P, message: Eip712Messages[P], signature: Uint8Array, owner: Address): Address => {
    const hash = hashTypedMessage(chainId, type, message);
    if (verifySigner(hash, signature, owner)) return owner;
    const session = activeSession(state(), owner, headTimeMs());
    if (session && verifySigner(hash, signature, session.sessionKey)) return session.sessionKey;
    throw new ApiError(401, 'INVALID_SIGNATURE', `signature: does not recover to the owner ${owner}`);
  };

  const submit = async (kind: TxKind, body: Record<string, unknown>, signer: Address) => {
    const final = await node.submitAndWait(encodeTx(chainId, kind, body), signer);
    throwIfFailed(final);
    return { success: true as const, status: 'submitted' as const, tx_hash: final.receipt.txHash };
  };

  app.post<{ Body: { owner: string; session_key: string; expires_at: number; nonce: number | string; signature?: string } }>('/session/create', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'session_key', 'expires_at', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, session_key: address, expires_at: { type: 'integer', minimum: 0 }, nonce: nonceSchema, signature: signatureSchema },
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const sessionKey = toAddress(b.session_key);
      const expiresAt = BigInt(b.expires_at);
      sessionCreateShape({ owner, sessionKey, expiresAt });
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      const signer = signerOf('SessionCreate', { sessionKey, expiresAt, nonce }, signature, owner);
      return submit(TxKind.SessionCreate, { owner, signer, sessionKey, expiresAt, nonce, signature }, signer);
    },
  });

  app.post<{ Body: { owner: string; nonce: number | string; signature?: string } }>('/session/revoke', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, nonce: nonceSchema, signature: signatureSchema },
      },
      response: errors,
    },
    handler: async (req) => {
      const owner = toAddress(req.body.owner);
      const nonce = parseNonce(req.body.nonce);
      const signature = parseSignatureField(req.body.signature);
      const signer = signerOf('SessionRevoke', { owner, nonce }, signature, owner);
      // Nothing to revoke: answered without spending the nonce (execution says the same).
      if (signer === owner && !activeSession(state(), owner, headTimeMs())) throw new ApiError(404, 'NO_ACTIVE_SESSION', `owner: ${owner} has no active session`);
      return submit(TxKind.SessionRevoke, { owner, signer, nonce, signature }, signer);
    },
  });

  app.get<{ Querystring: { owner: string; session_key: string } }>('/session/valid', {
    schema: {
      querystring: { type: 'object', required: ['owner', 'session_key'], additionalProperties: false, properties: { owner: address, session_key: address } },
      response: errors,
    },
    handler: async (req) => {
      const s = activeSession(state(), toAddress(req.query.owner), headTimeMs());
      return { valid: s !== undefined && s.sessionKey === toAddress(req.query.session_key) };
    },
  });

  app.get<{ Querystring: { owner: string } }>('/session/get', {
    schema: { querystring: { type: 'object', required: ['owner'], additionalProperties: false, properties: { owner: address } }, response: errors },
    handler: async (req) => {
      const owner = toAddress(req.query.owner);
      const s = activeSession(state(), owner, headTimeMs());
      if (!s) throw new ApiError(404, 'NO_ACTIVE_SESSION', `owner: ${owner} has no active session`);
      return sessionObject(owner, s);
    },
  });

  app.post<{
    Body: { owner: string; max_leverage: number | string; allowed_order_types: number; max_input_per_trade: string; max_total_position: string; nonce: number | string; signature?: string };
  }>('/agent/caps', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'max_leverage', 'allowed_order_types', 'max_input_per_trade', 'max_total_position', 'nonce'],
        additionalProperties: false,
        properties: {
          owner: address,
          max_leverage: { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, uintString] },
          allowed_order_types: { type: 'integer', minimum: 0, maximum: 4294967295 },
          max_input_per_trade: uintString,
          max_total_position: uintString,
          nonce: nonceSchema,
          signature: signatureSchema,
        },
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const caps = { maxLeverage: BigInt(b.max_leverage), allowedOrderTypes: b.allowed_order_types, maxInputPerTrade: BigInt(b.max_input_per_trade), maxTotalPosition: BigInt(b.max_total_position) };
      agentCapsShape(caps);
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      const signer = signerOf('SetAgentCaps', { owner, ...caps, allowedOrderTypes: BigInt(caps.allowedOrderTypes), nonce }, signature, owner);
      return submit(TxKind.SetAgentCaps, { owner, signer, ...caps, nonce, signature }, signer);
    },
  });

  app.post<{ Body: { owner: string; mode: number; nonce: number | string; signature?: string } }>('/agent/mode', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'mode', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, mode: { type: 'integer' }, nonce: nonceSchema, signature: signatureSchema },
      },
      response: errors,
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      agentModeShape({ mode: b.mode });
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      const signer = signerOf('SetAgentMode', { owner, mode: BigInt(b.mode), nonce }, signature, owner);
      return submit(TxKind.SetAgentMode, { owner, signer, mode: b.mode, nonce, signature }, signer);
    },
  });

  /** The owner's mode and caps as the 0x080B precompile's agentCaps(owner) returns them. */
  app.get<{ Querystring: { owner: string } }>('/agent/caps', {
    schema: { querystring: { type: 'object', required: ['owner'], additionalProperties: false, properties: { owner: address } }, response: errors },
    handler: async (req) => agentCapsObject(state(), toAddress(req.query.owner)),
  });
};
