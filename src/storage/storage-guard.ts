/**
 * The node's view of its disk (issue 26 deliver 2, decisions 121 and 122): which of its
 * writers (the chain store, the privval files, the index) last failed for lack of space,
 * and the probe that retries them once space returns, without a restart.
 *
 * A writer whose write fails with ENOSPC reports it here (`fault`) with its folder and a
 * retry (the chain actor: rewrite the block it holds unwritten, reopening LevelDB if its
 * handle refuses; the indexer: reopen and catch up; the privval files: nothing, consensus
 * writes again when it resumes). From then on `full` is true: the API answers every write
 * 503 STORAGE_UNAVAILABLE with Retry-After, /health and /status say `storage: "full"`
 * with the folder and its bytes free (fs.statfs), and consensus takes no part. Every
 * STORAGE_PROBE_MS the probe reads the free bytes of each failed folder and, once there
 * are STORAGE_RESUME_FREE_BYTES, runs its retry; a retry that succeeds clears the fault,
 * and with the last one cleared the node is `ok` again and consensus catches up from
 * its peers.
 */
import { statfsSync } from 'node:fs';
import { isNoSpace } from './no-space';
import { storageRefusal } from './storage-errors';
import type { Logger } from '../util/log';

/** How often the probe retries a failed writer (and the Retry-After the API sends, rounded up to seconds). */
export const STORAGE_PROBE_MS = 2_000;
/** Free bytes a failed folder needs before its retry runs: a LevelDB reopen writes a log and a manifest. */
const STORAGE_RESUME_FREE_BYTES = 1024 * 1024;

/** The node's writers that can find their disk full. */
export type StoragePart = 'chain' | 'privval' | 'index';

/** What /health and /status show of the disk. */
export interface StorageReport {
  storage: 'ok' | 'full';
  /** The folder whose write failed (the first still failing); the data folder when ok. */
  folder: string;
  /** Bytes free to the node's user in that folder's file system (statfs); null when it cannot be read. */
  freeBytes: number | null;
  /** The writers still waiting for space, in the order they failed. */
  parts: StoragePart[];
}

interface Fault {
  folder: string;
  error: string;
  sinceMs: number;
  retry: () => Promise<void>;
}

export function freeBytesOf(folder: string): number | null {
  try {
    const s = statfsSync(folder);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

export class StorageGuard {
  private readonly faults = new Map<StoragePart, Fault>();
  private readonly listeners = new Set<(full: boolean) => void>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly probeMs: number;
  private readonly resumeFreeBytes: number;

  constructor(private readonly opts: { dataDir: string; log: Logger; probeMs?: number; resumeFreeBytes?: number }) {
    this.probeMs = opts.probeMs ?? STORAGE_PROBE_MS;
    this.resumeFreeBytes = opts.resumeFreeBytes ?? STORAGE_RESUME_FREE_BYTES;
  }

  /** Some writer is waiting for space. */
  get full(): boolean {
    return this.faults.size > 0;
  }

  /** The writer `part` has no failed write pending. */
  writable(part: StoragePart): boolean {
    return !this.faults.has(part);
  }

  /** The Retry-After of a refused write, in whole seconds. */
  get retryAfterSec(): number {
    return Math.max(1, Math.ceil(this.probeMs / 1000));
  }

  /**
   * Records that `part`'s write in `folder` failed; true when it failed for lack of space
   * (recorded, retried by the probe), false for any other fault (not this guard's: the
   * caller handles it as before). A part already failing keeps its first retry.
   */
  fault(part: StoragePart, folder: string, err: unknown, retry: () => Promise<void>): boolean {
    if (!isNoSpace(err)) return false;
    if (this.faults.has(part)) return true;
    const wasFull = this.full;
    this.faults.set(part, { folder, error: err instanceof Error ? err.message : String(err), sinceMs: Date.now(), retry });
    this.opts.log.error(
      { part, folder, freeBytes: freeBytesOf(folder), err: err instanceof Error ? err.message : String(err), probeMs: this.probeMs },
      `storage: the disk is full: ${storageRefusal(err, folder, `the ${part} write failed in`)}. This node stops taking part (it signs and acknowledges nothing it cannot write), answers writes 503 STORAGE_UNAVAILABLE and keeps serving reads. It retries every few seconds and resumes by itself once space is freed on that folder's disk`,
    );
    if (!wasFull) for (const l of this.listeners) l(true);
    this.timer ??= setInterval(() => void this.probe(), this.probeMs);
    this.timer.unref();
    return true;
  }

  report(): StorageReport {
    const first = this.faults.values().next().value;
    const folder = first?.folder ?? this.opts.dataDir;
    return { storage: this.full ? 'full' : 'ok', folder, freeBytes: freeBytesOf(folder), parts: [...this.faults.keys()] };
  }

  /** Calls `fn(true)` when the first writer fails, `fn(false)` when the last one writes again; returns the unsubscribe. */
  onChange(fn: (full: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** One round of retries (the timer's; tests call it to skip the wait). */
  async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      for (const [part, f] of [...this.faults]) {
        const free = freeBytesOf(f.folder);
        if (free !== null && free < this.resumeFreeBytes) continue;
        try {
          await f.retry();
        } catch (err) {
          this.opts.log.warn({ part, folder: f.folder, freeBytes: free, err: err instanceof Error ? err.message : String(err) }, `storage: ${storageRefusal(err, f.folder, `retrying the ${part} write failed in`)}; trying again at the next probe`);
          continue;
        }
        if (this.faults.get(part) !== f) continue;
        this.faults.delete(part);
        this.opts.log.info({ part, folder: f.folder, freeBytes: freeBytesOf(f.folder), fullForMs: Date.now() - f.sinceMs }, 'storage: writing again');
      }
      if (!this.full) {
        this.stopProbe();
        for (const l of this.listeners) l(false);
      }
    } finally {
      this.probing = false;
    }
  }

  private stopProbe(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.stopProbe();
    this.listeners.clear();
  }
}
