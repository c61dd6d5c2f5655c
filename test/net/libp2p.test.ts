/**
 * The libp2p transport between real nodes over TCP on loopback: peer identity from the
 * validator key, gossip on every topic, handler verdicts (accept, ignore, reject), and
 * the request-response protocol block sync uses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBundle, encodeBundle } from '../../actors/p2p/p2p-actor';
import { Libp2pTransport, peerIdOfKey } from '../../src/net/libp2p';
import { yamuxWindowStats } from '../../src/net/yamux-window';
import { GossipError, TOPICS, Topic, type GossipHandlers } from '../../src/net/transport';
import { hexToBytes } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, waitFor } from '../helpers/devnet';

const log = createLogger({ destination: 'silent' });
const nodes: Libp2pTransport[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

function recorder() {
  const got: { topic: Topic; data: string; from: string }[] = [];
  const handlers = Object.fromEntries(
    TOPICS.map((t) => [
      t,
      (data: Uint8Array, from: string) => {
        const text = new TextDecoder().decode(data);
        if (text.startsWith('bad')) throw new GossipError('reject', 'INVALID', 'an invalid message');
        if (text.startsWith('old')) throw new GossipError('ignore', 'STALE');
        got.push({ topic: t, data: text, from });
      },
    ]),
  ) as GossipHandlers;
  return { got, handlers };
}

describe('libp2p transport', () => {
  it('gossips every topic among three nodes, applies verdicts, and serves requests', async () => {
    const keys = DEVNET_KEYS.validators.slice(0, 3).map((v) => hexToBytes(v.ecdsaPrivateKey));
    const first = new Libp2pTransport({ chainId: 713799, privateKey: keys[0], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
    const r0 = recorder();
    await first.start(r0.handlers);
    nodes.push(first);
    expect(first.id).toBe(await peerIdOfKey(keys[0]));
    const boot = first.listenAddresses().find((a) => a.includes('/tcp/'))!;
    expect(boot).toContain(`/p2p/${first.id}`);
    const others = [];
    const recs = [r0];
    for (const key of keys.slice(1)) {
      const t = new Libp2pTransport({ chainId: 713799, privateKey: key, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [boot], log, redialMs: 200 });
      const r = recorder();
      await t.start(r.handlers);
      nodes.push(t);
      others.push(t);
      recs.push(r);
    }
    await waitFor(() => first.peers().length === 2 || undefined, 10_000, 'peers connected');
    // Give the gossip mesh a heartbeat to form.
    await new Promise((r) => setTimeout(r, 1_500));

    await first.handle('/exchange/sync/1', async (data, from) => new TextEncoder().encode(`height ${new TextDecoder().decode(data)} for ${from.slice(-6)}`));
    const answer = new TextDecoder().decode(await others[0].request(first.id, '/exchange/sync/1', new TextEncoder().encode('42')));
    expect(answer).toBe(`height 42 for ${others[0].id.slice(-6)}`);

    for (const topic of TOPICS) await first.publish(topic, new TextEncoder().encode(`hello ${topic}`));
    await waitFor(() => recs.slice(1).every((r) => r.got.length === TOPICS.length) || undefined, 10_000, 'all topics delivered');
    for (const r of recs.slice(1)) {
      expect(r.got.map((g) => g.topic).sort()).toEqual([...TOPICS].sort());
      expect(r.got.every((g) => g.from === first.id)).toBe(true);
    }
    await others[1].publish(Topic.Votes, new TextEncoder().encode('bad vote'));
    await others[1].publish(Topic.Votes, new TextEncoder().encode('old vote'));
    await waitFor(() => (first.stats().rejected >= 1 && first.stats().ignored >= 1) || undefined, 10_000, 'verdicts');
    expect(r0.got.some((g) => g.data.includes('vote'))).toBe(false);
    expect(first.stats().requestsServed).toBeGreaterThanOrEqual(1);
  });

  it('carries direct messages in order, large ones through flow control, without a window update per message', async () => {
    const keys = DEVNET_KEYS.validators.slice(3, 5).map((v) => hexToBytes(v.ecdsaPrivateKey));
    const got: Uint8Array[] = [];
    const b = new Libp2pTransport({ chainId: 713799, privateKey: keys[1], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log, subscribe: [Topic.Txs] });
    await b.start(recorder().handlers);
    nodes.push(b);
    await b.handleDirect('/exchange/test/direct/1', (data) => got.push(data.slice()));
    const a = new Libp2pTransport({ chainId: 713799, privateKey: keys[0], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [b.listenAddresses()[0]], log, redialMs: 200 });
    await a.start(recorder().handlers);
    nodes.push(a);
    await waitFor(() => a.peers().length === 1 || undefined, 10_000, 'connected');
    // b subscribed to transactions only: it counts as a subscriber of that topic, not of votes.
    await waitFor(() => a.subscribers(Topic.Txs) === 1 || undefined, 10_000, 'subscription seen');
    expect(a.subscribers(Topic.Votes)).toBe(0);

    const sentBefore = yamuxWindowStats.windowUpdatesSent;
    const n = 2_000;
    for (let i = 0; i < n; i++) {
      const m = new Uint8Array(160);
      new DataView(m.buffer).setUint32(0, i);
      a.sendDirect(b.id, '/exchange/test/direct/1', m);
    }
    // Larger than the initial 256 KiB stream window: only flows if window updates still come.
    const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    a.sendDirect(b.id, '/exchange/test/direct/1', big);
    await waitFor(() => got.length === n + 1 || undefined, 20_000, 'all direct messages');
    expect(got.slice(0, n).map((m) => new DataView(m.buffer, m.byteOffset).getUint32(0))).toEqual([...Array(n).keys()]);
    expect(Buffer.compare(got[n], big)).toBe(0); // (toEqual walks 3 MiB element by element)
    // ~3.3 MB crossed: a handful of half-window updates, not one per message (yamux's default).
    const updates = yamuxWindowStats.windowUpdatesSent - sentBefore;
    expect(updates).toBeGreaterThan(0);
    expect(updates).toBeLessThan(100);
    expect(yamuxWindowStats.windowUpdatesSkipped).toBeGreaterThan(n / 2);
    expect(a.stats().direct).toMatchObject({ sent: n + 1, queuesDropped: 0 });
  });

  it('drops the queue of a peer that stopped reading and aborts its stream', async () => {
    const keys = DEVNET_KEYS.validators.slice(1, 3).map((v) => hexToBytes(v.ecdsaPrivateKey));
    const b = new Libp2pTransport({ chainId: 713799, privateKey: keys[1], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
    await b.start(recorder().handlers);
    nodes.push(b);
    // A handler that takes the first message and never asks for more: the stream stops being read.
    await b.handle('/exchange/test/stuck/1', () => new Promise<Uint8Array>(() => {}));
    const a = new Libp2pTransport({ chainId: 713799, privateKey: keys[0], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [b.listenAddresses()[0]], log, redialMs: 200 });
    await a.start(recorder().handlers);
    nodes.push(a);
    await waitFor(() => a.peers().length === 1 || undefined, 10_000, 'connected');
    const mib = new Uint8Array(1024 * 1024);
    // More than the 32 MiB queue bound plus what the stream windows and socket buffers hold.
    for (let i = 0; i < 96 && (a.stats().direct as { queuesDropped: number }).queuesDropped === 0; i++) {
      a.sendDirect(b.id, '/exchange/test/stuck/1', mib);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(a.stats().direct).toMatchObject({ queuesDropped: 1 });
    // The stuck stream is aborted, not left holding a write on the full window; the
    // message that found the queue full went out on a new stream (stuck too: one left).
    const open = () => (a as any).node.getConnections().flatMap((c: any) => c.streams).filter((st: any) => st.protocol === '/exchange/test/stuck/1').length;
    await waitFor(() => open() === 1 || undefined, 10_000, 'the stuck stream aborted');
  });

  it('resets a direct stream that carries a malformed frame; the next message goes out on a new one', async () => {
    const keys = DEVNET_KEYS.validators.slice(1, 3).map((v) => hexToBytes(v.ecdsaPrivateKey));
    const b = new Libp2pTransport({ chainId: 713799, privateKey: keys[1], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
    await b.start(recorder().handlers);
    nodes.push(b);
    const got: Uint8Array[] = [];
    await b.handleDirect('/exchange/test/direct/1', (m) => got.push(m.slice()));
    const a = new Libp2pTransport({ chainId: 713799, privateKey: keys[0], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [b.listenAddresses()[0]], log, redialMs: 200 });
    await a.start(recorder().handlers);
    nodes.push(a);
    await waitFor(() => a.peers().length === 1 || undefined, 10_000, 'connected');
    a.sendDirect(b.id, '/exchange/test/direct/1', Uint8Array.of(1));
    await waitFor(() => got.length === 1 || undefined, 10_000, 'first message');
    // Poison the open stream: a length header of 2^63 (ten varint bytes), not a frame.
    const entry = (a as any).outbound.get(`${b.id} /exchange/test/direct/1`);
    entry.queue.push(new Uint8Array(10).fill(0xff));
    await waitFor(() => entry.stream.status !== 'open' || undefined, 10_000, 'the receiver resets the stream');
    a.sendDirect(b.id, '/exchange/test/direct/1', Uint8Array.of(2));
    expect((a as any).outbound.get(`${b.id} /exchange/test/direct/1`)).not.toBe(entry);
    await waitFor(() => got.length === 2 || undefined, 10_000, 'a message on the new stream');
    expect(got.map((m) => m[0])).toEqual([1, 2]);
  });

  it('gives up on a request the peer never answers once its timeout passes, and the stream is freed', async () => {
    const keys = DEVNET_KEYS.validators.slice(4, 6).map((v) => hexToBytes(v.ecdsaPrivateKey));
    const b = new Libp2pTransport({ chainId: 713799, privateKey: keys[1], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
    await b.start(recorder().handlers);
    nodes.push(b);
    let asked = 0;
    await b.handle('/exchange/test/stall/1', () => {
      asked++;
      return new Promise<Uint8Array>(() => {}); // never answers
    });
    await b.handle('/exchange/test/echo/1', async (data) => data);
    const a = new Libp2pTransport({ chainId: 713799, privateKey: keys[0], listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [b.listenAddresses()[0]], log, redialMs: 200 });
    await a.start(recorder().handlers);
    nodes.push(a);
    await waitFor(() => a.peers().length === 1 || undefined, 10_000, 'connected');
    const started = performance.now();
    await expect(a.request(b.id, '/exchange/test/stall/1', Uint8Array.of(1), 400)).rejects.toThrow(/did not answer .* within 400 ms/);
    const took = performance.now() - started;
    expect(asked).toBe(1);
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(5_000);
    // The connection still serves the next request.
    expect([...(await a.request(b.id, '/exchange/test/echo/1', Uint8Array.of(7, 8), 5_000))]).toEqual([7, 8]);
    // A deadline's remainder is fractional (block sync passes deadline − performance.now()).
    expect([...(await a.request(b.id, '/exchange/test/echo/1', Uint8Array.of(9), 4_999.37))]).toEqual([9]);
  });

  it('bundles messages and refuses malformed bundles', () => {
    const items = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(200).fill(9)];
    const bytes = encodeBundle(items);
    expect(decodeBundle(bytes, 1_000, 10_000)).toEqual(items);
    expect(() => decodeBundle(bytes.subarray(0, bytes.length - 1), 1_000, 10_000)).toThrow();
    expect(() => decodeBundle(new Uint8Array([...bytes, 0]), 1_000, 10_000)).toThrow();
    expect(() => decodeBundle(bytes, 100, 10_000)).toThrow(); // an item over the item limit
    expect(() => decodeBundle(bytes, 1_000, 100)).toThrow(); // over the bundle limit
    const many = new Uint8Array(8);
    new DataView(many.buffer).setUint32(0, 5_000);
    expect(() => decodeBundle(many, 1_000, 10_000)).toThrow(/bundle of 5000/);
  });
});
