/**
 * A node syncing blocks answers its API while it syncs (decision 145 (d)): the consensus
 * actor's first catch-up is its first message, not part of its start, so the API starts
 * beside it. Four validator processes serve a chain of 1,500 blocks built offline
 * (bench/join.ts startBuiltNetwork) and keep producing; a new node started with
 * `--no-state-sync` syncs every block from genesis. Its /status answers long before it
 * is near the head, saying `syncing: true` with the block sync's target, and says
 * `syncing: false` once it follows the chain.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, height, startBuiltNetwork, startNode, type BuiltNetwork, type Proc } from '../../bench/join';
import { freePort } from '../../src/cli/launcher';
import { SYNC_GAP } from '../../src/chain/sync';
import { tempDir } from '../helpers/devnet';

const BLOCKS = 1_500;
const dir = tempDir('sync-status-');
let net: BuiltNetwork | undefined;
let joiner: Proc | undefined;
afterAll(async () => {
  await joiner?.stop();
  await net?.stop();
  dir.remove();
});

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

describe('a node syncing from genesis', () => {
  it('answers /status while it syncs, syncing with a target, then following', async () => {
    net = await startBuiltNetwork(dir.path, BLOCKS, 1);
    const home = join(dir.path, 'joiner');
    cli(['init', '--home', home, '--network', net.genesisFile]);
    const api = await freePort();
    joiner = startNode(['--home', home, '--network', net.genesisFile, '--bootstrap', net.bootstrap, '--port', String(api), '--p2p-port', String(await freePort()), '--session-port', '0', '--no-rate-limit', '--no-state-sync', '--log-level', 'warn']);
    const url = `http://127.0.0.1:${api}`;
    const seen: Array<Status & { head: number }> = [];
    const deadline = Date.now() + 180_000;
    for (;;) {
      expect(joiner.proc.exitCode, joiner.output().slice(-3_000)).toBeNull();
      const head = await height(net.validatorUrl);
      const s = await status(url);
      if (s !== undefined) {
        seen.push({ ...s, head });
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
    // And at the end, following.
    expect(seen.at(-1)!.syncing).toBe(false);
  }, 300_000);
});
