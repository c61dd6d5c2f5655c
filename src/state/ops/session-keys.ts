/**
 * Execution rules of the session and agent kinds. Each is owner-only (SIGNER_RULES in
 * src/state/sessions.ts, applied to every kind in ops/index.ts), and each changes state
 * only through its machine: the session machine's compiled stepper (`stepSession`), the
 * agent-mode machine's pure `transition()`. What the drawn machine allows is what
 * execution does.
 */
import { verifyTyped } from './signature-checks';
import type { SessionCreateBody, SessionRevokeBody, SetAgentCapsBody, SetAgentModeBody } from '../../codec/txs/sessions';
import { AGENT_MODES, AGENT_MODE_WIRE, type AgentStateValue } from '../../../machines/agent-mode';
import { createRefusal } from '../../../machines/session';
import type { TxOp } from '../context';
import { agentRecord, agentRecordOf, agentTransition } from '../agents';
import { badRequest, rejected, TxError } from '../errors';
import { sessionRecordOf, sessionStateAt, sessionTransition } from '../sessions';
import { InvariantError } from '../state';

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
/** expires_at is Unix seconds; in milliseconds it must stay a safe integer. */
export const MAX_EXPIRES_AT_S = BigInt(Math.floor(Number.MAX_SAFE_INTEGER / 1000));
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Shape of a SessionCreate (400), shared with the API route. */
export function sessionCreateShape(b: Pick<SessionCreateBody, 'owner' | 'sessionKey' | 'expiresAt'>): void {
  if (b.sessionKey === ZERO_ADDRESS) throw badRequest('INVALID_SESSION_KEY', 'session_key: must not be the zero address');
  if (b.sessionKey === b.owner) throw badRequest('INVALID_SESSION_KEY', 'session_key: must differ from the owner');
  if (b.expiresAt < 1n || b.expiresAt > MAX_EXPIRES_AT_S) throw badRequest('INVALID_EXPIRY', `expires_at: must be Unix seconds from 1 to ${MAX_EXPIRES_AT_S}`);
}

export const sessionCreateOp: TxOp<SessionCreateBody> = {
  shape: sessionCreateShape,
  verify: (tx, chainId) => {
    const b = tx.body;
    return verifyTyped(chainId, 'SessionCreate', { sessionKey: b.sessionKey, expiresAt: b.expiresAt, nonce: b.nonce }, b.signature, b.signer);
  },
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const b = tx.body;
    const nowMs = ctx.header.timestampMs;
    const event = {
      type: 'CREATE' as const,
      sessionKey: b.sessionKey,
      expiresAtMs: Number(b.expiresAt) * 1000,
      nowMs,
      maxDurationMs: ctx.params.limits.maxSessionDurationMs,
      nonce: b.nonce,
    };
    const refusal = createRefusal(event);
    if (refusal === 'EXPIRY_NOT_AFTER_NOW') throw rejected('INVALID_EXPIRY', `expires_at: ${b.expiresAt} is not after the block time ${Math.floor(nowMs / 1000)}`);
    if (refusal === 'EXPIRY_TOO_FAR') {
      throw rejected('INVALID_EXPIRY', `expires_at: ${b.expiresAt} is more than ${event.maxDurationMs / 1000} s after the block time ${Math.floor(nowMs / 1000)} (sessions last at most ${event.maxDurationMs / 86_400_000} days)`);
    }
    const prev = ctx.state.sessions.get(b.owner);
    const next = sessionTransition(prev, event);
    if (next?.value !== 'active') throw new InvariantError(`session machine refused an allowed CREATE for ${b.owner}`);
    ctx.state.sessions.set(b.owner, sessionRecordOf(next));
    ctx.emit({
      type: 'SessionCreated', owner: b.owner, sessionKey: b.sessionKey, expiresAtMs: event.expiresAtMs,
      replaced: prev && sessionStateAt(prev, nowMs) === 'active' ? prev.sessionKey : null,
    });
  },
};

