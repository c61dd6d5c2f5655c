/** checkCommit: what makes a commit a proof of finality on its own (block sync, a block's lastCommit). */
import { describe, expect, it } from 'vitest';
import { canonicalCommit, ZERO_HASH, type Commit } from '../../src/codec/block';
import { checkCommit } from '../../src/consensus/commit';
import { secp256k1Verifier } from '../../src/consensus/signer';
import { CHAIN_ID, fixture, hash, vote } from './helpers';

const { set, keys } = fixture([10n, 10n, 10n, 10n, 10n, 10n]);
const block = hash('block-7');

function commitOf(signerIdx: number[], blockHash = block, height = 7, round = 1): Commit {
  return canonicalCommit({
    height,
    round,
    blockHash,
    signatures: signerIdx.map((i) => {
      const v = vote(keys[i], 'precommit', height, round, blockHash);
      return { validator: v.validator, signature: v.signature };
    }),
  });
}

const check = (c: Commit, h = 7, b = block, known?: (v: string, s: Uint8Array) => boolean) => checkCommit(CHAIN_ID, set, secp256k1Verifier, h, b, c, known);

describe('checkCommit', () => {
  // Shows contract [C-limits-validator-set].
  it('accepts 2/3 of the power or more precommitting the block', () => {
    expect(check(commitOf([0, 1, 2, 3, 4]))).toBeNull();
  });

  it('refuses less than 2/3, another height or block, and the nil (zero) hash', () => {
    expect(check(commitOf([0, 1, 2]))).toMatch(/less than 2\/3/);
    expect(check(commitOf([0, 1, 2, 3]))).toBeNull(); // exactly 2/3
    expect(check(commitOf([0, 1, 2, 3, 4]), 8)).toMatch(/height/);
    expect(check(commitOf([0, 1, 2, 3, 4]), 7, hash('other'))).toMatch(/another block/);
    // Nil precommits sign the zero hash: five of them must not "commit" it.
    expect(check(commitOf([0, 1, 2, 3, 4], ZERO_HASH), 7, ZERO_HASH)).toMatch(/nil/);
  });

  it('refuses a forged signature, a non-validator, duplicates and unsorted signatures', () => {
    const good = commitOf([0, 1, 2, 3, 4]);
    const forged = { ...good, signatures: good.signatures.map((s, i) => (i === 2 ? { ...s, signature: commitOf([5]).signatures[0].signature } : s)) };
    expect(check(forged)).toMatch(/bad commit signature/);
    const outsider = fixture([1n], 'outsider').keys[0];
    const v = vote(outsider, 'precommit', 7, 1, block);
    expect(check(canonicalCommit({ ...good, signatures: [...good.signatures.slice(0, 4), { validator: v.validator, signature: v.signature }] }))).toMatch(/not a validator/);
    expect(check({ ...good, signatures: [...good.signatures, good.signatures[4]] })).toMatch(/sorted and unique/);
    expect(check({ ...good, signatures: [...good.signatures].reverse() })).toMatch(/sorted and unique/);
  });

  it('does not verify again what the caller already verified, and still checks the rest', () => {
    const good = commitOf([0, 1, 2, 3, 4]);
    const seen: string[] = [];
    const verifier = { verify: (d: Uint8Array, s: Uint8Array, a: string) => (seen.push(a), secp256k1Verifier.verify(d, s, a as `0x${string}`)) };
    const known = new Set(good.signatures.slice(0, 3).map((s) => s.validator));
    expect(checkCommit(CHAIN_ID, set, verifier, 7, block, good, (v) => known.has(v as `0x${string}`))).toBeNull();
    expect(seen).toEqual(good.signatures.slice(3).map((s) => s.validator));
  });
});
