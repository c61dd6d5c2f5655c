/**
 * Six validator processes on real libp2p (TCP on loopback), each with its own LevelDB:
 * they agree on every block; a transaction sent to one is final on all; one killed
 * with SIGKILL does not stop the others and, restarted, catches up by block sync to
 * the same state root; one frozen with SIGSTOP rejoins after SIGCONT; a validator that
 * double-signs every vote is reported with evidence by the others and tombstoned through a
 * block, and breaks nothing;
 * one that claims heights far ahead makes nobody sync.
 * Then, on a four-validator network of its own, block sync against peers that forge
 * blocks or never answer (below).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_KEYS, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';
import { ExchangeClient } from '../../src/client';
import { DirectItem, directProtocol, encodeBundle } from '../../actors/p2p/p2p-actor';
import { decodeMessage, type ConsensusMessage } from '../../src/consensus/messages';
import { Libp2pTransport } from '../../src/net/libp2p';
import { GossipError, TOPICS, Topic, type GossipHandlers } from '../../src/net/transport';
import { createLogger } from '../../src/util/log';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePrivValState } from '../../src/consensus/privval';
import { decodeSlot } from '../../src/storage/privval-file';

const N = 6;
let net: LocalNetwork;

/**
 * A network for the tests of the enclosing describe: started before them (handed to
 * `started`), stopped after them, so the file's two networks never run at once.
 */
function networkPerSuite(size: number, started: (net: LocalNetwork) => void, extra?: (index: number) => string[]): void {
  let running: LocalNetwork | undefined;
  beforeAll(async () => {
    running = await LocalNetwork.start(size, extra);
    started(running);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
  }, 60_000);
}

/** Every validator in `which` has the same block hash and state root at each height up to `upTo`. */
async function expectAgreement(upTo: number, which = [1, 2, 3, 4, 5, 6], from = 1): Promise<void> {
  for (let h = from; h <= upTo; h++) {
    const blocks = await Promise.all(which.map((i) => net.block(i, h)));
    const first = blocks[0];
    expect(first, `block ${h}`).toBeDefined();
    for (const b of blocks) {
      expect(b.hash, `block hash at ${h}`).toBe(first.hash);
      expect(b.stateRoot, `state root at ${h}`).toBe(first.stateRoot);
    }
  }
}

