/**
 * The validator set of a height: addresses with voting power, the quorum rule, and the
 * proposer of each (height, round).
 *
 * Quorum: 2/3 of the total power or more (`3·p ≥ 2·T`), as contract [C-limits-validator-set]
 * words it ("2/3 or more of the votes commit a block"; decision 59). The fault model is faulty power strictly
 * below 1/3 (one of six equal validators). Two quorums then share at least 1/3 of the
 * power, which is more than the faulty power, so at least one honest validator is in
 * both, which is what makes two conflicting commits impossible; and the honest power,
 * more than 2/3, is a quorum on its own, so the chain stays live. With six equal
 * validators a quorum is four (strictly more than 2/3 would be five: the same safety
 * under this fault model, but every round would wait for the fifth vote). Where the
 * set's size is 3k + 1 (4, 7, …) the two rules agree. "f + 1" (round skipping) is
 * strictly more than 1/3 (`3·p > T`): at least one honest validator is in that round.
 *
 * Proposer selection (documented in docs/consensus.md): per height, a weighted
 * shuffle. From `seed` (on the chain, the seed after the previous block: derived from
 * that block's ECVRF output, src/consensus/proposer-vrf.ts, decision 70; here any bytes)
 * and the height, draw validators without replacement, each draw picking
 * validator v with probability power(v) / (power left). Draw i uses
 *   x_i = keccak256("exchange-chain/proposer/v1" | seed | u64 height | u32 i) as a
 *   256-bit big-endian integer, target = x_i mod (power left),
 * and walks the remaining validators in address order until the cumulative power
 * exceeds target. proposer(height, round) = order[round mod n]. So round 0's proposer
 * is drawn in proportion to voting power (the modulo bias is below 2^-150 for any real
 * total), and consecutive rounds of one height rotate through every validator before
 * repeating: a crashed proposer costs at most one round per n.
 */
import { Writer } from '../codec/binary';
import { keccak256 } from '../crypto/keccak';
import type { GenesisValidator } from '../genesis/types';
import type { Address } from '../util/bytes';
import { bytesToHex, isAddress } from '../util/bytes';
import { VALIDATORS_MAX } from './limits';

export interface Validator {
  readonly address: Address;
  readonly power: bigint;
}

/**
 * p is a quorum iff p·den > T·num (or >= when inclusive). The default is {2, 3, inclusive}.
 * Anything else breaks safety: it exists so the simulator can show its checker catches
 * a broken quorum. Never configure it in a node.
 */
export interface QuorumRule {
  num: bigint;
  den: bigint;
  inclusive: boolean;
}

export const TWO_THIRDS: QuorumRule = Object.freeze({ num: 2n, den: 3n, inclusive: true });

const PROPOSER_DOMAIN = 'exchange-chain/proposer/v1';
const ORDER_CACHE_MAX = 8;

/** A proposer order being drawn: `order` so far, and what is left to draw from. */
interface ProposerDraw {
  height: number;
  seed: Uint8Array;
  left: Validator[];
  leftPower: bigint;
  order: Validator[];
}

export class ValidatorSet {
  /** Sorted by address, no duplicates, every power > 0. */
  readonly validators: readonly Validator[];
  readonly totalPower: bigint;
  readonly quorum: QuorumRule;
  readonly #index = new Map<Address, number>();
  readonly #orders = new Map<string, ProposerDraw>();
  #lastDraw: ProposerDraw | undefined;

