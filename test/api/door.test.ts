/**
 * The door (src/api/door.ts) asks a route's transaction of its operation in the order
 * of contract [D-envelope-order], and refuses with the operation's own reason: the same TxError the mempool's
 * door throws for the same transaction.
 */
import { describe, expect, it } from 'vitest';
import { TxPool } from '../../actors/mempool/pool';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { hashTypedMessage } from '../../src/signing/eip712';
import { sign } from '../../src/crypto/secp256k1';
import { admitAtDoor, ownerOrSessionKey } from '../../src/api/door';
import { ApiError } from '../../src/api/envelope';
import { genesisState } from '../../src/state/genesis';
import { TxError } from '../../src/state/errors';
import { bytesToHex, hexToBytes, toAddress, type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis();
const state = genesisState(genesis, hash).state;
const chainId = genesis.chainId;
const [alice, bob] = DEVNET_KEYS.accounts.slice(0, 2).map((a) => ({ address: toAddress(a.address), key: hexToBytes(a.privateKey) }));
const destination = toAddress(DEVNET_KEYS.accounts[2].address);

/** The refusal `f` throws (the door's TxError, or the API's own ApiError for the signature field). */
function refusal(f: () => unknown): { status: number; code: string; message: string } {
  try {
    f();
  } catch (err) {
    if (err instanceof TxError || err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

/** A withdrawal of `amount` USDC units by alice, signed by `key` (hex, as a request carries it). */
function withdrawal(amount: bigint, key: Uint8Array | undefined, nonce = 1n) {
  const owner = alice.address;
  const signature = key ? bytesToHex(sign(hashTypedMessage(chainId, 'Withdraw', { owner, amount, destination, nonce }), key)) : undefined;
  return { signature, signers: [owner] as [Address], body: (sig: Uint8Array, signer: Address) => ({ owner, signer, amount, destination, nonce, signature: sig }) };
}

describe('the door', () => {
  const min = genesis.fees.minWithdrawalUsdc;

  it('refuses in the contract order: the shape (400) before a missing (401) or malformed (400) signature, then the signature (401)', () => {
    expect(refusal(() => admitAtDoor(state, TxKind.Withdraw, withdrawal(min - 1n, undefined)))).toMatchObject({ status: 400, code: 'BELOW_MINIMUM' });
    expect(refusal(() => admitAtDoor(state, TxKind.Withdraw, withdrawal(min, undefined)))).toMatchObject({ status: 401, code: 'MISSING_SIGNATURE' });
    expect(refusal(() => admitAtDoor(state, TxKind.Withdraw, { ...withdrawal(min, alice.key), signature: '0x1234' }))).toMatchObject({ status: 400, code: 'INVALID_SIGNATURE_FORMAT' });
    expect(refusal(() => admitAtDoor(state, TxKind.Withdraw, withdrawal(min, bob.key)))).toMatchObject({ status: 401, code: 'INVALID_SIGNATURE', message: expect.stringMatching(/^signature: does not recover to /) });
    const { tx, signer } = admitAtDoor(state, TxKind.Withdraw, withdrawal(min, alice.key));
    expect(signer).toBe(alice.address);
    expect(tx.body).toMatchObject({ owner: alice.address, signer: alice.address, amount: min, destination });
  });

  it("refuses with the operation's own reason: what the mempool's door says of the same transaction", () => {
    const pool = new TxPool({ maxTxs: 10, maxBytes: 1 << 20, maxTxBytes: genesis.consensus.maxTxBytes }, () => state);
    // Signed by bob for alice's account: the door tries alice, then (no session) nobody else.
    const byBob = withdrawal(min, bob.key, 7n);
    const atDoor = refusal(() => admitAtDoor(state, TxKind.Withdraw, byBob));
    const tx = unadmitted(byBob);
    expect(refusal(() => pool.add(tx))).toEqual(atDoor);
    // Bob signs claiming to be the signer: the owner-only signer rule refuses it, 403, at both doors.
    const asSigner = { ...byBob, signers: [bob.address] as [Address] };
    const ownerOnly = refusal(() => admitAtDoor(state, TxKind.Withdraw, asSigner));
    expect(ownerOnly).toMatchObject({ status: 403, code: 'OWNER_ONLY' });
    expect(refusal(() => pool.add(unadmitted(asSigner)))).toEqual(ownerOnly);
  });

  it('asks the trader signer rule at the head block: a key that is not the owner nor its session key is 403', () => {
    const nonce = 3n;
    const message = { owner: alice.address, pairId: 1n, side: 0n, orderType: 1n, price: 2_000_000_000n, size: 10n ** 17n, leverage: 1n, nonce };
    const signature = bytesToHex(sign(hashTypedMessage(chainId, 'PlaceOrder', message), bob.key));
    const order = {
      signature,
      signers: [bob.address] as [Address],
      body: (sig: Uint8Array, signer: Address) => ({ owner: alice.address, signer, pairId: 1, side: 0, orderType: 1, price: message.price, size: message.size, leverage: 1, nonce, signature: sig }),
    };
    expect(refusal(() => admitAtDoor(state, TxKind.NativePlace, order))).toMatchObject({ status: 403, code: 'NOT_AUTHORIZED' });
    expect(ownerOrSessionKey(state, alice.address)).toEqual([alice.address]);
  });
});

/** The transaction a request builds, without asking the door (to hand it to the mempool's). */
function unadmitted(req: ReturnType<typeof withdrawal>) {
  return encodeTx(chainId, TxKind.Withdraw, req.body(hexToBytes(req.signature!), req.signers[0]));
}
