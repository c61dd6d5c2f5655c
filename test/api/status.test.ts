/**
 * GET /status's `sync` and `validator` (issue 20): block sync's progress, and the node's
 * own key with its lifecycle state in the validator records (observer without a record,
 * null without a key). In-process single-validator devnet nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secp256k1Signer } from '../../src/consensus/signer';
import type { Node } from '../../src/node/node';
import { DEVNET_KEYS, startNode, tempDir, waitFor } from '../helpers/devnet';

/** A key that is no validator's. */
const STRANGER_KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const dirs = [tempDir('exchain-status-'), tempDir('exchain-status-'), tempDir('exchain-status-')];
const nodes: Node[] = [];

async function status(node: Node): Promise<any> {
  return ((await (await fetch(`${node.apiAddress}/status`)).json()) as any).data;
}

beforeAll(async () => {
  // The validator; a node with a key that is no validator's; a node without a key.
  nodes.push((await startNode(dirs[0].path)).node);
  nodes.push((await startNode(dirs[1].path, { validatorKey: STRANGER_KEY })).node);
  nodes.push((await startNode(dirs[2].path, { validatorKey: undefined })).node);
});
afterAll(async () => {
  for (const n of nodes) await n.stop();
  for (const d of dirs) d.remove();
});

// Shows contract [C-rpc-status].
describe('GET /status', () => {
  it("shows the node's key with its lifecycle state: active for a validator, observer without a record, null without a key", async () => {
    const [validator, stranger, keyless] = await Promise.all(nodes.map(status));
    expect(validator.validator).toEqual({ address: DEVNET_KEYS.validators[0].address.toLowerCase(), status: 'active' });
    expect(stranger.validator).toEqual({ address: new Secp256k1Signer(STRANGER_KEY).address, status: 'observer' });
    expect(keyless.validator).toBeNull();
  });

  it('shows sync progress: the head, a target at or past it, blocks per second (0 without a sync)', async () => {
    await waitFor(async () => (await status(nodes[0])).height > 1, 10_000, 'blocks on the solo devnet');
    const s = await status(nodes[0]);
    expect(s.sync.height).toBe(s.height);
    expect(s.sync.target).toBeGreaterThanOrEqual(s.sync.height);
    expect(s.sync.blocksPerSecond).toBe(0);
    // The existing fields are still there.
    expect(s).toMatchObject({ chain: 'devnet', syncing: false, consensus: null });
  });
});
