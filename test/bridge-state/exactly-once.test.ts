/**
 * Exactly once, in order, whatever the watchers do (decision 82), as a property: random
 * blocks of attestations from four equal validators (any subset of deposits each, in any
 * order of transactions, replayed, duplicated, late), of which one lies about every
 * deposit's recipient and amount (a quarter of the power: below 1/3). Whatever the
 * sequence: the credited deposits are exactly ids 0..n−1 with no gap, n where the first
 * id lacks a quorum of honest attesters, each credited once with the honest content, the liar's content never; the balances and the supply
 * moved by exactly the credited sum; the reserve check holds after every block
 * (harness applyAt).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/codec/tx';
import { bridgeLedger, nextDepositId } from '../../src/state/bridge/reads';
import type { Address } from '../../src/util/bytes';
import { applyAt, attestation, deposit, freshState, POWER, signers, T0 } from './harness';

const DEPOSITS = 6;
const recipient = (i: number) => `0x${(0xd0000 + i).toString(16).padStart(40, '0')}` as Address;
const honest = (i: number) => deposit(BigInt(i), recipient(i), BigInt(1_000 + i));
const lie = (i: number) => deposit(BigInt(i), recipient(i + 100), BigInt(9_000_000 + i));
const LIAR = 3;

describe('deposits are credited exactly once, in id order', () => {
  it('for random attestation schedules with a lying validator below 1/3 of the power', () => {
    const vote = fc.record({ validator: fc.integer({ min: 0, max: 3 }), ids: fc.uniqueArray(fc.integer({ min: 0, max: DEPOSITS - 1 }), { minLength: 1, maxLength: DEPOSITS }) });
    const block = fc.array(vote, { minLength: 0, maxLength: 6 });
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 12 }), (blocks) => {
        const state = freshState([POWER, POWER, POWER, POWER]);
        const supply0 = state.supply().usdc;
        const sent: Tx[] = [];
        let t = T0;
        for (const b of blocks) {
          const txs = b.map((v) => {
            const ids = [...v.ids].sort((x, y) => x - y);
            return attestation(signers[v.validator], ids.map((i) => (v.validator === LIAR ? lie(i) : honest(i))));
          });
          // Replays of earlier transactions ride along (a restarted watcher resending).
          const replay = sent.length > 0 ? [sent[(t / 1000) % sent.length]] : [];
          sent.push(...txs);
          applyAt(state, [...txs, ...replay], (t += 1000));
        }
        const n = Number(nextDepositId(state));
        let sum = 0n;
        for (let i = 0; i < DEPOSITS; i++) {
          const d = state.deposits.get(String(i));
          if (i < n) {
            expect(d).toMatchObject({ id: BigInt(i), recipient: recipient(i), amount: BigInt(1_000 + i) });
            expect(state.account(recipient(i)).usdcFree).toBe(BigInt(1_000 + i));
            sum += BigInt(1_000 + i);
          } else {
            expect(d).toBeUndefined();
            expect(state.account(recipient(i)).usdcFree).toBe(0n);
          }
          expect(state.account(recipient(i + 100)).usdcFree).toBe(0n);
        }
        expect(state.supply().usdc - supply0).toBe(sum);
        expect(bridgeLedger(state).depositsCredited).toBe(sum);
        // And nothing is withheld: n is where the first id lacks 3 honest attesters (3 of 4 equal powers).
        const attesters = Array.from({ length: DEPOSITS }, () => new Set<number>());
        for (const b of blocks) for (const v of b) if (v.validator !== LIAR) for (const i of v.ids) attesters[i].add(v.validator);
        const expected = attesters.findIndex((s) => s.size < 3);
        expect(n).toBe(expected === -1 ? DEPOSITS : expected);
      }),
      { numRuns: 60 },
    );
  });
});
