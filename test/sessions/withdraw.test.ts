/**
 * Withdrawal requests: the owner's locks amount + fee from free balance; a session key
 * can only trade, so its withdrawal attempt is refused (403 OWNER_ONLY) and changes nothing.
 * A replayed nonce, a signature made for another chain, and a malformed body are refused
 * with the error envelope and change nothing either.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';

const devnet = useDevnetNode();
const owner = privateKeyToAccount(DEVNET_KEYS.accounts[7].privateKey);
const sessionKey = privateKeyToAccount(generatePrivateKey());
const destination = '0x00000000000000000000000000000000000000d5';

describe('withdrawals', () => {
  it('the owner requests one; its session key cannot; limits answer clearly', async () => {
    const client = new ExchangeClient(devnet.url, { chainId: devnet.node.config.genesis.chainId, signatureForm: 64 });
    const before = await client.balance(owner.address);
    const r = await client.withdraw(owner, { amount: 10_000_000n, destination });
    expect(r).toMatchObject({ success: true, status: 'requested', amount: '10000000', fee: '1000000' });
    const after = await client.balance(owner.address);
    expect(before.free_balance - after.free_balance).toBe(11_000_000);
    expect(after.locked - before.locked).toBe(11_000_000);

    await client.createSession(owner, { sessionKey: sessionKey.address, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    expect((await client.call<any>('GET', `/session/valid?owner=${owner.address}&session_key=${sessionKey.address}`)).body.valid).toBe(true);
    const err = await client.withdraw(sessionKey, { owner: owner.address, amount: 5_000_000n, destination }).catch((e) => e);
    expect(err).toBeInstanceOf(ExchangeApiError);
    expect(err.status).toBe(403);
    expect(err.code).toBe('OWNER_ONLY');
    expect(await client.balance(owner.address)).toEqual(after);

    const small = await client.withdraw(owner, { amount: 999_999n, destination }).catch((e) => e);
    expect(small.status).toBe(400);
    expect(small.message).toContain('amount');
    const huge = await client.withdraw(owner, { amount: 10n ** 15n, destination }).catch((e) => e);
    expect(huge.status).toBe(422);
    expect(huge.code).toBe('INSUFFICIENT_BALANCE');
    expect(await client.balance(owner.address)).toEqual(after);
  });

  it('refuses a replayed nonce (409), a signature for another chain (401) and malformed bodies (400), changing nothing', async () => {
    const chainId = devnet.node.config.genesis.chainId;
    const client = new ExchangeClient(devnet.url, { chainId, signatureForm: 64 });
    // Above the owner's earlier (timestamp) nonces: a smaller one is below its window (decision 97).
    const nonce = client.nextNonce();
    await client.withdraw(owner, { amount: 2_000_000n, destination, nonce });
    const after = await client.balance(owner.address);
    const replay = await client.withdraw(owner, { amount: 2_000_000n, destination, nonce }).catch((e) => e);
    expect(replay).toBeInstanceOf(ExchangeApiError);
    expect([replay.status, replay.code]).toEqual([409, 'NONCE_USED']);
    // Signed over another chain's EIP-712 domain: it recovers to someone else here.
    const otherChain = new ExchangeClient(devnet.url, { chainId: chainId + 1, signatureForm: 64 });
    const wrongChain = await otherChain.withdraw(owner, { amount: 2_000_000n, destination, nonce: 900_002n }).catch((e) => e);
    expect([wrongChain.status, wrongChain.code]).toEqual([401, 'INVALID_SIGNATURE']);
    const good = { owner: owner.address, amount: '2000000', destination, nonce: 900_003, signature: `0x${'11'.repeat(65)}` };
    for (const body of [
      { ...good, amount: '-5' },
      { ...good, amount: '1.5' },
      { ...good, destination: '0x1234' },
      { ...good, extra: 1 },
      { owner: owner.address, amount: '2000000' },
    ]) {
      const r = await client.call<any>('POST', '/withdraw', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.success).toBe(false);
      expect(typeof r.body.error.code).toBe('string');
    }
    expect(await client.balance(owner.address)).toEqual(after);
  });
});
