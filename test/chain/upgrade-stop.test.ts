/**
 * The software-upgrade stop in one in-process node (the solo producer; decision 77): a
 * node of version 0.1.0 executes SoftwareUpgrade{0.2.0, H} after its high-impact
 * timelock, shows it in GET /status, and stops with its head at H − 1 and the message
 * naming 0.2.0; started again as 0.1.0 on that data it stops before starting anything;
 * started as 0.2.0 it goes on past H from the same head.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GovOpKind } from '../../src/codec/txs/governance';
import { genesisHash } from '../../src/genesis/load';
import { Node } from '../../src/node/node';
import { bytesToHex, type Hex } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { devnetGenesis, nodeConfig, tempDir, waitFor } from '../helpers/devnet';
import { GovChain, OWNERS } from '../governance/harness';

const base = devnetGenesis(1).genesis;
const genesis = { ...base, consensus: { ...base.consensus, blockTimeMs: 50, timelockRoutineMs: 200, timelockHighImpactMs: 500 } };
const dir = tempDir('exchain-upgrade-stop-');
afterAll(() => dir.remove());

function node(version: string): Node {
  return new Node(nodeConfig(dir.path, { genesis, genesisHash: genesisHash(genesis), blockTimeMs: 50, version }), createLogger({ destination: 'silent' }));
}

async function get(url: string, path: string): Promise<any> {
  return ((await (await fetch(`${url}${path}`)).json()) as { data: any }).data;
}

async function submit(url: string, tx: { bytes: Uint8Array }): Promise<void> {
  const res = await fetch(`${url}/tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx: bytesToHex(tx.bytes) }) });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe('a node older than a scheduled upgrade', () => {
  it('stops before the height; the named version goes on from the same head', async () => {
    const old = node('0.1.0');
    await old.start();
    const url = old.apiAddress!;
    const sign = new GovChain(genesis);
    const height = old.chain().height + 80;
    const { tx, id } = sign.propose(OWNERS[0], { kind: GovOpKind.SoftwareUpgrade, version: '0.2.0', height });
    await submit(url, tx);
    await submit(url, sign.approve(OWNERS[1], id));
    await waitFor(async () => ((await get(url, '/v1/governance/operations')).operations.find((o: { id: Hex }) => o.id === id)?.state === 'ready' ? true : undefined), 10_000, 'ready');
    await submit(url, sign.execute(OWNERS[2], id));
    const status = await get(url, '/status');
    expect(status).toMatchObject({ version: '0.1.0', upgrade: { version: '0.2.0', height, operationId: id } });
    expect(status.height).toBeLessThan(height - 1);

    const stopped = await old.stopped;
    expect(stopped.halted).toBeUndefined();
    expect(stopped.upgrade).toMatch(new RegExp(`from height ${height} .*0\\.2\\.0 or newer.*this node is version 0\\.1\\.0`));

    const again = node('0.1.0');
    await again.start();
    expect(again.upgradeRequired).toMatch(/Install version 0\.2\.0/);
    expect((await again.stopped).upgrade).toBe(again.upgradeRequired);
    expect(again.apiAddress).toBeUndefined();

    const upgraded = node('0.2.0');
    await upgraded.start();
    try {
      expect(upgraded.upgradeRequired).toBeUndefined();
      expect(upgraded.chain().height).toBe(height - 1);
      await waitFor(() => (upgraded.chain().height >= height + 2 ? true : undefined), 20_000, 'past the upgrade height');
      expect((await get(upgraded.apiAddress!, '/status')).version).toBe('0.2.0');
    } finally {
      await upgraded.stop();
    }
  }, 60_000);
});
