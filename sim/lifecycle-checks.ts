/**
 * The checker's part about the validator set as it changes (sim/checks.ts calls it):
 * fed the honest chain's blocks (the first honest node to commit each height, with the
 * set that signs the next one) and every honest decision's verified precommits.
 *  - every signature a decision's commit carries is from a member of its height's set:
 *    a jailed, tombstoned, unbonded or not yet seated validator signs nothing counted;
 *  - no set holds a validator whose record is jailed or tombstoned, nor one tombstoned
 *    before (never again), and no set is smaller than activeSetMin but by tombstones
 *    (decision 69: tombstoning does not wait for the floor);
 *  - at the end, every validator of the last set seated at least SIGN_WITHIN_HEIGHTS
 *    before the top (a joiner at its boundary, an unjailed one at its new boundary, a
 *    genesis one at height 1) signed a commit at or after its seating;
 *  - a validator whose unbonding ended got its locked bond back in its native balance;
 *  - the power cap (decision 158): in a set of 4 or more no validator holds 1/3 of the
 *    power, in one of 7 or more none more than the genesis votingPowerCapBps (the
 *    scenario's whale joiner tests it).
 * And the counts of the result: joins, jails, unjails, tombstones, unbonds.
 * The per-block work runs in the lifecycle scenario only (the default runs' sets stay
 * the genesis one); the membership check of the commits runs always.
 */
import type { ValidatorSet } from '../src/consensus/validator-set';
import type { Genesis } from '../src/genesis/types';
import type { BlockResult } from '../src/state/apply';
import type { State } from '../src/state/state';
import { validatorAddresses, validatorRecord } from '../src/state/validators/records';
import type { Address } from '../src/util/bytes';
import type { LifecycleCounts, ViolationKind } from './options';

/** A validator seated this many heights before the top must have signed since. */
const SIGN_WITHIN_HEIGHTS = 20;

export class LifecycleChecks {
  readonly counts: LifecycleCounts = { joins: 0, jails: 0, unjails: 0, tombstones: 0, unbonds: 0 };
  readonly #genesis: ReadonlySet<Address>;
  readonly #activeSetMin: number;
  readonly #capBps: bigint;
  /** The set of the last height fed. */
  #current: ValidatorSet;
  /** Validator -> the height from which its latest seating counts. */
  readonly #seatedAt = new Map<Address, number>();
  /** Validator -> the highest height of a decided commit that carries its signature. */
  readonly #lastSigned = new Map<Address, number>();
  /** Jailed and not seated again since. */
  readonly #jailed = new Set<Address>();
  readonly #tombstoned = new Set<Address>();
  readonly #everSeated = new Set<Address>();
  /** Unbonding validators: their locked bond and native balance at the last block fed. */
  readonly #unbonding = new Map<Address, { lockedWei: bigint; nativeWei: bigint }>();

  constructor(
    genesis: Genesis,
    genesisSet: ValidatorSet,
    private readonly violation: (kind: ViolationKind, message: string) => void,
    private readonly enabled: boolean,
  ) {
    this.#genesis = new Set(genesis.validators.map((v) => v.address.toLowerCase() as Address));
    this.#activeSetMin = genesis.consensus.activeSetMin;
    this.#capBps = BigInt(genesis.consensus.votingPowerCapBps);
    this.#current = genesisSet;
    for (const v of genesisSet.validators) {
      this.#seatedAt.set(v.address, 1);
      this.#everSeated.add(v.address);
    }
  }

