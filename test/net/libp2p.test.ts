/**
 * The libp2p transport between real nodes over TCP on loopback: peer identity from the
 * validator key, gossip on every topic, handler verdicts (accept, ignore, reject), and
 * the request-response protocol block sync uses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Libp2pTransport, peerIdOfKey } from '../../src/net/libp2p';
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
});
