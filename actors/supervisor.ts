/**
 * Holds the node's actors by name. Starts them in insertion order, each awaited
 * (store before executor before api …), and stops them in reverse order, so nothing
 * sends to a concern that is already gone. Each actor restarts itself
 * (SupervisedActor); this class owns order, shutdown and the aggregate view.
 */
import type { ActorLifecycleState } from '../machines/actor-lifecycle';
import type { Logger } from '../src/util/log';
import type { ActorStats } from './actor';
import { storageRefusal, storageWords } from '../src/storage/storage-errors';

/** What the supervisor needs of an actor; SupervisedActor satisfies it. */
export interface Supervised {
  readonly name: string;
  readonly status: ActorLifecycleState;
  readonly stats: ActorStats;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The part of `process` the signal handlers use, so tests can pass a fake. */
export interface SignalProcess {
  on(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code?: number): never | void;
}

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** Exit code of a forced exit: 128 + signal number, as a shell reports it. */
const FORCED_EXIT_CODE: Record<(typeof SHUTDOWN_SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143 };

export class Supervisor {
  private readonly log: Logger;
  private readonly actors: Supervised[] = [];
  private readonly byName = new Map<string, Supervised>();
  private stopAllPromise: Promise<void> | undefined;

  constructor(opts: { log: Logger }) {
    this.log = opts.log.child({ component: 'supervisor' });
  }

  /** Adds an actor; names are unique. Returns the actor for chaining into a variable. */
  add<A extends Supervised>(actor: A): A {
    if (this.byName.has(actor.name)) throw new Error(`supervisor: duplicate actor name ${actor.name}`);
    if (this.stopAllPromise !== undefined) throw new Error(`supervisor: add(${actor.name}) after stopAll`);
    this.actors.push(actor);
    this.byName.set(actor.name, actor);
    return actor;
  }

  get(name: string): Supervised | undefined {
    return this.byName.get(name);
  }

  /** Actor names in start order. */
  get names(): string[] {
    return this.actors.map((a) => a.name);
  }

  /**
   * Starts every actor in insertion order, awaiting each. If one cannot start, the
   * ones already started are stopped (reverse order) and the error is rethrown.
   * Stops early, without error, when stopAll() begins meanwhile.
   */
  async startAll(): Promise<void> {
    for (const actor of this.actors) {
      if (this.stopAllPromise !== undefined) return;
      if (actor.status !== 'idle') continue;
      this.log.info({ actor: actor.name }, 'starting actor');
      try {
        await actor.start();
      } catch (err) {
        if (this.stopAllPromise !== undefined) return;
        // A folder the system refused (the index's, the privval files') is said in words (decision 167).
        const words = storageWords(err) ? `: ${storageRefusal(err)}` : '';
        this.log.error({ err, actor: actor.name }, `actor failed to start${words}; stopping the others`);
        await this.stopAll();
        throw err;
      }
    }
    this.log.info({ actors: this.names }, 'all actors started');
  }

  /** Stops every actor in reverse insertion order, awaiting each; errors are logged. Idempotent. */
  stopAll(): Promise<void> {
    this.stopAllPromise ??= this.stopAllOnce();
    return this.stopAllPromise;
  }

  private async stopAllOnce(): Promise<void> {
    for (const actor of [...this.actors].reverse()) {
      this.log.info({ actor: actor.name, status: actor.status }, 'stopping actor');
      try {
        await actor.stop();
      } catch (err) {
        this.log.error({ err, actor: actor.name }, 'actor stop failed');
      }
    }
    this.log.info('all actors stopped');
  }

  /** Stats of every actor by name, in start order: for /status and metrics. */
  stats(): Record<string, ActorStats> {
    const out: Record<string, ActorStats> = {};
    for (const actor of this.actors) out[actor.name] = actor.stats;
    return out;
  }

  /**
   * On the first SIGINT/SIGTERM: stopAll() in reverse order, then onStop(signal,
   * error?). A second signal while stopping exits at once (128 + signal number).
   * Returns a function that removes the handlers.
   */
  installSignalHandlers(
    proc: SignalProcess,
    onStop?: (signal: NodeJS.Signals, err?: unknown) => void,
  ): () => void {
    let received: NodeJS.Signals | undefined;
    const handler = (signal: NodeJS.Signals): void => {
      if (received !== undefined) {
        this.log.warn({ signal, first: received }, 'second signal: forcing exit');
        proc.exit(FORCED_EXIT_CODE[signal as (typeof SHUTDOWN_SIGNALS)[number]] ?? 1);
        return;
      }
      received = signal;
      this.log.info({ signal }, 'signal received: stopping all actors in reverse order');
      this.stopAll().then(
        () => onStop?.(signal),
        (err: unknown) => {
          this.log.error({ err, signal }, 'shutdown failed');
          onStop?.(signal, err);
        },
      );
    };
    for (const signal of SHUTDOWN_SIGNALS) proc.on(signal, handler);
    return () => {
      for (const signal of SHUTDOWN_SIGNALS) proc.off(signal, handler);
    };
  }
}
