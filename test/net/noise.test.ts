import { describe, expect, it } from 'vitest';
import { Uint8ArrayList } from 'uint8arraylist';
// libp2p-noise's own handshake state and crypto, outside its exports map (src/net/noise.ts
// says why the node does not use them): the reference this implementation is held to.
import { XXHandshakeState } from '../../node_modules/@chainsafe/libp2p-noise/dist/src/protocol.js';
import { wrapCrypto } from '../../node_modules/@chainsafe/libp2p-noise/dist/src/crypto.js';
import { defaultCrypto } from '../../node_modules/@chainsafe/libp2p-noise/dist/src/crypto/index.js';
import { generateKeyPair, NOISE_PROTOCOL_NAME, NoiseError, XXHandshake } from '../../src/net/noise';

const prologue = new TextEncoder().encode('exchange-chain/test');
const theirCrypto = wrapCrypto(defaultCrypto);
const list = (b: Uint8Array) => new Uint8ArrayList(b);
const bytes = (b: Uint8Array | Uint8ArrayList) => (b instanceof Uint8Array ? b : b.subarray());
const text = (b: Uint8Array | Uint8ArrayList) => new TextDecoder().decode(bytes(b));
const enc = (s: string) => new TextEncoder().encode(s);

function theirs(initiator: boolean) {
  const s = theirCrypto.generateKeypair();
  return { state: new XXHandshakeState({ crypto: theirCrypto, protocolName: NOISE_PROTOCOL_NAME, prologue, initiator, s }), s };
}

/** Both sides of a finished handshake between two of ours. */
function handshaken() {
  const i = new XXHandshake(true, generateKeyPair(), prologue);
  const r = new XXHandshake(false, generateKeyPair(), prologue);
  r.readA(i.writeA());
  i.readB(r.writeB(enc('')));
  r.readC(i.writeC(enc('')));
  return [i.split(), r.split()];
}

describe('Noise_XX_25519_ChaChaPoly_SHA256 (src/net/noise.ts)', () => {
  it('completes a handshake with libp2p-noise as responder: payloads, static keys and both transport keys agree', () => {
    const ours = new XXHandshake(true, generateKeyPair(), prologue);
    const { state: them, s: theirStatic } = theirs(false);
    expect(text(them.readMessageA(list(ours.writeA())))).toBe('');
    const b = bytes(them.writeMessageB(enc('responder payload')));
    expect(text(ours.readB(b).payload)).toBe('responder payload');
    const c = ours.writeC(enc('initiator payload'));
    expect(text(them.readMessageC(list(c)))).toBe('initiator payload');
    const session = ours.split();
    expect(Buffer.from(session.remoteStatic).equals(Buffer.from(theirStatic.publicKey))).toBe(true);
    expect(Buffer.from(session.handshakeHash).equals(Buffer.from(them.ss.h))).toBe(true);
    const [theirSend1, theirSend2] = them.ss.split();
    // The initiator sends with the first key: the responder's first cipher decrypts it.
    expect(text(theirSend1.decryptWithAd(new Uint8Array(0), session.send.encrypt(new Uint8Array(0), enc('one'))))).toBe('one');
    expect(text(session.receive.decrypt(new Uint8Array(0), bytes(theirSend2.encryptWithAd(new Uint8Array(0), enc('two')))))).toBe('two');
  });

  it('completes a handshake with libp2p-noise as initiator, the payload made from the hash it is encrypted under', () => {
    const { state: them } = theirs(true);
    const ours = new XXHandshake(false, generateKeyPair(), prologue);
    ours.readA(bytes(them.writeMessageA(new Uint8Array(0))));
    let signedHash: Uint8Array | undefined;
    const b = ours.writeB((h) => {
      signedHash = h;
      return enc('bound');
    });
    expect(text(them.readMessageB(list(b)))).toBe('bound');
    const c = bytes(them.writeMessageC(enc('done')));
    const read = ours.readC(c);
    expect(text(read.payload)).toBe('done');
    // What the responder's payload was made from is a hash both sides held: the initiator's hash before its own payload is a later one.
    expect(signedHash).toHaveLength(32);
    expect(Buffer.from(read.hash).equals(Buffer.from(signedHash!))).toBe(false);
    expect(Buffer.from(ours.split().handshakeHash).equals(Buffer.from(them.ss.h))).toBe(true);
  });

  it('refuses a garbled handshake message, another prologue, and a replayed or garbled transport message', () => {
    const run = (p2: Uint8Array, garble?: (m: Uint8Array) => void) => {
      const i = new XXHandshake(true, generateKeyPair(), prologue);
      const r = new XXHandshake(false, generateKeyPair(), p2);
      r.readA(i.writeA());
      const b = r.writeB(enc('x'));
      garble?.(b);
      return () => i.readB(b);
    };
    expect(run(prologue)).not.toThrow();
    expect(run(prologue, (b) => (b[40] ^= 1))).toThrow(NoiseError);
    expect(run(enc('another chain'))).toThrow(NoiseError);

    const [a, z] = handshaken();
    const m1 = a.send.encrypt(new Uint8Array(0), enc('first'));
    expect(text(z.receive.decrypt(new Uint8Array(0), m1))).toBe('first');
    // The same message again: the receiver's nonce moved on.
    expect(() => z.receive.decrypt(new Uint8Array(0), m1)).toThrow(NoiseError);
  });

  it('encryptParts seals parts as one message the other side opens', () => {
    const [a, z] = handshaken();
    const out = a.send.encryptParts(new Uint8Array(0), [enc('ab'), enc('cde')], 5, 2);
    expect(text(z.receive.decrypt(new Uint8Array(0), out.subarray(2)))).toBe('abcde');
  });
});
