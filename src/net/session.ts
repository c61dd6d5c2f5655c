/**
 * The consensus session (decision 178): one authenticated, encrypted TCP connection per
 * pair of validators, carrying the direct bundles of consensus messages and transaction
 * batches (actors/p2p/p2p-actor.ts) without libp2p's per-connection machinery (yamux
 * frames and windows, stream negotiation, async-iterable pipes) on the path every
 * consensus message takes. libp2p stays for everything else: gossip to full nodes,
 * block and state sync, hellos, identify, and the direct stream between validators that
 * have no session up.
 *
 * On the wire:
 *   handshake   Noise_XX_25519_ChaChaPoly_SHA256 (noise.ts), each message u16 BE length | bytes.
 *               The second and third messages carry the sender's proof: its validator
 *               address and a secp256k1 signature, by its validator key, of
 *               keccak256(SESSION_DOMAIN ‖ u64 chainId ‖ u8 role ‖ handshake hash): bound to
 *               this chain, this side of this handshake (both ephemeral keys and the signer's
 *               Noise static key are in the hash), so it proves nothing anywhere else.
 *   transport   Noise transport messages, each u16 BE length | ciphertext (≤ 65,535 bytes);
 *               their plaintexts, end to end, are length-prefixed frames (frames.ts) of
 *               at most NET_FRAME_BYTES_MAX. A message that fails authentication (garbled,
 *               replayed, reordered) or a malformed frame closes the session.
 *
 * One session per pair, without a race: the validator with the lower address dials, the
 * higher one only accepts (an inbound session from a higher address is refused). A new
 * session from a peer replaces its old one (the peer restarted, or saw the old one die).
 * A peer that stops reading fills the socket's buffer: past `queueBytesMax` the session
 * is dropped and the dialer reconnects, with backoff, as the libp2p direct stream does
 * with its queue (DIRECT_QUEUE_BYTES_MAX).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Reader, Writer } from '../codec/binary';
import { keccak256 } from '../crypto/keccak';
import { privateKeyToAddress, recoverAddress, sign } from '../crypto/secp256k1';
import { utf8, type Address } from '../util/bytes';
import type { Logger } from '../util/log';
import { FrameDecoder, FrameError } from './frames';
import { DIRECT_QUEUE_BYTES_MAX, NET_FRAME_BYTES_MAX } from './limits';
import { CipherState, generateKeyPair, NOISE_MESSAGE_BYTES_MAX, NOISE_TAG_BYTES, NoiseError, XXHandshake, type KeyPair } from './noise';

const SESSION_VERSION = 1;
/** The domain of the signed digest and the Noise prologue: nothing else this chain signs starts so. */
const SESSION_DOMAIN = utf8.encode('exchange-chain/consensus-session/v1');
/** The proof in a handshake payload: version, chain id, address, signature. */
const PROOF_BYTES = 1 + 8 + 20 + 65;
const ROLE_INITIATOR = 1;
const ROLE_RESPONDER = 2;
/** Plaintext bytes of one transport message at most. */
const PLAIN_BYTES_MAX = NOISE_MESSAGE_BYTES_MAX - NOISE_TAG_BYTES;
/** Handshakes under way at once at most (inbound and outbound): a flood of connections costs this many. */
export const SESSION_HANDSHAKES_PENDING_MAX = 64;
/** Distinct refusals (remote and reason) logged at most. */
const REFUSALS_LOGGED_MAX = 256;
const EMPTY = Buffer.alloc(0);

export interface SessionEndpoint {
  host: string;
  port: number;
}

