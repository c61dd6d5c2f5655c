/**
 * The watcher's pause (issue 37 item 2; decision 154): for each alert the watcher is sure
 * of (./verify.ts), it pauses the external bridge with this validator's own key (the
 * contract's `pause()`, open to any validator of its set or owner), so that a forged
 * withdrawal cannot be paid after its dispute period.
 *
 * Each poll, for the alerts not yet answered: an Unpaused log after the alert's log means
 * the owners have seen it and resumed (answered: not paused again, also after a restart
 * that rescans the log); a bridge already paused is answered; else `pause()` is sent,
 * beside the polls (a receipt takes a while), one at a time. A failed send (NotLocker: a
 * key outside the contract's set; an unreachable endpoint) is logged once per message,
 * counted and tried again at the next poll.
 */
import type { BridgeClient, BridgeLog } from '../../src/bridge/evm';
import type { Logger } from '../../src/util/log';
import type { BridgeWatcherStats } from './messages';

export type PauserExternal = Pick<BridgeClient, 'paused' | 'pause' | 'logs'>;

/** Alerts waiting for an answer, at most (more are answered together by one pause anyway). */
const WAITING_MAX = 1_024;

interface Waiting {
  /** Where the alert's log is: an Unpaused after it answers it. */
  block: bigint;
  logIndex: number;
  what: string;
}

export class Pauser {
  private readonly waiting = new Map<string, Waiting>();
  private readonly answered = new Set<string>();
  private inFlight = false;
  private lastFailure: string | undefined;
  private stopped = false;

  constructor(
    private readonly d: { external: PauserExternal; privateKey: Uint8Array; log: Logger; stats: BridgeWatcherStats },
  ) {}

  stop(): void {
    this.stopped = true;
  }

  /** An alert (`key`: its claim key) seen in the log at (block, logIndex). Idempotent. */
  request(key: string, at: Pick<BridgeLog, 'blockNumber' | 'logIndex'>, what: string): void {
    if (this.answered.has(key) || this.waiting.has(key) || this.waiting.size >= WAITING_MAX) return;
    this.waiting.set(key, { block: at.blockNumber, logIndex: at.logIndex, what });
    this.d.log.error({ alert: key, block: String(at.blockNumber), what }, `bridge watcher: ALERT ${what}; pausing the bridge`);
  }

  /** Answers what it can at external head `head`; starts one pause when one is due. */
  async poll(head: bigint): Promise<void> {
    const { d } = this;
    d.stats.alertsWaiting = this.waiting.size;
    if (this.waiting.size === 0 || this.inFlight || this.stopped) return;
    let from = head;
    for (const w of this.waiting.values()) if (w.block < from) from = w.block;
    const unpauses = (await d.external.logs(from, head)).filter((l) => l.kind === 'Unpaused');
    for (const [key, w] of this.waiting) {
      if (unpauses.some((u) => u.blockNumber > w.block || (u.blockNumber === w.block && u.logIndex > w.logIndex))) this.answer(key);
    }
    if (this.waiting.size === 0) return;
    if (await d.external.paused()) {
      for (const key of [...this.waiting.keys()]) this.answer(key);
      return;
    }
    this.inFlight = true;
    const keys = [...this.waiting.keys()];
    void d.external
      .pause(d.privateKey)
      .then(() => {
        d.stats.pausesSent++;
        this.lastFailure = undefined;
        for (const key of keys) this.answer(key);
        d.log.warn({ alerts: keys }, 'bridge watcher: paused the bridge with this validator\u2019s key');
      })
      .catch((err: unknown) => {
        d.stats.pauseFailures++;
        const message = err instanceof Error ? err.message : String(err);
        if (message !== this.lastFailure) d.log.error({ err: message }, 'bridge watcher: pause failed; tried again at the next poll');
        this.lastFailure = message;
      })
      .finally(() => {
        this.inFlight = false;
      });
  }

  private answer(key: string): void {
    this.waiting.delete(key);
    this.answered.add(key);
    this.d.stats.alertsWaiting = this.waiting.size;
  }
}
