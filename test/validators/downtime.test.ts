/**
 * Downtime in execution (contract [C-state-validator] active → jailed,
 * [C-limits-slashing], [C-limits-active-set], [D-validators-downtime]; decision 72):
 * blocks carry their parent's commit signed by real keys, and execution counts who was
 * to sign the parent and did not. More than the allowed share of the window jails and
 * slashes 0.1% (burned); the floor of 4 keeps the last ones; a validator that signs is
 * never jailed; unjailing starts a fresh window; a newly seated validator is not
 * counted for heights before it joined; the counts are in the state root.
 */
import { describe, expect, it } from 'vitest';
import type { BlockResult } from '../../src/state/apply';
import { findEvent } from '../../src/state/events';
import type { State } from '../../src/state/state';
import { allowedMissedBlocks, missedBlocks, withMiss } from '../../src/state/validators/downtime';
import { validatorRecord } from '../../src/state/validators/records';
import { signingSetAt, signingSetHistory } from '../../src/state/validators/signing-sets';
import { activeValidators } from '../../src/state/validators/set';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { applyNext, CANDIDATES, DEVNET_KEYS, EPOCH, freshState, headCommit, register, testGenesis, TOKEN, unjail } from './harness';
import type { Tx } from '../../src/codec/tx';

const BOND = 50_000n * TOKEN;
const [a] = CANDIDATES;
/** The four genesis validators' keys. */
const G = [0, 1, 2, 3].map((i) => hexToBytes(DEVNET_KEYS.validators[i].ecdsaPrivateKey));
const gAddr = (i: number) => DEVNET_KEYS.validators[i].address.toLowerCase() as Address;

/** One block whose lastCommit is signed by `signers` (none at height 1). */
function step(state: State, signers: readonly Uint8Array[], txs: Tx[] = []): BlockResult {
  return applyNext(state, txs, state.head().height > 0 ? headCommit(state, signers) : null);
}

function stepTo(state: State, height: number, signers: (h: number) => readonly Uint8Array[]): BlockResult[] {
  const out: BlockResult[] = [];
  // The commit a block carries is of the height below it: signers(h) sign height h.
  while (state.head().height < height) out.push(step(state, signers(state.head().height)));
  return out;
}

/** Candidate a registered with BOND at block 1 and seated by the boundary at EPOCH: it signs from EPOCH + 1. */
function seated(consensus: Parameters<typeof testGenesis>[0]) {
  const state = freshState(testGenesis(consensus));
  step(state, G, [register(a, { bond: BOND })]);
  stepTo(state, EPOCH, () => G);
  expect(validatorRecord(state, a.address)!.status).toBe('active');
  return state;
}

const withA = [...G, a.privateKey];

