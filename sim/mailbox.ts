/**
 * A simulated node's mailbox: what the consensus driver (src/consensus/driver.ts) handles,
 * one message at a time in arrival order, as the node's consensus actor takes them from
 * its inbox. The driver awaits its I/O (a block sync's answer, a decided block's apply,
 * a sleep): in the simulator those are answered by later events of the queue, so the
 * run's loop must go on while a node waits. wait() hands an adapter (sim/node.ts,
 * sim/sync.ts) a promise a later event settles; until then the node is blocked and
 * what arrives for it queues here, as in the actor's mailbox.
 *
 * The loop processes one event, then waits until every node is idle or blocked
 * (busy()). Nothing in a run does real I/O or uses a real timer, so everything between
 * two waits runs on microtasks, and a seed replays exactly.
 */

export interface SimWaiter<T> {
  promise: Promise<T>;
  /** Settles the wait (no-op once settled): the node runs again. */
  wake(value: T): void;
  fail(err: unknown): void;
}

export class SimMailbox<M> {
  readonly #queue: M[] = [];
  /** The handling loop is active (running, or blocked in a wait). */
  #active = false;
  /** While the node runs (not idle, not blocked): resolved when it stops. */
  #busy: Promise<void> | null = null;
  #resolveBusy: (() => void) | null = null;

  constructor(private readonly handle: (m: M) => Promise<void>) {}

  post(m: M): void {
    this.#queue.push(m);
    if (this.#active) return;
    this.#active = true;
    this.#run();
    void this.#loop();
  }

  /** Resolves once the node is idle or waits on the simulation; null when it already is. */
  busy(): Promise<void> | null {
    return this.#busy;
  }

  /** The node waits on a later event of the run (wake or fail it from that event). */
  wait<T>(): SimWaiter<T> {
    this.#stop();
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((a, b) => {
      resolve = a;
      reject = b;
    });
    let settled = false;
    return {
      promise,
      wake: (v) => {
        if (settled) return;
        settled = true;
        this.#run();
        resolve(v);
      },
      fail: (e) => {
        if (settled) return;
        settled = true;
        this.#run();
        reject(e);
      },
    };
  }

  #run(): void {
    if (this.#busy === null) this.#busy = new Promise((r) => (this.#resolveBusy = r));
  }

  #stop(): void {
    const r = this.#resolveBusy;
    this.#busy = null;
    this.#resolveBusy = null;
    r?.();
  }

  async #loop(): Promise<void> {
    for (let m = this.#queue.shift(); m !== undefined; m = this.#queue.shift()) await this.handle(m);
    this.#active = false;
    this.#stop();
  }
}
