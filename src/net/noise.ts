/**
 * The Noise protocol framework's XX handshake, Noise_XX_25519_ChaChaPoly_SHA256
 * (noiseprotocol.org/noise.html, revision 34), on node:crypto alone: X25519 key agreement,
 * ChaCha20-Poly1305 (IETF, 96-bit nonce) and SHA-256 with its HMAC-based HKDF. The
 * consensus session between validators (session.ts, decision 178) runs over it.
 *
 * Why our own and not @chainsafe/libp2p-noise's: that package exports only the libp2p
 * connection encrypter (its handshake state is not in its exports map), and its transport
 * path goes through Uint8ArrayLists and async iterables, the per-message machinery the
 * session exists to shed. The handshake here is Noise's own, checked message by message
 * against that package's own XXHandshakeState in test/net/noise.test.ts.
 *
 *   XX:  -> e
 *        <- e, ee, s, es
 *        -> s, se
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { concatBytes } from '../util/bytes';

export const NOISE_PROTOCOL_NAME = 'Noise_XX_25519_ChaChaPoly_SHA256';
/** Bytes of one Noise message at most (Noise's limit), tag included. */
export const NOISE_MESSAGE_BYTES_MAX = 65_535;
/** Bytes of a Poly1305 tag. */
export const NOISE_TAG_BYTES = 16;
const DH_BYTES = 32;

/** DER wrappers of raw X25519 keys (RFC 8410), so node:crypto takes 32-byte keys. */
const X25519_PRIVATE_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X25519_PUBLIC_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

export interface KeyPair {
  publicKey: Uint8Array;
  privateKey: Uint8Array;
  /** node:crypto's form of the private key, made once. */
  key: KeyObject;
}

export class NoiseError extends Error {}

export function generateKeyPair(): KeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  return keyPairFromPrivate(new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(X25519_PRIVATE_PREFIX.length)));
}

export function keyPairFromPrivate(privateKey: Uint8Array): KeyPair {
  const key = createPrivateKey({ key: Buffer.concat([X25519_PRIVATE_PREFIX, privateKey]), format: 'der', type: 'pkcs8' });
  const publicKey = new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(X25519_PUBLIC_PREFIX.length));
  return { publicKey, privateKey, key };
}

function dh(own: KeyPair, remote: Uint8Array): Uint8Array {
  const publicKey = createPublicKey({ key: Buffer.concat([X25519_PUBLIC_PREFIX, remote]), format: 'der', type: 'spki' });
  // node:crypto refuses an all-zero shared secret (a low-order remote key): the handshake fails.
  return new Uint8Array(diffieHellman({ privateKey: own.key, publicKey }));
}

