/**
 * Bounded FIFO mailbox: a fixed ring buffer (O(1) push and take, no Array.shift, no
 * allocation per message) plus a short FIFO of waiting consumers. When full it drops
 * by policy and counts the drop; a queue without a limit is a memory leak waiting for
 * a slow consumer.
 */

export type DropPolicy = 'drop-newest' | 'drop-oldest';

export interface MailboxOptions<M> {
  /** Maximum messages held; a positive integer. */
  capacity: number;
  /** 'drop-newest' (default) refuses the new message; 'drop-oldest' evicts the head. */
  policy?: DropPolicy;
  /** Called with every message lost to the policy (the refused or the evicted one). */
  onDrop?: (msg: M) => void;
}

interface Waiter<M> {
  resolve(msg: M): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Consumers blocked waiting for a message, served in arrival order; one whose signal
 * aborts leaves the queue (shared by Mailbox and the laned inbox of actors/inbox.ts).
 */
export class Waiters<M> {
  private readonly queue: Waiter<M>[] = [];

  get length(): number {
    return this.queue.length;
  }

  /** The next message handed over by serve(); rejects with the signal's reason when it aborts first. */
  wait(signal?: AbortSignal): Promise<M> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<M>((resolve, reject) => {
      const waiter: Waiter<M> = { resolve, reject, signal, onAbort: undefined };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
    });
  }

  /** Hands `next()` to the longest-waiting consumer; false (and `next` not called) when none waits. */
  serve(next: () => M): boolean {
    const waiter = this.queue.shift();
    if (waiter === undefined) return false;
    if (waiter.signal !== undefined && waiter.onAbort !== undefined) waiter.signal.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(next());
    return true;
  }
}

/**
 * It is an Inbox (actors/inbox.ts) by its shape: SupervisedActor holds it as one, which
 * checks it; not named here, so that inbox.ts, which builds on Mailbox, is imported one way.
 */
export class Mailbox<M> {
  readonly capacity: number;
  readonly policy: DropPolicy;
  private readonly onDrop: ((msg: M) => void) | undefined;
  private readonly ring: (M | undefined)[];
  private head = 0;
  private length = 0;
  private readonly waiters = new Waiters<M>();
  private enqueuedCount = 0;
  private droppedCount = 0;

  constructor(opts: MailboxOptions<M>) {
    if (!Number.isSafeInteger(opts.capacity) || opts.capacity < 1) {
      throw new RangeError(`mailbox capacity must be a positive integer, got ${opts.capacity}`);
    }
    const policy = opts.policy ?? 'drop-newest';
    if (policy !== 'drop-newest' && policy !== 'drop-oldest') {
      throw new RangeError(`unknown drop policy: ${String(policy)}`);
    }
    this.capacity = opts.capacity;
    this.policy = policy;
    this.onDrop = opts.onDrop;
    this.ring = new Array<M | undefined>(opts.capacity);
  }

  /** Messages waiting. */
  get size(): number {
    return this.length;
  }

  /** Messages accepted (including ones handed straight to a waiting take()). */
  get enqueued(): number {
    return this.enqueuedCount;
  }

  /** Messages lost to the drop policy: refused (drop-newest) or evicted (drop-oldest). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Consumers blocked in take(). */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Offers a message. Returns false when it was refused (full, drop-newest); under
   * drop-oldest the message is always accepted and the oldest one is evicted instead.
   */
  push(msg: M): boolean {
    // A consumer waits, so the ring is empty: hand the message over directly.
    if (this.waiters.serve(() => msg)) {
      this.enqueuedCount++;
      return true;
    }
    if (this.length === this.capacity) {
      this.droppedCount++;
      if (this.policy === 'drop-newest') {
        this.onDrop?.(msg);
        return false;
      }
      const evicted = this.removeHead();
      this.onDrop?.(evicted);
    }
    this.ring[(this.head + this.length) % this.capacity] = msg;
    this.length++;
    this.enqueuedCount++;
    return true;
  }

  /**
   * Removes and returns the oldest message, or undefined when empty. When M itself may
   * be undefined, check `size` first.
   */
  poll(): M | undefined {
    return this.length === 0 ? undefined : this.removeHead();
  }

  /**
   * The oldest message, waiting for one without polling when empty. Rejects with the
   * signal's reason when `signal` aborts first. Waiting consumers are served in order.
   */
  take(signal?: AbortSignal): Promise<M> {
    if (this.length > 0) return Promise.resolve(this.removeHead());
    return this.waiters.wait(signal);
  }

  /** Removes and returns every waiting message, oldest first (they count as neither taken nor dropped). */
  clear(): M[] {
    const out: M[] = [];
    while (this.length > 0) out.push(this.removeHead());
    return out;
  }

  private removeHead(): M {
    const msg = this.ring[this.head] as M;
    this.ring[this.head] = undefined; // let the message be collected
    this.head = (this.head + 1) % this.capacity;
    this.length--;
    return msg;
  }
}
