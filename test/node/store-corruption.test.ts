/**
 * A corrupted chain store heals from peers without a person acting (issue 26 deliver 4,
 * decision 124), on six validator processes under load: validator 6 is killed with
 * SIGKILL, 4 KiB of random bytes are written into its newest table file, and it is
 * started again. It says what it found in one line, moves the store aside (kept whole),
 * syncs the chain from its peers checking every commit, and ends back in the set (its
 * signature in later commits) with the same state root as its peers; every faucet credit
 * acknowledged on any node, before and after, is in the same block on every node.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_KEYS, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';
import { corruptNewestTable } from '../storage/store-fixture';

let net: LocalNetwork;
beforeAll(async () => {
  net = await LocalNetwork.start(6);
}, 120_000);
afterAll(async () => {
  await net?.stop();
}, 60_000);

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

describe('a validator whose chain store is corrupted', () => {
  it('moves it aside, syncs from its peers and is back in the set with their state root; nothing acknowledged is lost', async () => {
    await net.waitHeight(10);
    // Load: faucet credits (transactions the faucet key signs) through validators 1 to 6, round robin.
    const acked: { txHash: string; height: number }[] = [];
    let load = true;
    const to = DEVNET_KEYS.accounts[4].address;
    const pump = (async () => {
      for (let i = 0; load; i++) {
        const via = net.nodes[i % 6];
        const r = await json(`${via.url}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: to, amount: '0.5' }) }).catch(() => undefined);
        if (r?.status === 200) acked.push({ txHash: r.body.data.txHash, height: r.body.data.height });
        else await new Promise((res) => setTimeout(res, 50));
      }
    })();
    await waitFor(() => acked.length >= 40 || undefined, 60_000, '40 acknowledged credits');

    await net.kill(6);
    const store = join(net.dataDir(6), 'chain');
    // A store LevelDB has not flushed yet holds only its log: opening it (as a restart does) writes the table file.
    if (!readdirSync(store).some((f) => f.endsWith('.ldb'))) {
      const db = new ClassicLevel(store);
      await db.open();
      await db.close();
    }
    corruptNewestTable(store);
    await net.waitHeight((await net.height(1)) + 10, [1, 2, 3, 4, 5]);

    await net.launch(6);
    const line = net.nodes[5].output.split('\n').find((l) => l.includes('STORE CORRUPTED'));
    expect(line, net.nodes[5].output.slice(-3000)).toBeDefined();
    expect(line).toContain(store);
    expect(line).toMatch(/moved aside to .*chain\.corrupt-.*syncs the chain from its peers/);
    const aside = readdirSync(net.dataDir(6)).filter((f) => f.startsWith('chain.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readdirSync(join(net.dataDir(6), aside[0])).some((f) => f.endsWith('.ldb'))).toBe(true);

    const head = await net.height(1);
    await net.waitHeight(head, [6], 120_000);
    for (const h of [1, Math.floor(head / 2), head]) {
      const [a, b] = await Promise.all([net.block(1, h), net.block(6, h)]);
      expect(b.hash, `block ${h}`).toBe(a.hash);
      expect(b.stateRoot, `state root ${h}`).toBe(a.stateRoot);
    }
    // Back in the set: a later block's record of its parent's commit carries its signature.
    const six = (await net.status(6)).validators[5].address;
    await net.waitForSigner(six, head, 1, 90_000);
    expect((await net.status(6)).consensus.signingRefused).toBeNull();

    load = false;
    await pump;
    const last = Math.max(...acked.map((a) => a.height));
    await net.waitHeight(last);
    for (const i of [1, 2, 3, 4, 5, 6]) {
      for (const a of acked) {
        const r = await json(`${net.nodes[i - 1].url}/tx/${a.txHash}`);
        expect(r.status, `validator ${i}, ${a.txHash}`).toBe(200);
        expect(r.body.data.height).toBe(a.height);
      }
    }
    expect(existsSync(join(net.dataDir(6), aside[0]))).toBe(true);
  }, 420_000);
});
