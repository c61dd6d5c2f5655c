/**
 * The audit log: recent transitions of the machines' instances on this node (issue 23
 * item 2), in a bounded in-memory ring. Two feeds: each committed block (what its
 * events say changed: a session created, a position closed, a withdrawal paid, a
 * governance operation moved, a validator jailed; and a validator's status read before
 * and after the block, since registering, unbonding and unjailing emit no event) and
 * each actor's lifecycle step (from the actor runtime). It covers what this process
 * saw since it started: a persisted history is a later step (docs/audit.md).
 *
 * Cheap on the block path: one pass over the block's events and one read of the
 * validator records (few). Pure: no I/O, the caller passes the block's facts.
 */
import type { ChainEvent } from '../state/events';
import type { State } from '../state/state';
import { validatorAddresses, validatorRecord } from '../state/validators/records';

/** Transitions the ring holds; the oldest is dropped past it. */
const AUDIT_RING_TRANSITIONS = 4096;

/** What caused a transition: the transaction (hash and kind) and the event, or the block's own step, or an actor runtime's event. */
export interface AuditCause {
  /** The transaction whose execution made the change; null for a block step or an actor. */
  txHash: string | null;
  /** Its kind (SessionCreate, PerpOpen, …); null with txHash. */
  txKind: string | null;
  /** The chain event type (SessionCreated, PerpClosed, …), `status` for a validator status read across the block, or the lifecycle machine's event (START, FAIL, …). */
  event: string;
}

export interface AuditTransition {
  /** Order of recording in this process, from 1. */
  seq: number;
  /** The machine's name in machines/index.ts. */
  machine: string;
  /** The instance: an owner address (session, agent-mode), a position, withdrawal or operation id, a validator address, an actor's name. */
  id: string;
  /** The state before, when this node knows it (it saw the instance before); else null. */
  from: string | null;
  /** The state entered, by its path in the machine (`open`, `mode.off`, `caps.set`). */
  to: string;
  /** Height of the block that made it; null for an actor's step. */
  height: number | null;
  /** Block time (ms) of that block, or the wall clock for an actor's step. */
  timeMs: number;
  cause: AuditCause;
  /** Addresses the instance belongs to (owner, session key, validator), lowercase: the address filter. */
  addresses: string[];
}

/** A transition to record; `from` when the feed knows it (an actor's step), else the instance's last recorded state. */
type Recorded = Omit<AuditTransition, 'seq' | 'from'> & { from?: string };

/** A state (by path) per event, for the instances the events name. */
function fromEvent(e: ChainEvent): Omit<Recorded, 'height' | 'timeMs' | 'cause'>[] {
  const lc = (a: string) => a.toLowerCase();
  switch (e.type) {
    case 'SessionCreated':
      return [{ machine: 'session', id: lc(e.owner), to: 'active', addresses: [lc(e.owner), lc(e.sessionKey)] }];
    case 'SessionRevoked':
      return [{ machine: 'session', id: lc(e.owner), to: 'revoked', addresses: [lc(e.owner), lc(e.sessionKey)] }];
    case 'AgentModeSet':
      return [{ machine: 'agent-mode', id: lc(e.owner), to: `mode.${AGENT_MODE_STATE[e.modeName] ?? e.modeName}`, addresses: [lc(e.owner)] }];
    case 'AgentCapsSet':
      return [{ machine: 'agent-mode', id: lc(e.owner), to: 'caps.set', addresses: [lc(e.owner)] }];
    case 'PerpOpened':
      return [{ machine: 'position', id: e.positionId, to: 'open', addresses: [lc(e.owner)] }];
    case 'PerpTpslSet':
      return [{ machine: 'position', id: e.positionId, to: 'open', addresses: [lc(e.owner)] }];
    case 'PerpClosed': {
      const to = e.remaining > 0n ? 'open' : e.reason === 'liquidation' ? 'liquidated' : 'closed';
      return [{ machine: 'position', id: e.positionId, to, addresses: [lc(e.owner)] }];
    }
    case 'WithdrawalRequested':
      return [{ machine: 'withdrawal', id: e.withdrawalId, to: 'requested', addresses: [lc(e.owner), lc(e.destination)] }];
    case 'WithdrawalSigned':
      return [{ machine: 'withdrawal', id: e.withdrawalId, to: 'signed', addresses: [lc(e.owner)] }];
    case 'WithdrawalSubmitted':
      return [{ machine: 'withdrawal', id: e.withdrawalId, to: 'submitted', addresses: [lc(e.owner)] }];
    case 'WithdrawalPaid':
      return [{ machine: 'withdrawal', id: e.withdrawalId, to: 'paid', addresses: [lc(e.owner)] }];
    case 'WithdrawalRefunded':
      return [{ machine: 'withdrawal', id: e.withdrawalId, to: 'refunded', addresses: [lc(e.owner)] }];
    case 'GovernanceOperation':
      return [{ machine: 'governance-operation', id: e.operationId, to: e.state, addresses: [lc(e.owner)] }];
    case 'TwapPlaced':
      return [{ machine: 'twap', id: e.twapId, to: 'running', addresses: [lc(e.owner)] }];
    case 'TwapEnded':
      return [{ machine: 'twap', id: e.twapId, to: e.state, addresses: [lc(e.owner)] }];
    case 'ValidatorJailed':
      return [{ machine: 'validator-lifecycle', id: lc(e.validator), to: 'jailed', addresses: [lc(e.validator)] }];
    case 'ValidatorTombstoned':
      return [{ machine: 'validator-lifecycle', id: lc(e.validator), to: 'tombstoned', addresses: [lc(e.validator)] }];
    default:
      // Other validator steps: read across the block (blockCommitted); orders and funds: no machine.
      return [];
  }
}

