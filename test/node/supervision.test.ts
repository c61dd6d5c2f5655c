/** A supervised actor that throws is restarted (logged, counted) while blocks keep coming. */
import { afterAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/node/node';
import { startNode, tempDir, waitFor } from '../helpers/devnet';

const dir = tempDir();
let node: Node | undefined;
afterAll(async () => {
  await node?.stop();
  dir.remove();
});

describe('supervision in a running node', () => {
  it('restarts the API actor after its handler throws, and production never stops', async () => {
    const started = await startNode(dir.path);
    node = started.node;
    await waitFor(() => node!.chain().height >= 5 || undefined, 5000, 'first blocks');
    const heightBefore = node.chain().height;
    // A message the handler cannot process (no block): it throws inside the actor.
    node.actors.api.send({ type: 'committed', block: undefined as never, result: undefined as never });
    await waitFor(() => (node!.actors.api.stats.restarts === 1 && node!.actors.api.status === 'running') || undefined, 5000, 'api restart');
    expect(node.actors.api.stats.failed).toBe(1);
    await waitFor(() => node!.chain().height >= heightBefore + 20 || undefined, 5000, 'blocks after the restart');
    // The restarted API serves again (a fresh server on the same address).
    const res = await fetch(`${node.apiAddress}/health`);
    expect(res.status).toBe(200);
    expect(node.actors.chain.stats.restarts).toBe(0);
    expect(node.halted).toBeUndefined();
  });
});
