/**
 * The bridge validator sets in execution (issue 37 item 1; decision 151): an epoch
 * boundary that changes the active set or a power records the contract's next set; the
 * validators of the set before it sign it with BridgeSetSignatures (an outgoing validator
 * still signs its successor); the set is ready for the contract once its signers hold more
 * than 2/3 of the predecessor's power. Refusals: a signer outside the predecessor set
 * (403), a signature over another message (401), a set not recorded (422), nothing new (409).
 */
import { describe, expect, it } from 'vitest';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { BridgeSetKind, signBridgeSetSignatures } from '../../src/codec/txs/bridge-set';
import { bridgeOwnersSigningHash, bridgeSetSigningHash } from '../../src/signing/bridge-withdrawal';
import {
  bridgeOwnerSet,
  bridgeOwnerSets,
  bridgeOwnersMessage,
  bridgeSet,
  bridgeSetMessage,
  bridgeSets,
  latestBridgeSet,
  recordBridgeSet,
  setSignedByPredecessor,
} from '../../src/state/bridge/sets';
import type { Address } from '../../src/util/bytes';
import { genesisState } from '../../src/state/genesis';
import type { State } from '../../src/state/state';
import { activeValidators } from '../../src/state/validators/set';
import { applyAt, chainId, genesisWith, outcomes, outsider, POWER, signers, T0 } from './harness';

type Signer = (typeof signers)[number];
const four = signers.slice(0, 4);

function stateWithShortEpochs(): State {
  // Validator 3 bonds twice the others: the cap (an equal share in a set of 4, decision 158) brings it down at the first boundary.
  const g = genesisWith([POWER, POWER, POWER, 2n * POWER]);
  return genesisState({ ...g, consensus: { ...g.consensus, epochLengthBlocks: 2 } }, new Uint8Array(32).fill(7)).state;
}

function setSignatures(state: State, by: Signer, nonces: bigint[], tweak = 0n) {
  const items = nonces.map((n) => {
    const set = bridgeSet(state, n)!;
    return { kind: BridgeSetKind.Validators, setNonce: n, signature: by.sign(bridgeSetSigningHash({ ...bridgeSetMessage(state, set), setNonce: set.nonce + tweak })) };
  });
  return encodeTx(chainId, TxKind.BridgeSetSignatures, signBridgeSetSignatures(chainId, { validator: by.address, items }, by));
}

