/**
 * Bridge deposits in execution (issue 22 item 2; decision 82): a deposit is credited once
 * validators holding MORE than 2/3 of the current power attest the same content, in
 * deposit-id order, exactly once however the attestations are replayed, duplicated or
 * late; conflicting variants count apart; a non-validator, a forged signature, a claim
 * too far ahead and a network without a bridge are refused with nothing changed. The
 * reserve check (genesis + faucet + deposits − paid = supply) holds after every block
 * (the harness's applyAt checks it).
 */
import { describe, expect, it } from 'vitest';
import { refusalCode } from '../helpers/refusal';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signAttestation } from '../../src/codec/txs/bridge';
import { TxPool } from '../../actors/mempool/pool';
import { bridgeLedger, hasAttested, MAX_DEPOSITS_AHEAD, nextDepositId, reserveCheck } from '../../src/state/bridge/reads';
import { findEvent } from '../../src/state/events';
import { TableId } from '../../src/state/records';
import type { Address } from '../../src/util/bytes';
import { applyAt, attestation, chainId, deposit, freshState, outcomes, outsider, POWER, signers, T0, txHash } from './harness';

const alice = '0x00000000000000000000000000000000000a11ce' as Address;
const bob = '0x0000000000000000000000000000000000000b0b' as Address;
const free = (s: ReturnType<typeof freshState>, a: Address) => s.account(a).usdcFree;

