/**
 * The machines' instances on this node, now (GET /v1/audit/instances, the /audit page):
 * the live actors (actor-lifecycle), this node's consensus round, and the on-chain
 * machines read from the executed state at the head: validators (TableId.Validator and
 * the genesis validators' implicit records), sessions (TableId.Session, one per owner),
 * agent settings (TableId.Agent; an owner without a record is in the default, not
 * listed), perp positions (TableId.PerpPosition: open ones; a closed or liquidated
 * position is deleted, its end is in the transitions), governance operations
 * (TableId.Governance) and withdrawals (TableId.Withdrawal). Each names the states it is
 * in by the drawing's ids (`data-state` in the SVG) so the page can highlight them.
 * Time-driven states (a session expired, an operation ready or expired) are the TICK at
 * the head's block time, as the API shows them elsewhere.
 *
 * Pure: reads the state it is given.
 */
import { machines, type MachineName } from '../../machines/index';
import { GOV_OP_NAMES } from '../codec/txs/governance';
import { operationStateAt } from '../state/governance/operations';
import { sessionStateAt } from '../state/accounts/sessions';
import type { State } from '../state/state';
import { validatorAddresses, validatorRecord } from '../state/validators/records';

export interface AuditInstance {
  machine: MachineName;
  id: string;
  /** A short line for a person: what the instance is. */
  label: string;
  /** The state by its path in the machine (`open`, `mode.active caps.set` for a parallel machine). */
  state: string;
  /** The drawing's state ids (`data-state`) it is in: leaves and their ancestors up to the root's child. */
  stateIds: string[];
  /** Addresses it belongs to, lowercase (the address filter). */
  addresses: string[];
}

/** What the node shows of itself beside the state: each actor's lifecycle state, consensus's step. */
export interface LiveFacts {
  actors: Record<string, { status?: unknown } | unknown>;
  consensus: { height?: unknown; round?: unknown; step?: unknown } | null;
}

/** The machines that have instances here, in the page's order; onboarding lives in the onboarding service, not on a node. */
export const INSTANCE_MACHINES: readonly MachineName[] = [
  'actor-lifecycle',
  'consensus-round',
  'validator-lifecycle',
  'session',
  'agent-mode',
  'position',
  'governance-operation',
  'withdrawal',
  'twap',
];

function ids(machine: MachineName, paths: string[]): string[] {
  const root = machines[machine].id;
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split('.');
    for (let i = 1; i <= parts.length; i++) out.add(`${root}.${parts.slice(0, i).join('.')}`);
  }
  return [...out];
}

function one(machine: MachineName, id: string, label: string, state: string, addresses: string[]): AuditInstance {
  return { machine, id, label, state, stateIds: ids(machine, [state]), addresses };
}

/** Every instance of `machine`, in a defined order (actors in start order, then table key order). */
function* instancesOf(machine: MachineName, state: State, live: LiveFacts): Generator<AuditInstance> {
  const headMs = state.head().timestampMs;
  const lc = (a: string) => a.toLowerCase();
  switch (machine) {
    case 'actor-lifecycle':
      for (const [name, stats] of Object.entries(live.actors)) {
        const status = (stats as { status?: unknown })?.status;
        if (typeof status === 'string') yield one(machine, name, `actor ${name}`, status, []);
      }
      return;
    case 'consensus-round': {
      const step = live.consensus?.step;
      // 'Syncing' (block sync, no round running) is no state of the machine: no instance then.
      if (typeof step === 'string' && (machines['consensus-round'].root.states as Record<string, unknown>)[step]) {
        yield one(machine, 'this node', `height ${String(live.consensus?.height)} round ${String(live.consensus?.round)}`, step, []);
      }
      return;
    }
    case 'validator-lifecycle':
      for (const address of validatorAddresses(state)) {
        const rec = validatorRecord(state, address);
        if (rec) yield one(machine, lc(address), `validator ${rec.name ?? ''}`.trim(), rec.status, [lc(address)]);
      }
      return;
    case 'session':
      for (const owner of state.sessions.sortedKeys()) {
        const rec = state.sessions.get(owner)!;
        yield one(machine, lc(owner), `key ${lc(rec.sessionKey)}`, sessionStateAt(rec, headMs), [lc(owner), lc(rec.sessionKey)]);
      }
      return;
    case 'agent-mode':
      for (const owner of state.agents.sortedKeys()) {
        const rec = state.agents.get(owner)!;
        const paths = [`mode.${rec.mode}`, rec.caps ? 'caps.set' : 'caps.notSet'];
        yield { machine, id: lc(owner), label: rec.caps ? `agent settings, caps set` : 'agent settings, no caps', state: paths.join(' '), stateIds: ids(machine, paths), addresses: [lc(owner)] };
      }
      return;
    case 'position':
      for (const key of state.perpPositions.sortedKeys()) {
        const p = state.perpPositions.get(key)!;
        const symbol = state.pairs.get(String(p.pairId))?.symbol ?? `pair ${p.pairId}`;
        yield one(machine, key, `${symbol} ${p.isLong ? 'long' : 'short'} ×${p.leverage}`, 'open', [lc(p.owner)]);
      }
      return;
    case 'governance-operation':
      for (const key of state.governance.sortedKeys()) {
        const rec = state.governance.get(key)!;
        const who = [rec.proposer, rec.approver, rec.closedBy].filter((a): a is NonNullable<typeof a> => !!a).map(lc);
        yield one(machine, key, GOV_OP_NAMES[rec.operation.kind], operationStateAt(rec, headMs).state, [...new Set(who)]);
      }
      return;
    case 'withdrawal':
      for (const key of state.withdrawals.sortedKeys()) {
        const w = state.withdrawals.get(key)!;
        yield one(machine, key, `to ${lc(w.destination)}`, w.status, [...new Set([lc(w.owner), lc(w.destination)])]);
      }
      return;
    case 'twap':
      for (const key of [...state.twaps.sortedKeys()].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))) {
        const t = state.twaps.get(key)!;
        yield one(machine, key, `${t.symbol} ${t.side === 0 ? 'buy' : 'sell'} over ${t.minutes} min`, t.state, [lc(t.owner)]);
      }
      return;
    case 'onboarding':
      return;
  }
}

/** One page of instances matching the filter, and how many match in all. */
export function listInstances(
  state: State,
  live: LiveFacts,
  filter: { machine?: MachineName; address?: string; offset: number; limit: number },
): { total: number; items: AuditInstance[] } {
  const address = filter.address?.toLowerCase();
  const items: AuditInstance[] = [];
  let total = 0;
  for (const machine of filter.machine ? [filter.machine] : INSTANCE_MACHINES) {
    for (const inst of instancesOf(machine, state, live)) {
      if (address !== undefined && !inst.addresses.includes(address)) continue;
      if (total >= filter.offset && items.length < filter.limit) items.push(inst);
      total++;
    }
  }
  return { total, items };
}
