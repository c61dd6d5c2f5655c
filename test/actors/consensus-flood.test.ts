/**
 * A consensus actor whose inbox is flooded with votes far beyond its capacity still
 * times out and moves its round on (issue 19, item 4). One validator of four, a real
 * node (chain, mempool, p2p with no peers, the real ConsensusCore and real timers): two
 * other validators' signed votes, sent before the flood, make +2/3 "any" but no
 * majority, so round 0 can end only through the actor's own timeouts (Propose →
 * Prevote → PrevoteWait ─timeout─▶ Precommit → PrecommitWait ─timeout─▶ round 1).
 * Meanwhile junk votes (the current height, rounds far ahead: refused unchecked) keep
 * the vote lane full on every turn of the event loop.
 *
 * Before the timeouts had a lane of their own, a timer's send() into the full mailbox
 * was refused and ignored, and the round stayed where it was for good.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { voteSigningHash, type Vote, type VoteType } from '../../src/consensus/messages';
import { sign } from '../../src/crypto/secp256k1';
import { genesisHash } from '../../src/genesis/load';
import type { ConsensusInfo } from '../../actors/consensus/messages';
import { Node } from '../../src/node/node';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, devnetGenesis, nodeConfig, tempDir, waitFor } from '../helpers/devnet';

/** Junk votes per flood turn: several times any capacity the vote path has. */
const FLOOD_PER_TURN = 20_000;
/** A liveness bound, not a speed one: rounds of this genesis take well under a second. */
const ROUND_ONE_WITHIN_MS = 60_000;

describe('consensus actor under a vote flood', () => {
  let node: Node | undefined;
  let dir: ReturnType<typeof tempDir> | undefined;
  let stopFlood: (() => void) | undefined;

  afterEach(async () => {
    stopFlood?.();
    await node?.stop();
    dir?.remove();
  });

  it('still times out and reaches round 1; the drops are the vote lane\'s, none the timeouts\'', async () => {
    const { genesis } = devnetGenesis(4);
    const keys = DEVNET_KEYS.validators.slice(0, 4).map((v) => ({ address: v.address as Address, key: hexToBytes(v.ecdsaPrivateKey) }));
    expect(genesis.validators.map((v) => v.address.toLowerCase())).toEqual(keys.map((k) => k.address.toLowerCase()));
    dir = tempDir('exchain-flood-');
    node = new Node(
      nodeConfig(dir.path, {
        genesis,
        genesisHash: genesisHash(genesis),
        validatorKey: keys[0].key,
        api: null,
        p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [] },
      }),
      createLogger({ destination: 'silent' }),
    );
    await node.start();
    const n = node;
    const consensus = n.actors.consensus!;
    const info = (): ConsensusInfo => n.consensusInfo()!;
    await waitFor(() => (info().step !== 'Syncing' ? true : undefined), 20_000, 'the consensus core to start');
    expect(info().height).toBe(1);

    const vote = (signer: (typeof keys)[number], type: VoteType, blockHash: Uint8Array | null): Vote => {
      const unsigned = { type, height: 1, round: 0, blockHash, validator: signer.address };
      return { ...unsigned, signature: sign(voteSigningHash(genesis.chainId, unsigned), signer.key) };
    };
    // Two of the other three: with ours, +2/3 of the power voted, for no one value.
    const real = [
      vote(keys[1], 'prevote', null),
      vote(keys[2], 'prevote', randomBytes(32)),
      vote(keys[1], 'precommit', null),
      vote(keys[2], 'precommit', randomBytes(32)),
    ];
    for (const v of real) expect(consensus.send({ type: 'message', message: { kind: 'vote', vote: v }, from: v.validator })).toBe(true);
    await waitFor(() => (info().counters.votesAdded >= real.length ? true : undefined), 10_000, 'the real votes to be counted');

    // The flood: every check phase and every millisecond, far more votes than fit.
    let junkRound = 100_000;
    let sent = 0;
    const flood = () => {
      for (let i = 0; i < FLOOD_PER_TURN; i++) {
        const v: Vote = { type: 'prevote', height: 1, round: junkRound++, blockHash: null, validator: keys[3].address, signature: new Uint8Array(65) };
        consensus.send({ type: 'message', message: { kind: 'vote', vote: v }, from: keys[3].address });
        sent++;
      }
    };
    let flooding = true;
    const onImmediate = () => {
      if (!flooding) return;
      flood();
      setImmediate(onImmediate);
    };
    const interval = setInterval(flood, 1);
    stopFlood = () => {
      flooding = false;
      clearInterval(interval);
    };
    flood();
    setImmediate(onImmediate);

    const steps = new Set<string>();
    const reached = await waitFor(
      () => {
        const i = info();
        steps.add(`${i.round}:${i.step}`);
        return i.round >= 1 ? i : undefined;
      },
      ROUND_ONE_WITHIN_MS,
      'round 1 under the flood',
    ).catch((err: Error) => {
      const i = info();
      throw new Error(`${err.message}: stuck at round ${i.round} step ${i.step}; consensus actor ${JSON.stringify(n.actorStats().consensus)}`);
    });
    stopFlood();

    expect(reached.height).toBe(1);
    expect(reached.round).toBeGreaterThanOrEqual(1);
    // Round 0 went through its wait steps, which only a timeout leaves here.
    expect([...steps].some((s) => s.startsWith('0:'))).toBe(true);
    const lanes = info().lanes;
    expect(sent).toBeGreaterThan(lanes.vote.capacityMsgs * 2);
    expect(lanes.vote.dropped).toBeGreaterThan(0);
    // PrevoteWait's and PrecommitWait's timeouts at least came through their lane, and none was lost.
    expect(lanes.timeout.enqueued).toBeGreaterThanOrEqual(2);
    expect(lanes.timeout.dropped).toBe(0);
    expect(lanes.proposal.dropped + lanes.status.dropped + lanes.certificate.dropped + lanes.evidence.dropped).toBe(0);
  }, 120_000);
});
