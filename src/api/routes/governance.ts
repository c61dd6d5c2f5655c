/**
 * GET /v1/governance/operations (issue 21; decision 74): every owner governance operation
 * the state holds, pending and closed, by operation id ascending, each with its kind and
 * fields, proposer, approvals, state and ready time. The state shown is the operation's
 * at the head's block time (operationStateAt: the TICK machines/governance-operation.ts
 * takes then), so an approved operation whose timelock has passed reads `ready` and a
 * lapsed one `expired` before any transaction touches it. Also `halted`: the halt in
 * force (its operation id and height), or null. Read from the executed state at the head.
 */
import type { FastifyPluginAsync } from 'fastify';
import { GOV_OP_NAMES, type GovOperation } from '../../codec/txs/governance';
import { operationToJson } from '../../codec/txs/governance-json';
import { haltOf, operationIds, operationStateAt } from '../../state/governance';
import { checkNetwork } from '../common';
import { errorSchema, ok } from '../envelope';
import type { NodeApi } from '../node-api';

const errors = { '4xx': errorSchema, '5xx': errorSchema };

/** The operation's fields as JSON: its JSON form (src/codec/txs/governance-json.ts, what `gov propose --op` reads) without the kind. */
function operationFields(op: GovOperation): Record<string, unknown> {
  const { kind: _kind, ...fields } = operationToJson(op);
  return fields;
}

export const governanceRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get<{ Querystring: { network?: string } }>('/v1/governance/operations', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { network: { type: 'string', maxLength: 16 } } }, response: errors },
    handler: async (req) => {
      checkNetwork(node.genesis, req.query.network);
      const state = node.chain().state;
      const head = state.head();
      const operations = operationIds(state).map((id) => {
        const rec = state.governance.get(id)!;
        const at = operationStateAt(rec, head.timestampMs);
        return {
          id,
          kind: GOV_OP_NAMES[rec.operation.kind],
          operation: operationFields(rec.operation),
          state: at.state,
          proposer: rec.proposer,
          approvals: rec.approver === null ? [rec.proposer] : [rec.proposer, rec.approver],
          proposedHeight: rec.proposedHeight,
          proposedAtMs: at.context.proposedAtMs,
          timelockMs: at.context.timelockMs,
          readyAtMs: at.context.readyAtMs === 0 ? null : at.context.readyAtMs,
          expiresAtMs: at.context.expiresAtMs,
          executedHeight: rec.executedHeight === 0 ? null : rec.executedHeight,
          closedBy: rec.closedBy,
        };
      });
      const halt = haltOf(state);
      return ok({ height: head.height, timestampMs: head.timestampMs, halted: halt ?? null, operations });
    },
  });
};
