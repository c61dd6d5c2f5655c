/**
 * A supervised actor: one behaviour instance at a time handles the messages of a
 * bounded mailbox, one by one, in order. Its lifecycle is the actor-lifecycle machine
 * (machines/actor-lifecycle.ts) run as an xstate actor: every step of the runtime is an
 * event that machine must accept, so the drawn machine is the enforced one.
 *
 * When start() or handle() throws, the failing message is dropped (counted as failed,
 * its ask rejected), the instance is released, and after backoffDelayMs a fresh
 * instance from the factory continues with the rest of the mailbox. Messages sent
 * meanwhile wait in the mailbox. Past maxRestarts inside the window the actor gives
 * up and calls onGiveUp: the node halts rather than limp on.
 */
import { createActor, type Actor, type SnapshotFrom } from 'xstate';
import {
  actorLifecycleMachine,
  backoffDelayMs,
  type ActorLifecycleEvent,
  type ActorLifecycleState,
  type BackoffOptions,
  type RestartLimit,
} from '../machines/actor-lifecycle';
import type { Logger } from '../src/util/log';
import { storageRefusal, storageWords } from '../src/storage/storage-errors';
import type { Inbox, LaneStats } from './inbox';
import { Mailbox, type DropPolicy } from './mailbox';

export interface ActorContext {
  log: Logger;
  name: string;
  /** Aborts when this behaviour instance is being stopped or has failed. */
  signal: AbortSignal;
}

export interface ActorBehavior<M> {
  /** Opens resources. Throwing counts as a failure and is retried with backoff. */
  start?(ctx: ActorContext): Promise<void> | void;
  /** Handles one message; the next is not handed over before this one settles. */
  handle(msg: M, ctx: ActorContext): Promise<void> | void;
  /** Releases resources; called after a failure too (errors are logged, not retried). */
  stop?(ctx: ActorContext): Promise<void> | void;
}

export interface Reply<R> {
  resolve(v: R): void;
  reject(e: unknown): void;
}

/**
 * Another actor as an actor's dependency bundle names it: its mailbox, to send to or ask,
 * and nothing of its behaviour (SupervisedActor satisfies it). The message type comes
 * from that actor's leaf `messages.ts`.
 */
export interface ActorRef<M> {
  send(msg: M): boolean;
  ask<R>(make: (reply: Reply<R>) => M, timeoutMs?: number): Promise<R>;
}

export interface ActorStats {
  /** Messages accepted into the mailbox. */
  enqueued: number;
  /** Messages lost unhandled: refused or evicted when full, sent after stop, or discarded at stop. */
  dropped: number;
  /** Messages whose handle() returned normally. */
  processed: number;
  /** Messages whose handle() threw (each one caused a restart unless stopping). */
  failed: number;
  restarts: number;
  mailboxSize: number;
  status: ActorLifecycleState;
  lastError: string | undefined;
}

export interface SupervisedActorOptions<M = never> {
  /** Messages the one-lane mailbox holds (actors/limits.ts names each actor's); give this or `inbox`. */
  capacity?: number;
  /** Default 'drop-newest'. */
  dropPolicy?: DropPolicy;
  /**
   * Builds the actor's own queue instead of the one-lane mailbox (e.g. a LanedInbox,
   * one bounded lane per message kind); `onEvict` fails the ask of an evicted message.
   */
  inbox?: (onEvict: (msg: M) => void) => Inbox<M>;
  /**
   * Restart delay; default { initialMs: 100, maxMs: 30_000 }. An instance that ran
   * resetAfterMs (default maxMs) before failing resets the exponential streak.
   */
  backoff?: BackoffOptions & { resetAfterMs?: number };
  /** Absent: restart forever. */
  maxRestarts?: RestartLimit;
  log: Logger;
  /** Called once with the last error when the restart limit is exceeded. */
  onGiveUp?: (err: unknown) => void;
  /** Timeout of ask() when the call gives none; default 30_000. */
  askTimeoutMs?: number;
  /** Monotonic clock in ms for the restart window; default performance.now. */
  now?: () => number;
  /** Messages handled back to back before yielding to the event loop; default 1024. */
  yieldEvery?: number;
}

export type ActorErrorCode =
  | 'ASK_TIMEOUT'
  | 'MAILBOX_FULL'
  | 'MESSAGE_DROPPED'
  | 'HANDLER_FAILED'
  | 'ACTOR_STOPPED'
  | 'ACTOR_GAVE_UP';