describe('bridge validator sets', () => {
  it('set 0 is the genesis validators with their bonds; an epoch boundary that changes the powers records set 1', () => {
    const state = stateWithShortEpochs();
    const bonds = new Map(four.map((s, i) => [s.address, i === 3 ? 2n * POWER : POWER]));
    const ascending = four.map((s) => s.address).sort();
    expect(bridgeSets(state)).toEqual([{ nonce: 0n, validators: ascending, powers: ascending.map((a) => bonds.get(a)), height: 0, signatures: [] }]);
    applyAt(state, [], T0 + 1_000);
    expect(bridgeSets(state)).toHaveLength(1);
    const r = applyAt(state, [], T0 + 2_000); // height 2: the boundary caps validator 3's power at a quarter of the total
    const set1 = latestBridgeSet(state);
    expect(set1.nonce).toBe(1n);
    expect(set1.height).toBe(2);
    expect(set1.validators).toEqual(activeValidators(state).validators.map((v) => v.address));
    expect(set1.powers).toEqual(activeValidators(state).validators.map((v) => v.power));
    expect(set1.powers).toEqual([POWER, POWER, POWER, POWER]);
    expect(r.blockEvents.filter((e) => e.type === 'BridgeSetRecorded')).toEqual([{ type: 'BridgeSetRecorded', setNonce: '1', validators: set1.validators, powers: set1.powers.map(String) }]);
    // The next boundary with no change records nothing.
    applyAt(state, [], T0 + 3_000);
    applyAt(state, [], T0 + 4_000);
    expect(bridgeSets(state)).toHaveLength(2);
  });

  it('the predecessor set signs; ready past 2/3 of its power; strangers, wrong messages, unknown sets and repeats refused', () => {
    const state = stateWithShortEpochs();
    applyAt(state, [], T0 + 1_000);
    applyAt(state, [], T0 + 2_000);
    const r = applyAt(
      state,
      [
        setSignatures(state, outsider as Signer, [1n]), // not in set 0
        setSignatures(state, four[0], [1n], 1n), // over set nonce 2's message
        setSignatures(state, four[0], [1n]),
        setSignatures(state, four[1], [1n]),
      ],
      T0 + 3_000,
    );
    expect(outcomes(r)).toEqual(['NOT_VALIDATOR', 'INVALID_SIGNATURE', 'ok', 'ok']);
    expect(setSignedByPredecessor(state, bridgeSet(state, 1n)!)).toBe(false); // 2 of set 0's 5 parts: not more than 2/3
    const r2 = applyAt(state, [setSignatures(state, four[0], [1n]), setSignatures(state, four[3], [1n])], T0 + 3_500);
    expect(outcomes(r2)).toEqual(['ATTESTATION_STALE', 'ok']);
    expect(setSignedByPredecessor(state, bridgeSet(state, 1n)!)).toBe(true);
    expect(bridgeSet(state, 1n)!.signatures.map((s) => s.validator)).toEqual([four[0].address, four[1].address, four[3].address].sort());
    // A set the chain has not recorded.
    const unknown = encodeTx(chainId, TxKind.BridgeSetSignatures, signBridgeSetSignatures(chainId, { validator: four[0].address, items: [{ kind: BridgeSetKind.Validators, setNonce: 5n, signature: four[0].sign(new Uint8Array(32)) }] }, four[0]));
    expect(outcomes(applyAt(state, [unknown], T0 + 4_000))).toEqual(['REJECTED']);
  });

  it('a validator that left the active set still signs its successor, and only the set before signs', () => {
    const state = stateWithShortEpochs();
    applyAt(state, [], T0 + 1_000);
    applyAt(state, [], T0 + 2_000);
    // Validator 3 leaves (the active set without it, as a tombstone does at once): set 2 without it.
    const gone = four[3].address;
    state.meta.set('activeSet', activeValidators(state).validators.filter((v) => v.address !== gone));
    recordBridgeSet(state, 3, () => undefined);
    expect(latestBridgeSet(state).validators).not.toContain(gone);
    const r = applyAt(state, [setSignatures(state, four[3], [1n, 2n])], T0 + 3_000);
    expect(outcomes(r)).toEqual(['ok']);
    expect(bridgeSet(state, 2n)!.signatures.map((s) => s.validator)).toEqual([gone]);
  });

  it("the chain's owners (an executed SetOwners) become owner set 1, signed by any validator of a kept set", () => {
    const state = stateWithShortEpochs();
    const genesisOwners = bridgeOwnerSets(state);
    expect(genesisOwners.map((o) => [o.nonce, o.threshold])).toEqual([[0n, 2n]]);
    applyAt(state, [], T0 + 1_000);
    expect(bridgeOwnerSets(state)).toHaveLength(1);
    // What GovernanceExecute of a SetOwners writes (src/state/governance/operations.ts): params.owners.
    const owners = ['0x00000000000000000000000000000000000000c3', '0x00000000000000000000000000000000000000c1', '0x00000000000000000000000000000000000000c2'] as Address[];
    const params = state.params();
    state.meta.set('params', { ...params, owners: { ...params.owners, addresses: owners } });
    const r = applyAt(state, [], T0 + 1_500);
    expect(r.blockEvents.filter((e) => e.type === 'BridgeOwnersRecorded')).toEqual([
      { type: 'BridgeOwnersRecorded', ownerSetNonce: '1', owners: [...owners].sort(), threshold: '2' },
    ]);
    const set = bridgeOwnerSet(state, 1n)!;
    const sign = (by: Signer) =>
      encodeTx(
        chainId,
        TxKind.BridgeSetSignatures,
        signBridgeSetSignatures(chainId, { validator: by.address, items: [{ kind: BridgeSetKind.Owners, setNonce: 1n, signature: by.sign(bridgeOwnersSigningHash(bridgeOwnersMessage(state, set))) }] }, by),
      );
    expect(outcomes(applyAt(state, [sign(outsider as Signer), sign(four[0]), sign(four[0])], T0 + 2_500))).toEqual(['NOT_VALIDATOR', 'ok', 'ATTESTATION_STALE']);
    expect(bridgeOwnerSet(state, 1n)!.signatures.map((s) => s.validator)).toEqual([four[0].address]);
    // The next block with the same owners records nothing more.
    applyAt(state, [], T0 + 3_000);
    expect(bridgeOwnerSets(state)).toHaveLength(2);
  });
});