export interface SessionNetOptions {
  chainId: number;
  /** This validator's secp256k1 key: it signs the handshake. */
  validatorKey: Uint8Array;
  /** Where to listen; port 0: any free port (what a taken port falls back to). */
  host: string;
  port: number;
  log: Logger;
  /** Whether an address may hold a session now: a validator of the chain state (registered, active or jailed). */
  isValidator(address: Address): boolean;
  /** The validators to keep a session with now; this side dials those with a higher address. */
  peers(): Address[];
  /** Where a validator's session listens, undefined when not known (yet). */
  resolve(peer: Address): Promise<SessionEndpoint | undefined>;
  /** A frame from an authenticated validator. */
  onFrame(from: Address, data: Uint8Array): void;
  /** A session with `peer` opened, or closed (what was sent on it may be lost). */
  onUp?(peer: Address): void;
  onDown?(peer: Address): void;
  /** Bytes waiting in a session's socket before it is dropped (default DIRECT_QUEUE_BYTES_MAX). */
  queueBytesMax?: number;
  /** Largest frame taken (default NET_FRAME_BYTES_MAX). */
  frameBytesMax?: number;
  handshakeTimeoutMs?: number;
  /** Reconnect backoff: the first retry after min, doubling to max. */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** How often the peers to dial are looked at. */
  tickMs?: number;
}

export interface SessionStats {
  port: number;
  up: number;
  dials: number;
  accepted: number;
  handshakes: number;
  handshakesFailed: number;
  refused: Record<string, number>;
  framesSent: number;
  framesReceived: number;
  bytesSent: number;
  bytesReceived: number;
  reconnects: number;
  /** Sessions dropped because the peer stopped reading (queue over queueBytesMax). */
  dropped: number;
  /** Sessions closed by a message that failed authentication or a malformed frame. */
  corrupt: number;
  closed: number;
}

export class SessionRefused extends Error {
  constructor(
    readonly code: 'MALFORMED' | 'WRONG_CHAIN' | 'BAD_SIGNATURE' | 'NOT_A_VALIDATOR' | 'UNEXPECTED_PEER' | 'WRONG_DIALER' | 'SELF',
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

function proofDigest(chainId: number, role: number, hash: Uint8Array): Uint8Array {
  return keccak256(new Writer(96).fixed(SESSION_DOMAIN, SESSION_DOMAIN.length).u64(chainId).u8(role).fixed(hash, 32).finish());
}

/** The handshake payload of the holder of `validatorKey`, for `role`, bound to `hash`. */
export function encodeProof(validatorKey: Uint8Array, chainId: number, role: number, hash: Uint8Array): Uint8Array {
  return new Writer(PROOF_BYTES)
    .u8(SESSION_VERSION)
    .u64(chainId)
    .address(privateKeyToAddress(validatorKey))
    .fixed(sign(proofDigest(chainId, role, hash), validatorKey), 65)
    .finish();
}

/** The address a handshake payload proves, or SessionRefused. */
export function verifyProof(payload: Uint8Array, chainId: number, role: number, hash: Uint8Array): Address {
  let version: number, claimed: number, address: Address, signature: Uint8Array;
  try {
    if (payload.length !== PROOF_BYTES) throw new Error(`proof of ${payload.length} bytes, not ${PROOF_BYTES}`);
    const r = new Reader(payload);
    version = r.u8();
    claimed = r.u64();
    address = r.address() as Address;
    signature = r.fixed(65);
    r.end();
  } catch (err) {
    throw new SessionRefused('MALFORMED', (err as Error).message);
  }
  if (version !== SESSION_VERSION) throw new SessionRefused('MALFORMED', `session version ${version}, this node speaks ${SESSION_VERSION}`);
  if (claimed !== chainId) throw new SessionRefused('WRONG_CHAIN', `peer is on chain ${claimed}, this is chain ${chainId}`);
  let signer: Address | null;
  try {
    signer = recoverAddress(proofDigest(chainId, role, hash), signature);
  } catch (err) {
    throw new SessionRefused('BAD_SIGNATURE', (err as Error).message);
  }
  if (signer !== address) throw new SessionRefused('BAD_SIGNATURE', `the handshake is not signed by ${address}`);
  return address;
}

/** Splits a byte stream into u16-length-prefixed messages. */
class MessageReader {
  private buf: Buffer = EMPTY;

  /** The messages `chunk` completed; the callback may close the connection (then stops being called). */
  push(chunk: Buffer, each: (m: Buffer) => boolean): void {
    const b = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    let at = 0;
    while (b.length - at >= 2) {
      const n = b.readUInt16BE(at);
      if (b.length - at - 2 < n) break;
      const m = b.subarray(at + 2, at + 2 + n);
      at += 2 + n;
      if (!each(m)) {
        this.buf = EMPTY;
        return;
      }
    }
    this.buf = at === b.length ? EMPTY : b.subarray(at);
  }
}

/** One message on the wire: u16 BE length | bytes. */
function lengthPrefixed(m: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(2 + m.length);
  out.writeUInt16BE(m.length, 0);
  out.set(m, 2);
  return out;
}

/** A varint length header (frames.ts's). */
function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Uint8Array.from(out);
}

/** One TCP connection, from its handshake to its close. */
class Connection {
  state: 'handshake' | 'open' | 'closed' = 'handshake';
  /** Handshake messages this side has read. */
  step = 0;
  peer: Address | undefined;
  send: CipherState | undefined;
  receive: CipherState | undefined;
  readonly messages = new MessageReader();
  readonly frames: FrameDecoder;
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: Socket,
    readonly initiator: boolean,
    readonly hs: XXHandshake,
    frameBytesMax: number,
    /** The dialer's: the validator it dialed. */
    readonly expected?: Address,
  ) {
    this.frames = new FrameDecoder(frameBytesMax);
  }

