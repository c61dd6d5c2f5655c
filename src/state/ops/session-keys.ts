/**
 * Execution rules of the session-key kinds: SessionCreate and SessionRevoke (the agent
 * settings are agent-settings.ts). Both are owner-only (SIGNER_RULES in
 * src/state/accounts/sessions.ts, applied to every kind in ops/index.ts), and both change state
 * only through the session machine's compiled stepper (`stepSession`, through
 * sessionTransition): what the drawn machine allows is what execution does.
 */
import { verifyTyped } from './signature-checks';
import type { SessionCreateBody, SessionRevokeBody } from '../../codec/txs/sessions';
import { createRefusal } from '../../../machines/session';
import type { TxOp } from '../context';
import { badRequest, rejected, TxError } from '../errors';
import { sessionRecordOf, sessionStateAt, sessionTransition } from '../accounts/sessions';
import { InvariantError } from '../state';

/** expires_at is Unix seconds; in milliseconds it must stay a safe integer. */
const MAX_EXPIRES_AT_S = BigInt(Math.floor(Number.MAX_SAFE_INTEGER / 1000));
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Shape of a SessionCreate (400), shared with the API route. */
function sessionCreateShape(b: Pick<SessionCreateBody, 'owner' | 'sessionKey' | 'expiresAt'>): void {
  if (b.sessionKey === ZERO_ADDRESS) throw badRequest('INVALID_SESSION_KEY', 'session_key: must not be the zero address');
  if (b.sessionKey === b.owner) throw badRequest('INVALID_SESSION_KEY', 'session_key: must differ from the owner');
  if (b.expiresAt < 1n || b.expiresAt > MAX_EXPIRES_AT_S) throw badRequest('INVALID_EXPIRY', `expires_at: must be Unix seconds from 1 to ${MAX_EXPIRES_AT_S}`);
}

export const sessionCreateOp: TxOp<SessionCreateBody> = {
  shape: sessionCreateShape,
  verify: (tx, chainId) => {
    const b = tx.body;
    return verifyTyped(chainId, 'SessionCreate', { sessionKey: b.sessionKey, expiresAt: b.expiresAt, nonce: b.nonce }, b.signature, b.signer, b.options);
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
  verify: (tx, chainId) => verifyTyped(chainId, 'SessionRevoke', { owner: tx.body.owner, nonce: tx.body.nonce }, tx.body.signature, tx.body.signer, tx.body.options),
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
