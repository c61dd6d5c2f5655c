/**
 * A time-ordered index of timers (issue 24): the scheduled cancels and the running
 * TWAPs, keyed by (due time, id). It is derived state, kept by its table's change hook
 * (so rollbacks and restarts keep it exact) and never iterated by history: entries are
 * ordered by a fixed-width text key, `time` zero-padded then the id, so the order
 * depends only on (time, id). The end-of-block step reads from the front only: a block
 * where nothing is due reads one entry whatever the number of idle timers.
 */

const TIME_DIGITS = 16; // block times in ms stay below 10^16 (year 318857)

function dueKey(timeMs: number, id: string): string {
  if (!Number.isSafeInteger(timeMs) || timeMs < 0) throw new RangeError(`due time ${timeMs}`);
  return `${String(timeMs).padStart(TIME_DIGITS, '0')}:${id}`;
}

export class DueIndex {
  /** Sorted keys; the id of an entry is what follows the time. */
  private readonly keys: string[] = [];

  get size(): number {
    return this.keys.length;
  }

  private find(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(timeMs: number, id: string): void {
    const key = dueKey(timeMs, id);
    const i = this.find(key);
    if (this.keys[i] !== key) this.keys.splice(i, 0, key);
  }

  remove(timeMs: number, id: string): void {
    const key = dueKey(timeMs, id);
    const i = this.find(key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /** The ids due at `nowMs` (time ≤ nowMs), in (time, id) order. Reads only those and one more. */
  due(nowMs: number): string[] {
    const out: string[] = [];
    const bound = String(nowMs).padStart(TIME_DIGITS, '0');
    for (const key of this.keys) {
      if (key.slice(0, TIME_DIGITS) > bound) break;
      out.push(key.slice(TIME_DIGITS + 1));
    }
    return out;
  }

  clear(): void {
    this.keys.length = 0;
  }
}