export const sessionRevokeOp: TxOp<SessionRevokeBody> = {
  verify: (tx, chainId) => verifyTyped(chainId, 'SessionRevoke', { owner: tx.body.owner, nonce: tx.body.nonce }, tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const { owner } = tx.body;
    const prev = ctx.state.sessions.get(owner);
    const event = { type: 'REVOKE' as const, nowMs: ctx.header.timestampMs };
    // Only an active, live session has a REVOKE transition to `revoked`.
    const next = sessionTransition(prev, event);
    if (next?.value !== 'revoked') throw new TxError(404, 'NO_ACTIVE_SESSION', `owner ${owner} has no active session to revoke`);
    ctx.state.sessions.set(owner, sessionRecordOf(next));
    ctx.emit({ type: 'SessionRevoked', owner, sessionKey: prev!.sessionKey });
  },
};

/** Shape of SetAgentCaps (400, naming the field), shared with the API route. */
export function agentCapsShape(b: Pick<SetAgentCapsBody, 'maxLeverage' | 'maxInputPerTrade' | 'maxTotalPosition'>): void {
  if (b.maxLeverage > U64_MAX) throw badRequest('INVALID_CAPS', 'max_leverage: must fit in 64 bits');
  if (b.maxInputPerTrade > U128_MAX) throw badRequest('INVALID_CAPS', 'max_input_per_trade: must fit in 128 bits');
  if (b.maxTotalPosition > U128_MAX) throw badRequest('INVALID_CAPS', 'max_total_position: must fit in 128 bits');
}

export const setAgentCapsOp: TxOp<SetAgentCapsBody> = {
  shape: agentCapsShape,
  verify(tx, chainId) {
    const b = tx.body;
    const message = {
      owner: b.owner, maxLeverage: b.maxLeverage, allowedOrderTypes: BigInt(b.allowedOrderTypes), maxInputPerTrade: b.maxInputPerTrade,
      maxTotalPosition: b.maxTotalPosition, nonce: b.nonce,
    };
    return verifyTyped(chainId, 'SetAgentCaps', message, b.signature, b.signer);
  },
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const b = tx.body;
    const caps = { maxLeverageBps: b.maxLeverage, allowedOrderTypes: b.allowedOrderTypes, maxInputPerTrade: b.maxInputPerTrade, maxTotalPosition: b.maxTotalPosition };
    const next = agentTransition(agentRecord(ctx.state, b.owner), { type: 'SET_CAPS', caps });
    const rec = agentRecordOf(next);
    if (rec.caps === null) throw new InvariantError(`agent machine did not store caps for ${b.owner}`);
    ctx.state.agents.set(b.owner, rec);
    ctx.emit({ type: 'AgentCapsSet', owner: b.owner, ...caps });
  },
};

/** Shape of SetAgentMode: 0, 1 or 2, else 400 (spec Errors). */
export function agentModeShape(b: Pick<SetAgentModeBody, 'mode'>): void {
  if (!Number.isInteger(b.mode) || b.mode < 0 || b.mode > 2) throw badRequest('INVALID_MODE', `mode: must be 0 (OFF), 1 (REDUCE_ONLY) or 2 (ACTIVE), got ${b.mode}`);
}

export const setAgentModeOp: TxOp<SetAgentModeBody> = {
  shape: agentModeShape,
  verify: (tx, chainId) => verifyTyped(chainId, 'SetAgentMode', { owner: tx.body.owner, mode: BigInt(tx.body.mode), nonce: tx.body.nonce }, tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const b = tx.body;
    const next = agentTransition(agentRecord(ctx.state, b.owner), { type: 'SET_MODE', mode: b.mode });
    const want = AGENT_MODES[b.mode];
    if ((next.value as AgentStateValue).mode !== want) throw new InvariantError(`agent machine did not enter ${want} for ${b.owner}`);
    ctx.state.agents.set(b.owner, agentRecordOf(next));
    ctx.emit({ type: 'AgentModeSet', owner: b.owner, mode: b.mode, modeName: AGENT_MODE_WIRE[want] });
  },
};
