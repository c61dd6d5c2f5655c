import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { privateKeyToAddress } from '../../src/crypto/secp256k1';
import { SessionNet, type SessionNetOptions } from '../../src/net/session';
import type { Address } from '../../src/util/bytes';
import { createMemoryLogger, LOG_LEVEL, type LogRecord } from '../../src/util/log';

/** Two validator keys, the lower address first (it dials). */
function keyPair(): [Uint8Array, Uint8Array] {
  const a = randomBytes(32);
  const b = randomBytes(32);
  return privateKeyToAddress(a) < privateKeyToAddress(b) ? [a, b] : [b, a];
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

interface Node {
  net: SessionNet;
  frames: { from: Address; data: Uint8Array }[];
  records: LogRecord[];
  ups: Address[];
  downs: Address[];
}

/** A SessionNet on loopback that keeps a session with `peer` (its endpoint from `where()`). */
async function node(key: Uint8Array, peer: () => Address, where: () => number, over: Partial<SessionNetOptions> = {}): Promise<Node> {
  const { log, records } = createMemoryLogger();
  const n: Node = { frames: [], records, ups: [], downs: [], net: undefined as never };
  n.net = new SessionNet({
    chainId: 7,
    validatorKey: key,
    host: '127.0.0.1',
    port: 0,
    log,
    isValidator: () => true,
    peers: () => [peer()],
    resolve: async () => ({ host: '127.0.0.1', port: where() }),
    onFrame: (from, data) => n.frames.push({ from, data: data.slice() }),
    onUp: (p) => n.ups.push(p),
    onDown: (p) => n.downs.push(p),
    tickMs: 20,
    backoffMinMs: 20,
    backoffMaxMs: 200,
    handshakeTimeoutMs: 2_000,
    ...over,
  });
  await n.net.start();
  cleanup.push(() => n.net.stop());
  return n;
}

async function until(what: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A TCP relay between the dialer and the listener it stands for: it can hold back what
 * the dialer sends (a listener that stopped reading), garble its next chunk, or replay
 * the last one.
 */
async function relay(target: () => number) {
  const r = { port: 0, sockets: [] as Socket[], hold: false, garbleNext: false, last: undefined as Buffer | undefined, up: undefined as Socket | undefined };
  const server: Server = createServer((down) => {
    const up = connect(target(), '127.0.0.1');
    r.up = up;
    r.sockets.push(down, up);
    down.on('data', (chunk: Buffer) => {
      if (r.garbleNext && chunk.length > 4) {
        r.garbleNext = false;
        chunk = Buffer.from(chunk);
        chunk[chunk.length - 3] ^= 0x40;
      }
      r.last = chunk;
      up.write(chunk);
    });
    up.on('data', (chunk) => down.write(chunk));
    const end = () => {
      down.destroy();
      up.destroy();
    };
    down.on('close', end);
    up.on('close', end);
    down.on('error', end);
    up.on('error', end);
    if (r.hold) down.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as { port: number }).port;
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of r.sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return r;
}

const warnings = (n: Node) => n.records.filter((r) => r.level >= LOG_LEVEL.warn).map((r) => `${r.msg} ${String(r.code ?? '')} ${String(r.err ?? '')}`);

describe('consensus sessions (src/net/session.ts) over loopback', () => {
  it('one session per pair, dialed by the lower address: frames both ways, one larger than a Noise message, and the counters', async () => {
    const [k1, k2] = keyPair();
    const a1 = privateKeyToAddress(k1);
    const a2 = privateKeyToAddress(k2);
    let n2: Node | undefined;
    const n1 = await node(k1, () => a2, () => n2!.net.port);
    n2 = await node(k2, () => a1, () => n1.net.port);
    await until(() => n1.net.isUp(a2) && n2!.net.isUp(a1));
    expect(n1.net.stats()).toMatchObject({ up: 1, dials: 1, handshakes: 1, accepted: 0 });
    expect(n2.net.stats()).toMatchObject({ up: 1, dials: 0, handshakes: 1, accepted: 1 });
    const big = randomBytes(200_000);
    expect(n1.net.send(a2, Uint8Array.of(1, 2, 3))).toBe(true);
    expect(n1.net.send(a2, big)).toBe(true);
    expect(n2.net.send(a1, Uint8Array.of(9))).toBe(true);
    await until(() => n2!.frames.length === 2 && n1.frames.length === 1);
    expect(n2.frames[0]).toEqual({ from: a1, data: Uint8Array.of(1, 2, 3) });
    expect(Buffer.from(n2.frames[1].data).equals(big)).toBe(true);
    expect(n1.frames[0]).toEqual({ from: a2, data: Uint8Array.of(9) });
    expect(n1.net.stats()).toMatchObject({ framesSent: 2, framesReceived: 1 });
    expect(n1.net.stats().bytesSent).toBeGreaterThan(200_000);
    // What n2 received: the handshake's two messages from n1, then n1's transport messages.
    expect(n2.net.stats().bytesReceived).toBeGreaterThan(n1.net.stats().bytesSent);
    // No session: the caller is told so and sends another way.
    expect(n1.net.send(privateKeyToAddress(randomBytes(32)), Uint8Array.of(1))).toBe(false);
    expect(warnings(n1)).toEqual([]);
    expect(warnings(n2)).toEqual([]);
  });

  it('refuses a peer that is not a validator, one on another chain, and another validator than the one dialed; each node keeps running', async () => {
    const [k1, k2] = keyPair();
    const a1 = privateKeyToAddress(k1);
    const a2 = privateKeyToAddress(k2);
    let n2: Node | undefined;
    // n2 does not hold a1 for a validator.
    const n1 = await node(k1, () => a2, () => n2!.net.port);
    n2 = await node(k2, () => a1, () => n1.net.port, { isValidator: (a) => a !== a1 });
    await until(() => n2!.net.stats().refused.NOT_A_VALIDATOR >= 2);
    // The dialer never took the refused session for up: nothing it sent was lost in it.
    expect(n1.ups).toEqual([]);
    expect(n1.net.isUp(a2)).toBe(false);
    expect(warnings(n2)).toContainEqual(expect.stringMatching(/^consensus session refused.*NOT_A_VALIDATOR.*is not a registered, active or jailed validator/));

    // Another chain id: the responder's proof names chain 8.
    const [k3, k4] = keyPair();
    let n4: Node | undefined;
    const n3 = await node(k3, () => privateKeyToAddress(k4), () => n4!.net.port);
    n4 = await node(k4, () => privateKeyToAddress(k3), () => n3.net.port, { chainId: 8 });
    await until(() => n3.net.stats().refused.WRONG_CHAIN >= 1);
    expect(warnings(n3)).toContainEqual(expect.stringMatching(/^consensus session refused.*WRONG_CHAIN.*peer is on chain 8, this is chain 7/));

    // The dialer reaches another validator than the one it meant (a stale endpoint): refused.
    const [k5] = keyPair();
    const n5 = await node(k5, () => ('0x' + 'ff'.repeat(20)) as Address, () => n2!.net.port);
    await until(() => n5.net.stats().refused.UNEXPECTED_PEER >= 1);
    expect(warnings(n5)).toContainEqual(expect.stringMatching(/UNEXPECTED_PEER/));
    // A refusal is logged once per remote and reason, not at every retry.
    await until(() => n5.net.stats().refused.UNEXPECTED_PEER >= 3);
    expect(warnings(n5).filter((w) => w.includes('UNEXPECTED_PEER'))).toHaveLength(1);

    // Still running: once n2 takes a1 for a validator, the session comes up.
    const n2b = await node(k2, () => a1, () => n1.net.port);
    n2 = n2b;
    await until(() => n1.net.isUp(a2));
    expect(n1.net.send(a2, Uint8Array.of(5))).toBe(true);
    await until(() => n2b.frames.length === 1);
  });

  it('closes the session on a garbled or a replayed message, logs why, and the dialer reconnects', async () => {
    const [k1, k2] = keyPair();
    const a1 = privateKeyToAddress(k1);
    const a2 = privateKeyToAddress(k2);
    let n2: Node | undefined;
    const r = await relay(() => n2!.net.port);
    const n1 = await node(k1, () => a2, () => r.port);
    n2 = await node(k2, () => a1, () => n1.net.port);
    await until(() => n1.net.isUp(a2) && n2!.net.isUp(a1));

    r.garbleNext = true;
    n1.net.send(a2, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    await until(() => n2!.net.stats().corrupt === 1);
    expect(n2.frames).toHaveLength(0);
    expect(warnings(n2)).toContainEqual(expect.stringMatching(/^consensus session closed: a message from the peer failed authentication or framing.*failed authentication/));
    await until(() => n1.net.stats().reconnects === 1 && n1.net.isUp(a2) && n2!.net.isUp(a1));

    n1.net.send(a2, Uint8Array.of(42));
    await until(() => n2!.frames.length === 1);
    // The same bytes again, as an attacker on the path would resend them.
    r.up!.write(r.last!);
    await until(() => n2!.net.stats().corrupt === 2);
    expect(n2.frames).toHaveLength(1);
    await until(() => n1.net.stats().reconnects === 2 && n1.net.isUp(a2));
    n1.net.send(a2, Uint8Array.of(43));
    await until(() => n2!.frames.length === 2);
    expect(n2.frames.map((f) => f.data[0])).toEqual([42, 43]);
    expect(n1.downs).toEqual([a2, a2]);
  });

  it('drops the session of a peer that stops reading once its queue passes the bound, and reconnects', async () => {
    const [k1, k2] = keyPair();
    const a1 = privateKeyToAddress(k1);
    const a2 = privateKeyToAddress(k2);
    let n2: Node | undefined;
    const r = await relay(() => n2!.net.port);
    const queueBytesMax = 1024 * 1024;
    const n1 = await node(k1, () => a2, () => r.port, { queueBytesMax });
    n2 = await node(k2, () => a1, () => n1.net.port);
    await until(() => n1.net.isUp(a2));
    // The relay stops reading what n1 sends.
    r.hold = true;
    for (const s of r.sockets) s.pause();
    const chunk = randomBytes(64 * 1024);
    let sent = 0;
    // Loopback buffers take a few MB before the socket's own queue grows.
    while (n1.net.stats().dropped === 0 && sent < 2_000) {
      n1.net.send(a2, chunk);
      sent++;
      if (sent % 50 === 0) await new Promise((res) => setTimeout(res, 5));
    }
    expect(n1.net.stats().dropped).toBe(1);
    expect(warnings(n1)).toContainEqual(expect.stringMatching(/^consensus session dropped: the peer stopped reading/));
    expect(n1.net.isUp(a2)).toBe(false);
    // Reading again: the next session carries frames.
    r.hold = false;
    await until(() => n1.net.isUp(a2) && n2!.net.isUp(a1));
    n2.frames.length = 0;
    n1.net.send(a2, Uint8Array.of(7));
    await until(() => n2!.frames.some((f) => f.data.length === 1 && f.data[0] === 7));
  });
});