/** AgentModeSet's wire name → the agent-mode machine's state key. */
const AGENT_MODE_STATE: Record<string, string> = { OFF: 'off', REDUCE_ONLY: 'reduceOnly', ACTIVE: 'active' };

/** What blockCommitted needs of a committed block. */
export interface CommittedBlockFacts {
  height: number;
  timeMs: number;
  receipts: readonly { txHash: string; kind: string; signer: string | null; status: 'ok' | 'failed'; events: readonly ChainEvent[] }[];
  /** Events of the block's own steps (downtime, end-of-block perps and bridge). */
  blockEvents: readonly ChainEvent[];
}

export type AuditListener = (t: AuditTransition) => void;

export class AuditLog {
  private readonly ring: AuditTransition[] = [];
  /** Newest-last transitions per instance (`machine id`), pruned with the ring. */
  private readonly byInstance = new Map<string, AuditTransition[]>();
  private readonly listeners = new Set<AuditListener>();
  /** Validator statuses after the last block seen; undefined before the first. */
  private validatorStatus: Map<string, string> | undefined;
  private seq = 0;

  constructor(readonly capacity = AUDIT_RING_TRANSITIONS) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('audit ring capacity must be a positive integer');
  }

  /** Transitions recorded since the process started (the ring holds the last `capacity`). */
  get recorded(): number {
    return this.seq;
  }

  /** Calls `listener` on every transition recorded; returns the unsubscribe function. */
  subscribe(listener: AuditListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads a committed block: its events, and each validator's status against the last block's. */
  blockCommitted(block: CommittedBlockFacts, state: State): void {
    const at = { height: block.height, timeMs: block.timeMs };
    for (const r of block.receipts) {
      if (r.status !== 'ok') continue;
      for (const e of r.events) for (const t of fromEvent(e)) this.record({ ...t, ...at, cause: { txHash: r.txHash, txKind: r.kind, event: e.type } });
    }
    for (const e of block.blockEvents) for (const t of fromEvent(e)) this.record({ ...t, ...at, cause: { txHash: null, txKind: null, event: e.type } });
    this.readValidators(block, state);
  }

  /** An actor's lifecycle stepped (the actor runtime's listener). */
  actorStep(name: string, from: string, status: string, event: string | null, nowMs: number): void {
    this.record({ machine: 'actor-lifecycle', id: name, from, to: status, height: null, timeMs: nowMs, cause: { txHash: null, txKind: null, event: event ?? 'status' }, addresses: [] });
  }

  /** Recent transitions, newest first, matching the filter; at most `limit`. */
  recent(filter: { machine?: string; id?: string; address?: string; limit: number }): AuditTransition[] {
    const address = filter.address?.toLowerCase();
    const source = filter.machine !== undefined && filter.id !== undefined ? (this.byInstance.get(instanceKey(filter.machine, filter.id)) ?? []) : this.ring;
    const out: AuditTransition[] = [];
    for (let i = source.length - 1; i >= 0 && out.length < filter.limit; i--) {
      const t = source[i];
      if (filter.machine !== undefined && t.machine !== filter.machine) continue;
      if (address !== undefined && !t.addresses.includes(address)) continue;
      out.push(t);
    }
    return out;
  }

  private readValidators(block: CommittedBlockFacts, state: State): void {
    const now = new Map<string, string>();
    for (const address of validatorAddresses(state)) {
      const rec = validatorRecord(state, address);
      if (rec) now.set(address.toLowerCase(), rec.status);
    }
    const before = this.validatorStatus;
    this.validatorStatus = now;
    if (!before) return; // the first block seen: nothing to compare with
    for (const [address, status] of now) {
      if (before.get(address) === status) continue;
      // The events already recorded it (jailed, tombstoned) with their cause.
      const last = this.byInstance.get(instanceKey('validator-lifecycle', address))?.at(-1);
      if (last && last.height === block.height && last.to === status) continue;
      const tx = block.receipts.find((r) => r.status === 'ok' && r.signer?.toLowerCase() === address);
      const cause = tx ? { txHash: tx.txHash, txKind: tx.kind, event: 'status' } : { txHash: null, txKind: null, event: 'status' };
      this.record({ machine: 'validator-lifecycle', id: address, to: status, height: block.height, timeMs: block.timeMs, cause, addresses: [address] });
    }
  }

  private record(t: Recorded): void {
    const key = instanceKey(t.machine, t.id);
    let list = this.byInstance.get(key);
    const prev = list?.at(-1);
    // An event that leaves the instance where it was (a partial close, TP/SL set) is still a step of the machine: kept, from = to.
    const full: AuditTransition = { seq: ++this.seq, ...t, from: t.from ?? (prev ? prev.to : null) };
    if (!list) this.byInstance.set(key, (list = []));
    list.push(full);
    this.ring.push(full);
    if (this.ring.length > this.capacity) {
      const old = this.ring.shift()!;
      const oldKey = instanceKey(old.machine, old.id);
      const oldList = this.byInstance.get(oldKey)!;
      oldList.shift();
      if (oldList.length === 0) this.byInstance.delete(oldKey);
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(full);
      } catch {
        // A listener (a WebSocket push) must not fail the block that fed the log.
      }
    }
  }
}

function instanceKey(machine: string, id: string): string {
  return `${machine} ${id}`;
}