export class ActorError extends Error {
  override readonly name = 'ActorError';
  constructor(
    readonly code: ActorErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const BACKOFF_DEFAULT: BackoffOptions = { initialMs: 100, maxMs: 30_000 };
export const ASK_TIMEOUT_MS_DEFAULT = 30_000;
const YIELD_EVERY_DEFAULT = 1024;
const ERROR_MESSAGE_LENGTH_MAX = 500;

/** States in which send() accepts messages (they wait in the mailbox until running). */
const ACCEPTING: ReadonlySet<ActorLifecycleState> = new Set(['idle', 'starting', 'running', 'failed', 'backoff']);

interface Incarnation<M> {
  behavior: ActorBehavior<M> | undefined;
  ctx: ActorContext;
  abort: AbortController;
}

interface PendingAsk {
  fail(err: ActorError): void;
}

/** Distinguishes "threw undefined" from "did not throw". */
interface Failure {
  error: unknown;
}

export class SupervisedActor<M> {
  readonly name: string;
  private readonly factory: () => ActorBehavior<M>;
  private readonly log: Logger;
  private readonly mailbox: Inbox<M>;
  private readonly lifecycle: Actor<typeof actorLifecycleMachine>;
  private readonly backoff: BackoffOptions;
  private readonly onGiveUp: ((err: unknown) => void) | undefined;
  private readonly askTimeoutMs: number;
  private readonly now: () => number;
  private readonly yieldEvery: number;
  /** Aborted once, by stop(): ends waits for messages and backoff sleeps. */
  private readonly stopping = new AbortController();
  private readonly asksByMessage = new WeakMap<object, PendingAsk>();
  private readonly pendingAsks = new Set<PendingAsk>();
  private readonly statusListeners = new Set<(status: ActorLifecycleState, event: string | null, from: ActorLifecycleState) => void>();
  private lastStatus: ActorLifecycleState;
  /** The lifecycle event being sent (fire), for the status listeners: the cause of the step (the audit log). */
  private firing: string | null = null;
  private incarnation: Incarnation<M> | undefined;
  private driver: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private processedCount = 0;
  private failedCount = 0;
  /** Sent while not accepting, or discarded from the mailbox at stop / give-up. */
  private lostCount = 0;

  constructor(name: string, factory: () => ActorBehavior<M>, opts: SupervisedActorOptions<M>) {
    if (name.length === 0) throw new RangeError('actor name must not be empty');
    validateOptions(opts);
    this.name = name;
    this.factory = factory;
    this.log = opts.log.child({ actor: name });
    this.backoff = { initialMs: opts.backoff?.initialMs ?? BACKOFF_DEFAULT.initialMs, maxMs: opts.backoff?.maxMs ?? BACKOFF_DEFAULT.maxMs };
    this.onGiveUp = opts.onGiveUp;
    this.askTimeoutMs = opts.askTimeoutMs ?? ASK_TIMEOUT_MS_DEFAULT;
    this.now = opts.now ?? (() => performance.now());
    this.yieldEvery = opts.yieldEvery ?? YIELD_EVERY_DEFAULT;
    const policy = opts.dropPolicy ?? 'drop-newest';
    // Under drop-newest the refused message's sender learns it from send(); an
    // evicted message's asker would otherwise wait for its timeout.
    const onEvict = (msg: M) => this.failAsk(msg, new ActorError('MESSAGE_DROPPED', `actor ${name}: mailbox full, message evicted`));
    this.mailbox =
      opts.inbox !== undefined
        ? opts.inbox(onEvict)
        : new Mailbox<M>({ capacity: opts.capacity as number, policy, onDrop: policy === 'drop-oldest' ? onEvict : undefined });
    this.lifecycle = createActor(actorLifecycleMachine, {
      input: { maxRestarts: opts.maxRestarts, resetAfterMs: opts.backoff?.resetAfterMs ?? this.backoff.maxMs },
    });
    this.lastStatus = 'idle';
    this.lifecycle.subscribe((snapshot) => this.notifyStatus(snapshot.value));
    this.lifecycle.start();
  }

  /** The lifecycle machine's state. */
  get status(): ActorLifecycleState {
    return this.lifecycle.getSnapshot().value;
  }

  /** The current state, read fresh: a method, so TypeScript does not keep a narrowed value across awaits. */
  private state(): ActorLifecycleState {
    return this.lifecycle.getSnapshot().value;
  }

  get stats(): ActorStats {
    const { context } = this.lifecycle.getSnapshot();
    return {
      enqueued: this.mailbox.enqueued,
      dropped: this.mailbox.dropped + this.lostCount,
      processed: this.processedCount,
      failed: this.failedCount,
      restarts: context.restarts,
      mailboxSize: this.mailbox.size,
      status: this.state(),
      lastError: context.lastError,
    };
  }

  /** Per-lane counters when the actor's inbox has lanes (LanedInbox), else undefined. */
  lanes(): Record<string, LaneStats> | undefined {
    return this.mailbox.lanes?.();
  }

  /** The lifecycle snapshot (state and context), e.g. for a /status endpoint. */
  get lifecycleSnapshot(): SnapshotFrom<typeof actorLifecycleMachine> {
    return this.lifecycle.getSnapshot();
  }

  /** Calls `listener` on every change of status, with the lifecycle event that caused it and the status before; returns the unsubscribe function. */
  onStatus(listener: (status: ActorLifecycleState, event: string | null, from: ActorLifecycleState) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Queues a message; false (and counted as dropped) when full or no longer accepting. */
  send(msg: M): boolean {
    if (!ACCEPTING.has(this.state())) {
      this.lostCount++;
      return false;
    }
    return this.mailbox.push(msg);
  }

  /**
   * Request/response over the mailbox: `make` builds the message around a Reply the
   * behaviour settles. Rejects with an ActorError when the reply does not come within
   * timeoutMs, the message is dropped, its handler throws, or the actor stops first.
   */
  ask<R>(make: (reply: Reply<R>) => M, timeoutMs: number = this.askTimeoutMs): Promise<R> {
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      return Promise.reject(new RangeError(`ask timeout must be a positive number of ms, got ${timeoutMs}`));
    }
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        this.pendingAsks.delete(pending);
        return true;
      };
      const pending: PendingAsk = { fail: (err) => settle() && reject(err) };
      const reply: Reply<R> = {
        resolve: (v) => settle() && resolve(v),
        reject: (e) => settle() && reject(e),
      };
      const msg = make(reply);
      if (isObject(msg)) this.asksByMessage.set(msg, pending);
      this.pendingAsks.add(pending);
      timer = setTimeout(
        () => pending.fail(new ActorError('ASK_TIMEOUT', `actor ${this.name}: no reply within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const accepting = ACCEPTING.has(this.state());
      if (!this.send(msg)) {
        pending.fail(
          accepting
            ? new ActorError('MAILBOX_FULL', `actor ${this.name}: mailbox full`)
            : new ActorError('ACTOR_STOPPED', `actor ${this.name} is ${this.state()}`),
        );
      }
    });
  }

  /**
   * Starts the first behaviour instance. Resolves once the actor is running (after
   * any restarts of a failing start); rejects if it gives up or is stopped first.
   */
  async start(): Promise<void> {
    if (this.state() !== 'idle') throw new Error(`actor ${this.name}: start() in status ${this.state()}`);
    this.fire({ type: 'START' });
    this.log.info('actor starting');
    this.driver = this.drive();
    const status = await this.waitForStatus((s) => s !== 'idle' && s !== 'starting' && s !== 'failed' && s !== 'backoff');
    if (status === 'running') return;
    const code = status === 'gaveUp' ? 'ACTOR_GAVE_UP' : 'ACTOR_STOPPED';
    throw new ActorError(code, `actor ${this.name} is ${status} before it was running`, { cause: this.lastFailure });
  }

  /**
   * Stops: accepts nothing new, lets the current message finish, calls the
   * behaviour's stop, discards what is still queued (rejecting its asks). Idempotent.
   */
  stop(): Promise<void> {
    this.stopPromise ??= this.stopOnce();
    return this.stopPromise;
  }

  private async stopOnce(): Promise<void> {
    const from = this.state();
    if (from !== 'stopped' && from !== 'gaveUp') {
      this.fire({ type: 'STOP' });
      this.log.info({ from }, 'actor stopping');
      const reason = new ActorError('ACTOR_STOPPED', `actor ${this.name} stopped`);
      this.stopping.abort(reason);
      this.incarnation?.abort.abort(reason);
      await this.driver;
    }
    this.discardQueued(new ActorError('ACTOR_STOPPED', `actor ${this.name} stopped`));
    this.log.info({ stats: this.stats }, 'actor stopped');
  }

  /** Runs incarnations from START until stopped or given up. Never rejects. */
  private async drive(): Promise<void> {
    try {
      while (this.state() === 'starting') {
        const inc = this.newIncarnation();
        let failure = await this.startIncarnation(inc);
        if (failure === undefined && this.state() === 'starting') {
          this.fire({ type: 'STARTED', atMs: this.now() });
          this.log.info({ restarts: this.stats.restarts }, 'actor running');
          failure = await this.runLoop(inc);
        }
        if (this.state() === 'stopping') {
          await this.finishStopping(inc, failure);
          return;
        }
        if (failure === undefined) throw new Error(`loop ended without failure in status ${this.state()}`);
        await this.recover(inc, failure.error);
      }
    } catch (bug) {
      // A broken invariant of the runtime itself: halt like a give-up, never limp on.
      this.log.fatal({ err: bug }, 'actor runtime invariant broken');
      this.discardQueued(new ActorError('ACTOR_GAVE_UP', `actor ${this.name} crashed`, { cause: bug }));
      this.callOnGiveUp(bug);
    }
  }

  private newIncarnation(): Incarnation<M> {
    const abort = new AbortController();
    const inc: Incarnation<M> = {
      behavior: undefined,
      ctx: { log: this.log, name: this.name, signal: abort.signal },
      abort,
    };
    this.incarnation = inc;
    return inc;
  }

  private async startIncarnation(inc: Incarnation<M>): Promise<Failure | undefined> {
    try {
      inc.behavior = this.factory();
      await inc.behavior.start?.(inc.ctx);
      return undefined;
    } catch (error) {
      return { error };
    }
  }

  /** Handles messages while running; returns the failure that ended it, or undefined on stop. */
  private async runLoop(inc: Incarnation<M>): Promise<Failure | undefined> {
    const behavior = inc.behavior as ActorBehavior<M>;
    let handledSinceYield = 0;
    while (this.state() === 'running') {
      let msg: M;
      if (this.mailbox.size > 0) {
        msg = this.mailbox.poll() as M;
      } else {
        try {
          msg = await this.mailbox.take(this.stopping.signal);
        } catch {
          continue; // stop() aborted the wait; the loop condition ends the loop
        }
        if (this.state() !== 'running') {
          // Handed over just before stop(): nothing new begins after stop, so it is discarded.
          this.lostCount++;
          this.failAsk(msg, new ActorError('ACTOR_STOPPED', `actor ${this.name} stopped`));
          continue;
        }
        handledSinceYield = 0;
      }
      try {
        const pending = behavior.handle(msg, inc.ctx);
        if (pending !== undefined) await pending;
      } catch (error) {
        this.failedCount++;
        this.failAsk(msg, new ActorError('HANDLER_FAILED', `actor ${this.name}: handler failed`, { cause: error }));
        return { error };
      }
      this.processedCount++;
      if (++handledSinceYield >= this.yieldEvery) {
        handledSinceYield = 0;
        await yieldToEventLoop(); // let timers and I/O of other actors run
      }
    }
    return undefined;
  }

  /** In `stopping`: record a late failure, release the instance, reach `stopped`. */
  private async finishStopping(inc: Incarnation<M>, failure: Failure | undefined): Promise<void> {
    if (failure !== undefined) {
      this.log.error({ err: failure.error }, 'actor failed while stopping');
      this.fire({ type: 'FAIL', error: describeError(failure.error), atMs: this.now() });
    }
    await this.release(inc);
    this.fire({ type: 'STOPPED' });
  }

  /** The error of the last failure, the cause of a start that gave up. */
  private lastFailure: unknown;

  /** From `starting`/`running` after a failure: failed → release → backoff → RETRY, or gaveUp. */
  private async recover(inc: Incarnation<M>, error: unknown): Promise<void> {
    const phase = this.state() === 'starting' ? 'start' : 'handle';
    this.fire({ type: 'FAIL', error: describeError(error), atMs: this.now() });
    const { consecutiveFailures } = this.lifecycle.getSnapshot().context;
    this.lastFailure = error;
    // A folder the system refused (the index's, the privval files') is said in words (decision 167).
    const words = storageWords(error) ? `: ${storageRefusal(error)}` : '';
    this.log.error({ err: error, phase, consecutiveFailures }, `actor ${this.name} failed in ${phase}${words}`);
    await this.release(inc);
    this.fire({ type: 'STOPPED' }); // failed → backoff | gaveUp; stopping → stopped
    const status = this.state();
    if (status === 'gaveUp') {
      this.giveUp(error);
      return;
    }
    if (status !== 'backoff') return;
    const delayMs = backoffDelayMs(consecutiveFailures, this.backoff);
    this.log.warn({ restarts: this.stats.restarts, delayMs }, `actor ${this.name} restarting`);
    await sleep(delayMs, this.stopping.signal);
    if (this.state() === 'backoff') this.fire({ type: 'RETRY' });
  }

  /** Aborts the instance's signal and calls its stop; errors are logged, never thrown. */
  private async release(inc: Incarnation<M>): Promise<void> {
    inc.abort.abort(new ActorError('ACTOR_STOPPED', `actor ${this.name}: instance released`));
    if (this.incarnation === inc) this.incarnation = undefined;
    try {
      await inc.behavior?.stop?.(inc.ctx);
    } catch (error) {
      this.log.error({ err: error }, 'actor behaviour stop() failed');
      if (this.state() === 'stopping') this.fire({ type: 'FAIL', error: describeError(error), atMs: this.now() });
    }
  }

  private giveUp(error: unknown): void {
    const { restarts } = this.lifecycle.getSnapshot().context;
    this.log.fatal({ err: error, restarts }, `actor ${this.name} gave up: restart limit exceeded`);
    this.discardQueued(new ActorError('ACTOR_GAVE_UP', `actor ${this.name} gave up`, { cause: error }));
    this.callOnGiveUp(error);
  }

  private callOnGiveUp(error: unknown): void {
    try {
      this.onGiveUp?.(error);
    } catch (hookError) {
      this.log.error({ err: hookError }, 'onGiveUp threw');
    }
  }

  /** Empties the mailbox and settles every ask still waiting. */
  private discardQueued(reason: ActorError): void {
    const queued = this.mailbox.clear();
    this.lostCount += queued.length;
    for (const msg of queued) this.failAsk(msg, reason);
    for (const pending of [...this.pendingAsks]) pending.fail(reason);
  }

  private failAsk(msg: M, err: ActorError): void {
    if (!isObject(msg)) return;
    this.asksByMessage.get(msg)?.fail(err);
  }

  /** Sends an event the lifecycle must accept in its current state: a refusal is a runtime bug. */
  private fire(event: ActorLifecycleEvent): void {
    const snapshot = this.lifecycle.getSnapshot();
    if (!snapshot.can(event)) {
      throw new Error(`actor ${this.name}: lifecycle refuses ${event.type} in ${snapshot.value}`);
    }
    this.firing = event.type;
    try {
      this.lifecycle.send(event);
    } finally {
      this.firing = null;
    }
  }

  private notifyStatus(status: ActorLifecycleState): void {
    if (status === this.lastStatus) return;
    const from = this.lastStatus;
    this.lastStatus = status;
    for (const listener of [...this.statusListeners]) {
      try {
        listener(status, this.firing, from);
      } catch (err) {
        this.log.error({ err, status }, 'status listener threw');
      }
    }
  }

  private waitForStatus(done: (s: ActorLifecycleState) => boolean): Promise<ActorLifecycleState> {
    if (done(this.state())) return Promise.resolve(this.state());
    return new Promise((resolve) => {
      const off = this.onStatus((s) => {
        if (!done(s)) return;
        off();
        resolve(s);
      });
    });
  }
}

function validateOptions<M>(opts: SupervisedActorOptions<M>): void {
  const { backoff, maxRestarts } = opts;
  if ((opts.capacity === undefined) === (opts.inbox === undefined)) {
    throw new RangeError('an actor needs either a mailbox capacity or an inbox, not both');
  }
  if (opts.inbox !== undefined && opts.dropPolicy !== undefined) {
    throw new RangeError('dropPolicy is for the one-lane mailbox; an inbox sets its own policies');
  }
  if (backoff !== undefined) {
    if (!(backoff.initialMs >= 0) || !(backoff.maxMs >= backoff.initialMs)) {
      throw new RangeError(`backoff needs 0 <= initialMs <= maxMs, got ${JSON.stringify(backoff)}`);
    }
    if (backoff.resetAfterMs !== undefined && !(backoff.resetAfterMs >= 0)) {
      throw new RangeError(`backoff.resetAfterMs must be >= 0, got ${backoff.resetAfterMs}`);
    }
  }
  if (maxRestarts !== undefined) {
    if (!Number.isSafeInteger(maxRestarts.count) || maxRestarts.count < 0 || !(maxRestarts.windowMs > 0)) {
      throw new RangeError(`maxRestarts needs an integer count >= 0 and windowMs > 0, got ${JSON.stringify(maxRestarts)}`);
    }
  }
  if (opts.askTimeoutMs !== undefined && !(opts.askTimeoutMs > 0)) {
    throw new RangeError(`askTimeoutMs must be > 0, got ${opts.askTimeoutMs}`);
  }
  if (opts.yieldEvery !== undefined && !(Number.isSafeInteger(opts.yieldEvery) && opts.yieldEvery > 0)) {
    throw new RangeError(`yieldEvery must be a positive integer, got ${opts.yieldEvery}`);
  }
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > ERROR_MESSAGE_LENGTH_MAX ? `${text.slice(0, ERROR_MESSAGE_LENGTH_MAX)}…` : text;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
