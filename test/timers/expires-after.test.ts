/**
 * expiresAfter on the trader-signed kinds other than orders (issue 24, decision 90):
 * the signed forms agree with viem (EIP-712 with a trailing `string options`, the perp
 * JSON's last key "options"), the trailer leaves a transaction without options byte for
 * byte as before, only expiresAfter is accepted (400 INVALID_OPTIONS), and through REST
 * and the typed client an action is taken while its expiry is ahead and refused 422
 * ACTION_EXPIRED once the block time has passed it.
 */
import { hashTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeClient } from '../../src/client';
import { decodeTx, encodeTx, TxKind } from '../../src/codec/tx';
import { perpOpenMessage, type PerpOpenBody, type WithdrawBody } from '../../src/codec/txs';
import { eip712Domain } from '../../src/signing/eip712';
import { hashTypedWithOptions, typedDataTypesWithOptions } from '../../src/signing/eip712-options';
import { opFor } from '../../src/state/ops';
import { TxError } from '../../src/state/errors';
import { bytesToHex } from '../../src/util/bytes';
import { DEVNET_KEYS, useDevnetNode, waitFor } from '../helpers/devnet';
import { GENESIS } from './harness';

const owner = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as const;
const options = { expiresAfter: 1795673453245n };

describe('signed forms and the trailer', () => {
  it('EIP-712 with options is viem\u2019s hashTypedData of the type with a trailing `string options`; without, the plain digest', () => {
    const message = { owner, amount: 5_000_000n, destination: owner, nonce: 7n };
    const types = typedDataTypesWithOptions('Withdraw', options);
    expect(types.Withdraw.map((m) => `${m.type} ${m.name}`).join(',')).toBe('address owner,uint256 amount,address destination,uint256 nonce,string options');
    const viem = hashTypedData({ domain: eip712Domain(713799) as any, types: types as any, primaryType: 'Withdraw', message: { ...message, options: 'expiresAfter=1795673453245' } });
    expect(bytesToHex(hashTypedWithOptions(713799, 'Withdraw', message, options))).toBe(viem);
    expect(hashTypedWithOptions(713799, 'Withdraw', message, undefined)).not.toEqual(hashTypedWithOptions(713799, 'Withdraw', message, options));
  });

  it('the perp JSON gains a last key "options" only when there are options', () => {
    const b = { wallet: owner, pairId: 1, isLong: true, leverage: 2, margin: '10', nonce: 5n, nonceQuoted: false };
    expect(perpOpenMessage(b)).toBe(JSON.stringify({ action: 'perp_open', wallet: owner, pairId: 1, isLong: true, leverage: 2, margin: '10', nonce: 5 }));
    expect(perpOpenMessage({ ...b, options })).toBe(JSON.stringify({ action: 'perp_open', wallet: owner, pairId: 1, isLong: true, leverage: 2, margin: '10', nonce: 5, options: 'expiresAfter=1795673453245' }));
  });

  it('a body without options encodes as before (no trailer) and round-trips; with options, the trailer round-trips', () => {
    const body: WithdrawBody = { owner, signer: owner, amount: 1n, destination: owner, nonce: 1n, signature: new Uint8Array(65).fill(1) };
    const plain = encodeTx(GENESIS.chainId, TxKind.Withdraw, body);
    const withOpts = encodeTx(GENESIS.chainId, TxKind.Withdraw, { ...body, options });
    // The trailer is all that is added: a flags byte, then the expiry as a big (a length byte and 6 bytes).
    expect(withOpts.bytes.length).toBe(plain.bytes.length + 1 + 7);
    expect(withOpts.bytes.subarray(0, plain.bytes.length - 65)).toEqual(plain.bytes.subarray(0, plain.bytes.length - 65));
    expect(decodeTx(plain.bytes, 1 << 20).body).toEqual(body);
    expect(decodeTx(withOpts.bytes, 1 << 20).body).toEqual({ ...body, options });
  });

  it('only expiresAfter is accepted on these kinds: other options are 400 INVALID_OPTIONS naming the field', () => {
    const b: PerpOpenBody = { wallet: owner, signer: owner, pairId: 1, isLong: true, leverage: 2, margin: '10', nonce: 5n, nonceQuoted: false, signature: new Uint8Array(65) };
    const params = { limits: GENESIS.limits } as any;
    for (const [o, field] of [[{ tif: 'Ioc' }, 'tif'], [{ reduceOnly: true }, 'reduceOnly'], [{ cloid: '0x' + '00'.repeat(16) }, 'cloid'], [{ expiresAfter: 0n }, 'expiresAfter']] as const) {
      let err: unknown;
      try {
        opFor(TxKind.PerpOpen).shape!({ ...b, options: o as any }, params);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TxError);
      expect([(err as TxError).status, (err as TxError).code]).toEqual([400, 'INVALID_OPTIONS']);
      expect((err as TxError).message).toContain(field);
    }
  });
});

