/**
 * Block sync against lying peers, on real processes: a four-validator network in which
 * validators 2 and 3 answer every block-sync request with forged blocks (--faulty-sync:
 * each block's timestamp moved, so its commit no longer signs it).
 *  1. Validator 4 is stopped while the chain moves on; then validator 1, the only honest
 *     server of blocks, is stopped too, and the chain halts (two of four is no quorum).
 *  2. Validator 4 restarts: its only peers are the liars. It must refuse their answers,
 *     apply none of their blocks, stay up, and stop asking them (decision 64). Before,
 *     the first forged block crashed its consensus actor, and every restart asked again.
 *     (It may still climb through the consensus core's certificate exchange, one height
 *     per round trip: certificates are checked the same way, and the liars, honest in
 *     consensus, serve real ones; with it the chain can even resume without validator 1.)
 *  3. Validator 1 restarts, the chain moves on, and validator 4 agrees with it at every
 *     height checked and votes again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';

let net: LocalNetwork;

beforeAll(async () => {
  net = await LocalNetwork.start(4, (i) => (i === 2 || i === 3 ? ['--faulty-sync'] : []));
}, 120_000);

afterAll(async () => {
  await net?.stop();
}, 60_000);

describe('block sync with peers that forge blocks', () => {
  it('a restarted validator refuses forged blocks, stays up, and catches up once an honest peer is back', async () => {
    await net.waitHeight(5);
    await net.kill(4);
    const at = await net.height(1);
    await net.waitHeight(at + 30, [1, 2, 3]);
    await net.kill(1);
    const halted = Math.max(await net.height(2), await net.height(3));

    await net.launch(4);
    await waitFor(async () => ((await net.status(4)).consensus.syncPeersRefused >= 2 ? true : undefined), 60_000, 'both liars refused');
    // Nothing forged was applied (no block came by sync; the few the core's certificate
    // exchange may bring are real, and checked below), and the liars are not asked again
    // at every message.
    const before = (await net.status(4)).consensus;
    await new Promise((r) => setTimeout(r, 3_000));
    const after = (await net.status(4)).consensus;
    expect(after.syncPeersRefused).toBe(before.syncPeersRefused);
    expect(after.blocksSynced).toBe(0);
    expect(net.nodes[3].proc!.exitCode).toBeNull();

    await net.launch(1);
    const head = (await net.height(1)) + 10;
    await net.waitHeight(head, [1, 2, 3, 4], 120_000);
    const status = await net.status(4);
    // Caught up by block sync or by the certificates of the status exchange (bft.ts).
    expect(status.consensus.blocksSynced + status.consensus.counters.certificatesApplied).toBeGreaterThan(20);
    for (const h of [at + 1, at + 15, halted, head]) {
      const [honest, synced] = await Promise.all([net.block(1, h), net.block(4, h)]);
      expect(synced.hash, `block hash at ${h}`).toBe(honest.hash);
      expect(synced.stateRoot, `state root at ${h}`).toBe(honest.stateRoot);
      expect(synced.timestampMs, `timestamp at ${h}`).toBe(honest.timestampMs);
    }

    // It takes part again: a later block's record of its parent's commit carries its signature.
    const four = status.validators[3].address;
    await net.waitForSigner(four, head);
  }, 300_000);
});
