/**
 * The light client (decisions 128-129): a real chain on disk whose signing set changes
 * twice (alice registers in block 1 and signs from block 6, bob registers in block 6 and
 * signs from block 11), every block committed with real secp256k1 precommits. The Chain
 * writes a light anchor at exactly those two heights; a proof built from the store
 * verifies from the genesis and from an operator-given height, and each attack is
 * refused with its code: a commit with too little power, an omitted anchor, a forged
 * set, a header that does not link, another chain's id, a tampered state root.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHash, canonicalCommit, encodeBlock, encodeCommit, type Block, type BlockHeader, type Commit } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import { ChainConsensusApp, type BlockRefusal } from '../../src/chain/consensus-app';
import { decodeLightAnchor, decodeLightProof, encodeLightAnchor, encodeLightProof, LightVerifyError, verifyLightProof, type LightAnchor, type LightProof, type LightTrust } from '../../src/chain/light';
import { checkChainStore } from '../../src/chain/check';
import { checkSyncedBlock } from '../../src/chain/sync';
import { Bucket, ChainStore, u64Key } from '../../src/storage/db';
import { encodeValidatorSet, validatorsHash } from '../../src/chain/validator-sets';
import { voteSigningHash } from '../../src/consensus/messages';
import { Secp256k1Signer, secp256k1Verifier } from '../../src/consensus/signer';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { genesisHash } from '../../src/genesis/load';
import { bytesToHex, hexToBytes, type Address } from '../../src/util/bytes';
import { tempDir } from '../helpers/devnet';
import { approve, CANDIDATES, DEVNET_KEYS, EPOCH, register, T0, testGenesis, TOKEN } from '../validators/harness';

const genesis = testGenesis();
const gHash = genesisHash(genesis);
const [alice, bob, mallory] = CANDIDATES;
const keys = new Map<Address, Secp256k1Signer>([
  ...DEVNET_KEYS.validators.slice(0, 4).map((v) => [v.address.toLowerCase() as Address, new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey))] as const),
  ...[alice, bob, mallory].map((k) => [k.address, new Secp256k1Signer(k.privateKey)] as const),
]);
const vrfKeys = new Map<Address, Uint8Array>([
  ...DEVNET_KEYS.validators.slice(0, 4).map((v) => [v.address.toLowerCase() as Address, hexToBytes(v.vrfPrivateKey)] as const),
  ...[alice, bob].map((k) => [k.address, k.vrfPrivateKey] as const),
]);
const GENESIS_SET = ValidatorSet.fromGenesis(genesis.validators);
/** alice signs from here, bob from SECOND. */
const FIRST = EPOCH + 1;
const SECOND = 2 * EPOCH + 1;
const HEAD = SECOND + 2;

const dir = tempDir('exchain-light-');
let chain: Chain;
const headers: BlockHeader[] = [];
const commits: Commit[] = [];
const sets: ValidatorSet[] = [];
const members = (set: ValidatorSet) => set.validators.map((v) => v.address);

function commitBy(header: BlockHeader, who: readonly Address[], chainId = genesis.chainId): Commit {
  const hash = blockHash(header);
  const signatures = who.map((validator) => ({
    validator,
    signature: keys.get(validator)!.sign(voteSigningHash(chainId, { type: 'precommit', height: header.height, round: 0, blockHash: hash })),
  }));
  return canonicalCommit({ height: header.height, round: 0, blockHash: hash, signatures });
}

function nextBlock(c: Chain, lastCommit: Commit | null, txs: Uint8Array[] = []): Block {
  const height = c.height + 1;
  const proposer = c.validatorsAt(height).proposer(height, 0, c.seed).address;
  return c.buildBlock({ txs, timestampMs: T0 + height * 1000, proposer, lastCommit, vrfKey: vrfKeys.get(proposer)! });
}

const header = (h: number) => headers[h - 1];
const commit = (h: number) => commits[h - 1];
const setOf = (h: number) => sets[h - 1];

/** The proof of height `H` from the trusted height `from`, read from the store as a serving node would. */
async function proofOf(H: number, from = 0): Promise<LightProof> {
  return { anchors: await chain.store.lightAnchors(from, H + 1), header: header(H), next: header(H + 1), nextCommit: commit(H + 1) };
}
const GENESIS_TRUST: LightTrust = { chainId: genesis.chainId, height: 0, set: GENESIS_SET };

