/**
 * Execution rules of the agent settings kinds: SetAgentCaps and SetAgentMode. Both are
 * owner-only (SIGNER_RULES in src/state/accounts/sessions.ts, applied to every kind in
 * ops/index.ts) and change state only through the agent-mode machine's pure
 * `transition()` (machines/agent-mode.ts, through agentTransition): what the drawn
 * machine allows is what execution does.
 */
import { verifyTyped } from './signature-checks';
import type { SetAgentCapsBody, SetAgentModeBody } from '../../codec/txs/sessions';
import { AGENT_MODES, AGENT_MODE_WIRE, type AgentStateValue } from '../../../machines/agent-mode';
import type { TxOp } from '../context';
import { agentRecord, agentRecordOf, agentTransition } from '../accounts/agents';
import { badRequest } from '../errors';
import { InvariantError } from '../state';

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;

/** Shape of SetAgentCaps (400, naming the field), shared with the API route. */
function agentCapsShape(b: Pick<SetAgentCapsBody, 'maxLeverage' | 'maxInputPerTrade' | 'maxTotalPosition'>): void {
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
    return verifyTyped(chainId, 'SetAgentCaps', message, b.signature, b.signer, b.options);
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

/** Shape of SetAgentMode: 0, 1 or 2, else 400 (contract [C-errors-mode-400]). */
function agentModeShape(b: Pick<SetAgentModeBody, 'mode'>): void {
  if (!Number.isInteger(b.mode) || b.mode < 0 || b.mode > 2) throw badRequest('INVALID_MODE', `mode: must be 0 (OFF), 1 (REDUCE_ONLY) or 2 (ACTIVE), got ${b.mode}`);
}

export const setAgentModeOp: TxOp<SetAgentModeBody> = {
  shape: agentModeShape,
  verify: (tx, chainId) => verifyTyped(chainId, 'SetAgentMode', { owner: tx.body.owner, mode: BigInt(tx.body.mode), nonce: tx.body.nonce }, tx.body.signature, tx.body.signer, tx.body.options),
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
