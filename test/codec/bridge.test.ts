/**
 * The bridge's codecs (src/codec/txs/bridge.ts, src/state/bridge/records.ts): both
 * transaction kinds round-trip and have one encoding (unsorted, duplicate, empty or
 * oversized lists, zero amounts, the zero recipient, v other than 27/28 are refused
 * when encoding and decoding); the signing hashes bind the chain id and every field;
 * the withdrawal, deposit and vote records round-trip.
 */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/codec/binary';
import { decodeTx, encodeTx, TxKind } from '../../src/codec/tx';
import {
  attestationSigningHash,
  BridgeAlertKind,
  BridgeClaimKind,
  MAX_BRIDGE_CLAIMS,
  signAttestation,
  signWithdrawalSignatures,
  WithdrawalVoidReason,
  withdrawalSignaturesSigningHash,
  type BridgeAttestationBody,
  type BridgeClaim,
} from '../../src/codec/txs/bridge';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { bridgeVoteCodec, depositCodec, withdrawalCodec, type Withdrawal } from '../../src/state/bridge/records';
import type { Address } from '../../src/util/bytes';

const signer = new Secp256k1Signer(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
const alice = '0x00000000000000000000000000000000000a11ce' as Address;
const tx = (b: number) => new Uint8Array(32).fill(b);
const CHAIN = 713799;

const claims: BridgeClaim[] = [
  { kind: BridgeClaimKind.Deposit, depositId: 0n, recipient: alice, amount: 5n, externalTx: tx(1) },
  { kind: BridgeClaimKind.Deposit, depositId: 3n, recipient: alice, amount: 6n, externalTx: tx(2) },
  { kind: BridgeClaimKind.WithdrawalQueued, withdrawalId: 1n, recipient: alice, amount: 7n, validUntil: 1_767_225_600n, externalTx: tx(3) },
  { kind: BridgeClaimKind.WithdrawalPaid, withdrawalId: 1n, recipient: alice, amount: 7n, externalTx: tx(4) },
  { kind: BridgeClaimKind.WithdrawalVoid, withdrawalId: 2n, reason: WithdrawalVoidReason.Expired, externalTx: tx(0) },
  { kind: BridgeClaimKind.Alert, id: 9n, alert: { kind: BridgeAlertKind.ForgedQueue, recipient: alice, amount: 8n, validUntil: 1n }, externalTx: tx(5) },
  { kind: BridgeClaimKind.Alert, id: 3n, alert: { kind: BridgeAlertKind.ForgedPaid, recipient: alice, amount: 8n }, externalTx: tx(6) },
  { kind: BridgeClaimKind.Alert, id: 1n, alert: { kind: BridgeAlertKind.UnexplainedSet, digest: tx(7) }, externalTx: tx(8) },
  { kind: BridgeClaimKind.Alert, id: 1n, alert: { kind: BridgeAlertKind.UnexplainedOwners, digest: tx(9) }, externalTx: tx(10) },
];

describe('BridgeAttestation codec', () => {
  it('round-trips, and the signing hash binds the chain id and every claim', () => {
    const body = signAttestation(CHAIN, { validator: signer.address, claims }, signer);
    const t = encodeTx(CHAIN, TxKind.BridgeAttestation, body);
    const back = decodeTx(t.bytes, 16_384);
    expect(back.body).toEqual(body);
    expect(back.hash).toEqual(t.hash);
    const h = attestationSigningHash(CHAIN, body);
    expect(attestationSigningHash(CHAIN + 1, body)).not.toEqual(h);
    expect(attestationSigningHash(CHAIN, { ...body, claims: [{ ...claims[0], amount: 6n } as BridgeClaim, ...claims.slice(1)] })).not.toEqual(h);
  });

  it('refuses non-canonical lists and values, encoding and decoding', () => {
    const bad: BridgeClaim[][] = [
      [],
      [claims[1], claims[0]], // not ascending
      [claims[0], claims[0]], // duplicate
      [claims[2], claims[0]], // kind order
      [claims[6], claims[5]], // alert kind order
      [{ ...claims[2], amount: 0n } as BridgeClaim],
      [{ ...claims[3], recipient: '0x0000000000000000000000000000000000000000' } as BridgeClaim],
      [{ ...claims[5], alert: { kind: BridgeAlertKind.ForgedQueue, recipient: alice, amount: 0n, validUntil: 1n } } as BridgeClaim],
      [{ ...claims[7], alert: { kind: BridgeAlertKind.UnexplainedSet, digest: tx(1).slice(1) } } as BridgeClaim],
      [{ ...claims[7], alert: { kind: 9, digest: tx(1) } } as unknown as BridgeClaim],
      [{ ...claims[0], amount: 0n } as BridgeClaim],
      [{ ...claims[0], recipient: '0x0000000000000000000000000000000000000000' } as BridgeClaim],
      Array.from({ length: MAX_BRIDGE_CLAIMS + 1 }, (_, i) => ({ ...claims[0], depositId: BigInt(i) }) as BridgeClaim),
    ];
    for (const list of bad) {
      expect(() => signAttestation(CHAIN, { validator: signer.address, claims: list }, signer)).toThrow();
      const body: BridgeAttestationBody = { validator: signer.address, claims: list, signature: new Uint8Array(65).fill(27) };
      expect(() => encodeTx(CHAIN, TxKind.BridgeAttestation, body)).toThrow();
    }
    // Decoding: hand-written bytes of an unsorted list and of v = 1.
    const unsorted = new Writer().u8(1).u32(CHAIN).u8(TxKind.BridgeAttestation).address(signer.address).u32(2);
    for (const depositId of [3n, 0n]) unsorted.u8(BridgeClaimKind.Deposit).big(depositId).address(alice).big(1n).fixed(tx(1), 32);
    expect(() => decodeTx(unsorted.fixed(new Uint8Array(65).fill(27), 65).finish(), 16_384)).toThrow(/ascending/);
    const good = encodeTx(CHAIN, TxKind.BridgeAttestation, signAttestation(CHAIN, { validator: signer.address, claims: [claims[0]] }, signer)).bytes;
    const v1 = good.slice();
    v1[v1.length - 1] = 1;
    expect(() => decodeTx(v1, 16_384)).toThrow(/27 or 28/);
  });
});

describe('WithdrawalSignatures codec', () => {
  it('round-trips; items strictly ascending, 65-byte signatures with v 27/28', () => {
    const items = [
      { withdrawalId: 1n, signature: signer.sign(tx(9)) },
      { withdrawalId: 4n, signature: signer.sign(tx(8)) },
    ];
    const body = signWithdrawalSignatures(CHAIN, { validator: signer.address, items }, signer);
    const t = encodeTx(CHAIN, TxKind.WithdrawalSignatures, body);
    expect(decodeTx(t.bytes, 16_384).body).toEqual(body);
    expect(withdrawalSignaturesSigningHash(CHAIN, body)).not.toEqual(withdrawalSignaturesSigningHash(CHAIN, { ...body, items: [items[0]] }));
    expect(() => signWithdrawalSignatures(CHAIN, { validator: signer.address, items: [items[1], items[0]] }, signer)).toThrow();
    expect(() => signWithdrawalSignatures(CHAIN, { validator: signer.address, items: [] }, signer)).toThrow();
    const v0 = { ...body, items: [{ withdrawalId: 1n, signature: Uint8Array.from([...items[0].signature.subarray(0, 64), 0]) }] };
    expect(() => encodeTx(CHAIN, TxKind.WithdrawalSignatures, v0)).toThrow(/27 or 28/);
  });
});

describe('bridge records', () => {
  it('a withdrawal round-trips in every state, optional fields included', () => {
    const base: Withdrawal = {
      id: 7n,
      owner: alice,
      amount: 10n,
      fee: 1n,
      destination: alice,
      createdMs: 1000,
      validUntilSec: 1600n,
      status: 'requested',
      signatures: [],
      updatedMs: 1000,
    };
    const all: Withdrawal[] = [
      base,
      { ...base, status: 'signed', signatures: [{ validator: signer.address, signature: signer.sign(tx(1)) }], updatedMs: 2000 },
      { ...base, status: 'submitted', queuedTx: tx(2) },
      { ...base, status: 'paid', queuedTx: tx(2), paidTx: tx(3) },
      { ...base, status: 'refunded', voidReason: WithdrawalVoidReason.Cancelled, voidTx: tx(4) },
    ];
    for (const w of all) expect(withdrawalCodec.decode(withdrawalCodec.encode(w))).toEqual(w);
  });

  it('a deposit and a vote record round-trip', () => {
    const d = { id: 3n, recipient: alice, amount: 9n, externalTx: tx(5), creditedMs: 123, height: 4 };
    expect(depositCodec.decode(depositCodec.encode(d))).toEqual(d);
    const v = { variants: [{ claim: claims[0], voters: [alice, signer.address].sort() as Address[] }, { claim: claims[1], voters: [alice] }] };
    expect(bridgeVoteCodec.decode(bridgeVoteCodec.encode(v))).toEqual(v);
  });
});
