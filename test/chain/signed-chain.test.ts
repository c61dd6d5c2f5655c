/**
 * The chain the sync bench measures (test/helpers/signed-chain.ts) is one a fresh node
 * accepts: served from the builder's store, decoded, each block's commit checked against
 * its height's set and its VRF proof and drawn proposer checked (checkSyncedProposer),
 * then committed; the follower ends at the same head hash and state root. And
 * checkSyncedProposer refuses a block proposed by a validator the draw did not pick, or
 * proved with another validator's VRF key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHash } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import { applySyncResponse, checkSyncedProposer, decodeSyncResponse, serveSync, type SyncedBlock } from '../../src/chain/sync';
import { knownKeyVerifier } from '../../src/consensus/signer';
import { validatorRecord } from '../../src/state/validators/records';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS, tempDir } from '../helpers/devnet';
import { buildSignedChain, type SignedChain } from '../helpers/signed-chain';

const BLOCKS = 36;
const dirs = [tempDir('exchain-signed-'), tempDir('exchain-signed-')];
let built: SignedChain;

beforeAll(async () => {
  built = await buildSignedChain({ dataDir: dirs[0].path, blocks: BLOCKS, faucetTxsPerBlock: 3 });
});
afterAll(async () => {
  await built?.chain.close();
  for (const d of dirs) d.remove();
});

describe('the sync bench’s chain', () => {
  it('is taken whole by a fresh node checking every commit, VRF proof and proposer', async () => {
    const server = built.chain;
    expect(server.height).toBe(BLOCKS);
    expect(built.txs).toBe(BLOCKS * 3);
    const follower = await Chain.open({ dataDir: dirs[1].path, genesis: built.genesis, genesisHash: built.genesisHash, syncWrites: false });
    try {
      const verifier = knownKeyVerifier((address) => validatorRecord(follower.state, address)?.ecdsaPubkey);
      const proposers = new Set<string>();
      const signerCounts = new Set<number>();
      while (follower.height < server.height) {
        const from = follower.height + 1;
        const response = decodeSyncResponse(await serveSync(server.store, server.height, { fromHeight: from, maxBlocks: 10 }), built.genesis.consensus.maxBlockBytes);
        const { applied, refused } = await applySyncResponse(
          built.genesis.chainId,
          (h) => follower.validatorsAt(h),
          verifier,
          from,
          response,
          async (b) => {
            proposers.add(b.block.header.proposer);
            signerCounts.add(b.commit.signatures.length);
            expect(b.block.txs.length).toBe(3);
            await follower.commit(b.block, b.commit);
          },
          (b) => checkSyncedProposer(follower, follower.vrfKeyOf, follower.validatorsAt(b.block.header.height), b),
        );
        expect(refused).toBeNull();
        expect(applied).toBe(response.blocks.length);
      }
      expect(follower.height).toBe(BLOCKS);
      expect(bytesToHex(follower.lastBlockHash)).toBe(bytesToHex(server.lastBlockHash));
      expect(bytesToHex(follower.stateRoot)).toBe(bytesToHex(server.stateRoot));
      // The draw spreads the blocks over the set; every commit is a quorum short of one (5 of 6).
      expect(proposers.size).toBeGreaterThan(1);
      expect([...signerCounts]).toEqual([5]);
    } finally {
      await follower.close();
    }
  });

  it('checkSyncedProposer refuses a proposer the draw did not pick, and a proof by another key', async () => {
    const server = built.chain;
    const height = server.height + 1;
    const set = server.validatorsAt(height);
    const drawn = set.proposer(height, 0, server.seed).address;
    const other = set.validators.map((v) => v.address).find((a) => a !== drawn)!;
    const vrfKeyOf = (address: string) => hexToBytes(DEVNET_KEYS.validators.find((v) => v.address.toLowerCase() === address)!.vrfPrivateKey);
    const synced = (proposer: string, vrfKey: Uint8Array): SyncedBlock => {
      const block = server.buildBlock({ txs: [], timestampMs: server.lastTimestampMs + 22, proposer: proposer as `0x${string}`, lastCommit: null, vrfKey });
      return { block, commit: { height, round: 0, blockHash: blockHash(block.header), signatures: [] }, bytes: new Uint8Array() };
    };
    expect(checkSyncedProposer(server, server.vrfKeyOf, set, synced(drawn, vrfKeyOf(drawn)))).toBeNull();
    expect(checkSyncedProposer(server, server.vrfKeyOf, set, synced(other, vrfKeyOf(other)))).toMatch(/is not the one drawn/);
    expect(checkSyncedProposer(server, server.vrfKeyOf, set, synced(drawn, vrfKeyOf(other)))).toMatch(/does not verify/);
  });
});
