/**
 * ChainConsensusApp.validate: what a validator accepts as the next block of a proposal.
 * Each rule is shown by a block that breaks only that rule. Every test starts from its
 * own chain at genesis (height 0) in a folder of its own, and commits what it needs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockHash, canonicalCommit, encodeBlock, encodeHeader, type Block, type Commit } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import { ChainConsensusApp, logBlockRefusal } from '../../src/chain/consensus-app';
import { voteSigningHash } from '../../src/consensus/messages';
import { Secp256k1Signer, secp256k1Verifier } from '../../src/consensus/signer';
import { ECVRF, genesisSeed, proveProposer, seedOfProof } from '../../src/consensus/proposer-vrf';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { createMemoryLogger, LOG_LEVEL } from '../../src/util/log';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../helpers/devnet';

const { genesis, hash: gHash } = devnetGenesis(6);
const validators = ValidatorSet.fromGenesis(genesis.validators);
const signers = new Map(DEVNET_KEYS.validators.slice(0, 6).map((v) => [v.address.toLowerCase(), new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey))]));
const vrfKeys = new Map(DEVNET_KEYS.validators.slice(0, 6).map((v, i) => [v.address.toLowerCase(), devnetVrfKey(i)]));
let dir: ReturnType<typeof tempDir>;
let chain: Chain;
let now = 0;
let app: ChainConsensusApp;

// A fresh chain at genesis for each test: no test sees a block another committed.
beforeEach(async () => {
  dir = tempDir('exchain-capp-');
  chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: gHash, syncWrites: false });
  now = Date.now();
  app = new ChainConsensusApp(() => chain, { validators, verifier: secp256k1Verifier, vrfKeyOf: chain.vrfKeyOf, requestBlock: () => undefined, now: () => now });
});
afterEach(async () => {
  await chain.close();
  dir.remove();
});

function commitFor(block: Block, signerCount: number): Commit {
  const h = block.header;
  const hash = blockHash(h);
  const sigs = validators.validators.slice(0, signerCount).map((v) => ({
    validator: v.address,
    signature: signers.get(v.address)!.sign(voteSigningHash(genesis.chainId, { type: 'precommit', height: h.height, round: 0, blockHash: hash })),
  }));
  return canonicalCommit({ height: h.height, round: 0, blockHash: hash, signatures: sigs });
}

function next(over: { lastCommit?: Commit | null; round?: number; proposer?: `0x${string}`; txs?: Uint8Array[]; timestampMs?: number; vrfKey?: Uint8Array } = {}): Block {
  const round = over.round ?? 0;
  const proposer = over.proposer ?? validators.proposer(chain.height + 1, round, chain.seed).address;
  const vrfKey = over.vrfKey ?? vrfKeys.get(proposer)!;
  return chain.buildBlock({ txs: over.txs ?? [], timestampMs: over.timestampMs ?? now, proposer, round, lastCommit: over.lastCommit ?? null, vrfKey });
}

describe('ChainConsensusApp.validate', () => {
  // Shows contract [D-time-proposer].
  it('accepts a proper block 1 and refuses each broken rule', async () => {
    expect(chain.height).toBe(0);
    const good = next();
    expect(app.validate(encodeBlock(good))?.hash).toEqual(blockHash(good.header));
    // Proposer of another round or a stranger.
    const otherRound = validators.proposer(1, 1, chain.seed).address;
    const wrongProposer = validators.validators.find((v) => v.address !== good.header.proposer && v.address !== otherRound)!.address;
    expect(app.validate(encodeBlock(next({ proposer: wrongProposer })))).toBeNull();
    // Height 1 carries no last commit.
    expect(app.validate(encodeBlock(next({ lastCommit: commitFor(good, 5) })))).toBeNull();
    // Time ahead of our clock by more than the drift bound.
    expect(app.validate(encodeBlock(next({ timestampMs: now + genesis.consensus.maxClockDriftMs + 1 })))).toBeNull();
    expect(app.validate(encodeBlock(next({ timestampMs: now + genesis.consensus.maxClockDriftMs })))).not.toBeNull();
    // Transactions that do not match txRoot.
    const faucet = encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to: DEVNET_KEYS.accounts[1].address.toLowerCase() as `0x${string}`, usdc: 1n, nativeWei: 0n, nonce: 1n }, hexToBytes(genesis.faucet!.privateKey)));
    const withTx = next({ txs: [faucet.bytes] });
    expect(app.validate(encodeBlock(withTx))).not.toBeNull();
    expect(app.validate(encodeBlock({ ...withTx, txs: [] , header: { ...withTx.header, txCount: 0 } }))).toBeNull();
    // Garbage.
    expect(app.validate(encodeHeader(good.header))).toBeNull();
    // Wrong parent.
    expect(app.validate(encodeBlock({ ...good, header: { ...good.header, parentHash: new Uint8Array(32).fill(7) } }))).toBeNull();
  });

  it("refuses a block whose VRF proof is bad, by another validator's key, over another seed or missing; the draw is seeded by the VRF seed", () => {
    expect(chain.height).toBe(0);
    expect(app.proposerSeed(1)).toEqual(genesisSeed(gHash));
    const good = next();
    const h = good.header;
    const withProof = (vrfProof: Uint8Array) => encodeBlock({ ...good, header: { ...h, vrfProof } });
    expect(app.validate(withProof(h.vrfProof))).not.toBeNull();
    const flipped = h.vrfProof.slice();
    flipped[50] ^= 1;
    expect(app.validate(withProof(flipped))).toBeNull();
    const other = validators.validators.find((v) => v.address !== h.proposer)!.address;
    expect(app.validate(withProof(proveProposer(ECVRF, vrfKeys.get(other)!, genesis.chainId, 1, chain.seed)))).toBeNull();
    // The right key over the wrong seed: the genesis hash (the draw's old seed), or the next height's alpha.
    expect(app.validate(withProof(proveProposer(ECVRF, vrfKeys.get(h.proposer)!, genesis.chainId, 1, gHash)))).toBeNull();
    expect(app.validate(withProof(proveProposer(ECVRF, vrfKeys.get(h.proposer)!, genesis.chainId, 2, chain.seed)))).toBeNull();
    expect(app.validate(withProof(new Uint8Array(80)))).toBeNull();
    // Built with another validator's VRF key by the drawn proposer.
    expect(app.validate(encodeBlock(next({ vrfKey: vrfKeys.get(other)! })))).toBeNull();
    // The next seed is the good block's proof's.
    expect(seedOfProof(ECVRF, h.vrfProof)).not.toEqual(chain.seed);
  });

  it('block 2 must carry a valid commit of block 1 (2/3 of the power or more, signatures checked)', async () => {
    const b1 = next();
    const c1 = commitFor(b1, 5);
    await chain.commit(b1, c1);
    app.committed(1, encodeBlock(b1), c1);
    expect(chain.seed).toEqual(seedOfProof(ECVRF, b1.header.vrfProof));
    expect(app.proposerSeed(2)).toEqual(chain.seed);
    now += 10;
    expect(app.validate(encodeBlock(next({ lastCommit: c1 })))).not.toBeNull();
    expect(app.validate(encodeBlock(next({ lastCommit: null })))).toBeNull();
    expect(app.validate(encodeBlock(next({ lastCommit: commitFor(b1, 3) })))).toBeNull();
    expect(app.validate(encodeBlock(next({ lastCommit: commitFor(b1, 4) })))).not.toBeNull(); // exactly 2/3
    const forged = { ...c1, signatures: c1.signatures.map((s, i) => (i === 0 ? { ...s, signature: c1.signatures[1].signature } : s)) };
    expect(app.validate(encodeBlock(next({ lastCommit: forged })))).toBeNull();
    // Time must move past the parent's.
    expect(app.validate(encodeBlock({ ...next({ lastCommit: c1 }), header: { ...next({ lastCommit: c1 }).header, timestampMs: b1.header.timestampMs } }))).toBeNull();
  });
});

describe('a refused block in the log', () => {
  it('names the block (height, round, proposer, hash), the rule and the check that failed, and what to do; once per block', () => {
    const { log, records } = createMemoryLogger();
    const logged = new ChainConsensusApp(() => chain, {
      validators,
      verifier: secp256k1Verifier,
      vrfKeyOf: chain.vrfKeyOf,
      requestBlock: () => undefined,
      now: () => now,
      onRefused: (r) => logBlockRefusal(log, r),
    });
    const height = chain.height + 1;
    const drawn = validators.proposer(height, 0, chain.seed).address;
    const stranger = validators.validators.find((v) => v.address !== drawn)!.address;
    const forged = next({ proposer: stranger, lastCommit: null });
    expect(logged.validate(encodeBlock(forged))).toBeNull();
    expect(logged.validate(encodeBlock(forged))).toBeNull(); // delivered again: not logged again
    const warned = records.filter((r) => r.level === LOG_LEVEL.warn);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      msg: 'block refused: it breaks a validity rule, this node does not vote for it',
      height,
      round: 0,
      proposer: stranger,
      blockHash: bytesToHex(blockHash(forged.header)),
      code: 'WRONG_PROPOSER',
      check: `round 0 of height ${height} is ${drawn}'s to propose, not ${stranger}'s`,
    });
    expect(String(warned[0].advice)).toContain('validator set or seed differs');

    const ahead = next({ timestampMs: now + genesis.consensus.maxClockDriftMs + 1_000 });
    expect(logged.validate(encodeBlock(ahead))).toBeNull();
    const late = records.at(-1)!;
    expect(late).toMatchObject({ level: LOG_LEVEL.warn, code: 'TIME_AHEAD', height, proposer: ahead.header.proposer });
    expect(String(late.advice)).toContain('NTP');

    expect(logged.validate(new Uint8Array([1, 2, 3]))).toBeNull();
    expect(records.at(-1)).toMatchObject({ level: LOG_LEVEL.warn, code: 'MALFORMED' });
    expect(records.at(-1)!.height).toBeUndefined();

    // A block of another height is ordinary (late gossip): debug, not warn.
    const stale = { ...forged, header: { ...forged.header, height: height + 5 } };
    expect(logged.validate(encodeBlock(stale))).toBeNull();
    expect(records.at(-1)).toMatchObject({ level: LOG_LEVEL.debug, code: 'WRONG_HEIGHT', height: height + 5 });
  });
});