  constructor(validators: readonly Validator[], options: { unsafeQuorumForSimulation?: QuorumRule } = {}) {
    if (validators.length === 0) throw new RangeError('a validator set needs at least one validator');
    if (validators.length > VALIDATORS_MAX) throw new RangeError(`at most ${VALIDATORS_MAX} validators`);
    const sorted = [...validators].map((v) => ({ address: v.address, power: v.power }));
    sorted.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    let total = 0n;
    for (const [i, v] of sorted.entries()) {
      if (!isAddress(v.address) || v.address !== v.address.toLowerCase()) throw new TypeError(`validator address must be lower-case 0x hex: ${v.address}`);
      if (typeof v.power !== 'bigint' || v.power <= 0n) throw new RangeError(`validator ${v.address} must have positive bigint power`);
      if (this.#index.has(v.address)) throw new RangeError(`duplicate validator ${v.address}`);
      this.#index.set(v.address, i);
      total += v.power;
    }
    this.validators = Object.freeze(sorted.map((v) => Object.freeze(v)));
    this.totalPower = total;
    this.quorum = options.unsafeQuorumForSimulation ?? TWO_THIRDS;
    if (this.quorum.den <= 0n || this.quorum.num < 0n) throw new RangeError('quorum rule needs den > 0, num >= 0');
  }

  /** Voting power = bond (wei). The 15% power cap is the staking module's business. */
  static fromGenesis(validators: readonly Pick<GenesisValidator, 'address' | 'bondWei'>[]): ValidatorSet {
    return new ValidatorSet(validators.map((v) => ({ address: v.address.toLowerCase() as Address, power: v.bondWei })));
  }

  get size(): number {
    return this.validators.length;
  }

  indexOf(address: Address): number {
    return this.#index.get(address) ?? -1;
  }

  has(address: Address): boolean {
    return this.#index.has(address);
  }

  powerOf(address: Address): bigint {
    const i = this.#index.get(address);
    return i === undefined ? 0n : this.validators[i].power;
  }

  at(index: number): Validator {
    const v = this.validators[index];
    if (v === undefined) throw new RangeError(`no validator at index ${index}`);
    return v;
  }

  /** 2/3 of the total power or more (under the default rule). */
  hasQuorum(power: bigint): boolean {
    const { num, den, inclusive } = this.quorum;
    return inclusive ? power * den >= this.totalPower * num : power * den > this.totalPower * num;
  }

  /** The smallest power that is a quorum. */
  get quorumPower(): bigint {
    const { num, den, inclusive } = this.quorum;
    const floor = (this.totalPower * num) / den;
    if (inclusive) return floor * den === this.totalPower * num ? floor : floor + 1n;
    return floor + 1n;
  }

  /** Strictly more than 1/3 of the total power: at least one honest validator is among them. */
  hasOneThird(power: bigint): boolean {
    return power * 3n > this.totalPower;
  }

  /** Weighted shuffle of the set for `height` (see the file comment). Cached per (seed, height). */
  proposerOrder(height: number, seed: Uint8Array): readonly Validator[] {
    const draw = this.#drawFor(height, seed);
    while (draw.left.length > 0) this.#drawNext(draw, height, seed);
    return draw.order;
  }

  /**
   * The draw of (height, seed), as far as it has gone: each position of the order costs a
   * hash and a bigint division, and most heights only ever ask for round 0's proposer,
   * so positions are drawn when first asked for. The same seed array as the last call
   * (the chain's current VRF seed, for a whole height) skips the key's hex encoding.
   */
  #drawFor(height: number, seed: Uint8Array): ProposerDraw {
    const last = this.#lastDraw;
    if (last !== undefined && last.height === height && last.seed === seed) return last;
    const key = `${height}:${bytesToHex(seed)}`;
    let draw = this.#orders.get(key);
    if (draw === undefined) {
      draw = { height, seed, left: [...this.validators], leftPower: this.totalPower, order: [] };
      if (this.#orders.size >= ORDER_CACHE_MAX) this.#orders.delete(this.#orders.keys().next().value as string);
      this.#orders.set(key, draw);
    }
    draw.seed = seed;
    this.#lastDraw = draw;
    return draw;
  }

  #drawNext(d: ProposerDraw, height: number, seed: Uint8Array): void {
    const digest = keccak256(new Writer(64 + seed.length).string(PROPOSER_DOMAIN).bytes(seed).u64(height).u32(d.order.length).finish());
    const target = BigInt(bytesToHex(digest)) % d.leftPower;
    let acc = 0n;
    let pick = d.left.length - 1;
    for (let j = 0; j < d.left.length; j++) {
      acc += d.left[j].power;
      if (target < acc) {
        pick = j;
        break;
      }
    }
    const [chosen] = d.left.splice(pick, 1);
    d.order.push(chosen);
    d.leftPower -= chosen.power;
  }

  proposer(height: number, round: number, seed: Uint8Array): Validator {
    if (!Number.isSafeInteger(round) || round < 0) throw new RangeError(`round must be a non-negative integer, got ${round}`);
    const d = this.#drawFor(height, seed);
    const at = round % this.validators.length;
    while (d.order.length <= at) this.#drawNext(d, height, seed);
    return d.order[at];
  }
}

/**
 * The set that signs each height: one set for every height (tests, the simulator), or a
 * function of the height (a node: the set its executed state fixed for that height,
 * src/chain/validator-sets.ts).
 */
export type ValidatorsByHeight = ValidatorSet | ((height: number) => ValidatorSet);

export function validatorsAt(v: ValidatorsByHeight, height: number): ValidatorSet {
  return v instanceof ValidatorSet ? v : v(height);
}
