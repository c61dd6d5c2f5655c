/**
 * The validator's own safety: never sign two different messages for one
 * (height, round, step), even across crashes.
 *
 * Before a signature leaves, the new state is handed to `persist` and awaited (the node
 * writes and fsyncs it); only then is the signature returned. On start the state is
 * loaded back, so after a crash the guard still knows what was signed. Like CometBFT's
 * FilePV: a request below what was last signed (height, then round, then step) is a
 * regression and refused; at the same (height, round, step) the identical message gets
 * the same signature back (a restarted node may ask again) and anything else is refused.
 *
 * It also keeps the votes signed in the round of `lastSigned` (CometBFT keeps its own
 * signed messages in the WAL for the same reason): a validator that restarts into a
 * round it already voted in cannot sign a different vote there, and if it stayed
 * silent the round could lack the votes it needs to end, so the core sends the very
 * vote it signed before (the same message, not a second one).
 *
 * The state also keeps the lock (the last non-nil precommit of the height): Tendermint's
 * safety needs a validator that precommitted B at round r to stay locked on B until a
 * newer proof-of-lock, and a node that forgot its lock in a crash would behave like a
 * Byzantine one ("amnesia"). Restarting at the same height, the core restores the lock
 * from here.
 */
import { CodecError, Reader, Writer } from '../codec/binary';
import type { Address } from '../util/bytes';
import { equalBytes } from '../util/bytes';
import { proposalSigningHash, voteSigningHash, type Proposal, type UnsignedProposal, type UnsignedVote, type Vote } from './messages';
import type { Signer } from './signer';

/** CometBFT's sign steps: a proposal comes before the prevote, the prevote before the precommit. */
export enum SignStep {
  Proposal = 1,
  Prevote = 2,
  Precommit = 3,
}

export interface LastSigned {
  height: number;
  round: number;
  step: SignStep;
  /** null: nil vote. */
  blockHash: Uint8Array | null;
  /** The digest signed: identifies the content (polRound included for proposals). */
  signingHash: Uint8Array;
  signature: Uint8Array;
}

export interface PrivValLock {
  height: number;
  round: number;
  blockHash: Uint8Array;
  /**
   * The locked block's bytes, written before the precommit that locks on it leaves: a
   * validator that restarts while locked must still be able to re-propose the block,
   * or, when every locked validator has restarted, nobody holds it and the height
   * can never end.
   */
  block: Uint8Array | null;
}

/** A vote signed in the round of lastSigned. */
export interface RoundVote {
  step: SignStep.Prevote | SignStep.Precommit;
  blockHash: Uint8Array | null;
  signature: Uint8Array;
}

export interface PrivValState {
  lastSigned: LastSigned | null;
  /** The votes signed at lastSigned's (height, round), at most one per step. */
  roundVotes: RoundVote[];
  lock: PrivValLock | null;
}

export const EMPTY_PRIVVAL_STATE: PrivValState = Object.freeze({ lastSigned: null, roundVotes: [], lock: null });

/** The highest round a state can hold (u32): a reset state's, so every round of its height is below it. */
const ROUND_MAX = 0xffff_ffff;

/**
 * The state the operator's `privval-reset --height H` writes when the privval files were
 * lost or damaged (decision 125): as if the validator had signed the last step of the last
 * round of height H - 1, so every request below height H is a regression and refused, and
 * nothing at H or above is. Its signature is all zeros: it was never sent.
 */
export function resetPrivValState(height: number): PrivValState {
  if (!Number.isSafeInteger(height) || height < 1) throw new RangeError(`privval reset: height ${height} must be 1 or more`);
  return {
    lastSigned: { height: height - 1, round: ROUND_MAX, step: SignStep.Precommit, blockHash: null, signingHash: new Uint8Array(32), signature: new Uint8Array(65) },
    roundVotes: [],
    lock: null,
  };
}

/** Whether `last` is a reset state's floor rather than a step really signed (no round to resume). */
export function isResetFloor(last: LastSigned): boolean {
  return last.round === ROUND_MAX && last.signature.every((b) => b === 0);
}

