/**
 * Chain figures of the foundation: empty-block apply+commit rate (fsync on and off),
 * state-root cost per block at a large state (incremental vs a full rebuild), block
 * apply throughput for signed transactions, and peak RSS.
 */
import { canonicalCommit, type Block } from '../src/codec/block';
import { encodeTx, TxKind } from '../src/codec/tx';
import { signFaucet } from '../src/codec/txs/faucet';
import { Chain } from '../src/chain/chain';
import { StateTree } from '../src/state/tree';
import { hexToBytes } from '../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../test/helpers/devnet';

const { genesis, hash } = devnetGenesis(1);
const proposer = DEVNET_KEYS.validators[0].address;
const vrfKey = devnetVrfKey(0);
const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });

async function emptyBlocks(count: number, syncWrites: boolean) {
  const dir = tempDir('bench-chain-');
  const chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites });
  let t = genesis.genesisTimeMs;
  const lat: number[] = [];
  let totalMs = 0;
  for (let i = 0; i < count; i++) {
    // Building proves the block's VRF seed (~6 ms, `npm run bench -- crypto`): not part of apply+commit.
    const block = chain.buildBlock({ txs: [], timestampMs: (t += 22), proposer, lastCommit: null, vrfKey });
    const s = performance.now();
    await chain.commit(block, commitOf(block));
    lat.push(performance.now() - s);
    totalMs += lat[lat.length - 1];
  }
  const secs = totalMs / 1000;
  await chain.close();
  dir.remove();
  lat.sort((a, b) => a - b);
  return { blocksPerSec: Math.round(count / secs), p50Ms: +lat[Math.floor(count / 2)].toFixed(3), p99Ms: +lat[Math.floor(count * 0.99)].toFixed(3) };
}

function stateRoot(stateKeys: number, dirtyPerBlock: number, blocks: number) {
  const tree = new StateTree();
  const key = (i: number) => {
    const k = new Uint8Array(21);
    k[0] = 2;
    new DataView(k.buffer).setUint32(17, i);
    return k;
  };
  const value = (i: number, v: number) => Uint8Array.of(i & 255, v & 255, 1, 2, 3, 4, 5, 6);
  let s = performance.now();
  for (let i = 0; i < stateKeys; i++) tree.update(key(i), value(i, 0));
  tree.root();
  const fullBuildMs = performance.now() - s;
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % stateKeys;
  const perBlock: number[] = [];
  for (let b = 1; b <= blocks; b++) {
    s = performance.now();
    for (let d = 0; d < dirtyPerBlock; d++) tree.update(key(rand()), value(b, b));
    tree.root();
    perBlock.push(performance.now() - s);
  }
  perBlock.sort((a, b) => a - b);
  return {
    stateKeys,
    dirtyKeysPerBlock: dirtyPerBlock,
    rootMsP50: +perBlock[Math.floor(blocks / 2)].toFixed(3),
    rootMsP99: +perBlock[Math.floor(blocks * 0.99)].toFixed(3),
    fullRebuildMs: Math.round(fullBuildMs),
  };
}

async function signedTxBlocks(txsPerBlock: number, blocks: number) {
  const dir = tempDir('bench-chain-');
  const chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: true });
  const key = hexToBytes(DEVNET_KEYS.faucet.privateKey);
  let nonce = 1n;
  let t = genesis.genesisTimeMs;
  const prepared: Uint8Array[][] = [];
  for (let b = 0; b < blocks; b++) {
    const txs: Uint8Array[] = [];
    for (let i = 0; i < txsPerBlock; i++) {
      const to = DEVNET_KEYS.accounts[i % DEVNET_KEYS.accounts.length].address;
      txs.push(encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to, usdc: 1n, nativeWei: 0n, nonce: nonce++ }, key)).bytes);
    }
    prepared.push(txs);
  }
  let totalMs = 0;
  for (const txs of prepared) {
    // The VRF proof of the build is not block application (see emptyBlocks).
    const block = chain.buildBlock({ txs, timestampMs: (t += 22), proposer, lastCommit: null, vrfKey });
    const start = performance.now();
    await chain.commit(block, commitOf(block));
    totalMs += performance.now() - start;
  }
  const secs = totalMs / 1000;
  await chain.close();
  dir.remove();
  return { txsPerBlock, blocks, txPerSec: Math.round((txsPerBlock * blocks) / secs), note: 'each tx: decode, signature recovery (native), nonce, apply; fsync per block' };
}

export async function benchChain(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  out.emptyBlocksFsync = await emptyBlocks(2000, true);
  out.emptyBlocksNoFsync = await emptyBlocks(2000, false);
  out.stateRoot100 = stateRoot(1_000_000, 100, 500);
  out.stateRoot1000 = stateRoot(1_000_000, 1000, 200);
  out.signedTxs = await signedTxBlocks(1000, 10);
  return out;
}
