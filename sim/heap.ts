/** Binary min-heap of timed events; ties broken by insertion order so runs replay exactly. */
export interface Timed {
  atUs: number;
  seq: number;
}

export class EventHeap<T extends Timed> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(a[i], a[parent])) break;
      [a[i], a[parent]] = [a[parent], a[i]];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.#items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop() as T;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l], a[m])) m = l;
        if (r < a.length && before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }

  peek(): T | undefined {
    return this.#items[0];
  }
}

function before(x: Timed, y: Timed): boolean {
  return x.atUs < y.atUs || (x.atUs === y.atUs && x.seq < y.seq);
}