  get remote(): string {
    return `${this.socket.remoteAddress}:${this.socket.remotePort}`;
  }
}

export class SessionNet {
  readonly address: Address;
  private readonly staticKey: KeyPair = generateKeyPair();
  private server: Server | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly open = new Map<Address, Connection>();
  private readonly pending = new Set<Connection>();
  private readonly dialing = new Set<Address>();
  private readonly failures = new Map<Address, number>();
  private readonly nextDialAt = new Map<Address, number>();
  private readonly everUp = new Set<Address>();
  private readonly refusalsLogged = new Set<string>();
  private readonly queueBytesMax: number;
  private readonly frameBytesMax: number;
  private stopped = false;
  readonly counters: SessionStats = {
    port: 0,
    up: 0,
    dials: 0,
    accepted: 0,
    handshakes: 0,
    handshakesFailed: 0,
    refused: {},
    framesSent: 0,
    framesReceived: 0,
    bytesSent: 0,
    bytesReceived: 0,
    reconnects: 0,
    dropped: 0,
    corrupt: 0,
    closed: 0,
  };

  constructor(private readonly opts: SessionNetOptions) {
    this.address = privateKeyToAddress(opts.validatorKey);
    this.queueBytesMax = opts.queueBytesMax ?? DIRECT_QUEUE_BYTES_MAX;
    this.frameBytesMax = opts.frameBytesMax ?? NET_FRAME_BYTES_MAX;
  }

  /** The port it listens on (after start). */
  get port(): number {
    return this.counters.port;
  }

  /** Listens (a taken port falls back to any free one: peers learn the port by asking) and starts dialing. */
  async start(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    server.on('error', (err) => this.opts.log.warn({ err: err.message }, 'consensus session listener failed'));
    const listen = (port: number) =>
      new Promise<number>((resolve, reject) => {
        const fail = (err: Error) => reject(err);
        server.once('error', fail);
        server.listen(port, this.opts.host, () => {
          server.off('error', fail);
          resolve((server.address() as { port: number }).port);
        });
      });
    try {
      this.counters.port = await listen(this.opts.port);
    } catch (err) {
      if (this.opts.port === 0) throw err;
      this.opts.log.warn({ err: (err as Error).message, port: this.opts.port }, 'consensus session port taken: listening on a free port instead (peers ask for it over libp2p)');
      this.counters.port = await listen(0);
    }
    this.timer = setInterval(() => this.tick(), this.opts.tickMs ?? 500);
    this.timer.unref();
    this.opts.log.info({ host: this.opts.host, port: this.counters.port, address: this.address }, 'consensus sessions listening');
  }

