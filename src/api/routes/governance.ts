/**
 * GET /v1/governance/operations (issue 21; decision 74): every owner governance operation
 * the state holds, pending and closed, by operation id ascending, each with its kind and
 * fields, proposer, approvals, state and ready time. The state shown is the operation's
 * at the head's block time (operationStateAt: the TICK machines/governance-operation.ts
 * takes then), so an approved operation whose timelock has passed reads `ready` and a
 * lapsed one `expired` before any transaction touches it. Also `halted`: the halt in
 * force (its operation id and height), or null. Read from the executed state at the head.
 */
import type { RoutePlugin } from '../route-plugin';
import { GOV_OP_NAMES, type GovOperation } from '../../codec/txs/governance';
import { operationToJson } from '../../codec/txs/governance-json';
import { haltOf, operationIds, operationStateAt } from '../../state/governance/operations';
import { checkNetwork } from '../common';
import { errorSchema, ok } from '../envelope';
import { addr, arr, envelope, EX, hex, int, nullable, obj, openObj, str } from '../schemas';

const operationsSchema = obj({
  height: int(),
  timestampMs: int('The head\u2019s block time: the time each operation\u2019s state is read at.'),
  halted: nullable(obj({ operationId: hex(), height: int() })),
  operations: arr(obj({
    id: hex(),
    kind: str(),
    operation: openObj('The operation\u2019s fields (its JSON form, as `gov propose --op` reads it, without the kind).'),
    state: str('proposed, approved, ready, executed, cancelled, expired, …'),
    proposer: addr(),
    approvals: arr(addr()),
    proposedHeight: int(),
    proposedAtMs: int(),
    timelockMs: int(),
    readyAtMs: nullable(int()),
    expiresAtMs: int(),
    executedHeight: nullable(int()),
    closedBy: nullable(addr()),
    cancelRequestedBy: nullable(addr('The owner whose cancel waits for a second owner\u2019s (decision 162), else null.')),
  })),
});

const errors = { '4xx': errorSchema, '5xx': errorSchema };

/** The operation's fields as JSON: its JSON form (src/codec/txs/governance-json.ts, what `gov propose --op` reads) without the kind. */
function operationFields(op: GovOperation): Record<string, unknown> {
  const { kind: _kind, ...fields } = operationToJson(op);
  return fields;
}

export const governanceRoutes: RoutePlugin = async (app, { node }) => {
  app.get('/v1/governance/operations', {
    schema: {
      tags: ['validators'],
      summary: 'Owner governance operations, pending and closed',
      description: 'By operation id ascending, each with its kind and fields, proposer, approvals, state at the head\u2019s block time and ready time; `halted`: the halt in force, or null.',
      querystring: { type: 'object', additionalProperties: false, properties: { network: { type: 'string', maxLength: 16 } } },
      response: {
        200: envelope(operationsSchema, {
          height: 1024, timestampMs: EX.timestampMs, halted: null,
          operations: [{ id: EX.hash, kind: 'set-fees', operation: { makerFeeBps: 2, takerFeeBps: 5 }, state: 'approved', proposer: EX.address, approvals: [EX.address, EX.sessionKey], proposedHeight: 1000, proposedAtMs: EX.timestampMs, timelockMs: 60000, readyAtMs: EX.timestampMs + 60000, expiresAtMs: EX.timestampMs + 86400000, executedHeight: null, closedBy: null, cancelRequestedBy: null }],
        }),
        ...errors,
      },
    },
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
          cancelRequestedBy: rec.cancelRequestedBy ?? null,
        };
      });
      const halt = haltOf(state);
      return ok({ height: head.height, timestampMs: head.timestampMs, halted: halt ?? null, operations });
    },
  });
};