describe('downtime', () => {
  it('more missed heights than allowed jail the validator, slash 0.1% of its bond (burned) and unseat it from the next height', () => {
    const state = seated({ downtimeWindowBlocks: 10, downtimeMaxMissedBps: 5000 });
    const params = state.params();
    expect(allowedMissedBlocks(params)).toBe(5);
    const supplyBefore = state.supply().nativeWei;
    // a misses every height from EPOCH + 1 = 6; block h counts height h − 1.
    stepTo(state, 11, () => G);
    expect(missedBlocks(state, params, a.address, 11)).toBe(5);
    expect(validatorRecord(state, a.address)!.status).toBe('active');
    const [res] = stepTo(state, 12, () => G); // counts height 11: the sixth miss
    const rec = validatorRecord(state, a.address)!;
    expect(rec.status).toBe('jailed');
    expect(rec.context).toMatchObject({ bondWei: BOND - BOND / 1000n, lockedWei: BOND - BOND / 1000n, jailedUntilEpoch: 2 + 2 });
    expect(state.supply().nativeWei).toBe(supplyBefore - BOND / 1000n);
    expect(findEvent(res.blockEvents, 'ValidatorJailed')).toEqual({
      type: 'ValidatorJailed',
      validator: a.address,
      missed: 6,
      slashedWei: BOND / 1000n,
      burnedWei: BOND / 1000n,
      jailedUntilEpoch: 4,
    });
    expect(state.downtime.has(a.address)).toBe(false);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    // The set of height 12 still held it (jailing takes effect at the next height); 13's does not.
    expect(signingSetAt(state, params, 12, 13).has(a.address)).toBe(true);
    stepTo(state, 14, () => G);
    expect(signingSetAt(state, params, 13, 14).has(a.address)).toBe(false);
    // Counted no more while jailed: block 13 counted height 12 (its set held a, now jailed).
    expect(state.downtime.size).toBe(0);
  });

  it('the floor of 4 keeps the last ones: of two offline validators only the first is jailed, the other keeps counting within the window', () => {
    const state = seated({ downtimeWindowBlocks: 10, downtimeMaxMissedBps: 5000 });
    const params = state.params();
    // a and genesis validator 0 go offline together: both pass the threshold in block 12.
    const online = G.slice(1);
    stepTo(state, 12, () => online);
    const first = [a.address, gAddr(0)].sort()[0];
    const second = first === a.address ? gAddr(0) : a.address;
    expect(validatorRecord(state, first)!.status).toBe('jailed');
    expect(validatorRecord(state, second)!.status).toBe('active');
    expect(activeValidators(state).validators).toHaveLength(4);
    // Held back by the floor for good: it stays active and its misses stay bounded by the window.
    stepTo(state, 40, () => online);
    expect(validatorRecord(state, second)!.status).toBe('active');
    expect(missedBlocks(state, params, second, 40)).toBe(10);
    expect(state.downtime.get(second)!.runs).toEqual([[30, 39]]);
    expect(state.downtime.has(first)).toBe(false);
  });

  it('a validator that signs is never jailed, and exactly the allowed share never jails', () => {
    const state = seated({ downtimeWindowBlocks: 10, downtimeMaxMissedBps: 5000 });
    const params = state.params();
    const rootBefore = state.downtime.size;
    // Everyone signs for three windows: nothing is written.
    stepTo(state, 36, () => withA);
    expect(rootBefore).toBe(0);
    expect(state.downtime.size).toBe(0);
    // a signs every other height: 5 of every 10, the allowed share, never more.
    stepTo(state, 76, (h) => (h % 2 === 0 ? withA : G));
    expect(validatorRecord(state, a.address)!.status).toBe('active');
    expect(missedBlocks(state, params, a.address, 76)).toBe(5);
    expect(state.downtime.get(a.address)!.runs.length).toBeLessThanOrEqual(5);
    // One more miss in the window (two in a row) jails.
    stepTo(state, 78, () => G);
    expect(validatorRecord(state, a.address)!.status).toBe('jailed');
  });

  it('unjailing starts a fresh window: misses before the jail are not counted again', () => {
    // A window of 100 where 5 misses are allowed: the six before the jail stay inside it.
    const state = seated({ downtimeWindowBlocks: 100, downtimeMaxMissedBps: 500 });
    const params = state.params();
    stepTo(state, 12, () => G);
    expect(validatorRecord(state, a.address)!.status).toBe('jailed'); // missed 6..11, until epoch 4
    stepTo(state, 4 * EPOCH, () => G);
    step(state, G, [unjail(a.privateKey, 2n)]); // block 21, epoch 4
    expect(validatorRecord(state, a.address)!.status).toBe('registered');
    stepTo(state, 5 * EPOCH, () => G); // the boundary at 25 seats it: it signs from 26
    expect(activeValidators(state).byAddress.has(a.address)).toBe(true);
    expect(missedBlocks(state, params, a.address, 26)).toBe(0);
    // Five misses (26..30): allowed in a fresh window; with the six old ones it would be eleven.
    stepTo(state, 31, () => G);
    expect(validatorRecord(state, a.address)!.status).toBe('active');
    expect(missedBlocks(state, params, a.address, 31)).toBe(5);
    stepTo(state, 32, () => G);
    expect(validatorRecord(state, a.address)!.status).toBe('jailed');
  });

  it('a newly seated validator is not counted for heights before it joined, even when the block counting them comes after the boundary', () => {
    const state = seated({ downtimeWindowBlocks: 10, downtimeMaxMissedBps: 5000 });
    const params = state.params();
    // Block 5 (the boundary) seated a: the set of height 5 did not hold it, the current one does.
    expect(signingSetAt(state, params, 5, 6).has(a.address)).toBe(false);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(true);
    expect(signingSetHistory(state)).toEqual([{ fromHeight: 6, validators: activeValidators(state).validators.map((v) => v.address) }]);
    step(state, G); // block 6 counts height 5, which a did not sign (nor had to)
    expect(state.downtime.has(a.address)).toBe(false);
    step(state, G); // block 7 counts height 6: its first miss
    expect(state.downtime.get(a.address)!.runs).toEqual([[6, 6]]);
  });

  it('the missed heights are state: a block that lacks a signature gives another root than one that has it', () => {
    const one = seated({ downtimeWindowBlocks: 10, downtimeMaxMissedBps: 5000 });
    const two = seated({ downtimeWindowBlocks: 10, downtimeMaxMissedBps: 5000 });
    stepTo(one, 7, () => withA);
    stepTo(two, 7, () => withA);
    expect(one.root()).toEqual(two.root());
    step(one, withA);
    step(two, G);
    expect(one.root()).not.toEqual(two.root());
  });
});

describe('withMiss', () => {
  it('extends the last run, starts a new one after a gap, and trims to the window', () => {
    expect(withMiss([], 10, 5)).toEqual([[10, 10]]);
    expect(withMiss([[8, 9]], 10, 5)).toEqual([[8, 10]]);
    expect(withMiss([[3, 4], [7, 8]], 10, 5)).toEqual([[7, 8], [10, 10]]);
    expect(withMiss([[4, 8]], 10, 5)).toEqual([[6, 8], [10, 10]]);
  });
});
