/**
 * Perp and pool transactions through the chain (applyBlock, LevelDB, restart), signed
 * with our secp256k1: every validator rebuilds the personal-signed JSON from the
 * transaction and verifies it; the owner or its live session key may sign perp trades;
 * agent mode and caps apply to session-key opens; pool kinds are owner-only; nonces are
 * consumed; and a restarted node rebuilds the perp index and liquidates the same way.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeTx, encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { perpCloseMessage, perpOpenMessage, perpTpslMessage, type PerpCloseBody, type PerpOpenBody, type PerpTpslBody } from '../../src/codec/txs/perps';
import { hashPersonalMessage } from '../../src/crypto/eip191';
import { hashTypedMessage } from '../../src/signing/eip712';
import { sign, signCompact64 } from '../../src/crypto/secp256k1';
import type { Receipt } from '../../src/state/context';
import { setOracleMedian } from '../../src/state/oracle';
import { SIGNER_RULES } from '../../src/state/accounts/sessions';
import { accounts, chainId, genesis, Harness, ok, refused, seededKey, txs, type Key } from '../sessions/harness';

const P = 1_000_000n;
const ETH = 1;
let h: Harness;
let nonceCounter = 1n;
const n = () => nonceCounter++;
beforeEach(async () => {
  h = await Harness.open();
});
afterEach(async () => {
  await h.close();
});


/** The next block's oracle median for ETH (set between blocks, as the oracle's end-of-block step would). */
function price(p: bigint, atMs = h.timeMs + 22): void {
  setOracleMedian(h.state, ETH, p, atMs);
}

function personal(message: string, by: Key, form: 64 | 65 = 65): Uint8Array {
  const hash = hashPersonalMessage(message);
  return form === 64 ? signCompact64(hash, by.priv) : sign(hash, by.priv);
}

const perp = {
  open(by: Key, p: { wallet?: string; isLong?: boolean; leverage?: number; margin?: string; nonce?: bigint; nonceQuoted?: boolean }): Tx {
    const fields = { wallet: p.wallet ?? by.address, pairId: ETH, isLong: p.isLong ?? true, leverage: p.leverage ?? 10, margin: p.margin ?? '100', nonce: p.nonce ?? n(), nonceQuoted: p.nonceQuoted ?? false };
    return encodeTx<PerpOpenBody>(chainId, TxKind.PerpOpen, { ...fields, signer: by.address, signature: personal(perpOpenMessage(fields), by) });
  },
  close(by: Key, wallet: string, positionId: string, size = '0'): Tx {
    const fields = { wallet, positionId, positionIdQuoted: true, size, nonce: n(), nonceQuoted: false };
    return encodeTx<PerpCloseBody>(chainId, TxKind.PerpClose, { ...fields, signer: by.address, signature: personal(perpCloseMessage(fields), by, 64) });
  },
  tpsl(by: Key, wallet: string, positionId: string, takeProfit: string, stopLoss: string): Tx {
    const fields = { wallet, positionId, positionIdQuoted: false, takeProfit, stopLoss, nonce: n(), nonceQuoted: false };
    return encodeTx<PerpTpslBody>(chainId, TxKind.PerpTpsl, { ...fields, signer: by.address, signature: personal(perpTpslMessage(fields), by) });
  },
  poolDeposit(owner: Key, by: Key, amount: bigint, nonce = n()): Tx {
    const signature = sign(hashTypedMessage(chainId, 'PoolDeposit', { owner: owner.address, amount, nonce }), by.priv);
    return encodeTx(chainId, TxKind.PoolDeposit, { owner: owner.address, signer: by.address, amount, nonce, signature });
  },
  poolWithdraw(owner: Key, by: Key, shares: bigint, nonce = n()): Tx {
    const signature = sign(hashTypedMessage(chainId, 'PoolWithdraw', { owner: owner.address, shares, nonce }), by.priv);
    return encodeTx(chainId, TxKind.PoolWithdraw, { owner: owner.address, signer: by.address, shares, nonce, signature });
  },
};

const opened = (r: Receipt) => r.events.find((e) => e.type === 'PerpOpened') as { positionId: string; isAgent: boolean; size: bigint } | undefined;