  /** A verified precommit of `validator` in the commit an honest node decided `height` with. */
  signed(node: number, height: number, validator: Address, set: ValidatorSet): void {
    if (!set.has(validator)) {
      const why = this.#tombstoned.has(validator) ? 'tombstoned' : this.#jailed.has(validator) ? 'jailed' : 'not a member';
      this.violation('lifecycle', `node ${node} decided ${height} with a commit signed by ${validator}, ${why}, outside the set of ${height}`);
      return;
    }
    if ((this.#lastSigned.get(validator) ?? 0) < height) this.#lastSigned.set(validator, height);
  }

  /** The honest chain committed `height`: `state` after it, `next` the set that signs height + 1. */
  onHonestBlock(height: number, result: BlockResult, state: State, next: ValidatorSet): void {
    if (!this.enabled) return;
    for (const e of result.blockEvents) {
      if (e.type !== 'ValidatorJailed') continue;
      this.counts.jails++;
      this.#jailed.add(e.validator);
    }
    for (const r of result.receipts) {
      for (const e of r.events) {
        if (e.type !== 'ValidatorTombstoned') continue;
        this.counts.tombstones++;
        this.#tombstoned.add(e.validator);
      }
    }
    for (const v of next.validators) {
      if (this.#tombstoned.has(v.address)) this.violation('lifecycle', `tombstoned validator ${v.address} is in the set of height ${height + 1}`);
      const status = validatorRecord(state, v.address)?.status;
      if (status === 'jailed' || status === 'tombstoned') this.violation('lifecycle', `validator ${v.address}, ${status}, is in the set of height ${height + 1}`);
      if (this.#current.has(v.address)) continue;
      // Seated from height + 1.
      if (!this.#genesis.has(v.address) && !this.#everSeated.has(v.address)) this.counts.joins++;
      if (this.#jailed.delete(v.address)) this.counts.unjails++;
      this.#everSeated.add(v.address);
      this.#seatedAt.set(v.address, height + 1);
    }
    if (next.size < this.#activeSetMin && next.size + this.#tombstoned.size < this.#activeSetMin) {
      this.violation('lifecycle', `the set of height ${height + 1} has ${next.size} validators, below activeSetMin ${this.#activeSetMin}`);
    }
    if (next !== this.#current) this.#checkPowers(height + 1, next);
    this.#current = next;
    this.#checkUnbonding(height, state);
  }

  /** No validator of a set of 4 or more holds 1/3 of its power; of 7 or more, none above capBps. */
  #checkPowers(height: number, set: ValidatorSet): void {
    const total = set.validators.reduce((t, v) => t + v.power, 0n);
    for (const v of set.validators) {
      if (set.size >= 4 && 3n * v.power >= total) this.violation('lifecycle', `validator ${v.address} holds ${v.power} of ${total} power in the set of height ${height}: 1/3 or more`);
      if (set.size >= 7 && v.power * 10_000n > total * this.#capBps) this.violation('lifecycle', `validator ${v.address} holds ${v.power} of ${total} power in the set of height ${height}: above ${this.#capBps} bps`);
    }
  }

  #checkUnbonding(height: number, state: State): void {
    for (const address of validatorAddresses(state)) {
      const rec = validatorRecord(state, address);
      if (rec === undefined) continue;
      const before = this.#unbonding.get(address);
      const nativeWei = state.account(address).nativeWei;
      if (rec.status === 'unbonding') {
        this.#unbonding.set(address, { lockedWei: rec.context.lockedWei, nativeWei });
        continue;
      }
      if (before === undefined) continue;
      this.#unbonding.delete(address);
      if (rec.status !== 'exited') continue;
      this.counts.unbonds++;
      if (rec.funder === undefined && nativeWei - before.nativeWei < before.lockedWei) {
        this.violation('lifecycle', `validator ${address} exited at height ${height} with ${nativeWei - before.nativeWei} wei back of its locked ${before.lockedWei}`);
      }
    }
  }

  /** The end of the run, the honest top at `top`: every validator of the last set seated long enough signed since. */
  atEnd(top: number): void {
    if (!this.enabled) return;
    for (const v of this.#current.validators) {
      const seatedAt = this.#seatedAt.get(v.address) ?? 1;
      if (top - seatedAt < SIGN_WITHIN_HEIGHTS) continue;
      const last = this.#lastSigned.get(v.address) ?? 0;
      if (last < seatedAt) this.violation('lifecycle', `validator ${v.address}, seated from height ${seatedAt}, signed no decided commit since (top ${top})`);
    }
  }
}