  isUp(peer: Address): boolean {
    return this.open.has(peer);
  }

  /** Peers with a session up. */
  peers(): Address[] {
    return [...this.open.keys()];
  }

  /**
   * One frame to `peer`: false when no session is up or the frame is over frameBytesMax
   * (the caller sends it another way).
   * A peer whose socket holds more than queueBytesMax unsent bytes stopped reading: its
   * session is dropped (the frame with it) and the dialer reconnects.
   */
  send(peer: Address, data: Uint8Array): boolean {
    const c = this.open.get(peer);
    // Larger than the peer takes: the other path carries it (and the peer refuses it there).
    if (c === undefined || data.length > this.frameBytesMax) return false;
    const header = varint(data.length);
    const total = header.length + data.length;
    const socket = c.socket;
    if (total <= PLAIN_BYTES_MAX) this.write(c, [header, data], total);
    else {
      // Larger than one Noise message: the frame's bytes, cut into messages end to end.
      const whole = new Uint8Array(total);
      whole.set(header);
      whole.set(data, header.length);
      socket.cork();
      for (let at = 0; at < total; at += PLAIN_BYTES_MAX) this.write(c, [whole.subarray(at, Math.min(total, at + PLAIN_BYTES_MAX))], Math.min(PLAIN_BYTES_MAX, total - at));
      socket.uncork();
    }
    this.counters.framesSent++;
    if (socket.writableLength > this.queueBytesMax) {
      this.counters.dropped++;
      this.opts.log.warn({ peer, queued: socket.writableLength, max: this.queueBytesMax }, 'consensus session dropped: the peer stopped reading (its queue is full); reconnecting');
      this.close(c);
    }
    return true;
  }

  /** One transport message: u16 length | ciphertext of the parts (`length` bytes in all). */
  private write(c: Connection, parts: Uint8Array[], length: number): void {
    const out = c.send!.encryptParts(EMPTY, parts, length, 2);
    out.writeUInt16BE(out.length - 2, 0);
    this.counters.bytesSent += out.length;
    c.socket.write(out);
  }

