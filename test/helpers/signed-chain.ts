/**
 * A real chain on disk of the multi-validator devnet, built the way its validators
 * build it, for block sync to be measured and tested against (bench/sync.ts,
 * test/chain/signed-chain.test.ts): each block is proposed by the validator its height's
 * set draws for round 0 from the chain's seed, carries that validator's VRF proof, and
 * is committed by a quorum of its height's set with real secp256k1 precommits. Block
 * h + 1 carries the commit of h as its lastCommit, so execution's downtime accounting
 * reads real signer lists.
 *
 * What the blocks hold: `faucetTxsPerBlock` faucet credits each (1 USDC and 0.001
 * native token to one of `recipients` addresses in turn, signed by the devnet faucet
 * key, so applying one recovers a signature, checks a nonce and writes two balances).
 * Every commit is signed by all of the set but one, the one left out turning with the
 * height (5 of 6 on the 6-validator devnet: a quorum, and no validator misses enough to
 * be jailed). `txsAt` puts other transactions in the blocks (bench/disk.ts: oracle
 * observations and signed orders), `afterCommit` sees each block's result (to index it),
 * and `fullLastCommit` makes each block's lastCommit carry every member's precommit, as a
 * proposer's does once the late precommits arrived (src/consensus/last-commit.ts), while
 * the stored commit keeps the quorum.
 */
import { blockHash, canonicalCommit, type Block, type Commit } from '../../src/codec/block';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { Chain } from '../../src/chain/chain';
import type { BlockResult } from '../../src/state/apply';
import { voteSigningHash } from '../../src/consensus/messages';
import { Secp256k1Signer } from '../../src/consensus/signer';
import type { Genesis } from '../../src/genesis/types';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { genesisHash } from '../../src/genesis/load';
import { DEVNET_KEYS, devnetGenesis } from './devnet';

export interface SignedChainOptions {
  dataDir: string;
  blocks: number;
  /** Devnet validators in the genesis (default 6). */
  validators?: number;
  /** Changes the devnet genesis before the chain is made (bench/snapshot.ts: a large state at genesis). */
  genesisOf?: (g: Genesis) => Genesis;
  /** Faucet credits per block (default 10). */
  faucetTxsPerBlock?: number;
  /** Distinct addresses the credits go to, in turn (default 5,000). */
  recipients?: number;
  /** fsync each block while building (default false: the built chain is the fixture, not the figure). */
  syncWrites?: boolean;
  /** Called after each block is committed. */
  onBlock?: (height: number) => void;
  /** The transactions of block `height` (timestamped `timestampMs`), in place of the faucet credits. */
  txsAt?: (height: number, timestampMs: number, chain: Chain) => Uint8Array[];
  /** Awaited after each block is committed, with its result (and the chain, open). */
  afterCommit?: (block: Block, result: BlockResult, chain: Chain) => Promise<void>;
  /** Each block's lastCommit holds every member's precommit, not only the stored commit's quorum (default false). */
  fullLastCommit?: boolean;
}

export interface SignedChain {
  /** The serving side: the chain, open, at height `blocks`. */
  chain: Chain;
  genesis: Genesis;
  genesisHash: Uint8Array;
  /** Transactions in all blocks. */
  txs: number;
}

/** The address of the i-th faucet recipient (no key: a credit needs none). */
function recipientAddress(i: number): Address {
  return `0x${(0xb0000000 + i).toString(16).padStart(40, '0')}` as Address;
}

/** Builds `opts.blocks` blocks on a fresh chain in `opts.dataDir` (an empty folder) and returns it open. */
export async function buildSignedChain(opts: SignedChainOptions): Promise<SignedChain> {
  const devnet = devnetGenesis(opts.validators ?? 6);
  const genesis = opts.genesisOf ? opts.genesisOf(devnet.genesis) : devnet.genesis;
  const hash = opts.genesisOf ? genesisHash(genesis) : devnet.hash;
  const perBlock = opts.faucetTxsPerBlock ?? 10;
  const recipients = opts.recipients ?? 5_000;
  const signers = new Map<Address, Secp256k1Signer>();
  const vrfKeys = new Map<Address, Uint8Array>();
  for (const v of DEVNET_KEYS.validators) {
    const address = v.address.toLowerCase() as Address;
    signers.set(address, new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey)));
    vrfKeys.set(address, hexToBytes(v.vrfPrivateKey));
  }
  const faucetKey = hexToBytes(DEVNET_KEYS.faucet.privateKey);
  const chain = await Chain.open({ dataDir: opts.dataDir, genesis, genesisHash: hash, syncWrites: opts.syncWrites ?? false });
  try {
    if (chain.height !== 0) throw new Error(`${opts.dataDir} already holds a chain at height ${chain.height}`);
    let nonce = 1n;
    let txs = 0;
    let lastCommit: Commit | null = null;
    for (let height = 1; height <= opts.blocks; height++) {
      const set = chain.validatorsAt(height);
      const proposer = set.proposer(height, 0, chain.seed).address;
      const vrfKey = vrfKeys.get(proposer);
      if (vrfKey === undefined) throw new Error(`no VRF key for the drawn proposer ${proposer}`);
      const timestampMs = genesis.genesisTimeMs + height * genesis.consensus.blockTimeMs;
      let blockTxs: Uint8Array[] = [];
      if (opts.txsAt) blockTxs = opts.txsAt(height, timestampMs, chain);
      else {
        for (let i = 0; i < perBlock; i++) {
          const to = recipientAddress(txs % recipients);
          blockTxs.push(encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to, usdc: 1_000_000n, nativeWei: 10n ** 15n, nonce: nonce++ }, faucetKey)).bytes);
        }
      }
      txs += blockTxs.length;
      const block = chain.buildBlock({ txs: blockTxs, timestampMs, proposer, lastCommit, vrfKey });
      const members = set.validators.map((v) => v.address);
      const absent = set.size > 1 ? members[height % set.size] : undefined;
      const commit = commitOf(genesis.chainId, block, members.filter((a) => a !== absent), signers);
      const result = await chain.commit(block, commit);
      const failed = result.receipts.find((r) => r.status !== 'ok');
      if (failed !== undefined) throw new Error(`block ${height}: a transaction failed: ${JSON.stringify(failed)}`);
      await opts.afterCommit?.(block, result, chain);
      lastCommit = opts.fullLastCommit ? commitOf(genesis.chainId, block, members, signers) : commit;
      opts.onBlock?.(height);
    }
    return { chain, genesis, genesisHash: hash, txs };
  } catch (err) {
    await chain.close();
    throw err;
  }
}

/** The commit of `block` at round 0, precommitted by `who`. */
function commitOf(chainId: number, block: Block, who: readonly Address[], signers: ReadonlyMap<Address, Secp256k1Signer>): Commit {
  const h = block.header;
  const hash = blockHash(h);
  const digest = voteSigningHash(chainId, { type: 'precommit', height: h.height, round: 0, blockHash: hash });
  const signatures = who.map((validator) => {
    const signer = signers.get(validator);
    if (signer === undefined) throw new Error(`no key for validator ${validator}`);
    return { validator, signature: signer.sign(digest) };
  });
  return canonicalCommit({ height: h.height, round: 0, blockHash: hash, signatures });
}
