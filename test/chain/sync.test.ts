/** Block sync: the wire format is strict and bounded, the server serves what it has, a bad block is named, and a peer's answer is taken up to its first bad block. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHash, canonicalCommit, type Block, type Commit } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import {
  AheadClaims,
  askPeersInTurn,
  checkSyncedBlock,
  checkSyncedProof,
  checkSyncResponse,
  decodeSyncRequest,
  decodeSyncResponse,
  encodeSyncRequest,
  forgeSyncResponse,
  serveSync,
  SYNC_MAX_BLOCKS,
  SYNC_REFUSAL_MS,
  SYNC_UNANSWERED_MS,
  SyncPeers,
  type SyncResponse,
} from '../../src/chain/sync';
import { voteSigningHash } from '../../src/consensus/messages';
import { Secp256k1Signer, secp256k1Verifier } from '../../src/consensus/signer';
import { ECVRF, genesisSeed, proveProposer } from '../../src/consensus/proposer-vrf';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../helpers/devnet';

const { genesis, hash: gHash } = devnetGenesis(6);
const validators = ValidatorSet.fromGenesis(genesis.validators);
const signers = DEVNET_KEYS.validators.slice(0, 6).map((v) => new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey)));
const vrfKeyOfValidator = (address: string) => devnetVrfKey(DEVNET_KEYS.validators.findIndex((v) => v.address.toLowerCase() === address));
const dir = tempDir('exchain-sync-');
let chain: Chain;

function commitFor(block: Block, n: number): Commit {
  const hash = blockHash(block.header);
  return canonicalCommit({
    height: block.header.height,
    round: 0,
    blockHash: hash,
    signatures: signers.slice(0, n).map((s) => ({ validator: s.address, signature: s.sign(voteSigningHash(genesis.chainId, { type: 'precommit', height: block.header.height, round: 0, blockHash: hash })) })),
  });
}

beforeAll(async () => {
  chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: gHash, syncWrites: false });
  let last: Commit | null = null;
  for (let h = 1; h <= 5; h++) {
    const proposer = validators.proposer(h, 0, chain.seed).address;
    const b = chain.buildBlock({ txs: [], timestampMs: genesis.genesisTimeMs + h * 1000, proposer, lastCommit: last, vrfKey: vrfKeyOfValidator(proposer) });
    last = commitFor(b, 5);
    await chain.commit(b, last);
  }
});
afterAll(async () => {
  await chain.close();
  dir.remove();
});

describe('block sync', () => {
  it('requests round-trip, are bounded, and reject other versions or trailing bytes', () => {
    expect(decodeSyncRequest(encodeSyncRequest({ fromHeight: 7, maxBlocks: 10 }))).toEqual({ fromHeight: 7, maxBlocks: 10 });
    expect(decodeSyncRequest(encodeSyncRequest({ fromHeight: 1, maxBlocks: 1_000_000 })).maxBlocks).toBe(SYNC_MAX_BLOCKS);
    const bytes = encodeSyncRequest({ fromHeight: 1, maxBlocks: 1 });
    expect(() => decodeSyncRequest(Uint8Array.of(9, ...bytes.subarray(1)))).toThrow();
    expect(() => decodeSyncRequest(Uint8Array.of(...bytes, 0))).toThrow();
  });

  it('serves the committed blocks after a height with their commits, each verifiable alone', async () => {
    const res = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 2, maxBlocks: 3 }), genesis.consensus.maxBlockBytes);
    expect(res.peerHead).toBe(5);
    expect(res.blocks.map((b) => b.block.header.height)).toEqual([2, 3, 4]);
    for (const [i, b] of res.blocks.entries()) expect(checkSyncedBlock(genesis.chainId, validators, secp256k1Verifier, 2 + i, b)).toBeNull();
    const empty = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 6, maxBlocks: 3 }), genesis.consensus.maxBlockBytes);
    expect(empty.blocks).toHaveLength(0);
  });

  it('names a block whose commit does not prove it, or that is not the height asked', async () => {
    const res = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 1, maxBlocks: 2 }), genesis.consensus.maxBlockBytes);
    const [one, two] = res.blocks;
    expect(checkSyncedBlock(genesis.chainId, validators, secp256k1Verifier, 2, one)).toMatch(/height 1 for 2/);
    expect(checkSyncedBlock(genesis.chainId, validators, secp256k1Verifier, 1, { ...one, commit: two.commit })).not.toBeNull();
    expect(checkSyncedBlock(genesis.chainId, validators, secp256k1Verifier, 1, { ...one, commit: commitFor(one.block, 3) })).toMatch(/2\/3/);
    // Truncated answers are refused whole.
    const raw = await serveSync(chain.store, chain.height, { fromHeight: 1, maxBlocks: 2 });
    expect(() => decodeSyncResponse(raw.subarray(0, raw.length - 3), genesis.consensus.maxBlockBytes)).toThrow();
  });

  it("takes a peer's answer up to its first block that does not prove itself, and says why", async () => {
    const max = genesis.consensus.maxBlockBytes;
    const honest = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 2, maxBlocks: 4 }), max);
    expect(checkSyncResponse(genesis.chainId, validators, secp256k1Verifier, 2, honest)).toEqual({ blocks: honest.blocks, refused: null });
    // Asked from another height, the same answer is refused at once.
    expect(checkSyncResponse(genesis.chainId, validators, secp256k1Verifier, 3, honest)).toMatchObject({ blocks: [], refused: expect.stringMatching(/block 3: .*height 2 for 3/) });
    // A weak commit in the middle: the blocks before it are taken, the rest are not.
    const broken = { ...honest, blocks: honest.blocks.map((b, i) => (i === 2 ? { ...b, commit: commitFor(b.block, 3) } : b)) };
    const r = checkSyncResponse(genesis.chainId, validators, secp256k1Verifier, 2, broken);
    expect(r.blocks.map((b) => b.block.header.height)).toEqual([2, 3]);
    expect(r.refused).toMatch(/^block 4: .*2\/3/);
    // The devnet fault (--faulty-sync): every block still decodes, none proves itself.
    const forged = decodeSyncResponse(forgeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 2, maxBlocks: 4 }), max), max);
    expect(forged.peerHead).toBe(5);
    expect(forged.blocks.map((b) => b.block.header.timestampMs)).toEqual(honest.blocks.map((b) => b.block.header.timestampMs + 1));
    expect(checkSyncResponse(genesis.chainId, validators, secp256k1Verifier, 2, forged)).toMatchObject({ blocks: [], refused: expect.stringMatching(/^block 2: /) });
  });

  describe('asking peers in turn', () => {
    const answer: SyncResponse = { peerHead: 9, blocks: [{ block: {} as Block, commit: {} as Commit, bytes: new Uint8Array() }] };
    /** A peer that never answers: its request fails at its own timeout, as Libp2pTransport.request does. */
    const stall = (timeoutMs: number) => new Promise<SyncResponse>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs));

    it('passes over peers that stall, fail or have nothing, and takes the first answer with blocks', async () => {
      const asked: [string, number][] = [];
      const failures: string[] = [];
      const behaviour: Record<string, (t: number) => Promise<SyncResponse>> = {
        a: stall,
        b: async () => Promise.reject(new Error('stream reset')),
        c: async () => ({ peerHead: 3, blocks: [] }),
        d: async () => answer,
        e: async () => answer,
      };
      // fromHeight 5 over five peers starts at peers[0]; 7 would start at peers[2].
      const got = await askPeersInTurn(Object.keys(behaviour), 5, (peer, t) => (asked.push([peer, t]), behaviour[peer](t)), {
        requestTimeoutMs: 50,
        onFailure: (peer) => failures.push(peer),
      });
      expect(got.answer).toEqual({ peer: 'd', response: answer });
      expect(got.unanswered).toEqual(['a', 'b']);
      expect(failures).toEqual(['a', 'b']);
      expect(asked.map(([p]) => p)).toEqual(['a', 'b', 'c', 'd']);
      expect(asked.every(([, t]) => t === 50)).toBe(true);
      const other = await askPeersInTurn(Object.keys(behaviour), 7, async (peer, t) => (asked.push([peer, t]), behaviour[peer](t)));
      expect(other.answer?.peer).toBe('d');
      expect(asked.slice(4).map(([p]) => p)).toEqual(['c', 'd']);
    });

    it('stops asking once its budget is spent, and never gives a request more time than is left', async () => {
      const asked: [string, number][] = [];
      // The budget is counted on a clock of the test's, which a stalled request moves by its
      // whole timeout (as a wall clock would): the figures below hold however busy the machine.
      let clockMs = 1_000;
      const stallOnClock = (t: number) => {
        clockMs += t;
        return Promise.reject(new Error(`no answer within ${t} ms`));
      };
      const got = await askPeersInTurn(['a', 'b', 'c', 'd', 'e'], 0, (peer, t) => (asked.push([peer, t]), stallOnClock(t)), {
        requestTimeoutMs: 60,
        budgetMs: 150,
        now: () => clockMs,
      });
      expect(got.answer).toBeNull();
      // 60 + 60 + the 30 left: three peers asked, the last with what was left of the budget.
      expect(asked).toEqual([['a', 60], ['b', 60], ['c', 30]]);
      expect(got.unanswered).toEqual(['a', 'b', 'c']);
      expect(clockMs - 1_000).toBe(150);
      expect(await askPeersInTurn([], 3, () => Promise.reject(new Error('no peer to ask')))).toEqual({ answer: null, unanswered: [] });
    });

    it('passes over a liar for a minute and a peer that did not answer for ten seconds', () => {
      let now = 1_000_000;
      const peers = new SyncPeers(() => now);
      peers.refuse('liar');
      peers.noAnswer('slow');
      expect([...peers.excluded()].sort()).toEqual(['liar', 'slow']);
      now += SYNC_UNANSWERED_MS;
      expect([...peers.excluded()]).toEqual(['liar']);
      // A liar that also stalls keeps the longer exclusion.
      peers.noAnswer('liar');
      now += SYNC_REFUSAL_MS - SYNC_UNANSWERED_MS - 1;
      expect([...peers.excluded()]).toEqual(['liar']);
      now += 1;
      expect(peers.excluded().size).toBe(0);
      expect({ refused: peers.refused, unanswered: peers.unanswered }).toEqual({ refused: 1, unanswered: 2 });
    });
  });

  it("checks each synced block's VRF proof against the chain it extends; the follower's seeds are the producer's, and a reopened follower goes on", async () => {
    const max = genesis.consensus.maxBlockBytes;
    const res = decodeSyncResponse(await serveSync(chain.store, chain.height, { fromHeight: 1, maxBlocks: 5 }), max);
    const followerDir = tempDir('exchain-sync-follower-');
    let follower = await Chain.open({ dataDir: followerDir.path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      expect(follower.seed).toEqual(genesisSeed(gHash));
      const seeds: Uint8Array[] = [];
      for (const b of res.blocks.slice(0, 3)) {
        const h = b.block.header.height;
        // Refused: a flipped bit, another validator's proof under this proposer's name, a
        // proof over the wrong seed (the block hash, the draw's old seed), a zero proof.
        const flipped = b.block.header.vrfProof.slice();
        flipped[0] ^= 1;
        const other = genesis.validators.find((v) => v.address !== b.block.header.proposer)!.address;
        const bad = [
          flipped,
          proveProposer(ECVRF, vrfKeyOfValidator(other), genesis.chainId, h, follower.seed),
          proveProposer(ECVRF, vrfKeyOfValidator(b.block.header.proposer), genesis.chainId, h, follower.lastBlockHash),
          new Uint8Array(80),
        ];
        for (const vrfProof of bad) {
          expect(checkSyncedProof(follower, follower.vrfKeyOf, { ...b, block: { ...b.block, header: { ...b.block.header, vrfProof } } })).toMatch(/does not verify/);
        }
        expect(checkSyncedProof(follower, follower.vrfKeyOf, b)).toBeNull();
        await follower.commit(b.block, b.commit);
        seeds.push(follower.seed);
      }
      // A block checked against a chain it does not extend.
      expect(checkSyncedProof(follower, follower.vrfKeyOf, res.blocks[4])).toMatch(/does not follow head 3/);
      // Restart: the seed comes back from the head header, and the chain goes on from it.
      await follower.close();
      follower = await Chain.open({ dataDir: followerDir.path, genesis, genesisHash: gHash, syncWrites: false });
      expect(follower.height).toBe(3);
      expect(follower.seed).toEqual(seeds[2]);
      for (const b of res.blocks.slice(3)) {
        expect(checkSyncedProof(follower, follower.vrfKeyOf, b)).toBeNull();
        await follower.commit(b.block, b.commit);
      }
      expect(follower.seed).toEqual(chain.seed);
      expect(follower.lastBlockHash).toEqual(chain.lastBlockHash);
    } finally {
      await follower.close();
      followerDir.remove();
    }
  });

  it('says the node is behind only when validators with more than a third of the power are ahead', () => {
    const addrs = genesis.validators.map((v) => v.address);
    const claims = new AheadClaims(validators);
    // One validator, however far and however often: no proof (faulty power is below a third).
    for (let i = 0; i < 100; i++) expect(claims.claim(addrs[5], 1_000 + i)).toBe(0);
    // Two of six is a third, not more.
    expect(claims.claim(addrs[0], 40)).toBe(0);
    // A third one: three of six are at 30 or beyond, so an honest one is.
    expect(claims.claim(addrs[1], 30)).toBe(30);
    expect(claims.claim(addrs[1], 45)).toBe(40);
    expect(claims.claim(addrs[1], 20)).toBe(40); // a lower claim changes nothing
    expect(claims.claim('0x00000000000000000000000000000000000000aa', 5_000)).toBe(40); // not a validator
    claims.reached(40);
    expect(claims.shown()).toBe(0); // validator 0's claim is reached; 1 (45) and 5 (1,099) are two
    expect(claims.claim(addrs[2], 50)).toBe(45);
  });
});
