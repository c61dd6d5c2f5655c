/**
 * RegisterValidator in execution (contract [C-res-validator-fields], [C-auth-register],
 * [D-signatures-register], [C-limits-bond]; decision 68): a funded candidate bonds and
 * is registered; every field of the format table violated, a wrong text, another chain
 * id, a signer other than the candidate, a bond out of range or unfunded, and duplicates
 * are each refused with their code and change no validator, balance or set.
 */
import { describe, expect, it } from 'vitest';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { registrationText } from '../../src/codec/txs/validators';
import { hashPersonalMessage } from '../../src/crypto/eip191';
import { privateKeyToAddress, signCompact64 } from '../../src/crypto/secp256k1';
import { hexToBytes } from '../../src/util/bytes';
import type { State } from '../../src/state/state';
import { validatorRecord } from '../../src/state/validators/records';
import { activeValidators } from '../../src/state/validators/set';
import { applyNext, CANDIDATES, chainId, DEVNET_KEYS, FUNDED_WEI, freshState as freshAt, keyOf, testGenesis, register, registerBody, registerTampered, SMALL_FUNDED_WEI, TOKEN } from './harness';

const [alice, bob] = CANDIDATES;
/** No epoch boundary in these tests: the set stays the genesis one, so a refusal must leave it as it is. */
const freshState = () => freshAt(testGenesis({ epochLengthBlocks: 1_000 }));
const unfunded = CANDIDATES[10];

/** What a refusal must leave untouched. */
function snapshot(state: State) {
  return {
    validators: [...state.validators.entries()],
    balances: CANDIDATES.map((k) => state.account(k.address).nativeWei),
    set: activeValidators(state),
    locked: state.totals.bondLockedWei,
  };
}

function refuse(state: State, tx: Tx): { code: string | undefined; status: number | undefined; message: string | undefined } {
  const before = snapshot(state);
  const r = applyNext(state, [tx]).receipts[0];
  expect(r.status).toBe('failed');
  expect(snapshot(state)).toEqual(before);
  return { code: r.code, status: r.errorStatus, message: r.message };
}