function refusal(trust: LightTrust, proof: LightProof): string {
  try {
    verifyLightProof(trust, proof, secp256k1Verifier);
  } catch (err) {
    if (err instanceof LightVerifyError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'verified';
}

beforeAll(async () => {
  chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: gHash, syncWrites: false });
  for (let h = 1; h <= HEAD; h++) {
    const txs = h === 1 ? [approve(alice.address).bytes, register(alice, { bond: 50_000n * TOKEN }).bytes] : h === FIRST ? [approve(bob.address, { nonce: 2n }).bytes, register(bob, { bond: 50_000n * TOKEN }).bytes] : [];
    const set = chain.validatorsAt(h);
    const block = nextBlock(chain, commits.at(-1) ?? null, txs);
    const c = commitBy(block.header, members(set));
    await chain.commit(block, c);
    headers.push(block.header);
    commits.push(c);
    sets.push(set);
  }
});
afterAll(async () => {
  await chain.close();
  dir.remove();
});

describe('validatorsHash in the header', () => {
  it('each header names the set that signs its height; the set changes at the two boundaries', () => {
    for (let h = 1; h <= HEAD; h++) expect(bytesToHex(header(h).validatorsHash)).toBe(bytesToHex(validatorsHash(setOf(h))));
    expect(setOf(FIRST - 1).has(alice.address)).toBe(false);
    expect(setOf(FIRST).has(alice.address)).toBe(true);
    expect(setOf(SECOND - 1).has(bob.address)).toBe(false);
    expect(setOf(SECOND).has(bob.address)).toBe(true);
  });

  it('consensus refuses a proposal naming another set (WRONG_VALIDATORS_HASH); block sync refuses such a block even with a valid commit', async () => {
    const dir2 = tempDir('exchain-light-');
    const follower = await Chain.open({ dataDir: dir2.path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      const block = await chain.store.getBlock(1);
      await follower.commit(block!, commit(1));
      const refused: BlockRefusal[] = [];
      const app = new ChainConsensusApp(() => follower, { validators: (h) => follower.validatorsAt(h), verifier: secp256k1Verifier, vrfKeyOf: follower.vrfKeyOf, requestBlock: () => undefined, now: () => T0 + 10_000, onRefused: (r) => refused.push(r) });
      const honest = nextBlock(follower, commit(1));
      expect(app.validate(encodeBlock(honest))).not.toBeNull();
      const forged: Block = { ...honest, header: { ...honest.header, validatorsHash: validatorsHash(setOf(FIRST)) } };
      expect(app.validate(encodeBlock(forged))).toBeNull();
      expect(refused.map((r) => r.code)).toEqual(['WRONG_VALIDATORS_HASH']);
      // Signed by the whole set that signs height 2, and still refused by block sync.
      const signed = { block: forged, commit: commitBy(forged.header, members(setOf(2))), bytes: encodeBlock(forged) };
      expect(checkSyncedBlock(genesis.chainId, setOf(2), secp256k1Verifier, 2, signed)).toMatch(/validators hash .* is not that of the set of height 2/);
      expect(checkSyncedBlock(genesis.chainId, setOf(2), secp256k1Verifier, 2, { ...signed, block: honest, commit: commitBy(honest.header, members(setOf(2))) })).toBeNull();
    } finally {
      await follower.close();
      dir2.remove();
    }
  });
});

describe('light anchors in the chain store', () => {
  it('one at each height whose set differs from the height before, holding headers h − 1 and h, their commits and the new set', async () => {
    const anchors = await chain.store.lightAnchors(0, HEAD);
    expect(anchors.map((a) => a.header.height)).toEqual([FIRST, SECOND]);
    const a = anchors[0];
    expect(bytesToHex(blockHash(a.prevHeader))).toBe(bytesToHex(blockHash(header(FIRST - 1))));
    expect(bytesToHex(blockHash(a.header))).toBe(bytesToHex(blockHash(header(FIRST))));
    expect(bytesToHex(encodeCommit(a.prevCommit))).toBe(bytesToHex(encodeCommit(commit(FIRST - 1))));
    expect(bytesToHex(encodeCommit(a.commit))).toBe(bytesToHex(encodeCommit(commit(FIRST))));
    expect(bytesToHex(a.set)).toBe(bytesToHex(encodeValidatorSet(setOf(FIRST))));
    expect((await chain.store.lightAnchors(FIRST, HEAD)).map((x) => x.header.height)).toEqual([SECOND]);
    expect(await chain.store.lightAnchors(FIRST, SECOND - 1)).toEqual([]);
    expect(bytesToHex(encodeLightAnchor(decodeLightAnchor(encodeLightAnchor(a))))).toBe(bytesToHex(encodeLightAnchor(a)));
  });

  it('putLightAnchors writes anchors a restored store reads back', async () => {
    const anchors = await chain.store.lightAnchors(0, HEAD);
    const dir2 = tempDir('exchain-light-');
    const other = await Chain.open({ dataDir: dir2.path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      await other.store.putLightAnchors(anchors);
      expect(await other.store.lightAnchors(0, HEAD)).toEqual(anchors);
    } finally {
      await other.close();
      dir2.remove();
    }
  });
});

describe('npm run node -- check', () => {
  it('finds the store sound with its anchors, and finds a set change whose anchor is missing', async () => {
    await chain.close();
    try {
      const sound = await checkChainStore(dir.path, { genesisHash: gHash });
      expect(sound.findings).toEqual([]);
      expect(sound.keys.LightAnchor).toBe(2);
      const store = new ChainStore(dir.path, false);
      await store.open();
      const [first] = await store.lightAnchors(0, FIRST);
      await store.db.del(Uint8Array.of(Bucket.LightAnchor, ...u64Key(FIRST)), { sync: true });
      await store.close();
      const missing = await checkChainStore(dir.path, { genesisHash: gHash });
      expect(missing.findings).toEqual([`height ${FIRST}: the header names another validator set than height ${FIRST - 1}'s, and no light anchor is stored for it`]);
      await store.open();
      await store.putLightAnchors([first]);
      await store.close();
    } finally {
      chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: gHash, syncWrites: false });
    }
    expect((await chain.store.lightAnchors(0, HEAD)).length).toBe(2);
  });
});

