/**
 * The cost of one message between two validators over the real libp2p stack (TCP on
 * loopback, noise, yamux), both ends in this process so CPU time covers sender and
 * receiver: one vote-sized message at a time (sent when the previous one arrived, so
 * nothing is coalesced), over gossipsub and over the direct stream consensus uses.
 * CPU per message is stable where wall-clock rates on a busy 2-core machine are not.
 */
import { Libp2pTransport, peerIdOfKey } from '../src/net/libp2p';
import { TOPICS, Topic, type GossipHandlers } from '../src/net/transport';
import { hexToBytes } from '../src/util/bytes';
import { createLogger } from '../src/util/log';
import { DEVNET_KEYS } from '../test/helpers/devnet';

const log = createLogger({ destination: 'silent' });
const PROTOCOL = '/exchange/bench/direct/1';

async function pair(): Promise<{ a: Libp2pTransport; b: Libp2pTransport; bId: string; onMessage: (f: () => void) => void }> {
  let hook: () => void = () => {};
  const handlers = Object.fromEntries(TOPICS.map((t) => [t, () => hook()])) as unknown as GossipHandlers;
  const keyA = hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
  const keyB = hexToBytes(DEVNET_KEYS.validators[1].ecdsaPrivateKey);
  const b = new Libp2pTransport({ chainId: 1, privateKey: keyB, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
  await b.start(handlers);
  await b.handleDirect(PROTOCOL, () => hook());
  const bId = await peerIdOfKey(keyB);
  const a = new Libp2pTransport({ chainId: 1, privateKey: keyA, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [`${b.listenAddresses()[0].split('/p2p/')[0]}/p2p/${bId}`], log });
  await a.start(handlers);
  while (a.peers().length === 0 || a.subscribers(Topic.Votes) === 0) await new Promise((r) => setTimeout(r, 20));
  return { a, b, bId, onMessage: (f) => (hook = f) };
}

async function measure(n: number, send: () => void, onMessage: (f: () => void) => void): Promise<{ cpuUsPerMessage: number; wallUsPerMessage: number }> {
  const run = (count: number) =>
    new Promise<void>((resolve) => {
      let got = 0;
      onMessage(() => {
        if (++got === count) resolve();
        else send();
      });
      send();
    });
  await run(Math.min(2_000, n)); // warm-up (JIT)
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run(n);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpuUsPerMessage: +((c.user + c.system) / n).toFixed(1), wallUsPerMessage: +((wall * 1000) / n).toFixed(1) };
}

export async function benchP2p(opts: { messages?: number } = {}): Promise<Record<string, unknown>> {
  const n = opts.messages ?? 10_000;
  const { a, b, bId, onMessage } = await pair();
  try {
    const vote = new Uint8Array(160).fill(7);
    let seq = 0;
    const fresh = () => {
      // gossipsub drops a message it has seen (content-addressed ids): make each unique
      const m = vote.slice();
      new DataView(m.buffer).setUint32(0, seq++);
      return m;
    };
    const gossip = await measure(n, () => void a.publish(Topic.Votes, fresh()), onMessage);
    const direct = await measure(n, () => a.sendDirect(bId, PROTOCOL, fresh()), onMessage);
    return {
      messages: n,
      messageBytes: vote.length,
      gossipsub: gossip,
      directStream: direct,
      conditions: 'two libp2p nodes in one process (TCP loopback, noise, yamux); one message in flight; CPU of both ends',
    };
  } finally {
    await a.stop();
    await b.stop();
  }
}