describe('RegisterValidator', () => {
  it('bonds from the candidate’s balance and registers it; the 64-byte signature form is accepted', () => {
    const state = freshState();
    const r = applyNext(state, [register(alice, { name: 'alice_01', bond: 7_000n * TOKEN })]).receipts[0];
    expect(r).toMatchObject({ status: 'ok', kind: 'RegisterValidator', signer: alice.address });
    expect(state.account(alice.address).nativeWei).toBe(FUNDED_WEI - 7_000n * TOKEN);
    expect(state.totals.bondLockedWei).toBe(7_000n * TOKEN);
    expect(validatorRecord(state, alice.address)).toEqual({
      address: alice.address,
      name: 'alice_01',
      endpoint: 'node1.example.org:26656',
      ecdsaPubkey: alice.ecdsaPubkey,
      vrfPubkey: alice.vrfPubkey,
      registeredHeight: 1,
      status: 'registered',
      context: { bondWei: 7_000n * TOKEN, lockedWei: 7_000n * TOKEN, unbondingDoneEpoch: 0, jailedUntilEpoch: 0 },
    });
    // Registered, not active: the set is the one fixed before.
    expect(activeValidators(state).byAddress.has(alice.address)).toBe(false);
  });

  it('the text signed is the contract’s, line for line, with the network’s chain id', () => {
    const b = registerBody(alice);
    expect(registrationText(chainId, b)).toBe(
      [
        'Exchange Validator Registration',
        `Chain: ${chainId}`,
        'Action: Register Validator',
        `Candidate: ${alice.address}`,
        `Vrf: ${alice.vrfPubkey.slice(2)}`,
        `Ecdsa: ${alice.ecdsaPubkey.slice(2)}`,
        'Endpoint: node1.example.org:26656',
        `Bond: ${5_000n * TOKEN}`,
        'Nonce: 1',
      ].join('\n'),
    );
  });

  describe('refuses every field of the format table violated (400), before the signature', () => {
    const otherKey = keyOf(99);
    const cases: [string, Partial<Parameters<typeof register>[1]>, string, string][] = [
      ['empty name', { name: '' }, 'INVALID_VALIDATOR', 'name:'],
      ['name of two words', { name: 'my node' }, 'INVALID_VALIDATOR', 'name:'],
      ['name of 33 characters', { name: 'a'.repeat(33) }, 'INVALID_VALIDATOR', 'name:'],
      ['name with a dot', { name: 'node.1' }, 'INVALID_VALIDATOR', 'name:'],
      ['name not ASCII', { name: 'nöde' }, 'INVALID_VALIDATOR', 'name:'],
      ['VRF key of small order (identity)', { vrfPubkey: `0x01${'00'.repeat(31)}` }, 'INVALID_VALIDATOR', 'vrf_pubkey:'],
      ['VRF key not a point', { vrfPubkey: `0x${'ff'.repeat(32)}` }, 'INVALID_VALIDATOR', 'vrf_pubkey:'],
      ['ECDSA key with prefix 04', { ecdsaPubkey: `0x04${alice.ecdsaPubkey.slice(4)}` }, 'INVALID_VALIDATOR', 'ecdsa_pubkey:'],
      ['ECDSA key not on the curve', { ecdsaPubkey: `0x02${'ff'.repeat(32)}` }, 'INVALID_VALIDATOR', 'ecdsa_pubkey:'],
      ['ECDSA key of another address', { ecdsaPubkey: otherKey.ecdsaPubkey }, 'INVALID_VALIDATOR', 'ecdsa_pubkey:'],
      ['endpoint without port', { endpoint: 'node1.example.org' }, 'INVALID_VALIDATOR', 'endpoint:'],
      ['endpoint port 0', { endpoint: 'node1.example.org:0' }, 'INVALID_VALIDATOR', 'endpoint:'],
      ['endpoint port 65536', { endpoint: 'node1.example.org:65536' }, 'INVALID_VALIDATOR', 'endpoint:'],
      ['endpoint port with a leading zero', { endpoint: 'node1.example.org:080' }, 'INVALID_VALIDATOR', 'endpoint:'],
      ['endpoint without host', { endpoint: ':26656' }, 'INVALID_VALIDATOR', 'endpoint:'],
      ['endpoint with a space', { endpoint: 'node 1:26656' }, 'INVALID_VALIDATOR', 'endpoint:'],
      ['bond below the minimum', { bond: 999n * TOKEN }, 'INVALID_AMOUNT', 'bond:'],
      ['bond above the maximum', { bond: 200_001n * TOKEN }, 'INVALID_AMOUNT', 'bond:'],
      ['bond not whole tokens', { bond: 5_000n * TOKEN + 1n }, 'INVALID_AMOUNT', 'bond:'],
      ['nonce above u64', { nonce: 1n << 64n }, 'INVALID_NONCE', 'nonce:'],
    ];
    for (const [what, fields, code, field] of cases) {
      it(what, () => {
        const state = freshState();
        // Signed over the bad field too: the shape check, not the signature, refuses it.
        const out = refuse(state, register(alice, fields));
        expect(out.code).toBe(code);
        expect(out.status).toBe(400);
        expect(out.message).toMatch(new RegExp(`^${field}`));
        // Shape refusals come before the nonce: it is still free.
        expect(state.nonces.get(alice.address)).toBeUndefined();
      });
    }
    it('the bounds themselves pass', () => {
      const state = freshState();
      const r = applyNext(state, [register(alice, { bond: 1_000n * TOKEN, name: 'a'.repeat(32) }), register(bob, { bond: 200_000n * TOKEN, endpoint: '[::1]:65535' })]);
      expect(r.receipts.map((x) => x.status)).toEqual(['ok', 'ok']);
    });
  });

  it('refuses a wrong text, another chain id and a signer other than the candidate (401)', () => {
    const state = freshState();
    // Signed for another bond than the one sent.
    expect(refuse(state, registerTampered(alice, { bond: 5_000n * TOKEN }, { bond: 6_000n * TOKEN })).code).toBe('INVALID_SIGNATURE');
    // Signed over the text with another chain id.
    expect(refuse(state, encodeTx(chainId, TxKind.RegisterValidator, registerBody(alice, {}, chainId + 1))).code).toBe('INVALID_SIGNATURE');
    // Signed by bob for alice as candidate.
    const forged = registerBody(alice);
    const bobSig = signCompact64(hashPersonalMessage(registrationText(chainId, forged)), bob.privateKey);
    const r = refuse(state, encodeTx(chainId, TxKind.RegisterValidator, { ...forged, signature: bobSig }));
    expect(r).toMatchObject({ code: 'INVALID_SIGNATURE', status: 401 });
    // A text with another header line.
    const other = registrationText(chainId, forged).replace('Exchange Validator Registration', 'Validator Registration');
    expect(refuse(state, encodeTx(chainId, TxKind.RegisterValidator, { ...forged, signature: signCompact64(hashPersonalMessage(other), alice.privateKey) })).code).toBe(
      'INVALID_SIGNATURE',
    );
  });

  it('refuses a bond the candidate cannot fund (422 INSUFFICIENT_FUNDS); its whole balance can be bonded', () => {
    const state = freshState();
    expect(refuse(state, register(unfunded))).toMatchObject({ code: 'INSUFFICIENT_FUNDS', status: 422 });
    const small = CANDIDATES[9];
    expect(refuse(state, register(small, { bond: SMALL_FUNDED_WEI + TOKEN }))).toMatchObject({ code: 'INSUFFICIENT_FUNDS', status: 422 });
    expect(applyNext(state, [register(small, { bond: SMALL_FUNDED_WEI, nonce: 2n })]).receipts[0].status).toBe('ok');
    expect(state.account(small.address).nativeWei).toBe(0n);
  });

  it('refuses a duplicate address, ECDSA key or VRF key (409 VALIDATOR_EXISTS), of a registered or a genesis validator', () => {
    const state = freshState();
    expect(applyNext(state, [register(alice)]).receipts[0].status).toBe('ok');
    // The same candidate again.
    expect(refuse(state, register(alice, { nonce: 2n }))).toMatchObject({ code: 'VALIDATOR_EXISTS', status: 409 });
    // Bob with alice's VRF key.
    expect(refuse(state, register(bob, { vrfPubkey: alice.vrfPubkey })).message).toMatch(/^vrf_pubkey:/);
    // A genesis validator registering with its own (genesis) key: address and ECDSA key taken.
    const genesis = state.meta.get('validators') as { ecdsaPubkey: `0x${string}`; vrfPubkey: `0x${string}` }[];
    const gPriv = hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
    const gKey = { privateKey: gPriv, address: privateKeyToAddress(gPriv), ecdsaPubkey: genesis[0].ecdsaPubkey, vrfPubkey: keyOf(50).vrfPubkey, vrfPrivateKey: keyOf(50).vrfPrivateKey };
    expect(refuse(state, register(gKey))).toMatchObject({ code: 'VALIDATOR_EXISTS', status: 409 });
    // Bob with a genesis validator's VRF key.
    expect(refuse(state, register(bob, { vrfPubkey: genesis[1].vrfPubkey, nonce: 2n }))).toMatchObject({ code: 'VALIDATOR_EXISTS', status: 409 });
  });
});
