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
import { expiresAfterSchema, expiryOf } from '../expires-after';
import { TxKind } from '../../codec/tx';
import { AGENT_MODES, AGENT_MODE_WIRE } from '../../../machines/agent-mode';
import { agentCapsOf } from '../../state/accounts/agents';
import { activeSession } from '../../state/accounts/sessions';
import type { State } from '../../state/state';
import { toAddress, type Address } from '../../util/bytes';
import { address, nonceSchema, parseNonce, signatureSchema } from '../common';
import { ApiError, errorSchema } from '../envelope';
import { addr, bool, dec, EX, hex, int, obj, reply, str } from '../schemas';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const uintString = { type: 'string', pattern: '^(0|[1-9][0-9]{0,77})$' } as const;

/** GET /agent/caps and /v1/agents/{address}'s `caps` (agentCapsObject). */
export const agentCapsSchema = obj({
  owner: addr(),
  mode: int('0 OFF, 1 REDUCE_ONLY, 2 ACTIVE (the agent-mode machine).'),
  mode_name: str(),
  caps_set: bool(),
  max_leverage: dec('Basis points.'),
  allowed_order_types: int('Bit set of order types.'),
  max_input_per_trade: dec('USDC base units.'),
  max_total_position: dec('USDC base units.'),
});
export const agentCapsExample = { owner: EX.owner, mode: 2, mode_name: 'ACTIVE', caps_set: true, max_leverage: '50000', allowed_order_types: 3, max_input_per_trade: '1000000000', max_total_position: '10000000000' };
const submittedReply = reply(obj({ success: { type: 'boolean', const: true }, status: str('submitted'), tx_hash: hex() }), { success: true, status: 'submitted', tx_hash: EX.hash });
const sessionSchema = obj({
  owner: addr(),
  session_key: addr(),
  expires_at: int('Unix seconds.'),
  created_at: int('Unix seconds.'),
  nonce: { type: ['integer', 'string'], description: 'A JSON number while exact, else a decimal string.' },
  state: str('active'),
});

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

  app.post<{ Body: { owner: string; session_key: string; expires_at: number; nonce: number | string; signature?: string; expiresAfter?: number } }>('/session/create', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'session_key', 'expires_at', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, session_key: address, expires_at: { type: 'integer', minimum: 0, description: 'Unix seconds.' }, nonce: nonceSchema, signature: signatureSchema, expiresAfter: expiresAfterSchema },
        examples: [{ owner: EX.owner, session_key: EX.sessionKey, expires_at: 1767312000, nonce: 1, signature: EX.signature }],
      },
      tags: ['sessions'],
      summary: 'Create a session key',
      description: 'Owner-signed EIP-712 typed data. The session key may then trade for the owner until `expires_at`; it may not withdraw or change settings (403 OWNER_ONLY). Answers once final.',
      response: { 200: submittedReply, ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const sessionKey = toAddress(b.session_key);
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SessionCreate, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, sessionKey, expiresAt: BigInt(b.expires_at), nonce, signature, ...expiryOf(b.expiresAfter) }),
      });
      return submitted(await node.submitAndWait(tx, signer));
    },
  });

  app.post<{ Body: { owner: string; nonce: number | string; signature?: string; expiresAfter?: number } }>('/session/revoke', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, nonce: nonceSchema, signature: signatureSchema, expiresAfter: expiresAfterSchema },
        examples: [{ owner: EX.owner, nonce: 2, signature: EX.signature }],
      },
      tags: ['sessions'],
      summary: 'Revoke the live session key',
      description: 'Owner-signed; 404 NO_ACTIVE_SESSION when there is none (the nonce is not spent).',
      response: { 200: submittedReply, ...errors },
    },
    handler: async (req) => {
      const owner = toAddress(req.body.owner);
      const nonce = parseNonce(req.body.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SessionRevoke, {
        signature: req.body.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, nonce, signature, ...expiryOf(req.body.expiresAfter) }),
      });
      // Nothing to revoke: answered without spending the nonce (execution says the same).
      if (!activeSession(state(), owner, headTimeMs())) throw new ApiError(404, 'NO_ACTIVE_SESSION', `owner: ${owner} has no active session`);
      return submitted(await node.submitAndWait(tx, signer));
    },
  });

  app.get<{ Querystring: { owner: string; session_key: string } }>('/session/valid', {
    schema: {
      querystring: { type: 'object', required: ['owner', 'session_key'], additionalProperties: false, properties: { owner: address, session_key: address } },
      tags: ['sessions'],
      summary: 'Whether a key is the owner\u2019s live session key',
      description: 'At the head block\u2019s time.',
      response: { 200: reply(obj({ valid: bool() }), { valid: true }), ...errors },
    },
    handler: async (req) => {
      const s = activeSession(state(), toAddress(req.query.owner), headTimeMs());
      return { valid: s !== undefined && s.sessionKey === toAddress(req.query.session_key) };
    },
  });

  app.get<{ Querystring: { owner: string } }>('/session/get', {
    schema: {
      tags: ['sessions'],
      summary: 'The owner\u2019s live session',
      description: '404 NO_ACTIVE_SESSION when there is none.',
      querystring: { type: 'object', required: ['owner'], additionalProperties: false, properties: { owner: address } },
      response: { 200: reply(sessionSchema, { owner: EX.owner, session_key: EX.sessionKey, expires_at: 1767312000, created_at: 1767225600, nonce: 1, state: 'active' }), ...errors },
    },
    handler: async (req) => {
      const owner = toAddress(req.query.owner);
      const s = activeSession(state(), owner, headTimeMs());
      if (!s) throw new ApiError(404, 'NO_ACTIVE_SESSION', `owner: ${owner} has no active session`);
      return sessionObject(owner, s);
    },
  });

  app.post<{
    Body: { owner: string; max_leverage: number | string; allowed_order_types: number; max_input_per_trade: string; max_total_position: string; nonce: number | string; signature?: string; expiresAfter?: number };
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
          expiresAfter: expiresAfterSchema,
        },
        examples: [{ owner: EX.owner, max_leverage: 50000, allowed_order_types: 3, max_input_per_trade: '1000000000', max_total_position: '10000000000', nonce: 3, signature: EX.signature }],
      },
      tags: ['sessions'],
      summary: 'Set the owner\u2019s agent caps',
      description: 'Owner-signed. Bounds on what the owner\u2019s session key may trade: leverage (bps), order types (bit set), input per trade and total position (USDC base units). Answers once final.',
      response: { 200: submittedReply, ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const caps = { maxLeverage: BigInt(b.max_leverage), allowedOrderTypes: b.allowed_order_types, maxInputPerTrade: BigInt(b.max_input_per_trade), maxTotalPosition: BigInt(b.max_total_position) };
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SetAgentCaps, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, ...caps, nonce, signature, ...expiryOf(b.expiresAfter) }),
      });
      return submitted(await node.submitAndWait(tx, signer));
    },
  });

  app.post<{ Body: { owner: string; mode: number; nonce: number | string; signature?: string; expiresAfter?: number } }>('/agent/mode', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'mode', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, mode: { type: 'integer' }, nonce: nonceSchema, signature: signatureSchema, expiresAfter: expiresAfterSchema },
        examples: [{ owner: EX.owner, mode: 2, nonce: 4, signature: EX.signature }],
      },
      tags: ['sessions'],
      summary: 'Set the owner\u2019s agent mode',
      description: 'Owner-signed; the mode is an event of the agent-mode machine (machines/agent-mode.ts): a move it does not allow is refused. Answers once final.',
      response: { 200: submittedReply, ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const nonce = parseNonce(b.nonce);
      const { tx, signer } = admitAtDoor(state(), TxKind.SetAgentMode, {
        signature: b.signature,
        signers: ownerOrSessionKey(state(), owner),
        body: (signature, signer) => ({ owner, signer, mode: b.mode, nonce, signature, ...expiryOf(b.expiresAfter) }),
      });
      return submitted(await node.submitAndWait(tx, signer));
    },
  });

  /** The owner's mode and caps as the 0x080B precompile's agentCaps(owner) returns them. */
  app.get<{ Querystring: { owner: string } }>('/agent/caps', {
    schema: {
      tags: ['sessions'],
      summary: 'The owner\u2019s agent mode and caps',
      description: 'As the 0x080B precompile\u2019s agentCaps(owner) returns them.',
      querystring: { type: 'object', required: ['owner'], additionalProperties: false, properties: { owner: address } },
      response: { 200: reply(agentCapsSchema, agentCapsExample), ...errors },
    },
    handler: async (req) => agentCapsObject(state(), toAddress(req.query.owner)),
  });
};