describe('deposit crediting', () => {
  it('is credited only once the voters pass 2/3 of the power: exactly 2/3 is not enough', () => {
    const state = freshState([POWER, POWER, POWER]);
    const supply0 = state.supply().usdc;
    const d = deposit(0n, alice, 5_000_000n);
    const r1 = applyAt(state, [attestation(signers[0], [d]), attestation(signers[1], [d])], T0 + 1000);
    expect(outcomes(r1)).toEqual(['ok', 'ok']);
    // 2 of 3 equal powers is exactly 2/3: no credit.
    expect(free(state, alice)).toBe(0n);
    expect(nextDepositId(state)).toBe(0n);
    const r2 = applyAt(state, [attestation(signers[2], [d])], T0 + 2000);
    expect(free(state, alice)).toBe(5_000_000n);
    expect(nextDepositId(state)).toBe(1n);
    expect(state.supply().usdc - supply0).toBe(5_000_000n);
    expect(bridgeLedger(state).depositsCredited).toBe(5_000_000n);
    expect(findEvent(r2.receipts[0].events, 'DepositCredited')).toEqual({ type: 'DepositCredited', depositId: '0', recipient: alice, amount: 5_000_000n, externalTx: `0x${'01'.repeat(32)}` });
    expect(state.deposits.get('0')).toMatchObject({ id: 0n, recipient: alice, amount: 5_000_000n, creditedMs: T0 + 2000, height: 2 });
    // The votes are gone once settled.
    expect(state.bridgeVotes.size).toBe(0);
    expect(reserveCheck(state).difference).toBe(0n);
  });

  it('3 of 4 equal powers is a quorum; an unequal set counts power, not heads', () => {
    const four = freshState([POWER, POWER, POWER, POWER]);
    applyAt(four, [attestation(signers[0], [deposit(0n, alice, 1n)]), attestation(signers[1], [deposit(0n, alice, 1n)]), attestation(signers[2], [deposit(0n, alice, 1n)])], T0 + 1000);
    expect(free(four, alice)).toBe(1n);
    // One validator holds 3/4 of the power: its vote alone passes 2/3; the three others together do not.
    const heavy = freshState([3n * POWER, POWER / 3n, POWER / 3n, POWER / 3n]);
    applyAt(heavy, [attestation(signers[1], [deposit(0n, alice, 7n)]), attestation(signers[2], [deposit(0n, alice, 7n)]), attestation(signers[3], [deposit(0n, alice, 7n)])], T0 + 1000);
    expect(free(heavy, alice)).toBe(0n);
    applyAt(heavy, [attestation(signers[0], [deposit(0n, alice, 7n)])], T0 + 2000);
    expect(free(heavy, alice)).toBe(7n);
  });

  it('credits in id order: id 1 with a quorum waits for id 0, then both are credited in one go', () => {
    const state = freshState([POWER, POWER, POWER]);
    const d0 = deposit(0n, alice, 10n);
    const d1 = deposit(1n, bob, 20n);
    const r1 = applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [d1])), T0 + 1000);
    expect(outcomes(r1)).toEqual(['ok', 'ok', 'ok']);
    expect(free(state, bob)).toBe(0n);
    expect(nextDepositId(state)).toBe(0n);
    // Id 0 arrives: its quorum credits 0 and then 1, in that order, in the third attestation's receipt.
    const r2 = applyAt(state, signers.slice(0, 3).map((s) => attestation(s, [d0])), T0 + 2000);
    const credited = r2.receipts.flatMap((r) => r.events).filter((e) => e.type === 'DepositCredited');
    expect(credited.map((e) => (e as { depositId: string }).depositId)).toEqual(['0', '1']);
    expect([free(state, alice), free(state, bob), nextDepositId(state)]).toEqual([10n, 20n, 2n]);
  });

  it('exactly once: replayed, duplicated and late votes change nothing', () => {
    const state = freshState([POWER, POWER, POWER]);
    const d0 = deposit(0n, alice, 10n);
    const txs = signers.slice(0, 3).map((s) => attestation(s, [d0]));
    applyAt(state, txs, T0 + 1000);
    expect(free(state, alice)).toBe(10n);
    // The same transactions again (a restarted watcher), and the same claims re-signed: late, refused 409.
    const r = applyAt(state, [...txs, attestation(signers[0], [d0])], T0 + 2000);
    expect(outcomes(r)).toEqual(['ATTESTATION_STALE', 'ATTESTATION_STALE', 'ATTESTATION_STALE', 'ATTESTATION_STALE']);
    expect(r.receipts[0].errorStatus).toBe(409);
    expect(free(state, alice)).toBe(10n);
    expect(nextDepositId(state)).toBe(1n);
    expect(r.changes.some((c) => c.key[0] === TableId.Account || c.key[0] === TableId.BridgeVote || c.key[0] === TableId.Deposit)).toBe(false);
    // A validator's second vote on a pending key is late too; a tx mixing late and new claims counts the new.
    const d1 = deposit(1n, bob, 5n);
    applyAt(state, [attestation(signers[0], [d1])], T0 + 3000);
    const r2 = applyAt(state, [attestation(signers[0], [d1]), attestation(signers[1], [d0, d1])], T0 + 4000);
    expect(outcomes(r2)).toEqual(['ATTESTATION_STALE', 'ok']);
    expect(findEvent(r2.receipts[1].events, 'BridgeAttestation')).toEqual({ type: 'BridgeAttestation', validator: signers[1].address, claims: 2, counted: 1, late: 1 });
    expect(free(state, bob)).toBe(0n);
    expect(hasAttested(state, signers[0].address, d1)).toBe(true);
    expect(hasAttested(state, signers[2].address, d1)).toBe(false);
    expect(hasAttested(state, signers[2].address, d0)).toBe(true); // settled
  });

  it('conflicting variants count apart: a validator’s first vote stands, and only one content reaches the quorum', () => {
    const state = freshState([POWER, POWER, POWER, POWER]);
    const honest = deposit(0n, alice, 100n, txHash(7));
    const lying = deposit(0n, bob, 100n, txHash(7));
    const r = applyAt(
      state,
      [attestation(signers[0], [honest]), attestation(signers[1], [lying]), attestation(signers[2], [honest]), attestation(signers[1], [honest])],
      T0 + 1000,
    );
    // Validator 1 already voted (for the lie): its later honest vote is late.
    expect(outcomes(r)).toEqual(['ok', 'ok', 'ok', 'ATTESTATION_STALE']);
    expect(state.bridgeVotes.get('d:0')!.variants.map((v) => v.voters.length)).toEqual([2, 1]);
    expect(free(state, alice) + free(state, bob)).toBe(0n);
    applyAt(state, [attestation(signers[3], [honest])], T0 + 2000);
    expect(free(state, alice)).toBe(100n);
    expect(free(state, bob)).toBe(0n);
    expect(state.bridgeVotes.has('d:0')).toBe(false);
  });

  it('a non-validator and a forged signature are refused, and change nothing', () => {
    const state = freshState([POWER, POWER, POWER]);
    const d = deposit(0n, alice, 10n);
    const forged = { ...signAttestation(chainId, { validator: outsider.address, claims: [d] }, outsider), validator: signers[0].address };
    const tampered = { ...signAttestation(chainId, { validator: signers[1].address, claims: [d] }, signers[1]), claims: [deposit(0n, bob, 10n)] };
    const empty = applyAt(freshState([POWER, POWER, POWER]), [], T0 + 1000);
    const r = applyAt(
      state,
      [attestation(outsider, [d]), attestation(signers[4], [d]), encodeTx(chainId, TxKind.BridgeAttestation, forged), encodeTx(chainId, TxKind.BridgeAttestation, tampered)],
      T0 + 1000,
    );
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([
      ['NOT_VALIDATOR', 403],
      ['NOT_VALIDATOR', 403], // devnet validator 5 is not in this three-validator set
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
    ]);
    expect(state.bridgeVotes.size).toBe(0);
    const notHead = (x: typeof r) => x.changes.filter((c) => !(c.key[0] === TableId.Meta && new TextDecoder().decode(c.key.subarray(1)) === 'head'));
    expect(notHead(r)).toEqual(notHead(empty));
  });

  it('refuses a deposit claim MAX_DEPOSITS_AHEAD past the next (422 DEPOSIT_TOO_FAR_AHEAD), the whole transaction', () => {
    const state = freshState([POWER, POWER, POWER]);
    const r = applyAt(
      state,
      [attestation(signers[0], [deposit(0n, alice, 1n), deposit(MAX_DEPOSITS_AHEAD, alice, 1n)]), attestation(signers[0], [deposit(MAX_DEPOSITS_AHEAD - 1n, alice, 1n)])],
      T0 + 1000,
    );
    expect(r.receipts.map((x) => [x.code ?? x.status, x.errorStatus])).toEqual([
      ['DEPOSIT_TOO_FAR_AHEAD', 422],
      ['ok', undefined],
    ]);
    expect(state.bridgeVotes.has('d:0')).toBe(false);
    expect(state.bridgeVotes.has(`d:${MAX_DEPOSITS_AHEAD - 1n}`)).toBe(true);
  });

  it('a genesis without a bridge refuses attestations 422 BRIDGE_DISABLED', () => {
    const state = freshState([POWER, POWER, POWER], { bridge: false });
    const r = applyAt(state, [attestation(signers[0], [deposit(0n, alice, 1n)])], T0 + 1000);
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([['BRIDGE_DISABLED', 422]]);
    expect(state.bridgeVotes.size).toBe(0);
  });

  it('the mempool refuses at the door what cannot succeed: an outsider, a forged signature, only late claims, a claim too far ahead', () => {
    const state = freshState([POWER, POWER, POWER]);
    const d0 = deposit(0n, alice, 10n);
    applyAt(state, [attestation(signers[0], [d0])], T0 + 1000);
    const pool = new TxPool({ maxTxs: 100, maxBytes: 1 << 20, maxTxBytes: 16_384 }, () => state);
    const refusal = refusalCode;
    expect(refusal(() => pool.add(attestation(outsider, [d0])))).toBe('NOT_VALIDATOR');
    const tampered = { ...signAttestation(chainId, { validator: signers[1].address, claims: [d0] }, signers[1]), claims: [deposit(0n, bob, 10n)] };
    expect(refusal(() => pool.add(encodeTx(chainId, TxKind.BridgeAttestation, tampered)))).toBe('INVALID_SIGNATURE');
    expect(refusal(() => pool.add(attestation(signers[0], [d0])))).toBe('ATTESTATION_STALE');
    expect(refusal(() => pool.add(attestation(signers[1], [deposit(MAX_DEPOSITS_AHEAD, alice, 1n)])))).toBe('DEPOSIT_TOO_FAR_AHEAD');
    expect(refusal(() => pool.add(attestation(signers[1], [d0])))).toBe('admitted');
  });

  it('a quorum met by a change of the active set is credited at the end of the block', () => {
    const state = freshState([POWER, POWER, POWER]);
    const d0 = deposit(0n, alice, 3n);
    applyAt(state, [attestation(signers[0], [d0]), attestation(signers[1], [d0])], T0 + 1000);
    expect(free(state, alice)).toBe(0n);
    // The third validator leaves the active set (as an epoch boundary would rank it out): 2 of 2 now.
    const set = (state.meta.get('validators') as { address: Address; bondWei: bigint }[]).slice(0, 2).map((v) => ({ address: v.address.toLowerCase() as Address, power: v.bondWei }));
    state.meta.set('activeSet', set);
    const r = applyAt(state, [], T0 + 2000);
    expect(free(state, alice)).toBe(3n);
    expect(findEvent(r.blockEvents, 'DepositCredited')).toMatchObject({ depositId: '0', amount: 3n });
  });
});
