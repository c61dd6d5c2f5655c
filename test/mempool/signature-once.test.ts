/**
 * Each transaction's signature is recovered once per validator (issue 25; decision 109),
 * shown by GET /status `signatures` (src/state/signer-cache.ts):
 *  - two in-process validators of the two-validator devnet, joined by libp2p: an order
 *    submitted over REST to one is recovered once on each (at the door of the one, at
 *    the mempool's gossip door of the other) and reused by both at apply, whichever
 *    proposed;
 *  - the real pool and chain of three nodes in one process, for the orders the network
 *    test cannot force: a replica whose block arrives before the gossiped copy recovers
 *    in execution and reuses that for the late copy; a proposer applies its own batch
 *    without a recovery.
 * Oracle observations flow all the while: the counters are read for the order's kind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient } from '../../src/client';
import type { Node } from '../../src/node/node';
import { canonicalCommit, type Block } from '../../src/codec/block';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { Chain } from '../../src/chain/chain';
import { TxPool } from '../../actors/mempool/pool';
import { placeOrderDigest, restSigningHash } from '../../src/signing/exchange-digest';
import { sign } from '../../src/crypto/secp256k1';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { benchOrder } from '../../bench/load';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, startNode, tempDir, waitFor } from '../helpers/devnet';

async function status(url: string): Promise<any> {
  const res = await fetch(`${url}/status`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: any }).data;
}

describe('a transaction is recovered once per validator', () => {
  const dirs: { remove(): void }[] = [];
  const nodes: Node[] = [];
  afterAll(async () => {
    for (const n of nodes.reverse()) await n.stop();
    for (const d of dirs) d.remove();
  });

  async function validator(index: number, bootstrap: string[]): Promise<{ node: Node; url: string }> {
    const dir = tempDir();
    dirs.push(dir);
    const { genesis, hash } = devnetGenesis(2);
    const started = await startNode(dir.path, {
      genesis,
      genesisHash: hash,
      validatorKey: hexToBytes(DEVNET_KEYS.validators[index].ecdsaPrivateKey),
      vrfKey: devnetVrfKey(index),
      syncWrites: false,
      p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap },
    });
    nodes.push(started.node);
    return started;
  }

  it('an order sent to one of two validators: one recovery and one reuse on each, in /status', async () => {
    const a = await validator(0, []);
    const aInfo = a.node.p2pInfo()!;
    const aAddr = aInfo.listen.find((l) => l.startsWith('/ip4/127.0.0.1/tcp/'))!;
    const b = await validator(1, [aAddr.endsWith(`/p2p/${aInfo.peerId}`) ? aAddr : `${aAddr}/p2p/${aInfo.peerId}`]);
    await waitFor(async () => (await status(b.url)).height >= 2 || undefined, 60_000, 'the two validators to decide blocks');
    for (const n of [a, b]) expect((await status(n.url)).signatures.byKind.RestOrder).toBeUndefined();

    const client = new ExchangeClient(a.url, { chainId: a.node.config.genesis.chainId });
    const trader = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey as `0x${string}`);
    const placed = await client.placeOrder(trader, { symbol: 'BTC', side: 'buy', type: 'limit', price: '50000', amount: '0.001' });
    const { height } = ((await (await fetch(`${a.url}/tx/${placed.txHash}`)).json()) as any).data;
    await waitFor(async () => (await status(b.url)).height >= height || undefined, 30_000, 'b to apply the order');

    // b may apply the block before the gossiped copy arrives (then the copy is the reuse): wait for both steps.
    const settled = (c: any) => c?.recovered + c?.reused === 2 || undefined;
    for (const n of [a, b]) await waitFor(async () => settled((await status(n.url)).signatures.byKind.RestOrder), 10_000, 'the order counted');
    for (const n of [a, b]) {
      const s = (await status(n.url)).signatures;
      expect(s.byKind.RestOrder).toEqual({ recovered: 1, reused: 1 });
      expect(s.recovered).toBeGreaterThanOrEqual(1);
      expect(s.reused).toBeGreaterThanOrEqual(1);
    }
  }, 120_000);

  it('pool and chain: a block before its gossip recovers in execution once; the proposer and a gossip-fed replica reuse', async () => {
    const { genesis, hash } = devnetGenesis(6);
    const open = async () => {
      const dir = tempDir();
      dirs.push(dir);
      const chain = await Chain.open({ dataDir: `${dir.path}/chain`, genesis, genesisHash: hash, syncWrites: false });
      const pool = new TxPool({ maxTxs: 1_000, maxBytes: 1 << 24, maxTxBytes: 1 << 20 }, () => chain.state);
      return { chain, pool };
    };
    const [proposer, gossiped, late] = [await open(), await open(), await open()];
    const acc = DEVNET_KEYS.accounts[1];
    const txs = [0, 1, 2].map((i) => {
      const o = { ...benchOrder(i, 'BTC', false), type: 'limit' };
      const nonce = 5_000n + BigInt(i);
      const signature = sign(restSigningHash(placeOrderDigest({ ...o, nonce })), hexToBytes(acc.privateKey));
      return encodeTx(genesis.chainId, TxKind.RestOrder, { trader: acc.address as Address, ...o, nonce, signature });
    });
    for (const tx of txs) proposer.pool.addBytes(tx.bytes);
    for (const tx of txs) gossiped.pool.addBytes(tx.bytes);
    const batch = proposer.pool.peekBatch(100, 1 << 24);
    const block: Block = proposer.chain.buildBlock({ txs: batch.txs, decoded: batch.decoded, timestampMs: genesis.genesisTimeMs + 1_000, proposer: DEVNET_KEYS.validators[0].address as Address, lastCommit: null, vrfKey: devnetVrfKey(0) });
    const commit = canonicalCommit({ height: block.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });
    const roots = [];
    for (const n of [proposer, gossiped, late]) {
      const result = await n.chain.commit(block, commit, n.pool.signers);
      expect(result.receipts.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
      n.pool.removeCommitted(result.receipts.map((r) => r.txHash));
      roots.push(Buffer.from(result.stateRoot).toString('hex'));
    }
    expect(new Set(roots).size).toBe(1);
    // The late replica meets the gossiped copies after the block: refused (their nonces are used), not recovered again.
    for (const tx of txs) expect(() => late.pool.addBytes(tx.bytes)).toThrow(/nonce/i);
    expect(proposer.pool.signers.stats().byKind.RestOrder).toEqual({ recovered: 3, reused: 3 });
    expect(gossiped.pool.signers.stats().byKind.RestOrder).toEqual({ recovered: 3, reused: 3 });
    expect(late.pool.signers.stats().byKind.RestOrder).toEqual({ recovered: 3, reused: 3 });
    for (const n of [proposer, gossiped, late]) await n.chain.close();
  }, 60_000);
});