describe('the signed JSON', () => {
  // Shows contract [C-auth-perp], [D-signatures-perp].
  it('is exactly JSON.stringify of the payload in the documented key order', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'), fc.nat(100), fc.boolean(), fc.integer({ min: 1, max: 50 }),
        fc.constantFrom('20', '20.5', '0.000001', '1000000'), fc.bigInt({ min: 0n, max: 2n ** 53n - 1n }), fc.boolean(), fc.constantFrom('', '3500', '2999.99'),
        (wallet, pairId, isLong, leverage, margin, nonce, quoted, target) => {
          const jn = quoted ? String(nonce) : Number(nonce);
          expect(perpOpenMessage({ wallet, pairId, isLong, leverage, margin, nonce, nonceQuoted: quoted })).toBe(JSON.stringify({ action: 'perp_open', wallet, pairId, isLong, leverage, margin, nonce: jn }));
          expect(perpCloseMessage({ wallet, positionId: '12', positionIdQuoted: quoted, size: margin, nonce, nonceQuoted: quoted })).toBe(
            JSON.stringify({ action: 'perp_close', wallet, positionId: quoted ? '12' : 12, size: margin, nonce: jn }),
          );
          expect(perpTpslMessage({ wallet, positionId: '7', positionIdQuoted: false, takeProfit: target, stopLoss: '', nonce, nonceQuoted: quoted })).toBe(
            JSON.stringify({ action: 'perp_tpsl', wallet, positionId: 7, takeProfit: target, stopLoss: '', nonce: jn }),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('transactions round-trip through the canonical encoding', () => {
    const [alice] = accounts;
    for (const t of [perp.open(alice, { wallet: '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266', nonceQuoted: true }), perp.close(alice, alice.address, '3', '0.5'), perp.tpsl(alice, alice.address, '3', '', '2000'), perp.poolDeposit(alice, alice, 5n)]) {
      const back = decodeTx(t.bytes, genesis.consensus.maxTxBytes);
      expect(back.body).toEqual(t.body);
      expect(back.hash).toEqual(t.hash);
    }
  });
});

describe('perp transactions in blocks', () => {
  it('the owner opens, sets TP/SL and closes; a wrong key is 401; a reused nonce 409', async () => {
    const [alice, bob] = accounts;
    price(3000n * P);
    await h.block([]);
    price(3000n * P);
    // A nonce of the counter (the window refuses any nonce at or below the first one taken: decision 97).
    const reused = n();
    const r = await h.one(perp.open(alice, { wallet: '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266', nonce: reused }));
    ok(r);
    const id = opened(r)!.positionId;
    expect(opened(r)).toMatchObject({ isAgent: false, size: 333_333_333_333_333_333n });
    price(3000n * P);
    refused(await h.one(perp.open(alice, { nonce: reused })), 409, 'NONCE_USED');
    // bob signs for alice's wallet without a session: the signature is bob's, so the signer rule refuses it.
    price(3000n * P);
    refused(await h.one(perp.open(bob, { wallet: alice.address })), 403, 'NOT_AUTHORIZED');
    // A signature over other fields than the transaction's: 401.
    const good = perp.open(alice, {});
    const forged = encodeTx<PerpOpenBody>(chainId, TxKind.PerpOpen, { ...(good.body as PerpOpenBody), margin: '1000' });
    price(3000n * P);
    refused(await h.one(forged), 401, 'INVALID_SIGNATURE');
    price(3000n * P);
    ok(await h.one(perp.tpsl(alice, alice.address, id, '3300', '2800')));
    expect(h.state.perpPositions.get(id)).toMatchObject({ takeProfit: 3300n * P, stopLoss: 2800n * P });
    price(3000n * P);
    refused(await h.one(perp.tpsl(alice, alice.address, id, '2800', '3300')), 400, 'INVALID_TPSL');
    price(3000n * P);
    refused(await h.one(perp.close(bob, bob.address, id)), 403, 'NOT_OWNER');
    price(3000n * P);
    const c = await h.one(perp.close(alice, alice.address, id));
    ok(c);
    expect(c.events.find((e) => e.type === 'PerpClosed')).toMatchObject({ reason: 'close', pnl: 0n });
    expect(h.state.perpPositions.size).toBe(0);
  });

  it('a session key trades perps for its owner under the agent mode and caps', async () => {
    const [alice] = accounts;
    const sk = seededKey(7);
    const expiresAt = BigInt(Math.floor(h.timeMs / 1000) + 3600);
    ok(await h.one(txs.sessionCreate(alice.address, alice, { sessionKey: sk.address, expiresAt, nonce: n() })));
    price(3000n * P);
    const r = await h.one(perp.open(sk, { wallet: alice.address }));
    ok(r);
    expect(opened(r)!.isAgent).toBe(true);
    expect(h.state.perpPositions.get(opened(r)!.positionId)!.owner).toBe(alice.address);
    // Caps: 10x at most, 50 USDC of margin per trade, 0.4 ETH long in total (0.333… held).
    ok(await h.one(txs.caps(alice.address, alice, { maxLeverage: 100_000n, allowedOrderTypes: 3, maxInputPerTrade: 50_000_000n, maxTotalPosition: 4n * 10n ** 17n, nonce: n() })));
    price(3000n * P);
    refused(await h.one(perp.open(sk, { wallet: alice.address, margin: '50', leverage: 11 })), 403, 'CAP_LEVERAGE');
    price(3000n * P);
    refused(await h.one(perp.open(sk, { wallet: alice.address, margin: '51', leverage: 2 })), 403, 'CAP_INPUT');
    price(3000n * P);
    refused(await h.one(perp.open(sk, { wallet: alice.address, margin: '50', leverage: 10 })), 403, 'CAP_POSITION'); // 0.333… + 0.1666… > 0.4
    price(3000n * P);
    ok(await h.one(perp.open(sk, { wallet: alice.address, margin: '10', leverage: 2 }))); // + 0.00666…: 0.34 ≤ 0.4
    // A short is another direction: its own total.
    price(3000n * P);
    ok(await h.one(perp.open(sk, { wallet: alice.address, margin: '50', leverage: 10, isLong: false })));
    // The owner's own signature is not an agent order: no caps.
    price(3000n * P);
    ok(await h.one(perp.open(alice, { margin: '500', leverage: 50 })));
  });

  it('agent mode OFF and REDUCE_ONLY refuse opens; closes stay allowed; the owner itself is never capped', async () => {
    const [alice] = accounts;
    const sk = seededKey(8);
    ok(await h.one(txs.sessionCreate(alice.address, alice, { sessionKey: sk.address, expiresAt: BigInt(Math.floor(h.timeMs / 1000) + 3600), nonce: n() })));
    price(3000n * P);
    const id = opened(await h.one(perp.open(sk, { wallet: alice.address })))!.positionId;
    ok(await h.one(txs.mode(alice.address, alice, 1, n())));
    price(3000n * P);
    refused(await h.one(perp.open(sk, { wallet: alice.address })), 403, 'AGENT_REDUCE_ONLY');
    ok(await h.one(txs.mode(alice.address, alice, 0, n())));
    price(3000n * P);
    refused(await h.one(perp.open(sk, { wallet: alice.address })), 403, 'AGENT_MODE_OFF');
    price(3000n * P);
    ok(await h.one(perp.tpsl(sk, alice.address, id, '3500', '')));
    price(3000n * P);
    ok(await h.one(perp.open(alice, {})));
    price(3000n * P);
    ok(await h.one(perp.close(sk, alice.address, id)));
  });

  it('pool kinds are owner-only: a session key is refused (403 OWNER_ONLY) by the signer rule', async () => {
    const [alice] = accounts;
    const sk = seededKey(9);
    expect(SIGNER_RULES[TxKind.PoolDeposit].who).toBe('owner');
    expect(SIGNER_RULES[TxKind.PoolWithdraw].who).toBe('owner');
    expect(SIGNER_RULES[TxKind.PerpOpen].who).toBe('trader');
    ok(await h.one(txs.sessionCreate(alice.address, alice, { sessionKey: sk.address, expiresAt: BigInt(Math.floor(h.timeMs / 1000) + 3600), nonce: n() })));
    refused(await h.one(perp.poolDeposit(alice, sk, 10_000_000n)), 403, 'OWNER_ONLY');
    const d = await h.one(perp.poolDeposit(alice, alice, 10_000_000n));
    ok(d);
    expect(d.events.find((e) => e.type === 'PoolDeposited')).toMatchObject({ amount: 10_000_000n, shares: 10_000_000n });
    refused(await h.one(perp.poolWithdraw(alice, alice, 10_000_000n)), 422, 'POOL_LOCKED');
    ok(await h.one(perp.poolWithdraw(alice, alice, 10_000_000n), h.timeMs + genesis.limits.poolLockupMs));
  });
});

describe('restart', () => {
  it('a restarted node rebuilds the perp index from its records and liquidates the same position at the same block', async () => {
    const [alice, bob] = accounts;
    price(3000n * P);
    await h.block([]);
    price(3000n * P);
    const r = await h.block([perp.open(alice, { leverage: 50 }), perp.open(bob, { leverage: 5, isLong: false })]);
    const liqId = opened(r[0])!.positionId;
    const liqPrice = h.state.perpPositions.get(liqId)!.liquidationPrice;
    price(3000n * P);
    await h.block([]);
    const root = h.rootHex();
    await h.reopen();
    expect(h.rootHex()).toBe(root);
    expect(h.state.perp.size).toBe(2);
    price(liqPrice);
    await h.block([]);
    expect(h.state.perpPositions.get(liqId)).toBeUndefined();
    expect(h.state.perp.size).toBe(1);
  });
});
