/**
 * The simulated clock, event queue and network of a simulation run (sim/cluster.ts).
 * One queue holds every event (a message delivered, or a scheduled action: a node's
 * timer, a decided block's apply, a fault), ordered by (time in µs, insertion order), so a run
 * replays exactly from its seed. A message crosses a directed link after the link's
 * base delay (1-6 ms, drawn once) plus jitter (0-4 ms), so messages reorder; during the
 * fault phase it may also be dropped, duplicated or delayed by a spike (20-400 ms), at
 * per-seed rates; a link cut by a partition delivers nothing. What the faults are and
 * when they happen is planned by sim/faults.ts.
 */
import { EventHeap } from './heap';
import type { FaultCounts } from './options';
import type { Prng } from './prng';

/** Microseconds per millisecond: the queue's time unit is the µs. */
export const US = 1000;

export type Channel = 'consensus' | 'tx' | 'syncRequest' | 'syncResponse';

export type SimEvent =
  | { kind: 'deliver'; atUs: number; seq: number; to: number; from: number; channel: Channel; bytes: Uint8Array; tag: number }
  | { kind: 'action'; atUs: number; seq: number; run: () => Promise<void> | void };

export type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

export class SimNetwork {
  readonly #queue = new EventHeap<SimEvent>();
  #seq = 0;
  #nowUs = 0;
  /** Directed link (from * n + to) -> number of active partitions cutting it. */
  readonly #cut: Int32Array;
  readonly #linkBaseUs: Float64Array;
  /** Directed links that never carry anything, heal or not (a node with one peer). */
  readonly #severed: Uint8Array;
  #faultsActive = false;
  #pDrop = 0;
  #pDuplicate = 0;
  #pSpike = 0;

  /** Draws each directed link's base delay from `prng` (n × n draws, in link order). */
  constructor(
    private readonly n: number,
    private readonly prng: Prng,
    private readonly faults: FaultCounts,
  ) {
    this.#cut = new Int32Array(n * n);
    this.#linkBaseUs = new Float64Array(n * n);
    this.#severed = new Uint8Array(n * n);
    for (let i = 0; i < n * n; i++) this.#linkBaseUs[i] = this.prng.uniform(1, 6) * US;
  }

  get nowUs(): number {
    return this.#nowUs;
  }

  get nowMs(): number {
    return this.#nowUs / US;
  }

  /** The next event due no later than `endUs`, taken off the queue with the clock moved to it; undefined when none is. */
  next(endUs: number): SimEvent | undefined {
    if (this.#queue.size === 0) return undefined;
    const ev = this.#queue.peek() as SimEvent;
    if (ev.atUs > endUs) return undefined;
    this.#queue.pop();
    this.#nowUs = ev.atUs;
    return ev;
  }

  push(ev: DistributiveOmit<SimEvent, 'seq'>): void {
    this.#queue.push({ ...ev, seq: this.#seq++ } as SimEvent);
  }

  at(atUs: number, run: () => Promise<void> | void): void {
    this.push({ kind: 'action', atUs, run });
  }

  broadcast(from: number, channel: Channel, bytes: Uint8Array): void {
    for (let to = 0; to < this.n; to++) if (to !== from) this.send(from, to, channel, bytes);
  }

  /** `tag`: which request a sync answer is for (a request-response stream tells them apart on the node). */
  send(from: number, to: number, channel: Channel, bytes: Uint8Array, tag = 0): void {
    const n = this.n;
    if (this.#cut[from * n + to] > 0 || this.#severed[from * n + to] === 1) {
      this.faults.partitionBlocked++;
      return;
    }
    if (this.#faultsActive && this.prng.chance(this.#pDrop)) {
      this.faults.drop++;
      return;
    }
    let copies = 1;
    if (this.#faultsActive && this.prng.chance(this.#pDuplicate)) {
      this.faults.duplicate++;
      copies = 2;
    }
    for (let c = 0; c < copies; c++) {
      let delayUs = this.#linkBaseUs[from * n + to] + this.prng.uniform(0, 4) * US;
      if (this.#faultsActive && this.prng.chance(this.#pSpike)) {
        this.faults.delaySpike++;
        delayUs += this.prng.uniform(20, 400) * US;
      }
      this.push({ kind: 'deliver', atUs: this.#nowUs + Math.round(delayUs), to, from, channel, bytes, tag });
    }
  }

  /** No partition cuts the directed link from `from` to `to` (per-message faults aside). */
  linkUp(from: number, to: number): boolean {
    return this.#cut[from * this.n + to] === 0 && this.#severed[from * this.n + to] === 0;
  }

  /** Links down for the whole run: the heal does not restore them. */
  sever(links: [number, number][]): void {
    for (const [a, b] of links) this.#severed[a * this.n + b] = 1;
  }

  cutLinks(links: [number, number][], delta: 1 | -1): void {
    const n = this.n;
    for (const [a, b] of links) this.#cut[a * n + b] += delta;
  }

  /** The fault phase begins: drops, duplicates and delay spikes at rates drawn for this seed (in that order). */
  startMessageFaults(): void {
    this.#pDrop = this.prng.uniform(0, 0.08);
    this.#pDuplicate = this.prng.uniform(0, 0.05);
    this.#pSpike = this.prng.uniform(0, 0.05);
    this.#faultsActive = true;
  }

  /** The heal: no more per-message faults, every link up. */
  heal(): void {
    this.#faultsActive = false;
    this.#cut.fill(0);
  }
}

/** Every directed link from a group to another: what a partition into `groups` cuts. */
export function partitionLinks(groups: number[][]): [number, number][] {
  const links: [number, number][] = [];
  for (const [gi, g] of groups.entries()) {
    for (const [hi, h] of groups.entries()) {
      if (gi === hi) continue;
      for (const a of g) for (const b of h) links.push([a, b]);
    }
  }
  return links;
}