const env = useDevnetNode();
let client: ExchangeClient;
const [alice, bob] = DEVNET_KEYS.accounts.slice(10, 12).map((a) => privateKeyToAccount(a.privateKey));
const headMs = () => env.node.chain().state.head().timestampMs;

async function expectError(p: Promise<unknown>, status: number, code: string) {
  const err = await p.then(() => undefined, (e) => e);
  expect(err, 'expected the call to fail').toBeInstanceOf(ExchangeApiError);
  expect([err.status, err.code]).toEqual([status, code]);
}

beforeAll(async () => {
  client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
  await waitFor(async () => (await client.perpMarkets()).find((m: any) => m.symbol === 'ETH' && m.oracleFresh), 20_000, 'a fresh ETH price');
}, 30_000);

describe('through REST and the typed client', () => {
  it('sessions, agent settings, perps and the pool: taken while the expiry is ahead, 422 ACTION_EXPIRED once passed', async () => {
    const key = privateKeyToAccount(generatePrivateKey());
    const later = () => headMs() + 60_000;
    const past = () => headMs() - 1;
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    await expectError(client.createSession(alice, { sessionKey: key.address, expiresAt, expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    expect((await client.createSession(alice, { sessionKey: key.address, expiresAt, expiresAfter: later() })).success).toBe(true);
    await expectError(client.revokeSession(alice, { expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    expect((await client.revokeSession(alice, { expiresAfter: later() })).success).toBe(true);
    await expectError(client.setAgentMode(alice, 2, { expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    expect((await client.setAgentMode(alice, 2, { expiresAfter: later() })).success).toBe(true);
    const caps = { maxLeverage: 100_000, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 9n, maxTotalPosition: 10n ** 20n };
    await expectError(client.setAgentCaps(alice, { ...caps, expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    expect((await client.setAgentCaps(alice, { ...caps, expiresAfter: later() })).success).toBe(true);

    await expectError(client.perpOpen(bob, { pairId: 1, isLong: true, leverage: 2, margin: '50', expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    const opened = await client.perpOpen(bob, { pairId: 1, isLong: true, leverage: 2, margin: '50', expiresAfter: later() });
    await expectError(client.perpTpsl(bob, { positionId: opened.positionId, takeProfit: '', stopLoss: '', expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    await client.perpTpsl(bob, { positionId: opened.positionId, takeProfit: '', stopLoss: '', expiresAfter: later() });
    await expectError(client.perpClose(bob, { positionId: opened.positionId, expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    expect((await client.perpClose(bob, { positionId: opened.positionId, expiresAfter: later() })).status).toBe('closed');

    await expectError(client.poolDeposit(bob, { amount: '10', expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    const dep = await client.poolDeposit(bob, { amount: '10', expiresAfter: later() });
    expect(BigInt(dep.shares)).toBeGreaterThan(0n);
    await expectError(client.poolWithdraw(bob, { shares: 1n, expiresAfter: past() }), 422, 'ACTION_EXPIRED');
    await expectError(client.withdraw(bob, { amount: 5_000_000n, destination: bob.address, expiresAfter: past() }), 422, 'ACTION_EXPIRED');
  }, 60_000);

  it('a malformed expiresAfter is 400 on every route; an expiresAfter not signed breaks the signature (401)', async () => {
    const body = await client.agentModeBody(alice, 1);
    for (const expiresAfter of ['soon', -5, 0, 1.5]) {
      const r = await client.call<any>('POST', '/agent/mode', { ...body, expiresAfter });
      expect([r.status, r.body.error?.code], String(expiresAfter)).toEqual([400, 'INVALID_REQUEST']);
    }
    expect((await client.call<any>('POST', '/agent/mode', { ...body, expiresAfter: headMs() + 60_000 })).status).toBe(401);
    const perp = await client.perpOpenBody(bob, { pairId: 1, isLong: true, leverage: 2, margin: '50' });
    expect((await client.call<any>('POST', '/v1/perp/open', { ...perp, expiresAfter: 'x' })).status).toBe(400);
    expect((await client.call<any>('POST', '/v1/perp/open', { ...perp, expiresAfter: headMs() + 60_000 })).status).toBe(401);
  });
});
