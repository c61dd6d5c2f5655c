/**
 * Session and agent routes (contract [C-session-api], [C-agent-api]): native, so plain
 * objects (contract [D-envelope-native]), errors in the envelope. Served on {base_url} and on the node's session
 * and agent port (config `sessionApi`, default 9001).
 *
 * Writes are owner-signed EIP-712 typed data (64- or 65-byte signatures) and answer
 * `{success: true, status: "submitted", tx_hash}` once the transaction is final. The
 * route builds the transaction and the door (src/api/door.ts) asks its operation
 * (src/state/ops/session-keys.ts, src/state/ops/agent-settings.ts): a signature that recovers to neither the owner nor the
 * owner's live session key is 401; one by the session key meets the operation's
 * owner-only signer rule (403 OWNER_ONLY): a session key can only trade.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { throwIfFailed, type FinalTx } from '../final';
import { admitAtDoor, ownerOrSessionKey } from '../door';
import { TxKind } from '../../codec/tx';
import { AGENT_MODES, AGENT_MODE_WIRE } from '../../../machines/agent-mode';
import { agentCapsOf } from '../../state/agents';
import { activeSession } from '../../state/sessions';
import type { State } from '../../state/state';
import { toAddress, type Address } from '../../util/bytes';
import { address, nonceSchema, parseNonce, signatureSchema } from '../common';
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
  const state = () => node.chain().state;
  const headTimeMs = () => state().head().timestampMs;

  const submitted = (final: FinalTx) => {
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
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SessionCreate, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, sessionKey, expiresAt: BigInt(b.expires_at), nonce, signature }),
      });
      return submitted(await node.submitAndWait(tx, signer));
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
      const { tx, signer } = admitAtDoor(state(), TxKind.SessionRevoke, {
        signature: req.body.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, nonce, signature }),
      });
      // Nothing to revoke: answered without spending the nonce (execution says the same).
      if (!activeSession(state(), owner, headTimeMs())) throw new ApiError(404, 'NO_ACTIVE_SESSION', `owner: ${owner} has no active session`);
      return submitted(await node.submitAndWait(tx, signer));
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
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SetAgentCaps, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, ...caps, nonce, signature }),
      });
      return submitted(await node.submitAndWait(tx, signer));
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
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SetAgentMode, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, mode: b.mode, nonce, signature }),
      });
      return submitted(await node.submitAndWait(tx, signer));
    },
  });

  /** The owner's mode and caps as the 0x080B precompile's agentCaps(owner) returns them. */
  app.get<{ Querystring: { owner: string } }>('/agent/caps', {
    schema: { querystring: { type: 'object', required: ['owner'], additionalProperties: false, properties: { owner: address } }, response: errors },
    handler: async (req) => agentCapsObject(state(), toAddress(req.query.owner)),
  });
};