describe('verifyLightProof', () => {
  it('verifies a height from the genesis through both set changes, and the proof survives its encoding', async () => {
    const proof = await proofOf(HEAD - 1);
    const bytes = encodeLightProof(proof);
    const decoded = decodeLightProof(bytes);
    expect(bytesToHex(encodeLightProof(decoded))).toBe(bytesToHex(bytes));
    const v = verifyLightProof(GENESIS_TRUST, decoded, secp256k1Verifier);
    expect(v.height).toBe(HEAD - 1);
    expect(bytesToHex(v.stateRoot)).toBe(bytesToHex(header(HEAD).parentStateRoot));
    expect(members(v.setAt)).toEqual(members(setOf(HEAD - 1)));
    expect(members(v.setNext)).toEqual(members(setOf(HEAD)));
    expect(v.anchors.map((a) => a.header.height)).toEqual([FIRST, SECOND]);
  });

  it('a height just before a set change: setAt signs it, setNext the height after', async () => {
    const proof = await proofOf(SECOND - 1);
    expect(proof.anchors.map((a) => a.header.height)).toEqual([FIRST, SECOND]);
    const v = verifyLightProof(GENESIS_TRUST, proof, secp256k1Verifier);
    expect(members(v.setAt)).toEqual(members(setOf(SECOND - 1)));
    expect(members(v.setNext)).toEqual(members(setOf(SECOND)));
    expect(v.setNext.has(bob.address)).toBe(true);
    expect(v.setAt.has(bob.address)).toBe(false);
  });

  it('from an operator-given height (its header and set), only the later anchors are needed; a set that does not match the header is refused', async () => {
    const trust: LightTrust = { chainId: genesis.chainId, height: FIRST + 1, set: setOf(FIRST + 1), header: header(FIRST + 1) };
    const proof = await proofOf(HEAD - 1, FIRST + 1);
    expect(proof.anchors.map((a) => a.header.height)).toEqual([SECOND]);
    expect(verifyLightProof(trust, proof, secp256k1Verifier).height).toBe(HEAD - 1);
    expect(refusal({ ...trust, set: GENESIS_SET }, proof)).toMatch(/^BAD_TRUST/);
  });

  it('refuses a commit with too little power', async () => {
    const proof = await proofOf(HEAD - 1);
    const few = commitBy(proof.next, members(setOf(HEAD)).slice(0, 2));
    expect(refusal(GENESIS_TRUST, { ...proof, nextCommit: few })).toMatch(/^BAD_COMMIT: .*less than 2\/3/);
    // An anchor whose own commit is too weak for the new set.
    const anchors = proof.anchors.map((a, i) => (i === 0 ? { ...a, commit: commitBy(a.header, members(setOf(FIRST)).slice(0, 3)) } : a));
    expect(refusal(GENESIS_TRUST, { ...proof, anchors })).toMatch(/^BAD_COMMIT: the commit of header 6 by its own set/);
  });

  it('refuses a proof that leaves out a set change (an anchor omitted)', async () => {
    const proof = await proofOf(HEAD - 1);
    expect(refusal(GENESIS_TRUST, { ...proof, anchors: proof.anchors.slice(1) })).toMatch(/^MISSING_SET_CHANGE: header 10 names the set/);
    expect(refusal(GENESIS_TRUST, { ...proof, anchors: proof.anchors.slice(0, 1) })).toMatch(/^MISSING_SET_CHANGE: header 13 names the set/);
  });

  it('refuses a forged set: one that does not hash to the header, and a header forged to name it, signed by its own members', async () => {
    const proof = await proofOf(HEAD - 1);
    const forgedSet = new ValidatorSet([{ address: mallory.address, power: 1n }]);
    const a = proof.anchors[0];
    expect(refusal(GENESIS_TRUST, { ...proof, anchors: [{ ...a, set: encodeValidatorSet(forgedSet) }, proof.anchors[1]] })).toMatch(/^WRONG_SET/);
    // A header 6 naming mallory's set, linked to the real header 5, committed by mallory:
    // no member of the trusted set signed it.
    const forgedHeader = { ...a.header, validatorsHash: validatorsHash(forgedSet) };
    const forged: LightAnchor = { ...a, header: forgedHeader, commit: commitBy(forgedHeader, [mallory.address]), set: encodeValidatorSet(forgedSet) };
    expect(refusal(GENESIS_TRUST, { ...proof, anchors: [forged] })).toMatch(/^TOO_LITTLE_OVERLAP/);
  });

  it('refuses headers that do not link', async () => {
    const proof = await proofOf(HEAD - 1);
    const a = proof.anchors[0];
    expect(refusal(GENESIS_TRUST, { ...proof, anchors: [{ ...a, prevHeader: header(FIRST - 2), prevCommit: commit(FIRST - 2) }, proof.anchors[1]] })).toMatch(/^BROKEN_LINK/);
    expect(refusal(GENESIS_TRUST, { ...proof, header: header(HEAD - 2) })).toMatch(/^BROKEN_LINK/);
    expect(refusal(GENESIS_TRUST, { ...proof, anchors: [a, a, proof.anchors[1]] })).toMatch(/^BAD_ORDER/);
  });

  it('refuses another chain id', async () => {
    const proof = await proofOf(HEAD - 1);
    expect(refusal({ ...GENESIS_TRUST, chainId: genesis.chainId + 1 }, proof)).toMatch(/^WRONG_CHAIN/);
  });

  it('refuses a tampered state root in the next header (its commit no longer holds)', async () => {
    const proof = await proofOf(HEAD - 1);
    const root = new Uint8Array(proof.next.parentStateRoot);
    root[0] ^= 1;
    expect(refusal(GENESIS_TRUST, { ...proof, next: { ...proof.next, parentStateRoot: root } })).toMatch(/^BAD_COMMIT: .*another block/);
  });

  it('decoding refuses an absurd anchor count before reading, and trailing bytes', async () => {
    const bytes = encodeLightProof(await proofOf(HEAD - 1));
    const absurd = new Uint8Array(bytes);
    new DataView(absurd.buffer).setUint32(1, 0xffffffff);
    expect(() => decodeLightProof(absurd)).toThrow(/claims 4294967295 anchors/);
    const trailing = new Uint8Array(bytes.length + 1);
    trailing.set(bytes);
    expect(() => decodeLightProof(trailing)).toThrow(LightVerifyError);
  });
});
