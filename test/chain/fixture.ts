/**
 * A single-validator devnet chain in a temporary folder, with a first block of signed
 * faucet transactions ready to commit: the setup of the chain-level tests. Chains opened
 * through useTempChains are closed and their folders removed after each test.
 */
import { afterEach } from 'vitest';
import { canonicalCommit, type Block } from '../../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { Chain } from '../../src/chain/chain';
import { hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../helpers/devnet';

export const { genesis, hash } = devnetGenesis(1);
const proposer = DEVNET_KEYS.validators[0].address;

/** A commit of no signatures for `b`: Chain.commit checks the hash it is stored under, not the signatures. */
export const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });

/** Faucet transactions with these nonces (5 units of USDC each to the first devnet account). */
export function faucetTxs(nonces: bigint[]): Tx[] {
  const key = hexToBytes(DEVNET_KEYS.faucet.privateKey);
  return nonces.map((nonce) => encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to: DEVNET_KEYS.accounts[0].address, usdc: 5n, nativeWei: 0n, nonce }, key)));
}

/** Opens chains (fsync off) that are closed and deleted after each test of the calling file. */
export function useTempChains(prefix: string): { open(txs: Tx[]): Promise<{ chain: Chain; block: Block }> } {
  const dirs: { remove(): void }[] = [];
  const chains: Chain[] = [];
  afterEach(async () => {
    for (const c of chains.splice(0)) await c.close();
    for (const d of dirs.splice(0)) d.remove();
  });
  return {
    async open(txs) {
      const dir = tempDir(prefix);
      dirs.push(dir);
      const chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
      chains.push(chain);
      const block = chain.buildBlock({ txs: txs.map((t) => t.bytes), timestampMs: genesis.genesisTimeMs + 1_000, proposer, lastCommit: null, vrfKey: devnetVrfKey(0) });
      return { chain, block };
    },
  };
}
