/**
 * The known-key verifier validators use for votes must accept and refuse what the
 * recovering verifier does (the one documented difference: the v byte is not bound to
 * the key), and fall back to recovery for signers whose keys it does not know.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { knownKeyVerifier, secp256k1Verifier } from '../../src/consensus/signer';
import { SECP256K1_N, compressPublicKey, privateKeyToAddress, publicKeyFromPrivate, sign } from '../../src/crypto/secp256k1';
import { bytesToHex, type Address } from '../../src/util/bytes';

function validator() {
  const key = randomBytes(32);
  return { key, address: privateKeyToAddress(key), ecdsaPubkey: bytesToHex(compressPublicKey(publicKeyFromPrivate(key, false))) };
}

const bigToBytes = (x: bigint) => Uint8Array.from(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'));
const bytesToBig = (b: Uint8Array) => BigInt('0x' + Buffer.from(b).toString('hex'));

describe('knownKeyVerifier', () => {
  const vals = Array.from({ length: 4 }, validator);
  const known = knownKeyVerifier(vals);

  it('agrees with recovery on valid, foreign, tampered, high-s, out-of-range and short signatures', () => {
    let cases = 0;
    for (let i = 0; i < 200; i++) {
      const v = vals[i % vals.length];
      const other = vals[(i + 1) % vals.length];
      const digest = randomBytes(32);
      const sig = sign(digest, v.key);
      const tampered = Uint8Array.from(digest);
      tampered[i % 32] ^= 1;
      const s = bytesToBig(sig.subarray(32, 64));
      const highS = Uint8Array.from(sig);
      highS.set(bigToBytes(SECP256K1_N - s), 32);
      const zeroR = Uint8Array.from(sig);
      zeroR.fill(0, 0, 32);
      const bigR = Uint8Array.from(sig);
      bigR.set(bigToBytes(SECP256K1_N), 0);
      const badV = Uint8Array.from(sig);
      badV[64] = 29;
      const checks: [Uint8Array, Uint8Array, Address, boolean][] = [
        [digest, sig, v.address, true],
        [digest, sig, other.address, false],
        [tampered, sig, v.address, false],
        [digest, highS, v.address, false],
        [digest, zeroR, v.address, false],
        [digest, bigR, v.address, false],
        [digest, badV, v.address, false],
        [digest, sig.subarray(0, 64), v.address, false],
      ];
      for (const [d, signature, signer, want] of checks) {
        expect(secp256k1Verifier.verify(d, signature, signer)).toBe(want);
        expect(known.verify(d, signature, signer)).toBe(want);
        cases++;
      }
    }
    expect(cases).toBe(1_600);
  });

  it('accepts a flipped recovery byte (documented), and uses recovery for unknown signers', () => {
    const v = vals[0];
    const digest = randomBytes(32);
    const sig = sign(digest, v.key);
    const flipped = Uint8Array.from(sig);
    flipped[64] = sig[64] === 27 ? 28 : 27;
    expect(secp256k1Verifier.verify(digest, flipped, v.address)).toBe(false);
    expect(known.verify(digest, flipped, v.address)).toBe(true);

    const stranger = validator();
    const s2 = sign(digest, stranger.key);
    expect(known.verify(digest, s2, stranger.address)).toBe(true);
    expect(known.verify(digest, flipped, stranger.address)).toBe(false);
    // A listed key that does not hash to its address is not trusted: recovery decides.
    const lying = knownKeyVerifier([{ address: v.address, ecdsaPubkey: stranger.ecdsaPubkey }]);
    expect(lying.verify(digest, sig, v.address)).toBe(true);
    expect(lying.verify(digest, s2, v.address)).toBe(false);
  });

  it('looks up keys registered later (a node reads its validator records): known once registered, recovery before', () => {
    const late = validator();
    const records = new Map<string, string>();
    const lookups: string[] = [];
    const verifier = knownKeyVerifier((address) => {
      lookups.push(address);
      return records.get(address);
    });
    const digest = randomBytes(32);
    const sig = sign(digest, late.key);
    const flipped = Uint8Array.from(sig);
    flipped[64] = sig[64] === 27 ? 28 : 27;
    // Not registered: recovery, which binds the v byte.
    expect(verifier.verify(digest, sig, late.address)).toBe(true);
    expect(verifier.verify(digest, flipped, late.address)).toBe(false);
    // Registered: its key verifies (the v byte is not bound, as for genesis keys), and it is kept.
    records.set(late.address.toLowerCase(), late.ecdsaPubkey);
    expect(verifier.verify(digest, flipped, late.address)).toBe(true);
    const asked = lookups.length;
    expect(verifier.verify(digest, sig, late.address)).toBe(true);
    expect(lookups.length).toBe(asked);
    // A record whose key does not hash to its address is not trusted.
    const other = validator();
    records.set(other.address.toLowerCase(), late.ecdsaPubkey);
    expect(verifier.verify(digest, sig, other.address)).toBe(false);
  });
});