function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function hmac(key: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** Noise's HKDF with two outputs. */
function hkdf2(ck: Uint8Array, ikm: Uint8Array): [Uint8Array, Uint8Array] {
  const temp = hmac(ck, ikm);
  const out1 = hmac(temp, Uint8Array.of(1));
  const out2 = hmac(temp, out1, Uint8Array.of(2));
  return [out1, out2];
}

/** A key and its nonce counter: one direction of a session once the handshake split. */
export class CipherState {
  private n = 0n;
  private readonly nonce = Buffer.alloc(12);

  constructor(private readonly k: Uint8Array | undefined) {}

  hasKey(): boolean {
    return this.k !== undefined;
  }

  /** Noise's nonce: 32 zero bits, then the counter as 64-bit little endian. */
  private nextNonce(): Buffer {
    // 2^64 − 1 is reserved; a session never gets near it (a message per microsecond for half a million years).
    if (this.n >= 0xffff_ffff_ffff_ffffn) throw new NoiseError('nonce exhausted');
    this.nonce.writeBigUInt64LE(this.n, 4);
    this.n++;
    return this.nonce;
  }

  encrypt(ad: Uint8Array, plaintext: Uint8Array): Uint8Array {
    if (this.k === undefined) return plaintext;
    const c = createCipheriv('chacha20-poly1305', this.k, this.nextNonce(), { authTagLength: NOISE_TAG_BYTES });
    c.setAAD(ad, { plaintextLength: plaintext.length });
    const body = c.update(plaintext);
    c.final();
    const out = new Uint8Array(body.length + NOISE_TAG_BYTES);
    out.set(body);
    out.set(c.getAuthTag(), body.length);
    return out;
  }

  /**
   * The ciphertext and tag of `parts` (`length` bytes in all) after `headroom` bytes left
   * for the caller (a length header), in one buffer: one socket write per message.
   */
  encryptParts(ad: Uint8Array, parts: Uint8Array[], length: number, headroom: number): Buffer {
    if (this.k === undefined) throw new NoiseError('no key yet');
    const c = createCipheriv('chacha20-poly1305', this.k, this.nextNonce(), { authTagLength: NOISE_TAG_BYTES });
    c.setAAD(ad, { plaintextLength: length });
    const out = Buffer.allocUnsafe(headroom + length + NOISE_TAG_BYTES);
    let at = headroom;
    for (const p of parts) at += c.update(p).copy(out, at);
    c.final();
    c.getAuthTag().copy(out, at);
    return out;
  }

  /** @throws NoiseError when the tag does not verify (garbled, replayed, reordered, or another key's). */
  decrypt(ad: Uint8Array, ciphertext: Uint8Array): Uint8Array {
    if (this.k === undefined) return ciphertext;
    if (ciphertext.length < NOISE_TAG_BYTES) throw new NoiseError('ciphertext shorter than its tag');
    const n = this.nextNonce();
    const d = createDecipheriv('chacha20-poly1305', this.k, n, { authTagLength: NOISE_TAG_BYTES });
    const body = ciphertext.subarray(0, ciphertext.length - NOISE_TAG_BYTES);
    d.setAAD(ad, { plaintextLength: body.length });
    d.setAuthTag(ciphertext.subarray(ciphertext.length - NOISE_TAG_BYTES));
    try {
      const out = d.update(body);
      d.final();
      return new Uint8Array(out.buffer, out.byteOffset, out.length);
    } catch {
      throw new NoiseError('message failed authentication (garbled, replayed or out of order)');
    }
  }
}

const EMPTY = new Uint8Array(0);

/** The handshake's chaining key, hash and current cipher. */
class SymmetricState {
  ck: Uint8Array;
  h: Uint8Array;
  cs = new CipherState(undefined);

  constructor(protocolName: string) {
    const name = new TextEncoder().encode(protocolName);
    if (name.length <= 32) {
      this.h = new Uint8Array(32);
      this.h.set(name);
    } else this.h = sha256(name);
    this.ck = this.h;
  }

  mixKey(ikm: Uint8Array): void {
    const [ck, k] = hkdf2(this.ck, ikm);
    this.ck = ck;
    this.cs = new CipherState(k);
  }

  mixHash(data: Uint8Array): void {
    this.h = sha256(this.h, data);
  }

  encryptAndHash(plaintext: Uint8Array): Uint8Array {
    const c = this.cs.encrypt(this.h, plaintext);
    this.mixHash(c);
    return c;
  }

  decryptAndHash(ciphertext: Uint8Array): Uint8Array {
    const p = this.cs.decrypt(this.h, ciphertext);
    this.mixHash(ciphertext);
    return p;
  }

  split(): [CipherState, CipherState] {
    const [k1, k2] = hkdf2(this.ck, EMPTY);
    return [new CipherState(k1), new CipherState(k2)];
  }
}

/** A handshake payload made from the handshake hash it will be encrypted under. */
export type PayloadOf = (hash: Uint8Array) => Uint8Array;

export interface Payload {
  payload: Uint8Array;
  /** The handshake hash the payload was encrypted under: what its writer's PayloadOf was given. */
  hash: Uint8Array;
}

/** What a finished handshake gives: a cipher each way and the handshake hash (the channel binding). */
export interface NoiseSession {
  send: CipherState;
  receive: CipherState;
  handshakeHash: Uint8Array;
  remoteStatic: Uint8Array;
}

/**
 * One side of an XX handshake. Messages go in order: the initiator writes A, reads B,
 * writes C; the responder reads A, writes B, reads C. `hash()` before writing or after
 * reading a payload is what both sides hold at that point: the session signs it (its
 * payload proves the validator behind the static key, bound to these ephemeral keys).
 */
export class XXHandshake {
  private readonly ss: SymmetricState;
  private e: KeyPair | undefined;
  private re: Uint8Array | undefined;
  private rs: Uint8Array | undefined;

  constructor(
    readonly initiator: boolean,
    private readonly s: KeyPair,
    prologue: Uint8Array,
    /** Tests pin the ephemeral key; a session never does. */
    ephemeral?: KeyPair,
  ) {
    this.ss = new SymmetricState(NOISE_PROTOCOL_NAME);
    this.ss.mixHash(prologue);
    this.e = ephemeral;
  }

  /** The handshake hash now. */
  hash(): Uint8Array {
    return this.ss.h;
  }

  private writeE(): Uint8Array {
    this.e ??= generateKeyPair();
    this.ss.mixHash(this.e.publicKey);
    return this.e.publicKey;
  }

  private readE(m: Uint8Array, at: number): number {
    if (m.length < at + DH_BYTES) throw new NoiseError('handshake message too short for an ephemeral key');
    this.re = m.slice(at, at + DH_BYTES);
    this.ss.mixHash(this.re);
    return at + DH_BYTES;
  }

  private readS(m: Uint8Array, at: number): number {
    const n = DH_BYTES + (this.ss.cs.hasKey() ? NOISE_TAG_BYTES : 0);
    if (m.length < at + n) throw new NoiseError('handshake message too short for a static key');
    this.rs = this.ss.decryptAndHash(m.subarray(at, at + n)).slice();
    return at + n;
  }

  /** -> e (payload in the clear: the session sends none). */
  writeA(payload: Uint8Array = EMPTY): Uint8Array {
    return concatBytes(this.writeE(), this.ss.encryptAndHash(payload));
  }

  readA(m: Uint8Array): Uint8Array {
    const at = this.readE(m, 0);
    return this.ss.decryptAndHash(m.subarray(at));
  }

  /**
   * <- e, ee, s, es, payload. The payload is made from the handshake hash it is
   * encrypted under (both keys of the writer and the reader's ephemeral are in it), so
   * a signature in it is bound to this handshake.
   */
  writeB(payload: Uint8Array | PayloadOf): Uint8Array {
    const e = this.writeE();
    this.ss.mixKey(dh(this.e!, this.re!));
    const s = this.ss.encryptAndHash(this.s.publicKey);
    this.ss.mixKey(dh(this.s, this.re!));
    return concatBytes(e, s, this.ss.encryptAndHash(typeof payload === 'function' ? payload(this.ss.h) : payload));
  }

  /** The payload, and the handshake hash it was made from. */
  readB(m: Uint8Array): Payload {
    let at = this.readE(m, 0);
    this.ss.mixKey(dh(this.e!, this.re!));
    at = this.readS(m, at);
    this.ss.mixKey(dh(this.e!, this.rs!));
    const hash = this.ss.h;
    return { payload: this.ss.decryptAndHash(m.subarray(at)), hash };
  }

  /** -> s, se, payload (made as writeB's). */
  writeC(payload: Uint8Array | PayloadOf): Uint8Array {
    const s = this.ss.encryptAndHash(this.s.publicKey);
    this.ss.mixKey(dh(this.s, this.re!));
    return concatBytes(s, this.ss.encryptAndHash(typeof payload === 'function' ? payload(this.ss.h) : payload));
  }

  readC(m: Uint8Array): Payload {
    const at = this.readS(m, 0);
    this.ss.mixKey(dh(this.e!, this.rs!));
    const hash = this.ss.h;
    return { payload: this.ss.decryptAndHash(m.subarray(at)), hash };
  }

  /** After the third message: the initiator sends with the first key, the responder with the second. */
  split(): NoiseSession {
    if (this.rs === undefined) throw new NoiseError('handshake not finished');
    const [c1, c2] = this.ss.split();
    return this.initiator
      ? { send: c1, receive: c2, handshakeHash: this.ss.h, remoteStatic: this.rs }
      : { send: c2, receive: c1, handshakeHash: this.ss.h, remoteStatic: this.rs };
  }
}