export interface PrivValidator {
  readonly address: Address;
  /** What was last signed and the lock, as persisted. */
  state(): PrivValState;
  /**
   * @param lockedBlock for a non-nil precommit: the bytes of the block it locks on (persisted with the lock).
   * @throws DoubleSignError when the vote would conflict with what was signed before.
   */
  signVote(chainId: number, vote: UnsignedVote, lockedBlock?: Uint8Array): Promise<Vote>;
  /** @throws DoubleSignError likewise. */
  signProposal(chainId: number, proposal: UnsignedProposal): Promise<Proposal>;
  /** The vote of this type it signed at (height, round), if that is the round it last signed in. */
  signedVote(height: number, round: number, type: 'prevote' | 'precommit'): Vote | null;
}

export type PersistPrivValState = (state: PrivValState) => Promise<void>;

export class DoubleSignError extends Error {
  constructor(
    readonly reason: 'HEIGHT_REGRESSION' | 'ROUND_REGRESSION' | 'STEP_REGRESSION' | 'CONFLICT',
    message: string,
  ) {
    super(`refusing to sign (${reason}): ${message}`);
    this.name = 'DoubleSignError';
  }
}

export interface SignRequest {
  height: number;
  round: number;
  step: SignStep;
  blockHash: Uint8Array | null;
  signingHash: Uint8Array;
}

/**
 * Checks a request against the last signed state. Returns the signature to reuse for an
 * identical request, null when a fresh signature may be made.
 * @throws DoubleSignError
 */
export function checkSignRequest(last: LastSigned | null, req: SignRequest): Uint8Array | null {
  if (last === null) return null;
  const at = `${req.height}/${req.round}/${SignStep[req.step]}`;
  const was = `${last.height}/${last.round}/${SignStep[last.step]}`;
  if (req.height < last.height) throw new DoubleSignError('HEIGHT_REGRESSION', `${at} is below last signed ${was}`);
  if (req.height > last.height) return null;
  if (req.round < last.round) throw new DoubleSignError('ROUND_REGRESSION', `${at} is below last signed ${was}`);
  if (req.round > last.round) return null;
  if (req.step < last.step) throw new DoubleSignError('STEP_REGRESSION', `${at} is below last signed ${was}`);
  if (req.step > last.step) return null;
  if (equalBytes(req.signingHash, last.signingHash)) return last.signature;
  throw new DoubleSignError('CONFLICT', `${at} was already signed for other content`);
}

