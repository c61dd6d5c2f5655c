/**
 * Disk full on one validator's chain store, six validators under signed load (issue 26
 * deliver 2, decision 121): validator 2's `chain` folder is a small real tmpfs, filled to
 * the last byte while the network runs. That node answers no 5xx other than 503 (its
 * writes 503 STORAGE_UNAVAILABLE), the other five keep producing, and once the filler
 * file is deleted it writes again by itself (no exit, no restart by the launcher) and
 * catches up to the same state root as its peers; every write any node acknowledged
 * (200) is found on every node afterwards. Needs root to mount (this machine and CI run as root).
 */
import { spawn } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, ROOT, tempDir, waitFor } from '../helpers/devnet';
import { mountSmallDisk } from '../helpers/full-disk';
import { NODE_PROGRAM } from '../helpers/node-program';

const dir = tempDir('exchain-diskfull-net-');
const disk = mountSmallDisk(join(dir.path, 'validator-2', 'chain'), '32m');
afterAll(() => {
  disk.remove();
  dir.remove();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a full disk under one validator\'s chain store', () => {
  it('stops only that node, which answers 503 and no other 5xx, and catches up to its peers\' state root once space returns; nothing acknowledged is lost', async () => {
    const proc = spawn(
      process.execPath,
      [...NODE_PROGRAM, 'start', '--data-dir', dir.path, '--port', '0', '--session-port', '0', '--p2p-port', '0', '--no-onboarding', '--log-level', 'warn', '--no-rate-limit'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    let loading = true;
    try {
      const line = await waitFor(() => out.split('\n').find((l) => l.startsWith('READY ')), 120_000, 'READY');
      const nodes = /nodes=(\S+)/.exec(line)![1].split(',');
      expect(nodes).toHaveLength(6);
      const full = nodes[1]; // validator 2
      const get = async (url: string, path: string) => (await (await fetch(`${url}${path}`)).json()) as any;
      const height = async (url: string) => (await get(url, '/status')).data.height as number;
      await waitFor(async () => ((await Promise.all(nodes.map(height))).every((h) => h >= 3) ? true : undefined), 60_000, 'height 3 on all');

      // Signed load on every node: faucet claims (the node's signature) and orders (the traders').
      const acked: string[] = [];
      const statusesOfFull: number[] = [];
      const chainId = (await get(nodes[0], '/status')).data.chainId as number;
      const workers = nodes.flatMap((url, i) => {
        const faucetWorker = async () => {
          while (loading) {
            const address = privateKeyToAccount(generatePrivateKey()).address;
            const r = await fetch(`${url}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address, amount: '1' }) }).catch(() => undefined);
            if (!r) continue;
            if (url === full) statusesOfFull.push(r.status);
            const body = (await r.json().catch(() => undefined)) as any;
            if (r.status === 200) acked.push(body.data.txHash);
            else if (r.status === 503) await sleep(Number(r.headers.get('retry-after') ?? 1) * 100);
          }
        };
        const trader = privateKeyToAccount(DEVNET_KEYS.accounts[i].privateKey);
        const client = new ExchangeClient(url, { chainId });
        const orderWorker = async () => {
          while (loading) {
            try {
              const r = (await client.placeOrder(trader, { symbol: 'ETH', side: 'buy', type: 'limit', price: '1000', amount: '0.01' })) as { txHash?: string };
              if (url === full) statusesOfFull.push(200);
              if (r.txHash) acked.push(r.txHash);
            } catch (err) {
              const status = (err as { status?: number }).status;
              if (url === full && status !== undefined) statusesOfFull.push(status);
              await sleep(status === 503 ? 100 : 20);
            }
          }
        };
        return [faucetWorker(), orderWorker()];
      });

      // The load under way (acknowledged, validator 2 among those answering) before the disk fills.
      await waitFor(() => (acked.length > 10 && statusesOfFull.includes(200) ? true : undefined), 60_000, 'the load acknowledged, by validator 2 too');
      const filler = disk.fill();
      await waitFor(async () => ((await get(full, '/health')).storage === 'full' ? true : undefined), 60_000, 'validator 2 to say storage full');
      const stuck = await height(full);
      const othersBefore = await Promise.all(nodes.filter((u) => u !== full).map(height));
      // The other five keep producing; the full node does not move. The window is counted in
      // heights, not seconds (a busy machine only makes it longer): three more on each of the five.
      const othersAfter = await waitFor(async () => {
        const now = await Promise.all(nodes.filter((u) => u !== full).map(height));
        return now.every((h, i) => h >= othersBefore[i] + 3) ? now : undefined;
      }, 120_000, 'three more heights on each of the other five');
      for (let i = 0; i < othersAfter.length; i++) expect(othersAfter[i]).toBeGreaterThanOrEqual(othersBefore[i] + 3);
      expect(await height(full)).toBe(stuck);
      expect((await get(full, '/status')).data.storage).toBe('full');
      expect(statusesOfFull).toContain(503);

      // Space returns: it writes again and catches up, in the same process.
      unlinkSync(filler);
      await waitFor(async () => ((await get(full, '/health')).storage === 'ok' ? true : undefined), 30_000, 'validator 2 to say storage ok');
      const target = Math.max(...(await Promise.all(nodes.filter((u) => u !== full).map(height))));
      await waitFor(async () => ((await height(full)) >= target ? true : undefined), 60_000, `validator 2 to catch up to ${target}`);
      // It takes writes again: an answer of 200 after its first 503.
      await waitFor(() => (statusesOfFull.lastIndexOf(200) > statusesOfFull.indexOf(503) ? true : undefined), 60_000, 'validator 2 to take writes again');
      loading = false;
      await Promise.all(workers);

      // The same state root at a height every node has.
      const common = Math.min(...(await Promise.all(nodes.map(height))));
      const roots = await Promise.all(nodes.map(async (u) => (await get(u, `/block/${common}`)).data.stateRoot as string));
      expect(new Set(roots).size).toBe(1);
      // Only 503 among the full node's 5xx; it took writes again after space returned.
      expect(statusesOfFull.filter((s) => s >= 500 && s !== 503)).toEqual([]);
      expect(statusesOfFull.lastIndexOf(200)).toBeGreaterThan(statusesOfFull.indexOf(503));
      expect(out).not.toMatch(/validator 2 exited/);
      // Nothing acknowledged is lost, on any node.
      expect(acked.length).toBeGreaterThan(10);
      const top = Math.max(...(await Promise.all(nodes.map(height))));
      for (const url of nodes) {
        await waitFor(async () => ((await height(url)) >= top ? true : undefined), 30_000, `height ${top} on ${url}`);
        for (let i = 0; i < acked.length; i += 20) {
          const found = await Promise.all(acked.slice(i, i + 20).map(async (h) => (await fetch(`${url}/tx/${h}`)).status));
          expect(found.every((s) => s === 200), `${url}: acknowledged transactions found`).toBe(true);
        }
      }
      proc.kill('SIGINT');
    } finally {
      loading = false;
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  }, 420_000);
});