describe('a six-validator network of real processes', () => {
  networkPerSuite(N, (started) => (net = started));

  // Shows contract [C-conv-finality].
  it('agrees on every block, and a transaction sent to one validator is final on all', async () => {
    await net.waitHeight(10);
    const to = privateKeyToAccount(DEVNET_KEYS.accounts[5].privateKey).address.toLowerCase();
    const res = await fetch(`${net.nodes[1].url}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: to, amount: '7' }),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const { txHash, height } = body.data;
    // The block that carries it is the same block on every validator.
    await net.waitHeight(height);
    for (let i = 1; i <= N; i++) expect((await net.block(i, height)).transactions).toContain(txHash);
    // Transactions (the faucet's, the oracle observations every validator signs) reach
    // the other validators in the point-to-point bundles, none of them malformed.
    for (let i = 1; i <= N; i++) {
      const bundles = (await net.status(i)).p2p.stats.bundles;
      expect(bundles.txBatchesReceived, `validator ${i}`).toBeGreaterThan(0);
      expect(bundles.consensusReceived, `validator ${i}`).toBeGreaterThan(0);
      expect(bundles.malformed, `validator ${i}`).toBe(0);
    }
    // A perp position opened through validator 3 against the pool, at the validators'
    // oracle median (every validator signs observations), is the same on validator 6.
    const trader = privateKeyToAccount(DEVNET_KEYS.accounts[6].privateKey);
    const three = new ExchangeClient(net.nodes[2].url, { chainId: 713799 });
    const opened = await waitFor(
      () => three.perpOpen(trader, { pairId: 1, isLong: true, leverage: 5, margin: '100' }).catch(() => undefined),
      30_000,
      'a perp open once the oracle is fresh',
    );
    const six = new ExchangeClient(net.nodes[5].url, { chainId: 713799 });
    await waitFor(async () => ((await six.positions(trader.address)).some((p: any) => p.positionId === opened.positionId) ? true : undefined), 30_000, 'the position on validator 6');
    const heights = await Promise.all(net.nodes.map((n) => net.height(n.index)));
    await expectAgreement(Math.min(...heights));
    // Blocks come from more than one proposer.
    const proposers = new Set<string>();
    for (let h = 1; h <= Math.min(...heights); h++) proposers.add((await net.block(1, h)).proposer);
    expect(proposers.size).toBeGreaterThan(1);
  }, 120_000);

  it('keeps going without a SIGKILLed validator, which catches up to the same state root when restarted', async () => {
    await net.kill(6);
    const at = Math.max(...(await Promise.all([1, 2, 3, 4, 5].map((i) => net.height(i)))));
    // What it signed up to the kill is on disk, in its privval files (decision 58).
    const slots = ['a', 'b'].map((s) => decodeSlot(readFileSync(join(net.dataDir(6), 'privval', s)))).filter((s) => s !== undefined);
    const newest = slots.sort((x, y) => (y.seq > x.seq ? 1 : -1))[0];
    expect(decodePrivValState(newest.payload).lastSigned!.height).toBeGreaterThanOrEqual(at - 3);
    await net.waitHeight(at + 30, [1, 2, 3, 4, 5]);
    await net.launch(6);
    const head = await net.height(1);
    await net.waitHeight(head, [6]);
    const status = await net.status(6);
    expect(status.consensus.blocksSynced + status.consensus.counters.certificatesApplied).toBeGreaterThan(0);
    await expectAgreement(head, [1, 6], Math.max(1, at - 5));
    // It votes again: a later block's record of the parent's commit carries its signature.
    const six = (await net.status(6)).validators[5].address;
    await net.waitForSigner(six, head);
  }, 180_000);

  it('a validator frozen with SIGSTOP rejoins after SIGCONT', async () => {
    net.signal(5, 'SIGSTOP');
    const at = await net.height(1);
    await net.waitHeight(at + 30, [1, 2, 3, 4, 6]);
    net.signal(5, 'SIGCONT');
    const head = await net.height(1);
    await net.waitHeight(head + 5, [5]);
    await expectAgreement(head, [1, 5], at - 2);
  }, 180_000);

  it('reports a validator that double-signs every vote, tombstones it through the evidence in a block, and keeps agreeing', async () => {
    await net.kill(4);
    await net.launch(4, ['--equivocate']);
    const four = (await net.status(1)).validators[3].address;
    await waitFor(
      async () => {
        for (const i of [1, 2, 3, 5, 6]) {
          const s = await net.status(i);
          if (!s.consensus.evidence.some((e: any) => e.offender === four)) return undefined;
        }
        return true;
      },
      60_000,
      'evidence against validator 4 on every honest validator',
    );
    const s = await net.status(1);
    expect(s.consensus.evidence.every((e: any) => e.offender === four)).toBe(true);
    // The evidence went into a block: the offender is tombstoned on every node (decision 72).
    await waitFor(
      async () => {
        for (const i of [1, 2, 3, 5, 6]) {
          const res = (await (await fetch(`${net.nodes[i - 1].url}/v1/validators`)).json()) as any;
          if (res.data.validators.find((v: any) => v.address === four)?.status !== 'tombstoned') return undefined;
        }
        return true;
      },
      60_000,
      'validator 4 tombstoned on every honest validator',
    );
    const head = await net.height(1);
    await net.waitHeight(head + 10);
    await expectAgreement(head + 10, [1, 2, 3, 4, 5, 6], head - 10);
  }, 180_000);

  it('starts no block sync for one validator claiming heights far ahead, and every honest validator keeps committing', async () => {
    // Validator 5 follows each vote with a status message 1,000 heights ahead (validator 4,
    // tombstoned if the equivocation test ran first, no longer votes; honest otherwise: in
    // either order faulty power is below a third). One validator's claim is no
    // proof that anyone is there (decision 66); before, every such message made each
    // honest validator ask all its peers for blocks they did not have.
    await net.kill(5);
    await net.launch(5, ['--claim-ahead']);
    const honest = [1, 2, 3, 6];
    await waitFor(async () => ((await net.status(1)).consensus.messagesAheadIgnored > 20 ? true : undefined), 30_000, 'claims from validator 5');
    const before = await Promise.all(honest.map((i) => net.status(i)));
    // The window is counted in claims and heights, not seconds, so a busy machine only
    // makes it longer: every honest validator ignores 50 more claims and commits 25 more
    // heights. How fast blocks come under the fault, beside the same network without it,
    // is a figure of `npm run bench -- claim-ahead`, not a property of this machine.
    const after = await waitFor(
      async () => {
        const now = await Promise.all(honest.map((i) => net.status(i)));
        const done = now.every((s, k) => s.consensus.messagesAheadIgnored - before[k].consensus.messagesAheadIgnored > 50 && s.height >= before[k].height + 25);
        return done ? now : undefined;
      },
      90_000,
      'claims ignored and heights committed by every honest validator',
    );
    for (let k = 0; k < honest.length; k++) {
      const [b, a] = [before[k], after[k]];
      expect(a.consensus.syncsStarted, `syncs on validator ${honest[k]}`).toBe(b.consensus.syncsStarted);
      expect(a.consensus.messagesAheadIgnored - b.consensus.messagesAheadIgnored, `claims ignored by validator ${honest[k]}`).toBeGreaterThan(50);
      expect(a.height - b.height, `heights committed by validator ${honest[k]}`).toBeGreaterThanOrEqual(25);
    }
    const head = await net.height(1);
    await net.waitHeight(head + 5);
    await expectAgreement(head + 5, [1, 2, 3, 4, 5, 6], head - 5);
  }, 180_000);

  it('publishes its consensus messages and transactions on the gossip topics to a full node that subscribes', async () => {
    // Validators send each other consensus messages and transactions point to point and
    // do not subscribe to these topics; a node that does (a full node) gets them.
    const got: ConsensusMessage[] = [];
    let txBatches = 0;
    const handlers = Object.fromEntries(
      TOPICS.map((t) => [
        t,
        (data: Uint8Array) => {
          if (t === Topic.Txs) return void txBatches++;
          if (t !== Topic.Proposals && t !== Topic.Votes) throw new GossipError('ignore', 'UNUSED');
          got.push(decodeMessage(data, { maxBlockBytes: 4 << 20 }));
        },
      ]),
    ) as unknown as GossipHandlers;
    const observer = new Libp2pTransport({
      chainId: 713799,
      privateKey: randomBytes(32),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      bootstrap: [net.p2pAddrs[0]],
      log: createLogger({ destination: 'silent' }),
      subscribe: [Topic.Proposals, Topic.Votes, Topic.Txs],
      redialMs: 200,
    });
    await observer.start(handlers);
    try {
      // Linear votes (decision 174): validator 1's votes go to each round's collector; as a
      // collector it publishes vote certificates, a quorum (four of six) of one step's
      // votes, or one precommit that came after its certificate: what a full node decides from.
      await waitFor(() => (got.some((m) => m.kind === 'proposal') && got.filter((m) => m.kind === 'votes').length >= 10) || undefined, 30_000, 'proposals and vote certificates over gossip');
      const certificates = got.flatMap((m) => (m.kind === 'votes' ? [m.votes] : []));
      expect(certificates.every((vs) => vs.length >= 4 || (vs.length === 1 && vs[0].type === 'precommit'))).toBe(true);
      expect(new Set(certificates.map((vs) => vs[0].type))).toEqual(new Set(['prevote', 'precommit']));
      expect(new Set(certificates.flatMap((vs) => vs.map((v) => v.validator.toLowerCase()))).size).toBeGreaterThanOrEqual(4);
      // Validator 1's transaction batches too (its oracle observation, every second).
      await waitFor(() => txBatches > 0 || undefined, 10_000, 'transactions over gossip');
      // The point-to-point protocol is for validators only: a full node's bundle is dropped unread.
      const before = (await net.status(1)).p2p.stats.bundles;
      observer.sendDirect(net.p2pAddrs[0].split('/p2p/')[1], directProtocol(713799), encodeBundle([new Uint8Array([DirectItem.Txs, 0, 0, 0, 0])]));
      const after = await waitFor(async () => {
        const b = (await net.status(1)).p2p.stats.bundles;
        return b.fromNonValidators > before.fromNonValidators ? b : undefined;
      }, 10_000, 'the full node bundle refused');
      expect(after.malformed).toBe(before.malformed);
    } finally {
      await observer.stop();
    }
  }, 60_000);
});

/**
 * Block sync against peers that lie or stall, on real processes: a four-validator
 * network in which validator 2 answers every block-sync request with forged blocks
 * (--faulty-sync: each block's timestamp moved, so its commit no longer signs it) and
 * validator 3 never answers one (--stall-sync).
 *  1. Validator 4 is stopped while the chain moves on; then validator 1, the only honest
 *     server of blocks, is stopped too, and the chain halts (two of four is no quorum).
 *  2. Validator 4 restarts: its only peers are the liar and the staller. It must refuse
 *     the forged answer, give up on the silent peer at its timeout, apply no block of
 *     theirs, stay up with its consensus actor never restarted, and stop asking them
 *     (decision 64). Before, the first forged block crashed its consensus actor, and the
 *     stalled request was never timed out: the actor's wait for it ended in a timeout
 *     that restarted consensus, which asked the same peer first again.
 *     (It may still climb through the consensus core's certificate exchange, one height
 *     per round trip: certificates are checked the same way, and both peers, honest in
 *     consensus, serve real ones; with it the chain can even resume without validator 1.)
 *  3. Validator 1 restarts, the chain moves on, and validator 4 agrees with it at every
 *     height checked and votes again.
 * It lives in this file, after the six-validator network has stopped, so that two
 * networks of real processes never run at once on the machine's two cores (one full
 * run, with this test in its own file, lost a validator of the six; its cause is not
 * known, and LocalNetwork now prints the output of a validator that ends by itself).
 */
describe('block sync with peers that forge blocks or never answer', () => {
  let sync: LocalNetwork;
  networkPerSuite(4, (started) => (sync = started), (i) => (i === 2 ? ['--faulty-sync'] : i === 3 ? ['--stall-sync'] : []));

  it('a restarted validator refuses forged blocks, gives up on a silent peer, stays up, and catches up once an honest peer is back', async () => {
    await sync.waitHeight(5);
    await sync.kill(4);
    const at = await sync.height(1);
    await sync.waitHeight(at + 30, [1, 2, 3]);
    await sync.kill(1);
    const halted = Math.max(await sync.height(2), await sync.height(3));

    await sync.launch(4);
    await waitFor(
      async () => {
        const c = (await sync.status(4)).consensus;
        return c.syncPeersRefused >= 1 && c.syncPeersUnanswered >= 1 ? true : undefined;
      },
      60_000,
      'the liar refused and the silent peer given up on',
    );
    // Nothing forged was applied (no block came by sync; the few the core's certificate
    // exchange may bring are real, and checked below), the liar is not asked again at
    // every message, and consensus was never restarted.
    const first = await sync.status(4);
    const before = first.consensus;
    // A window counted in what validator 4 takes in, not in seconds (a busy machine only
    // makes it longer): 20 more consensus messages from its peers, each of which used to
    // send it to the liar again.
    const received = first.p2p.stats.bundles.consensusReceived as number;
    await waitFor(async () => ((await sync.status(4)).p2p.stats.bundles.consensusReceived >= received + 20 ? true : undefined), 120_000, '20 more consensus messages taken in by validator 4');
    const status4 = await sync.status(4);
    const after = status4.consensus;
    expect(after.syncPeersRefused).toBe(before.syncPeersRefused);
    expect(after.blocksSynced).toBe(0);
    expect(status4.actors.consensus.restarts).toBe(0);
    expect(status4.actors.consensus.status).toBe('running');
    expect(sync.nodes[3].proc!.exitCode).toBeNull();

    await sync.launch(1);
    const head = (await sync.height(1)) + 10;
    await sync.waitHeight(head, [1, 2, 3, 4], 120_000);
    const status = await sync.status(4);
    expect(status.actors.consensus.restarts).toBe(0);
    // Caught up by block sync or by the certificates of the status exchange (bft.ts).
    expect(status.consensus.blocksSynced + status.consensus.counters.certificatesApplied).toBeGreaterThan(20);
    for (const h of [at + 1, at + 15, halted, head]) {
      const [honest, synced] = await Promise.all([sync.block(1, h), sync.block(4, h)]);
      expect(synced.hash, `block hash at ${h}`).toBe(honest.hash);
      expect(synced.stateRoot, `state root at ${h}`).toBe(honest.stateRoot);
      expect(synced.timestampMs, `timestamp at ${h}`).toBe(honest.timestampMs);
    }

    // It takes part again: a later block's record of its parent's commit carries its signature.
    const four = status.validators[3].address;
    await sync.waitForSigner(four, head);
  }, 300_000);
});