  stats(): SessionStats {
    return { ...this.counters, up: this.open.size, refused: { ...this.counters.refused } };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const c of [...this.open.values(), ...this.pending]) this.close(c);
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Dials the validators this side dials that have no session, each when its backoff allows. */
  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    for (const peer of this.opts.peers()) {
      if (!(this.address < peer) || this.open.has(peer) || this.dialing.has(peer)) continue;
      if (now < (this.nextDialAt.get(peer) ?? 0) || this.pending.size >= SESSION_HANDSHAKES_PENDING_MAX) continue;
      void this.dial(peer);
    }
  }

  /** A failed attempt: the next one waits min × 2^(failures − 1), up to max. */
  private backoff(peer: Address): void {
    const n = (this.failures.get(peer) ?? 0) + 1;
    this.failures.set(peer, n);
    const min = this.opts.backoffMinMs ?? 250;
    this.nextDialAt.set(peer, Date.now() + Math.min(this.opts.backoffMaxMs ?? 10_000, min * 2 ** Math.min(n - 1, 16)));
  }

  private async dial(peer: Address): Promise<void> {
    this.dialing.add(peer);
    this.counters.dials++;
    let endpoint: SessionEndpoint | undefined;
    try {
      endpoint = await this.opts.resolve(peer);
    } catch {
      endpoint = undefined;
    }
    if (endpoint === undefined || this.stopped || this.open.has(peer)) {
      this.dialing.delete(peer);
      if (endpoint === undefined) this.backoff(peer);
      return;
    }
    const socket = connect({ host: endpoint.host, port: endpoint.port, noDelay: true });
    const c = new Connection(socket, true, new XXHandshake(true, this.staticKey, SESSION_DOMAIN), this.frameBytesMax, peer);
    this.attach(c);
    socket.once('connect', () => {
      if (c.state === 'handshake') socket.write(lengthPrefixed(c.hs.writeA()));
    });
  }

  private accept(socket: Socket): void {
    if (this.stopped || this.pending.size >= SESSION_HANDSHAKES_PENDING_MAX) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    this.counters.accepted++;
    this.attach(new Connection(socket, false, new XXHandshake(false, this.staticKey, SESSION_DOMAIN), this.frameBytesMax));
  }

  /** Wires a connection's socket: handshake timeout, data, close. */
  private attach(c: Connection): void {
    this.pending.add(c);
    c.socket.setKeepAlive(true, 10_000);
    c.timer = setTimeout(() => this.fail(c, new Error('handshake timed out')), this.opts.handshakeTimeoutMs ?? 5_000);
    c.socket.on('data', (chunk: Buffer) => {
      this.counters.bytesReceived += chunk.length;
      c.messages.push(chunk, (m) => this.onMessage(c, m));
    });
    c.socket.on('error', (err) => {
      if (c.state === 'handshake') this.fail(c, err);
      else this.opts.log.debug({ err: err.message, peer: c.peer }, 'consensus session socket error');
    });
    c.socket.on('close', () => this.closed(c));
  }

  /** One length-prefixed message; false when it closed the connection. */
  private onMessage(c: Connection, m: Buffer): boolean {
    if (c.state === 'closed') return false;
    try {
      if (c.state === 'open') return this.onTransport(c, m);
      this.onHandshake(c, m);
      return true;
    } catch (err) {
      this.fail(c, err as Error);
      return false;
    }
  }

  /** The handshake's next step for this side; throws on anything wrong. */
  private onHandshake(c: Connection, m: Buffer): void {
    const { chainId, validatorKey } = this.opts;
    const step = c.step++;
    if (c.initiator && step === 0) {
      // <- e, ee, s, es, proof of the responder
      const { payload, hash } = c.hs.readB(m);
      const address = verifyProof(payload, chainId, ROLE_RESPONDER, hash);
      if (address !== c.expected) throw new SessionRefused('UNEXPECTED_PEER', `dialed ${c.expected}, ${address} answered`);
      this.admissible(address);
      c.socket.write(lengthPrefixed(c.hs.writeC((h) => encodeProof(validatorKey, chainId, ROLE_INITIATOR, h))));
      this.split(c);
    } else if (c.initiator) {
      // The responder's first transport message, empty: it took our proof. Until then
      // nothing is sent here (a refusal would lose it): the libp2p path carries it.
      if (c.receive!.decrypt(EMPTY, m).length !== 0) throw new SessionRefused('MALFORMED', 'the session confirmation is not empty');
      this.established(c, c.expected!);
    } else if (step === 0) {
      // -> e: answer with e, ee, s, es and our proof
      c.hs.readA(m);
      c.socket.write(lengthPrefixed(c.hs.writeB((h) => encodeProof(validatorKey, chainId, ROLE_RESPONDER, h))));
    } else {
      // -> s, se, proof of the initiator
      const { payload, hash } = c.hs.readC(m);
      const address = verifyProof(payload, chainId, ROLE_INITIATOR, hash);
      if (!(address < this.address)) throw new SessionRefused(address === this.address ? 'SELF' : 'WRONG_DIALER', `${address} dialed ${this.address}: sessions are dialed from the lower address`);
      this.admissible(address);
      this.split(c);
      this.write(c, [], 0);
      this.established(c, address);
    }
  }

  private split(c: Connection): void {
    const { send, receive } = c.hs.split();
    c.send = send;
    c.receive = receive;
  }

  /** A proven peer may hold a session: not ourselves, a validator of the chain state. */
  private admissible(address: Address): void {
    if (address === this.address) throw new SessionRefused('SELF', 'a session with itself');
    if (!this.opts.isValidator(address)) throw new SessionRefused('NOT_A_VALIDATOR', `${address} is not a registered, active or jailed validator`);
  }

  private established(c: Connection, peer: Address): void {
    c.peer = peer;
    c.state = 'open';
    clearTimeout(c.timer);
    this.pending.delete(c);
    if (c.initiator) {
      this.dialing.delete(peer);
      this.failures.delete(peer);
      this.nextDialAt.delete(peer);
    }
    // One session per pair: a newer one from the same peer replaces the old.
    const old = this.open.get(peer);
    this.open.set(peer, c);
    if (old !== undefined) this.close(old);
    this.counters.handshakes++;
    if (this.everUp.has(peer)) this.counters.reconnects++;
    this.everUp.add(peer);
    this.opts.log.debug({ peer, remote: c.remote, initiator: c.initiator }, 'consensus session up');
    this.opts.onUp?.(peer);
  }

  /** A transport message: decrypted, its frames handed on. */
  private onTransport(c: Connection, m: Buffer): boolean {
    let frames: Uint8Array[];
    try {
      frames = c.frames.push(c.receive!.decrypt(EMPTY, m));
    } catch (err) {
      if (!(err instanceof NoiseError || err instanceof FrameError)) throw err;
      this.counters.corrupt++;
      this.opts.log.warn({ peer: c.peer, remote: c.remote, err: err.message }, 'consensus session closed: a message from the peer failed authentication or framing');
      this.close(c);
      return false;
    }
    for (const f of frames) {
      this.counters.framesReceived++;
      try {
        this.opts.onFrame(c.peer!, f);
      } catch (err) {
        this.opts.log.debug({ err: (err as Error).message, peer: c.peer }, 'consensus session frame handler failed');
      }
      if (c.state !== 'open') return false;
    }
    return true;
  }

  /** A handshake that failed: counted, logged once per remote host and reason, closed. */
  private fail(c: Connection, err: Error): void {
    if (c.state === 'closed') return;
    this.counters.handshakesFailed++;
    const code = err instanceof SessionRefused ? err.code : err instanceof NoiseError ? 'NOISE' : 'IO';
    if (err instanceof SessionRefused) this.counters.refused[code] = (this.counters.refused[code] ?? 0) + 1;
    // A peer not up yet (connection refused, reset) is routine while a network starts.
    if (code === 'IO') {
      this.opts.log.debug({ remote: c.remote, peer: c.expected, err: err.message }, 'consensus session handshake failed');
      this.close(c);
      return;
    }
    const seen = `${c.socket.remoteAddress} ${c.expected ?? ''} ${code}`;
    if (!this.refusalsLogged.has(seen) && this.refusalsLogged.size < REFUSALS_LOGGED_MAX) {
      this.refusalsLogged.add(seen);
      this.opts.log.warn(
        { remote: c.remote, peer: c.expected, initiator: c.initiator, code, err: err.message },
        err instanceof SessionRefused ? 'consensus session refused; consensus messages go over libp2p meanwhile' : 'consensus session handshake failed (garbled or not this protocol); consensus messages go over libp2p meanwhile',
      );
    }
    this.close(c);
  }

  private close(c: Connection): void {
    if (c.state === 'closed') return;
    const wasOpen = c.state === 'open';
    c.state = 'closed';
    clearTimeout(c.timer);
    this.pending.delete(c);
    c.socket.destroy();
    this.closed(c, wasOpen);
  }

  /** The socket closed (either side): forget the connection; a dialer backs off. */
  private closed(c: Connection, wasOpen = c.state === 'open'): void {
    if (c.state !== 'closed') {
      c.state = 'closed';
      clearTimeout(c.timer);
      this.pending.delete(c);
    }
    if (c.initiator && c.expected !== undefined && this.dialing.has(c.expected) && !wasOpen && c.peer === undefined) {
      this.dialing.delete(c.expected);
      this.backoff(c.expected);
    }
    if (c.peer !== undefined && this.open.get(c.peer) === c) {
      this.open.delete(c.peer);
      this.counters.closed++;
      // A dropped session is redialled after the shortest backoff; repeated failures lengthen it.
      if (c.initiator) this.backoff(c.peer);
      this.opts.log.debug({ peer: c.peer }, 'consensus session closed');
      this.opts.onDown?.(c.peer);
    }
  }
}
