import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BLOCK_VERSION,
  blockHash,
  canonicalCommit,
  decodeBlock,
  decodeCommit,
  decodeHeader,
  encodeBlock,
  encodeCommit,
  encodeHeader,
  merkleRoot,
  ZERO_HASH,
  type Block,
} from '../../src/codec/block';
import { decodeTx, encodeTx, TxKind } from '../../src/codec/tx';
import '../../src/codec/txs';
import { keccak256 } from '../../src/crypto/keccak';

const hash32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as `0x${string}`);

const blockArb = fc
  .record({
    height: fc.integer({ min: 1, max: 2 ** 40 }),
    timestampMs: fc.integer({ min: 1, max: 2 ** 45 }),
    round: fc.integer({ min: 0, max: 1000 }),
    parentHash: hash32,
    parentStateRoot: hash32,
    validatorsHash: hash32,
    proposer: address,
    vrfProof: fc.uint8Array({ minLength: 80, maxLength: 80 }),
    txs: fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { maxLength: 8 }),
    sigs: fc.uniqueArray(address, { maxLength: 6 }),
  })
  .map(({ txs, sigs, ...h }): Block => {
    const lastCommit = sigs.length
      ? canonicalCommit({ height: h.height - 1, round: 0, blockHash: h.parentHash, signatures: sigs.map((v) => ({ validator: v, signature: new Uint8Array(65).fill(7) })) })
      : null;
    return {
      header: { chainId: 713799, ...h, txRoot: merkleRoot(txs.map(keccak256)), txCount: txs.length, lastCommitHash: ZERO_HASH },
      lastCommit,
      txs,
    };
  });

describe('block codec', () => {
  it('round-trips blocks exactly, and the hash is stable', () => {
    fc.assert(
      fc.property(blockArb, (b) => {
        const bytes = encodeBlock(b);
        const back = decodeBlock(bytes);
        expect(back).toEqual(b);
        expect(encodeBlock(back)).toEqual(bytes);
        expect(blockHash(back.header)).toEqual(blockHash(b.header));
      }),
    );
  });

  it('rejects any appended byte and any truncation', () => {
    fc.assert(
      fc.property(blockArb, fc.nat(), (b, cut) => {
        const bytes = encodeBlock(b);
        expect(() => decodeBlock(Uint8Array.of(...bytes, 0))).toThrow();
        expect(() => decodeBlock(bytes.subarray(0, cut % bytes.length))).toThrow();
      }),
      { numRuns: 50 },
    );
  });

  it("the proposer's VRF proof is 80 bytes of the header, in its hash; a header without one does not encode, a version-1 header does not decode", () => {
    const b = fc.sample(blockArb, { numRuns: 1, seed: 3 })[0];
    const other = b.header.vrfProof.slice();
    other[79] ^= 1;
    expect(blockHash({ ...b.header, vrfProof: other })).not.toEqual(blockHash(b.header));
    expect(encodeHeader(b.header).length).toBe(encodeHeader({ ...b.header, vrfProof: other }).length);
    expect(() => encodeHeader({ ...b.header, vrfProof: new Uint8Array(0) })).toThrow(/80 bytes/);
    expect(() => encodeHeader({ ...b.header, vrfProof: new Uint8Array(79) })).toThrow(/80 bytes/);
    expect(BLOCK_VERSION).toBe(3);
    const v1 = encodeHeader(b.header);
    v1[0] = 1;
    expect(() => decodeHeader(v1)).toThrow(/version 1/);
  });

  it('validatorsHash is 32 bytes of the header, in its hash; a version-2 header (before it) does not decode', () => {
    const b = fc.sample(blockArb, { numRuns: 1, seed: 4 })[0];
    const other = b.header.validatorsHash.slice();
    other[0] ^= 1;
    expect(blockHash({ ...b.header, validatorsHash: other })).not.toEqual(blockHash(b.header));
    expect(decodeHeader(encodeHeader(b.header)).validatorsHash).toEqual(b.header.validatorsHash);
    expect(() => encodeHeader({ ...b.header, validatorsHash: new Uint8Array(31) })).toThrow(/32 bytes/);
    const v2 = encodeHeader(b.header);
    v2[0] = 2;
    expect(() => decodeHeader(v2)).toThrow(/version 2/);
  });

  it('rejects a commit whose signatures are unsorted or duplicated', () => {
    const a = '0x1111111111111111111111111111111111111111' as const;
    const b = '0x2222222222222222222222222222222222222222' as const;
    const sig = new Uint8Array(65);
    const unsorted = encodeCommit({ height: 1, round: 0, blockHash: ZERO_HASH, signatures: [{ validator: b, signature: sig }, { validator: a, signature: sig }] });
    expect(() => decodeCommit(unsorted)).toThrow(/sorted/);
    const dup = encodeCommit({ height: 1, round: 0, blockHash: ZERO_HASH, signatures: [{ validator: a, signature: sig }, { validator: a, signature: sig }] });
    expect(() => decodeCommit(dup)).toThrow(/sorted/);
  });

  it('merkle root: order matters, empty is zero, inner nodes are tagged', () => {
    const l = [keccak256(Uint8Array.of(1)), keccak256(Uint8Array.of(2)), keccak256(Uint8Array.of(3))];
    expect(merkleRoot([])).toEqual(ZERO_HASH);
    expect(merkleRoot([l[0]])).toEqual(l[0]);
    expect(merkleRoot(l)).not.toEqual(merkleRoot([l[1], l[0], l[2]]));
    expect(merkleRoot([l[0], l[1]])).not.toEqual(keccak256(Uint8Array.of(...l[0], ...l[1])));
  });
});

describe('transaction envelope', () => {
  const body = { to: '0x00000000000000000000000000000000000000aa' as const, usdc: 5n, nativeWei: 0n, nonce: 9n, signature: new Uint8Array(65).fill(1) };

  it('round-trips and hashes the envelope', () => {
    const tx = encodeTx(713799, TxKind.Faucet, body);
    const back = decodeTx(tx.bytes, 16384);
    expect(back.body).toEqual(body);
    expect(back.hash).toEqual(keccak256(tx.bytes));
    expect(back.chainId).toBe(713799);
  });

  it('rejects unknown kinds and versions, trailing bytes and oversized payloads', () => {
    const tx = encodeTx(713799, TxKind.Faucet, body);
    const badKind = tx.bytes.slice();
    badKind[5] = 250;
    expect(() => decodeTx(badKind, 16384)).toThrow(/unknown transaction kind/);
    const badVersion = tx.bytes.slice();
    badVersion[0] = 9;
    expect(() => decodeTx(badVersion, 16384)).toThrow(/version/);
    expect(() => decodeTx(Uint8Array.of(...tx.bytes, 1), 16384)).toThrow(/trailing/);
    expect(() => decodeTx(tx.bytes, 10)).toThrow(/exceeds/);
  });
});