export class LocalPrivValidator implements PrivValidator {
  readonly address: Address;
  #state: PrivValState;
  /** Sign requests run one at a time: check, sign, persist, release. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly signer: Signer,
    private readonly persist: PersistPrivValState,
    loaded: PrivValState | null,
  ) {
    this.address = signer.address;
    this.#state = loaded ?? EMPTY_PRIVVAL_STATE;
  }

  state(): PrivValState {
    return this.#state;
  }

  signedVote(height: number, round: number, type: 'prevote' | 'precommit'): Vote | null {
    const last = this.#state.lastSigned;
    if (last === null || last.height !== height || last.round !== round) return null;
    const step = type === 'prevote' ? SignStep.Prevote : SignStep.Precommit;
    const v = this.#state.roundVotes.find((x) => x.step === step);
    return v === undefined ? null : { type, height, round, blockHash: v.blockHash, validator: this.address, signature: v.signature };
  }

  signVote(chainId: number, vote: UnsignedVote, lockedBlock?: Uint8Array): Promise<Vote> {
    if (vote.validator !== this.address) return Promise.reject(new Error(`vote names ${vote.validator}, this privval is ${this.address}`));
    const step = vote.type === 'prevote' ? SignStep.Prevote : SignStep.Precommit;
    const signingHash = voteSigningHash(chainId, vote);
    return this.#serial(async () => {
      const signature = await this.#sign({ height: vote.height, round: vote.round, step, blockHash: vote.blockHash, signingHash }, lockedBlock);
      return { ...vote, signature };
    });
  }

  signProposal(chainId: number, proposal: UnsignedProposal): Promise<Proposal> {
    if (proposal.proposer !== this.address) return Promise.reject(new Error(`proposal names ${proposal.proposer}, this privval is ${this.address}`));
    const signingHash = proposalSigningHash(chainId, proposal);
    return this.#serial(async () => {
      const signature = await this.#sign({
        height: proposal.height,
        round: proposal.round,
        step: SignStep.Proposal,
        blockHash: proposal.blockHash,
        signingHash,
      });
      return { ...proposal, signature };
    });
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #sign(req: SignRequest, lockedBlock?: Uint8Array): Promise<Uint8Array> {
    const again = checkSignRequest(this.#state.lastSigned, req);
    if (again !== null) return again;
    const signature = this.signer.sign(req.signingHash);
    const lastSigned: LastSigned = { ...req, signature };
    const prev = this.#state.lock;
    let lock: PrivValLock | null = prev !== null && prev.height === req.height ? prev : null;
    if (req.step === SignStep.Precommit && req.blockHash !== null) {
      const sameBlock = lock !== null && equalBytes(lock.blockHash, req.blockHash);
      lock = { height: req.height, round: req.round, blockHash: req.blockHash, block: lockedBlock ?? (sameBlock ? (lock?.block ?? null) : null) };
    }
    const prevLast = this.#state.lastSigned;
    const sameRound = prevLast !== null && prevLast.height === req.height && prevLast.round === req.round;
    const kept = sameRound ? this.#state.roundVotes : [];
    const roundVotes =
      req.step === SignStep.Proposal ? kept : [...kept.filter((v) => v.step !== req.step), { step: req.step, blockHash: req.blockHash, signature }];
    const next: PrivValState = { lastSigned, roundVotes, lock };
    // Persisted first; a failure leaves the in-memory state as it was and releases nothing.
    await this.persist(next);
    this.#state = next;
    return signature;
  }
}

/** Canonical bytes of the state, for the node's store: `u8 version | lastSigned? | roundVotes | lock?`. */
export function encodePrivValState(s: PrivValState): Uint8Array {
  const w = new Writer(384).u8(1).bool(s.lastSigned !== null);
  if (s.lastSigned) {
    const l = s.lastSigned;
    w.u64(l.height).u32(l.round).u8(l.step).bool(l.blockHash !== null);
    if (l.blockHash) w.fixed(l.blockHash, 32);
    w.fixed(l.signingHash, 32).fixed(l.signature, 65);
  }
  if (s.roundVotes.length > 2) throw new CodecError('RANGE', 'at most two round votes');
  w.u8(s.roundVotes.length);
  for (const v of s.roundVotes) {
    w.u8(v.step).bool(v.blockHash !== null);
    if (v.blockHash) w.fixed(v.blockHash, 32);
    w.fixed(v.signature, 65);
  }
  w.bool(s.lock !== null);
  if (s.lock) {
    w.u64(s.lock.height).u32(s.lock.round).fixed(s.lock.blockHash, 32).bool(s.lock.block !== null);
    if (s.lock.block) w.bytes(s.lock.block);
  }
  return w.finish();
}

export function decodePrivValState(bytes: Uint8Array): PrivValState {
  const r = new Reader(bytes);
  const version = r.u8();
  if (version !== 1) throw new CodecError('VERSION', `unknown privval state version ${version}`);
  let lastSigned: LastSigned | null = null;
  if (r.bool()) {
    const height = r.u64();
    const round = r.u32();
    const step = r.u8();
    if (step < SignStep.Proposal || step > SignStep.Precommit) throw new CodecError('RANGE', `unknown sign step ${step}`);
    const blockHash = r.bool() ? r.fixed(32) : null;
    lastSigned = { height, round, step, blockHash, signingHash: r.fixed(32), signature: r.fixed(65) };
  }
  const count = r.u8();
  if (count > 2) throw new CodecError('RANGE', 'at most two round votes');
  const roundVotes: RoundVote[] = [];
  for (let i = 0; i < count; i++) {
    const step = r.u8();
    if (step !== SignStep.Prevote && step !== SignStep.Precommit) throw new CodecError('RANGE', `round vote step ${step}`);
    if (roundVotes.some((v) => v.step === step)) throw new CodecError('NON_CANONICAL', 'two round votes of one step');
    const blockHash = r.bool() ? r.fixed(32) : null;
    roundVotes.push({ step, blockHash, signature: r.fixed(65) });
  }
  let lock: PrivValLock | null = null;
  if (r.bool()) {
    const height = r.u64();
    const round = r.u32();
    const blockHash = r.fixed(32);
    lock = { height, round, blockHash, block: r.bool() ? r.bytes() : null };
  }
  r.end();
  return { lastSigned, roundVotes, lock };
}
