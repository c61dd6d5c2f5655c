/**
 * Where a supervised actor takes its messages from. The plain one is the Mailbox
 * (actors/mailbox.ts): one bounded FIFO for every kind of message. A LanedInbox keeps
 * one bounded lane per kind instead, each with its own capacity, drop policy and
 * counters (Lodestar's habit: every gossip topic has its own queue), so a flood of one
 * kind fills only its own lane and cannot push out the others.
 *
 * Lanes are served in this order: the priority lanes first, in the order declared
 * (the consensus actor's timeouts); then the other lanes in turn, one message each
 * (round robin), so a lane that is never empty cannot starve the rest either.
 *
 * A 'supersede' lane holds one message, the latest: a new one replaces the waiting one.
 * It is for messages where the newer makes the older obsolete (a consensus timeout:
 * only the one for the current step can still act). It never refuses a message, so
 * nothing sent to it is lost; the replaced ones are counted apart as superseded.
 */
import { Mailbox, Waiters, type DropPolicy } from './mailbox';

/** What SupervisedActor needs of its queue; Mailbox and LanedInbox provide it. */
export interface Inbox<M> {
  /** Messages waiting. */
  readonly size: number;
  /** Messages accepted. */
  readonly enqueued: number;
  /** Messages lost to a drop policy (refused or evicted); superseded ones are not lost. */
  readonly dropped: number;
  /** Offers a message; false when it was refused. */
  push(msg: M): boolean;
  /** The next message, or undefined when empty. */
  poll(): M | undefined;
  /** The next message, waiting for one when empty; rejects when `signal` aborts first. */
  take(signal?: AbortSignal): Promise<M>;
  /** Removes and returns every waiting message. */
  clear(): M[];
  /** Per-lane counters, for an inbox with lanes. */
  lanes?(): Record<string, LaneStats>;
}

export type LanePolicy = DropPolicy | 'supersede';

export interface LaneSpec {
  /** Messages the lane holds; a positive integer (exactly 1 for 'supersede'). */
  capacityMsgs: number;
  policy: LanePolicy;
  /** Served before every lane that is not a priority lane. */
  priority?: boolean;
}

export interface LaneStats {
  capacityMsgs: number;
  policy: LanePolicy;
  size: number;
  enqueued: number;
  /** Refused (drop-newest) or evicted (drop-oldest) when full: lost. */
  dropped: number;
  /** Replaced by a newer message in a 'supersede' lane: obsolete, not lost. */
  superseded: number;
}

export interface LanedInboxOptions<M, K extends string> {
  lanes: Record<K, LaneSpec>;
  /** The lane a message goes to. */
  laneOf: (msg: M) => K;
  /** Called with every message evicted (drop-oldest) or superseded; not with refused ones (the sender learns from push). */
  onEvict?: (msg: M) => void;
}

interface Lane<M, K> {
  name: K;
  spec: LaneSpec;
  box: Mailbox<M>;
}

export class LanedInbox<M, K extends string> implements Inbox<M> {
  private readonly byName = new Map<K, Lane<M, K>>();
  private readonly priority: Lane<M, K>[] = [];
  private readonly rotation: Lane<M, K>[] = [];
  private readonly laneOf: (msg: M) => K;
  private readonly waiters = new Waiters<M>();
  /** Index in `rotation` of the lane served first next time. */
  private cursor = 0;

  constructor(opts: LanedInboxOptions<M, K>) {
    this.laneOf = opts.laneOf;
    for (const name of Object.keys(opts.lanes) as K[]) {
      const spec = opts.lanes[name];
      if (spec.policy === 'supersede' && spec.capacityMsgs !== 1) {
        throw new RangeError(`lane ${name}: a 'supersede' lane holds exactly 1 message, got ${spec.capacityMsgs}`);
      }
      const policy: DropPolicy = spec.policy === 'drop-newest' ? 'drop-newest' : 'drop-oldest';
      const box = new Mailbox<M>({ capacity: spec.capacityMsgs, policy, onDrop: policy === 'drop-oldest' ? opts.onEvict : undefined });
      const lane: Lane<M, K> = { name, spec, box };
      this.byName.set(name, lane);
      (spec.priority === true ? this.priority : this.rotation).push(lane);
    }
    if (this.byName.size === 0) throw new RangeError('a laned inbox needs at least one lane');
  }

  get size(): number {
    let n = 0;
    for (const lane of this.byName.values()) n += lane.box.size;
    return n;
  }

  get enqueued(): number {
    let n = 0;
    for (const lane of this.byName.values()) n += lane.box.enqueued;
    return n;
  }

  get dropped(): number {
    let n = 0;
    for (const lane of this.byName.values()) if (lane.spec.policy !== 'supersede') n += lane.box.dropped;
    return n;
  }

  /** Consumers blocked in take(). */
  get waiting(): number {
    return this.waiters.length;
  }

  push(msg: M): boolean {
    const name = this.laneOf(msg);
    const lane = this.byName.get(name);
    if (lane === undefined) throw new Error(`no lane ${String(name)} in this inbox`);
    if (!lane.box.push(msg)) return false;
    // A consumer waits, so every lane was empty: this message is the next one.
    this.waiters.serve(() => this.poll() as M);
    return true;
  }

  poll(): M | undefined {
    for (const lane of this.priority) if (lane.box.size > 0) return lane.box.poll();
    const n = this.rotation.length;
    for (let i = 0; i < n; i++) {
      const k = (this.cursor + i) % n;
      const lane = this.rotation[k];
      if (lane.box.size > 0) {
        this.cursor = (k + 1) % n;
        return lane.box.poll();
      }
    }
    return undefined;
  }

  take(signal?: AbortSignal): Promise<M> {
    if (this.size > 0) return Promise.resolve(this.poll() as M);
    return this.waiters.wait(signal);
  }

  clear(): M[] {
    const out: M[] = [];
    for (const lane of [...this.priority, ...this.rotation]) out.push(...lane.box.clear());
    return out;
  }

  lanes(): Record<K, LaneStats> {
    const out = {} as Record<K, LaneStats>;
    for (const [name, { spec, box }] of this.byName) {
      const supersede = spec.policy === 'supersede';
      out[name] = {
        capacityMsgs: spec.capacityMsgs,
        policy: spec.policy,
        size: box.size,
        enqueued: box.enqueued,
        dropped: supersede ? 0 : box.dropped,
        superseded: supersede ? box.dropped : 0,
      };
    }
    return out;
  }
}
