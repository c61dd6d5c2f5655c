/**
 * The cost of one message between two validators over the real libp2p stack (TCP on
 * loopback, noise, yamux), both ends in this process so CPU time covers sender and
 * receiver: one vote-sized message at a time (sent when the previous one arrived, so
 * nothing is coalesced), over gossipsub, over the libp2p direct stream, and over the
 * consensus session validators use when one is up (src/net/session.ts, decision 178).
 * CPU per message is stable where wall-clock rates on a busy 2-core machine are not.
 */
import { privateKeyToAddress } from '../src/crypto/secp256k1';
import { Libp2pTransport, peerIdOfKey } from '../src/net/libp2p';
import { SessionNet } from '../src/net/session';
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

/** Two validators' consensus sessions in this process, the first dialing the second. */
async function sessionPair(): Promise<{ send(m: Uint8Array): void; onMessage: (f: () => void) => void; stop(): Promise<void> }> {
  let hook: () => void = () => {};
  const keys = [0, 1].map((i) => hexToBytes(DEVNET_KEYS.validators[i].ecdsaPrivateKey)).sort((x, y) => (privateKeyToAddress(x) < privateKeyToAddress(y) ? -1 : 1));
  const [lo, hi] = keys.map(privateKeyToAddress);
  const nets: SessionNet[] = [];
  for (const [i, key] of keys.entries()) {
    nets.push(
      new SessionNet({
        chainId: 1,
        validatorKey: key,
        host: '127.0.0.1',
        port: 0,
        log,
        isValidator: () => true,
        peers: () => [i === 0 ? hi : lo],
        resolve: async () => ({ host: '127.0.0.1', port: nets[1 - i].port }),
        onFrame: () => hook(),
        tickMs: 20,
      }),
    );
    await nets[i].start();
  }
  while (!nets[0].isUp(hi)) await new Promise((r) => setTimeout(r, 20));
  return { send: (m) => void nets[0].send(hi, m), onMessage: (f) => (hook = f), stop: async () => void (await Promise.all(nets.map((x) => x.stop()))) };
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
    const session = await sessionPair();
    let overSession;
    try {
      overSession = await measure(n, () => session.send(fresh()), session.onMessage);
    } finally {
      await session.stop();
    }
    return {
      messages: n,
      messageBytes: vote.length,
      gossipsub: gossip,
      directStream: direct,
      consensusSession: overSession,
      conditions: 'two libp2p nodes in one process (TCP loopback, noise, yamux), and two consensus sessions (TCP loopback, Noise XX); one message in flight; CPU of both ends',
    };
  } finally {
    await a.stop();
    await b.stop();
  }
}
