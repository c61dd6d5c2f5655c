/**
 * A node syncing blocks answers its API while it syncs (decision 145 (d)): the consensus
 * actor's first catch-up is its first message, not part of its start, so the API starts
 * beside it. Four validator processes serve a chain of 1,500 blocks built offline
 * (bench/join.ts startBuiltNetwork) and keep producing; a new node started with
 * `--no-state-sync` syncs every block from genesis. Its /status answers long before it
 * is near the head, saying `syncing: true` with the block sync's target, and says
 * `syncing: false` once it follows the chain. Meanwhile its reads of the head's state
 * (an account) answer 503 NOT_SYNCED, the contract's "node not synced", not a stale 200
 * (issue 39 item 6, src/api/catching-up.ts), and 200 once it follows.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, height, startBuiltNetwork, startNode, type BuiltNetwork, type Proc } from '../../bench/join';
import { freePort } from '../../src/cli/launcher';
import { SYNC_GAP } from '../../src/chain/sync';
import { tempDir, waitFor } from '../helpers/devnet';

const BLOCKS = 1_500;
const dir = tempDir('sync-status-');
let net: BuiltNetwork | undefined;
let joiner: Proc | undefined;
afterAll(async () => {
  await joiner?.stop();
  await net?.stop();
  dir.remove();
});

/** An account read: what a stale node would answer from its old state. */
const ACCOUNT = '0x00000000000000000000000000000000000000a1';

async function accountRead(url: string): Promise<{ status: number; code?: string; message?: string } | undefined> {
  try {
    const res = await fetch(`${url}/v1/account/${ACCOUNT}`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { error?: { code: string; message: string } };
    return { status: res.status, code: body.error?.code, message: body.error?.message };
  } catch {
    return undefined;
  }
}

interface Status {
  height: number;
  syncing: boolean;
  sync: { height: number; target: number };
}

async function status(url: string): Promise<Status | undefined> {
  try {
    const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
    return ((await res.json()) as { data: Status }).data;
  } catch {
    return undefined;
  }
}

// Shows contract [D-envelope-status] (503 node not synced).
describe('a node syncing from genesis', () => {
  it('answers /status while it syncs, syncing with a target, then following', async () => {
    net = await startBuiltNetwork(dir.path, BLOCKS, 1);
    const home = join(dir.path, 'joiner');
    cli(['init', '--home', home, '--network', net.genesisFile]);
    const api = await freePort();
    joiner = startNode(['--home', home, '--network', net.genesisFile, '--bootstrap', net.bootstrap, '--port', String(api), '--p2p-port', String(await freePort()), '--session-port', '0', '--no-rate-limit', '--no-state-sync', '--log-level', 'warn']);
    const url = `http://127.0.0.1:${api}`;
    const seen: Array<Status & { head: number; read?: Awaited<ReturnType<typeof accountRead>> }> = [];
    const deadline = Date.now() + 180_000;
    for (;;) {
      expect(joiner.proc.exitCode, joiner.output().slice(-3_000)).toBeNull();
      const head = await height(net.validatorUrl);
      const [s, read] = await Promise.all([status(url), accountRead(url)]);
      if (s !== undefined) {
        seen.push({ ...s, head, read });
        if (s.height >= head - SYNC_GAP && !s.syncing) break;
      }
      expect(Date.now(), `the joiner at the head; the last answers: ${JSON.stringify(seen.slice(-5).map((s) => ({ height: s.height, syncing: s.syncing, head: s.head })))}`).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Answered while far from the head, saying so.
    const early = seen.filter((s) => s.head - s.height > 500);
    const brief = seen.map((s) => ({ height: s.height, syncing: s.syncing, target: s.sync.target, head: s.head }));
    expect(early.length, `the first answers: ${JSON.stringify(brief.slice(0, 5))}`).toBeGreaterThan(0);
    expect(early.every((s) => s.syncing)).toBe(true);
    expect(early.some((s) => s.sync.target > s.sync.height + 500)).toBe(true);
    // Its reads of the head's state meanwhile: 503 NOT_SYNCED naming both heads, never a stale 200.
    const farBehind = seen.filter((s) => s.sync.target > s.sync.height + 500 && s.read !== undefined);
    expect(farBehind.length).toBeGreaterThan(0);
    expect(farBehind.map((s) => s.read!.status), JSON.stringify(farBehind.slice(0, 3).map((s) => s.read))).toEqual(farBehind.map(() => 503));
    expect(farBehind[0].read).toMatchObject({ code: 'NOT_SYNCED', message: expect.stringMatching(/catching up: its head is \d+, the network's \d+/) });
    // And at the end, following, it answers them.
    expect(seen.at(-1)!.syncing).toBe(false);
    await waitFor(async () => ((await accountRead(url))?.status === 200 ? true : undefined), 10_000, 'the account read answered once the node follows');
  }, 300_000);
});
