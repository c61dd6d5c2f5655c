/**
 * ConsensusCore with a validator set that changes between heights (issue 20: consensus
 * follows the set the executed state fixes for each height). Real cores with real keys
 * and privvals, wired by an in-memory network: a validator that joins signs from the
 * first height whose set holds it, one that leaves signs no more and its votes no
 * longer count, and a core whose key is never in the set, or that has none, decides
 * every height without signing anything.
 */
import { describe, expect, it } from 'vitest';
import { Step } from '../../machines/consensus-round';
import { checkCommit } from '../../src/consensus/commit';
import { ConsensusCore, inputFromMessage, type ConsensusApp, type ConsensusInput, type ConsensusOutput } from '../../src/consensus/core';
import { LocalPrivValidator } from '../../src/consensus/privval';
import { DEVNET_TIMEOUTS, timeoutConfig } from '../../src/consensus/params';
import { secp256k1Verifier, type Secp256k1Signer } from '../../src/consensus/signer';
import { ValidatorSet } from '../../src/consensus/validator-set';
import type { Commit } from '../../src/codec/block';
import { keccak256 } from '../../src/crypto/keccak';
import type { Address } from '../../src/util/bytes';
import { bytesToHex, utf8 } from '../../src/util/bytes';
import { CHAIN_ID, proposal, signers, vote } from './helpers';

const TIMEOUTS = timeoutConfig(DEVNET_TIMEOUTS);

/** K0..K4 take turns in the set; K5 is a key that is never in it. */
const K = signers(6, 'core-sets');
const setOf = (keys: Secp256k1Signer[]) => new ValidatorSet(keys.map((k) => ({ address: k.address, power: 10n })));
/** Heights 1-2: K0..K3. Heights 3-4: K4 joins. Heights 5-6: K0 leaves. */
const SET_A = setOf(K.slice(0, 4));
const SET_B = setOf(K.slice(0, 5));
const SET_C = setOf(K.slice(1, 5));
const setAt = (height: number) => (height <= 2 ? SET_A : height <= 4 ? SET_B : SET_C);
const LAST_HEIGHT = 6;

const app = (who: string): ConsensusApp => ({
  proposeBlock: (height, round) => {
    const bytes = utf8.encode(`block ${height}/${round} by ${who}`);
    return { hash: keccak256(bytes), bytes };
  },
  validateBlock: (bytes) => keccak256(bytes),
});

interface Member {
  id: Address;
  core: ConsensusCore;
  timer: Extract<ConsensusOutput, { type: 'scheduleTimeout' }> | undefined;
  decided: Map<number, Commit>;
}

/** Cores for K0..K5 (each with its privval) and one without a key; every message reaches every other core. */
class Network {
  readonly members: Member[] = [];
  readonly queue: { to: Member; input: ConsensusInput }[] = [];
  /** Who signed a proposal or vote at each height, from what the cores broadcast. */
  readonly signedAt = new Map<number, Set<Address>>();

  constructor() {
    for (const [i, key] of K.entries()) this.add(key.address, new LocalPrivValidator(key, async () => undefined, null), `K${i}`);
    this.add('0x00000000000000000000000000000000000000f0', null, 'keyless');
  }

  private add(id: Address, privValidator: LocalPrivValidator | null, who: string): void {
    const core = new ConsensusCore({ chainId: CHAIN_ID, validators: setAt, privValidator, verifier: secp256k1Verifier, app: app(who), timeouts: TIMEOUTS, height: 1 });
    this.members.push({ id, core, timer: undefined, decided: new Map() });
  }

  byId(id: Address): Member | undefined {
    return this.members.find((m) => m.id === id);
  }

  private route(from: Member, out: ConsensusOutput[]): void {
    for (const o of out) {
      if (o.type === 'broadcast' || o.type === 'send') {
        // A vote goes to the round's collector (send) and comes back in its certificate (votes).
        const m = o.message;
        const signed = m.kind === 'vote' ? [m.vote] : m.kind === 'votes' ? m.votes : m.kind === 'proposal' ? [{ validator: m.proposal.proposer, height: m.proposal.height }] : [];
        for (const { validator, height } of signed) {
          if (!this.signedAt.has(height)) this.signedAt.set(height, new Set());
          this.signedAt.get(height)!.add(validator);
        }
      }
      if (o.type === 'broadcast') {
        const m = o.message;
        for (const to of this.members) if (to !== from) this.queue.push({ to, input: inputFromMessage(m, from.id) });
      } else if (o.type === 'send') {
        const to = this.byId(o.to);
        if (to) this.queue.push({ to, input: inputFromMessage(o.message, from.id) });
      } else if (o.type === 'scheduleTimeout') {
        from.timer = o;
      } else if (o.type === 'decide') {
        from.decided.set(o.height, o.commit);
        this.queue.push({ to: from, input: { type: 'commitDone', height: o.height } });
      }
    }
  }

