/**
 * A ConsensusCore of four equal validators under test, fed by hand (test/consensus/core*.test.ts),
 * and readers of its outputs.
 */
import { expect } from 'vitest';
import { Step } from '../../machines/consensus-round';
import { ConsensusCore, type ConsensusApp, type ConsensusInput, type ConsensusOutput } from '../../src/consensus/core';
import type { ProposalRefusal } from '../../src/consensus/core-types';
import { encodePrivValState, decodePrivValState, LocalPrivValidator, type PrivValState } from '../../src/consensus/privval';
import type { Certificate, Proposal } from '../../src/consensus/messages';
import { DEVNET_TIMEOUTS, timeoutConfig } from '../../src/consensus/params';
import { keccak256 } from '../../src/crypto/keccak';
import { bytesToHex, utf8 } from '../../src/util/bytes';
import { CountingVerifier, CHAIN_ID, fixture, proposal, vote } from './helpers';

export const TIMEOUTS = timeoutConfig(DEVNET_TIMEOUTS);
export const SEED = new Uint8Array(32);

/** Four validators of equal power (quorum: 3). The core under test is validator `me`. */
export class Harness {
  readonly f = fixture([10n, 10n, 10n, 10n], 'core');
  readonly disk = { state: null as Uint8Array | null };
  readonly certificates = new Map<number, Certificate>();
  readonly verifier = new CountingVerifier();
  core!: ConsensusCore;
  built = 0;
  /** Told of refused proposals (the consensus actor logs them). */
  onProposalRefused: ((r: ProposalRefusal) => void) | undefined;

  /** `linear`: votes to the round's collector (decision 174, the core's default); false: the all-to-all protocol. */
  constructor(
    readonly me: number,
    readonly linear = true,
  ) {}

  get set() {
    return this.f.set;
  }

  key(i: number) {
    return this.f.keys[i];
  }

  readonly app: ConsensusApp = {
    proposeBlock: (height, round) => {
      this.built++;
      const bytes = utf8.encode(`block ${height}/${round} by ${this.me}`);
      return { hash: keccak256(bytes), bytes };
    },
    // Valid: anything not starting with "bad".
    validateBlock: (bytes) => (utf8.encode('bad').every((b, i) => bytes[i] === b) ? null : keccak256(bytes)),
    certificate: (height) => this.certificates.get(height) ?? null,
  };

  async boot(height = 1): Promise<ConsensusOutput[]> {
    const loaded: PrivValState | null = this.disk.state ? decodePrivValState(this.disk.state) : null;
    const privval = new LocalPrivValidator(
      this.key(this.me),
      async (s) => {
        this.disk.state = encodePrivValState(s);
      },
      loaded,
    );
    this.core = new ConsensusCore({
      chainId: CHAIN_ID,
      validators: this.set,
      privValidator: privval,
      verifier: this.verifier,
      app: this.app,
      timeouts: TIMEOUTS,
      height,
      linearVotes: this.linear,
      onProposalRefused: (r) => this.onProposalRefused?.(r),
    });
    return this.core.start();
  }

  feed(input: ConsensusInput): Promise<ConsensusOutput[]> {
    return this.core.handle(input);
  }

  proposerOf(height: number, round: number): number {
    return this.set.indexOf(this.set.proposer(height, round, SEED).address);
  }

  /** A round of `height` whose proposer is not us (and, optionally, is `who`). */
  roundProposedBy(height: number, pred: (i: number) => boolean, from = 0): number {
    for (let r = from; r < from + 16; r++) if (pred(this.proposerOf(height, r))) return r;
    throw new Error('no such round');
  }

  block(tag: string): { hash: Uint8Array; bytes: Uint8Array } {
    const bytes = utf8.encode(tag);
    return { hash: keccak256(bytes), bytes };
  }

  proposal(height: number, round: number, tag: string, polRound = -1): Proposal {
    return proposal(this.key(this.proposerOf(height, round)), height, round, utf8.encode(tag), polRound);
  }

  /** Votes of validators `who` (indices) as inputs. */
  votes(who: number[], type: 'prevote' | 'precommit', height: number, round: number, blockHash: Uint8Array | null): ConsensusInput[] {
    return who.map((i) => ({ type: 'vote', vote: vote(this.key(i), type, height, round, blockHash) }));
  }

  others(): number[] {
    return [0, 1, 2, 3].filter((i) => i !== this.me);
  }

  /** Fast-forwards to Propose of `round` at height 1 by f+1 votes of that round (round skip). */
  async toRound(round: number): Promise<ConsensusOutput[]> {
    const out: ConsensusOutput[] = [];
    for (const input of this.votes(this.others().slice(0, 2), 'prevote', this.core.height, round, null)) out.push(...(await this.feed(input)));
    return out;
  }
}

/** The votes signed here: broadcast, or sent to the round's collector (linear votes, decision 174). */
export const ownVotes = (out: ConsensusOutput[], type: 'prevote' | 'precommit'): (string | null)[] =>
  out.flatMap((o) =>
    (o.type === 'broadcast' || o.type === 'send') && o.message.kind === 'vote' && o.message.vote.type === type ? [o.message.vote.blockHash ? bytesToHex(o.message.vote.blockHash) : null] : [],
  );
/** The vote certificates broadcast, by type and size. */
export const certificates = (out: ConsensusOutput[]) =>
  out.flatMap((o) => (o.type === 'broadcast' && o.message.kind === 'votes' ? [{ type: o.message.votes[0].type, n: o.message.votes.length }] : []));
export const decisions = (out: ConsensusOutput[]) => out.filter((o): o is Extract<ConsensusOutput, { type: 'decide' }> => o.type === 'decide');
export const timeouts = (out: ConsensusOutput[]) => out.filter((o): o is Extract<ConsensusOutput, { type: 'scheduleTimeout' }> => o.type === 'scheduleTimeout');

export async function feedAll(h: Harness, inputs: ConsensusInput[]): Promise<ConsensusOutput[]> {
  const out: ConsensusOutput[] = [];
  for (const i of inputs) out.push(...(await h.feed(i)));
  return out;
}

/**
 * The validator that proposes round 3 of height 1 (so rounds 0-2 are proposed by others),
 * booted and in Propose of round 0.
 */
export async function follower(): Promise<Harness> {
  const h = new Harness(new Harness(0).proposerOf(1, 3));
  const started = await h.boot();
  expect(timeouts(started)).toEqual([{ type: 'scheduleTimeout', height: 1, round: 0, step: Step.NewHeight, delayMs: 0 }]);
  expect(started.some((o) => o.type === 'broadcast' && o.message.kind === 'status')).toBe(true);
  await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
  expect(h.core.step).toBe(Step.Propose);
  return h;
}
