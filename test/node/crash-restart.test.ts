/**
 * A real node process killed with SIGKILL mid-run loses nothing it acknowledged: every
 * faucet credit answered 200 before the kill is in a committed block after restart,
 * the node resumes at (or past) its last committed height, and the state root at
 * every height it had reported is unchanged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/launcher';
import { DEVNET_KEYS, ROOT, tempDir, waitFor } from '../helpers/devnet';
import { NODE_PROGRAM } from '../helpers/node-program';

const procs: ChildProcess[] = [];
const dir = tempDir('exchain-crash-');
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL');
  dir.remove();
});

function startProcess(port: number): Promise<{ proc: ChildProcess; output: () => string }> {
  // One process (no tsx wrapper), so SIGKILL hits the node itself.
  const proc = spawn(process.execPath, [...NODE_PROGRAM, 'start', '--validators', '1', '--data-dir', dir.path, '--port', String(port), '--session-port', '0', '--log-level', 'warn', '--no-rate-limit'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return waitFor(() => (out.includes('READY') ? { proc, output: () => out } : proc.exitCode !== null ? Promise.reject(new Error(out)) : undefined), 30_000, 'READY');
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

describe('crash safety (real process, SIGKILL)', () => {
  it('resumes at its committed height with the same roots and every acknowledged transaction', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await startProcess(port);

    // Acknowledged credits, plus more in flight when the kill lands.
    const acked: { txHash: string; height: number }[] = [];
    const to = DEVNET_KEYS.accounts[3].address;
    let inFlight = true;
    const pump = (async () => {
      while (inFlight) {
        const r = await json(`${base}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: to, amount: '1.5' }) }).catch(() => undefined);
        if (r?.status === 200) acked.push({ txHash: r.body.data.txHash, height: r.body.data.height });
      }
    })();
    await waitFor(() => acked.length >= 20 || undefined, 20_000, '20 acknowledged credits');
    const before = (await json(`${base}/status`)).body.data;
    const rootsBefore = new Map<number, string>();
    for (const h of [1, Math.floor(before.height / 2), before.height]) rootsBefore.set(h, (await json(`${base}/block/${h}`)).body.data.stateRoot);

    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    inFlight = false;
    await pump;
    const ackedCount = acked.length;
    const lastAckedHeight = Math.max(...acked.map((a) => a.height));

    const second = await startProcess(port);
    const after = (await json(`${base}/status`)).body.data;
    expect(after.genesisHash).toBe(before.genesisHash);
    expect(after.height).toBeGreaterThanOrEqual(before.height);
    expect(after.height).toBeGreaterThanOrEqual(lastAckedHeight);
    for (const [h, root] of rootsBefore) expect((await json(`${base}/block/${h}`)).body.data.stateRoot).toBe(root);
    for (const a of acked.slice(0, ackedCount)) {
      const r = await json(`${base}/tx/${a.txHash}`);
      expect(r.status).toBe(200);
      expect(r.body.data.height).toBe(a.height);
      expect(r.body.data.receipt.status).toBe('ok');
    }
    // And it keeps producing.
    await waitFor(async () => ((await json(`${base}/health`)).body.height > after.height + 10) || undefined, 10_000, 'new blocks');
    second.proc.kill('SIGTERM');
    const code = await new Promise((r) => second.proc.once('exit', r));
    expect(code).toBe(0);
  });
});
