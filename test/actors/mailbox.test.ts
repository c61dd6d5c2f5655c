import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../actors/mailbox';

function drain<M>(mb: Mailbox<M>): M[] {
  const out: M[] = [];
  while (mb.size > 0) out.push(mb.poll() as M);
  return out;
}

describe('Mailbox', () => {
  it('requires a positive integer capacity and a known policy', () => {
    expect(() => new Mailbox({ capacity: 0 })).toThrow(RangeError);
    expect(() => new Mailbox({ capacity: 1.5 })).toThrow(RangeError);
    expect(() => new Mailbox({ capacity: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => new Mailbox({ capacity: 1, policy: 'drop-random' as never })).toThrow(RangeError);
    expect(new Mailbox({ capacity: 1 }).policy).toBe('drop-newest');
  });

  it('is FIFO across many wrap-arounds of the ring', () => {
    const mb = new Mailbox<number>({ capacity: 7 });
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < (round % 7) + 1 && mb.size < mb.capacity; i++) expect(mb.push(next++)).toBe(true);
      for (let i = 0; i < (round % 5) + 1 && mb.size > 0; i++) out.push(mb.poll() as number);
    }
    out.push(...drain(mb));
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(mb.enqueued).toBe(next);
    expect(mb.dropped).toBe(0);
  });

  it('drop-newest: refuses when full, counts and reports the refused message', () => {
    const lost: string[] = [];
    const mb = new Mailbox<string>({ capacity: 3, policy: 'drop-newest', onDrop: (m) => lost.push(m) });
    expect(['a', 'b', 'c', 'd', 'e'].map((m) => mb.push(m))).toEqual([true, true, true, false, false]);
    expect(mb.size).toBe(3);
    expect(mb.enqueued).toBe(3);
    expect(mb.dropped).toBe(2);
    expect(lost).toEqual(['d', 'e']);
    expect(drain(mb)).toEqual(['a', 'b', 'c']);
    expect(mb.push('f')).toBe(true);
  });

  it('drop-oldest: accepts the new message, evicts the head, counts and reports it', () => {
    const lost: string[] = [];
    const mb = new Mailbox<string>({ capacity: 3, policy: 'drop-oldest', onDrop: (m) => lost.push(m) });
    expect(['a', 'b', 'c', 'd', 'e'].map((m) => mb.push(m))).toEqual([true, true, true, true, true]);
    expect(mb.size).toBe(3);
    expect(mb.enqueued).toBe(5);
    expect(mb.dropped).toBe(2);
    expect(lost).toEqual(['a', 'b']);
    expect(drain(mb)).toEqual(['c', 'd', 'e']);
  });

  it('never holds more than capacity; the survivors are the first or the last messages by policy', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 60 }), (capacity, msgs) => {
        const newest = new Mailbox<number>({ capacity, policy: 'drop-newest' });
        const oldest = new Mailbox<number>({ capacity, policy: 'drop-oldest' });
        for (const m of msgs) {
          newest.push(m);
          oldest.push(m);
          expect(newest.size).toBeLessThanOrEqual(capacity);
          expect(oldest.size).toBeLessThanOrEqual(capacity);
        }
        const kept = Math.min(capacity, msgs.length);
        expect(newest.dropped).toBe(msgs.length - kept);
        expect(oldest.dropped).toBe(msgs.length - kept);
        expect(drain(newest)).toEqual(msgs.slice(0, kept));
        expect(drain(oldest)).toEqual(msgs.slice(msgs.length - kept));
      }),
    );
  });

  it('take() resolves at once when a message is waiting', async () => {
    const mb = new Mailbox<string>({ capacity: 2 });
    mb.push('x');
    await expect(mb.take()).resolves.toBe('x');
    expect(mb.size).toBe(0);
  });

  it('take() waits without polling and wakes up on push, consumers served in order', async () => {
    const mb = new Mailbox<string>({ capacity: 2 });
    const got: string[] = [];
    const first = mb.take().then((m) => got.push(`1:${m}`));
    const second = mb.take().then((m) => got.push(`2:${m}`));
    await Promise.resolve();
    expect(got).toEqual([]);
    expect(mb.waiting).toBe(2);
    expect(mb.push('a')).toBe(true);
    expect(mb.push('b')).toBe(true);
    await Promise.all([first, second]);
    expect(got).toEqual(['1:a', '2:b']);
    expect(mb.size).toBe(0); // handed over, not queued
    expect(mb.enqueued).toBe(2);
  });

  it('take() rejects with the abort reason and leaves no waiter behind', async () => {
    const mb = new Mailbox<string>({ capacity: 2 });
    const ac = new AbortController();
    const p = mb.take(ac.signal);
    ac.abort(new Error('shutdown'));
    await expect(p).rejects.toThrow('shutdown');
    expect(mb.waiting).toBe(0);
    mb.push('kept');
    expect(mb.size).toBe(1); // not swallowed by the aborted waiter
    await expect(mb.take(ac.signal)).resolves.toBe('kept'); // a waiting message wins over an aborted signal
    await expect(mb.take(ac.signal)).rejects.toThrow('shutdown');
  });

  it('clear() returns what waits, in order, and empties the ring', () => {
    const mb = new Mailbox<number>({ capacity: 4 });
    for (const m of [1, 2, 3]) mb.push(m);
    expect(mb.clear()).toEqual([1, 2, 3]);
    expect(mb.size).toBe(0);
    expect(mb.poll()).toBeUndefined();
  });

  // How fast the ring moves messages is a figure of `npm run bench -- actors`, not asserted
  // here: it depends on the machine and its load.
  it('moves 1M messages through a small ring that fills and wraps, in order, none dropped', async () => {
    const mb = new Mailbox<number>({ capacity: 1_024 });
    const total = 1_000_000;
    let sum = 0;
    let outOfOrder = 0;
    const consumer = (async () => {
      for (let i = 0; i < total; i++) {
        const m = await mb.take();
        if (m !== i) outOfOrder++;
        sum += m;
      }
    })();
    let sent = 0;
    let most = 0;
    while (sent < total) {
      while (sent < total && mb.size < mb.capacity) mb.push(sent++);
      most = Math.max(most, mb.size);
      await new Promise((r) => setImmediate(r));
    }
    await consumer;
    expect(sum).toBe((total * (total - 1)) / 2);
    expect(outOfOrder).toBe(0);
    expect(mb.dropped).toBe(0);
    expect(most).toBe(mb.capacity); // the ring was full, so it wrapped around many times
    expect(mb.size).toBe(0);
  });

  // That a push into a full ring costs the same at any capacity (O(1), no Array.shift) is
  // shown by `npm run bench -- actors` (ns per push at capacity 1,024 and 200,000).
  it('a full large ring evicts exactly its head on each push and keeps the newest', () => {
    const capacity = 200_000;
    const mb = new Mailbox<number>({ capacity, policy: 'drop-oldest' });
    for (let i = 0; i < capacity * 3; i++) mb.push(i); // two thirds of these evict the head
    expect(mb.size).toBe(capacity);
    expect(mb.dropped).toBe(capacity * 2);
    expect(mb.poll()).toBe(capacity * 2);
    expect(mb.poll()).toBe(capacity * 2 + 1);
    expect(mb.size).toBe(capacity - 2);
  });
});