  /** Delivers every message; when none is left, fires each core's pending timer. */
  async run(): Promise<void> {
    for (const m of this.members) this.route(m, await m.core.start());
    for (let steps = 0; steps < 200_000; steps++) {
      if (this.members.every((m) => m.decided.has(LAST_HEIGHT))) return;
      const next = this.queue.shift();
      if (next !== undefined) {
        if (next.to.core.height <= LAST_HEIGHT) this.route(next.to, await next.to.core.handle(next.input));
        continue;
      }
      for (const m of this.members) {
        const t = m.timer;
        if (t === undefined) continue;
        m.timer = undefined;
        this.route(m, await m.core.handle({ type: 'timeout', height: t.height, round: t.round, step: t.step }));
      }
    }
    throw new Error('the network did not reach the last height');
  }
}

describe('ConsensusCore: the set of each height', () => {
  it('a joining validator signs from the first height whose set holds it, a leaving one no more; a key outside the set and a keyless core only follow', async () => {
    const net = new Network();
    await net.run();
    // Everyone decided the same block at every height, with a commit of that height's set.
    for (let h = 1; h <= LAST_HEIGHT; h++) {
      const commits = net.members.map((m) => m.decided.get(h)!);
      expect(new Set(commits.map((c) => bytesToHex(c.blockHash))).size).toBe(1);
      for (const c of commits) {
        expect(checkCommit(CHAIN_ID, setAt(h), secp256k1Verifier, h, c.blockHash, c)).toBeNull();
        for (const s of c.signatures) expect(setAt(h).has(s.validator)).toBe(true);
      }
    }
    const signedBy = (k: Secp256k1Signer) => [...net.signedAt].filter(([, who]) => who.has(k.address)).map(([h]) => h).sort((a, b) => a - b);
    expect(signedBy(K[4])).toEqual([3, 4, 5, 6]);
    expect(signedBy(K[0])).toEqual([1, 2, 3, 4]);
    expect(signedBy(K[1])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(signedBy(K[5])).toEqual([]);
    // The cores report the set of the height they are at.
    expect(net.members[0].core.validators).toBe(setAt(LAST_HEIGHT + 1));
  });

  it("counts no vote of a validator that left: its precommit makes no quorum at a height whose set does not hold it", async () => {
    const core = new ConsensusCore({ chainId: CHAIN_ID, validators: setAt, privValidator: null, verifier: secp256k1Verifier, app: app('follower'), timeouts: TIMEOUTS, height: 5 });
    const outs: ConsensusOutput[] = [...(await core.start())];
    const feed = async (input: ConsensusInput) => outs.push(...(await core.handle(input)));
    await feed({ type: 'timeout', height: 5, round: 0, step: Step.NewHeight });
    const proposer = K.find((k) => k.address === SET_C.proposer(5, 0, new Uint8Array(32)).address)!;
    const block = utf8.encode('block 5');
    const p = proposal(proposer, 5, 0, block);
    await feed({ type: 'proposal', proposal: p });
    const invalidBefore = core.counters.votesInvalid;
    // K0 (left at 5) with K1 and K2: 30 of the old sets' power, 20 of the 40 of set C.
    for (const k of [K[0], K[1], K[2]]) await feed({ type: 'vote', vote: vote(k, 'precommit', 5, 0, p.blockHash) });
    expect(core.counters.votesInvalid).toBe(invalidBefore + 1);
    expect(outs.some((o) => o.type === 'decide')).toBe(false);
    // A third member of set C makes the quorum.
    await feed({ type: 'vote', vote: vote(K[3], 'precommit', 5, 0, p.blockHash) });
    const decided = outs.filter((o) => o.type === 'decide');
    expect(decided).toHaveLength(1);
    expect(decided[0].type === 'decide' && decided[0].commit.signatures.map((s) => s.validator).sort()).toEqual([K[1], K[2], K[3]].map((k) => k.address).sort());
    // Nothing was signed: the core has no key.
    expect(outs.some((o) => o.type === 'broadcast' && o.message.kind !== 'status')).toBe(false);
  });
});
