/**
 * Sub-accounts in execution (decisions 93–94), blocks built by hand: records and
 * balances survive a restart with the same state root; the REST rule's stateless check
 * lets a master's bound signature through for a derived address, and execution refuses
 * it (403 OWNER_ONLY, nonce spent) until that sub-account exists; a transfer back moves
 * free balance only; 64-byte signatures work for both kinds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { hashSubAccountMessage } from '../../src/signing/eip712-subaccounts';
import { placeOrderDigest, restSigningHash } from '../../src/signing/exchange-digest';
import { sign, signCompact64 } from '../../src/crypto/secp256k1';
import { deriveSubAccount, subAccountActionDigest, subAccountsOf } from '../../src/state/accounts/subaccounts';
import type { Address } from '../../src/util/bytes';
import { accounts, chainId, failure, Harness, ok, refused, type Key } from '../sessions/harness';

// One master per test: each opens and funds the sub-accounts it reads.
const [alice, bob, carol] = accounts;
let h: Harness;
let nonce = 1n;

function create(owner: Key, name: string, form: 64 | 65 = 65): Tx {
  const n = nonce++;
  const d = hashSubAccountMessage(chainId, 'SubAccountCreate', { owner: owner.address, name, nonce: n });
  return encodeTx(chainId, TxKind.SubAccountCreate, { owner: owner.address, name, nonce: n, signature: form === 64 ? signCompact64(d, owner.priv) : sign(d, owner.priv) });
}

function transfer(owner: Key, subAccount: Address, deposit: boolean, usdc: bigint): Tx {
  const n = nonce++;
  const d = hashSubAccountMessage(chainId, 'SubAccountTransfer', { owner: owner.address, subAccount, deposit, usdc, nonce: n });
  return encodeTx(chainId, TxKind.SubAccountTransfer, { owner: owner.address, subAccount, deposit, usdc, nonce: n, signature: signCompact64(d, owner.priv) });
}

function restBuyFor(master: Key, trader: Address): Tx {
  const n = nonce++;
  const fields = { symbol: 'ETH', side: 'buy', type: 'limit', price: '900', amount: '0.01' };
  const digest = placeOrderDigest({ ...fields, nonce: n });
  const signature = sign(restSigningHash(subAccountActionDigest(trader, digest)), master.priv);
  return encodeTx(chainId, TxKind.RestOrder, { trader, ...fields, nonce: n, signature });
}

beforeAll(async () => {
  h = await Harness.open();
});
afterAll(async () => h?.close());

describe('sub-accounts in execution', () => {
  it('create, fund and trade as a sub-account; a restart loads the same records, balances and root', async () => {
    const sub = deriveSubAccount(alice.address, 0);
    ok(await h.one(create(alice, 'desk', 64)));
    ok(await h.one(transfer(alice, sub, true, 10_000_000_000n)));
    ok(await h.one(restBuyFor(alice, sub)));
    expect(h.state.account(sub).usdcLocked).toBeGreaterThan(0n);
    const root = h.rootHex();
    await h.reopen();
    expect(h.rootHex()).toBe(root);
    expect(subAccountsOf(h.state, alice.address)).toEqual([{ address: sub, master: alice.address, name: 'desk', index: 0, createdMs: expect.any(Number) }]);
    expect(h.state.account(sub).usdcLocked).toBeGreaterThan(0n);
    expect([...(h.state.ownerOrders.get(sub) ?? [])]).toHaveLength(1);
  });

  it('a derived address not yet opened passes the stateless check and is refused in execution (403 OWNER_ONLY, nonce spent)', async () => {
    // Bob's first sub-account (index 0) is open; the next derived address (index 1) is not.
    ok(await h.one(create(bob, 'first')));
    const next = deriveSubAccount(bob.address, 1);
    const tx = restBuyFor(bob, next);
    refused(await h.one(tx), 403, 'OWNER_ONLY');
    // Once opened, the same kind of order passes.
    ok(await h.one(create(bob, 'second')));
    ok(await h.one(transfer(bob, next, true, 1_000_000_000n)));
    ok(await h.one(restBuyFor(bob, next)));
    // The spent nonce stays spent.
    expect(failure(await h.one(tx)).status).toBe(409);
  });

  it('a transfer back larger than the sub-account\u2019s free balance is refused (422), all of it is allowed', async () => {
    // Carol's sub-account, funded, with part of its balance locked by a resting order.
    const sub = deriveSubAccount(carol.address, 0);
    ok(await h.one(create(carol, 'desk')));
    ok(await h.one(transfer(carol, sub, true, 10_000_000_000n)));
    ok(await h.one(restBuyFor(carol, sub)));
    const locked = h.state.account(sub).usdcLocked;
    expect(locked).toBeGreaterThan(0n);
    const free = h.state.account(sub).usdcFree;
    refused(await h.one(transfer(carol, sub, false, free + 1n)), 422, 'INSUFFICIENT_BALANCE');
    ok(await h.one(transfer(carol, sub, false, free)));
    expect(h.state.account(sub).usdcFree).toBe(0n);
    // Free balance only: what the order locks stays locked.
    expect(h.state.account(sub).usdcLocked).toBe(locked);
  });
});
