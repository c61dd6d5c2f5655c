/**
 * The auditors' view (issue 23 item 2; docs/audit.md): GET /audit, a self-contained
 * page (HTML, CSS and script from this node, nothing from the internet), and the JSON
 * behind it: every machine drawn (GET /v1/audit/machines), the machines' instances on
 * this node now (GET /v1/audit/instances) and their recent transitions (GET
 * /v1/audit/transitions). The page follows new transitions over the WebSocket's `audit`
 * topic (routes/ws.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { MACHINE_ROLES, type MachineName } from '../../../machines/index';
import { machineCatalog } from '../../audit/catalog';
import { INSTANCE_MACHINES, listInstances } from '../../audit/instances';
import type { AuditTransition } from '../../audit/transitions';
import { AUDIT_PAGE_HTML } from '../audit-page';
import { ok } from '../envelope';
import { envelope as exampleEnvelope, errorResponses } from '../schemas';
import { ADDRESS_PATTERN } from '../common';
import type { NodeApi } from '../node-api';
import { AUDIT_INSTANCES_LIMIT_MAX, AUDIT_TRANSITIONS_LIMIT_MAX } from '../limits';

const errors = errorResponses;
const MACHINE_NAMES = MACHINE_ROLES.map((r) => r.id);

const envelope = (data: object, example: unknown) => exampleEnvelope(data as Record<string, unknown>, example);

const EXAMPLE_TRANSITION = {
  seq: 12,
  machine: 'session',
  id: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  from: 'active',
  to: 'revoked',
  height: 415,
  timeMs: 1767225600000,
  cause: { txHash: '0x9c2f1e6a4b3d5c7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d6e7', txKind: 'SessionRevoke', event: 'SessionRevoked' },
  addresses: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8'],
};

const machineQuery = { type: 'string', enum: MACHINE_NAMES, description: 'A machine of machines/index.ts, by name.' } as const;
const addressQuery = { type: 'string', pattern: ADDRESS_PATTERN, description: 'Only what belongs to this address (owner, session key, validator).' } as const;

const actionSchema = { type: 'object', additionalProperties: true, description: 'ActionModel: {type, params}.' } as const;
const transitionModelSchema = {
  type: 'object',
  required: ['source', 'event', 'targets', 'guard', 'actions', 'reenter', 'order'],
  properties: {
    source: { type: 'string' },
    event: { type: ['string', 'null'] },
    targets: { type: 'array', items: { type: 'string' } },
    guard: { type: ['object', 'null'], additionalProperties: true, description: 'GuardModel (named, and/or/not, stateIn), or null.' },
    actions: { type: 'array', items: actionSchema },
    reenter: { type: 'boolean' },
    order: { type: 'integer' },
  },
} as const;
const modelSchema = {
  type: 'object',
  description: 'The machine model (docs/audit.md "The JSON model"), format exchange-chain/machine-model version 1.',
  required: ['format', 'version', 'name', 'machineId', 'file', 'root', 'events', 'guards', 'actions', 'transitions'],
  properties: {
    format: { type: 'string', const: 'exchange-chain/machine-model' },
    version: { type: 'integer', const: 1 },
    name: { type: 'string' },
    machineId: { type: 'string' },
    file: { type: ['string', 'null'] },
    root: { type: 'object', additionalProperties: true, description: 'StateModel: {id, key, path, type, initial, entry, exit, description, states}, nested.' },
    events: { type: 'array', items: { type: 'string' } },
    guards: { type: 'array', items: { type: 'string' } },
    actions: { type: 'array', items: { type: 'string' } },
    transitions: { type: 'array', items: transitionModelSchema },
  },
} as const;

const instanceSchema = {
  type: 'object',
  required: ['machine', 'id', 'label', 'state', 'stateIds', 'addresses'],
  properties: {
    machine: { type: 'string' },
    id: { type: 'string', description: 'Owner address (session, agent-mode), position, operation or withdrawal id, validator address, actor name.' },
    label: { type: 'string' },
    state: { type: 'string', description: 'The state by its path in the machine; a parallel machine\'s regions separated by a space.' },
    stateIds: { type: 'array', items: { type: 'string' }, description: 'The drawing\'s data-state ids it is in.' },
    addresses: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const auditTransitionSchema = {
  type: 'object',
  required: ['seq', 'machine', 'id', 'from', 'to', 'height', 'timeMs', 'cause', 'addresses'],
  properties: {
    seq: { type: 'integer', description: 'Order of recording on this node since it started.' },
    machine: { type: 'string' },
    id: { type: 'string' },
    from: { type: ['string', 'null'], description: 'The state before, when this node saw the instance before; else null.' },
    to: { type: 'string' },
    height: { type: ['integer', 'null'], description: 'The block that made it; null for an actor\'s lifecycle step.' },
    timeMs: { type: 'integer', description: 'Block time, or the wall clock for an actor\'s step.' },
    cause: {
      type: 'object',
      required: ['txHash', 'txKind', 'event'],
      properties: {
        txHash: { type: ['string', 'null'] },
        txKind: { type: ['string', 'null'] },
        event: { type: 'string', description: 'The chain event (SessionCreated, …), `status` (a validator\'s status read across the block) or the lifecycle event (START, …).' },
      },
    },
    addresses: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const auditRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get('/audit', {
    schema: {
      summary: 'The audit page: every machine drawn, its instances on this node, their transitions, live',
      description: 'A self-contained HTML page (its CSS and script inline; it loads nothing from elsewhere) over the /v1/audit/* routes and the WebSocket topic `audit`.',
      tags: ['audit'],
      response: { 200: { description: 'text/html', type: 'string', examples: ['<!doctype html>…'] } },
    },
    handler: async (_request, reply) => reply.type('text/html; charset=utf-8').header('content-security-policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:").send(AUDIT_PAGE_HTML),
  });

  app.get('/v1/audit/machines', {
    schema: {
      summary: 'Every machine of machines/index.ts: its model, its role in execution and its drawing (SVG)',
      tags: ['audit'],
      response: {
        200: envelope({
          type: 'object',
          required: ['machines'],
          properties: {
            machines: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'machineId', 'file', 'role', 'executedBy', 'hasInstances', 'model', 'svg'],
                properties: {
                  name: { type: 'string' },
                  machineId: { type: 'string' },
                  file: { type: 'string' },
                  role: { type: 'string' },
                  executedBy: { type: 'array', items: { type: 'string' } },
                  hasInstances: { type: 'boolean', description: 'False for a machine with no instance on a node (onboarding: the onboarding service).' },
                  model: modelSchema,
                  svg: { type: 'string', description: 'The drawing laid out by elkjs: states carry data-state, transitions data-transition.' },
                },
              },
            },
          },
        }, {
          machines: [
            {
              name: 'withdrawal',
              machineId: 'withdrawal',
              file: 'machines/withdrawal.ts',
              role: 'One bridge withdrawal: requested, signed, submitted, paid or refunded.',
              executedBy: ['src/state/bridge/withdrawals.ts'],
              hasInstances: true,
              model: {
                format: 'exchange-chain/machine-model',
                version: 1,
                name: 'withdrawal',
                machineId: 'withdrawal',
                file: 'machines/withdrawal.ts',
                root: { id: 'withdrawal', key: 'withdrawal', path: [], type: 'compound', initial: 'requested', states: {} },
                events: ['SIGNED', 'QUEUED', 'PAID', 'VOID'],
                guards: [],
                actions: ['setSigned', 'setQueued', 'setPaid', 'setVoid'],
                transitions: [{ source: 'withdrawal.requested', event: 'SIGNED', targets: ['withdrawal.signed'], guard: null, actions: [{ type: 'setSigned' }], reenter: false, order: 0 }],
              },
              svg: '<svg xmlns="http://www.w3.org/2000/svg" …>…</svg>',
            },
          ],
        }),
        ...errors,
      },
    },
    handler: async () => {
      const all = await machineCatalog();
      return ok({ machines: all.map((m) => ({ ...m, hasInstances: INSTANCE_MACHINES.includes(m.name) })) });
    },
  });

  app.get('/v1/audit/instances', {
    schema: {
      summary: "The machines' instances on this node now, each with its current state",
      description:
        'Live actors (actor-lifecycle), this node\'s consensus round, and from the state at the head: validators, sessions, agent settings, open perp positions, governance operations, withdrawals. ' +
        `Paginated: offset and limit (at most ${AUDIT_INSTANCES_LIMIT_MAX}); total counts every match.`,
      tags: ['audit'],
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          machine: machineQuery,
          address: addressQuery,
          offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 },
          limit: { type: 'integer', minimum: 1, maximum: AUDIT_INSTANCES_LIMIT_MAX, default: 100 },
        },
      },
      response: {
        200: envelope({
          type: 'object',
          required: ['height', 'total', 'offset', 'items'],
          properties: { height: { type: 'integer' }, total: { type: 'integer' }, offset: { type: 'integer' }, items: { type: 'array', items: instanceSchema } },
        }, {
          height: 415,
          total: 1,
          offset: 0,
          items: [{ machine: 'withdrawal', id: '3', label: 'withdrawal 3', state: 'paid', stateIds: ['withdrawal.paid'], addresses: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8'] }],
        }),
        ...errors,
      },
    },
    handler: async (request) => {
      const q = request.query as { machine?: MachineName; address?: string; offset: number; limit: number };
      const chain = node.chain();
      const status = node.status();
      const page = listInstances(chain.state, { actors: status.actors, consensus: status.consensus }, q);
      return ok({ height: chain.height, total: page.total, offset: q.offset, items: page.items });
    },
  });

  app.get('/v1/audit/transitions', {
    schema: {
      summary: 'Recent transitions this node saw, newest first, with height and cause',
      description:
        'From the blocks this node committed and its actors\' lifecycle steps since it started, in a bounded in-memory ring (docs/audit.md); not a persisted history. ' +
        'With machine and id: one instance\'s (id without machine is 400).',
      tags: ['audit'],
      querystring: {
        type: 'object',
        additionalProperties: false,
        dependencies: { id: ['machine'] },
        properties: {
          machine: machineQuery,
          id: { type: 'string', minLength: 1, maxLength: 80, description: 'The instance (with machine).' },
          address: addressQuery,
          limit: { type: 'integer', minimum: 1, maximum: AUDIT_TRANSITIONS_LIMIT_MAX, default: 50 },
        },
      },
      response: {
        200: envelope({
          type: 'object',
          required: ['recorded', 'capacity', 'items'],
          properties: {
            recorded: { type: 'integer', description: 'Transitions recorded since the node started.' },
            capacity: { type: 'integer', description: 'Transitions the ring keeps.' },
            items: { type: 'array', items: auditTransitionSchema },
          },
        }, { recorded: 13, capacity: 4096, items: [EXAMPLE_TRANSITION] }),
        ...errors,
      },
    },
    handler: async (request) => {
      const q = request.query as { machine?: string; id?: string; address?: string; limit: number };
      const log = node.audit();
      const id = q.id !== undefined && q.id.startsWith('0x') ? q.id.toLowerCase() : q.id;
      const items: AuditTransition[] = log.recent({ machine: q.machine, id, address: q.address, limit: q.limit });
      return ok({ recorded: log.recorded, capacity: log.capacity, items });
    },
  });
};
