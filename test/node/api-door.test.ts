/**
 * Bad input is refused at the door with the error envelope of contract
 * [D-envelope-error], and nothing is
 * stored: malformed transactions, wrong chain id, bad signatures, oversized payloads,
 * bad faucet requests.
 */
import { describe, expect, it } from 'vitest';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { keccak256 } from '../../src/crypto/keccak';
import { bytesToHex, hexToBytes, toAddress } from '../../src/util/bytes';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';

const devnet = useDevnetNode();

const post = async (path: string, body: unknown, raw = false) => {
  const res = await fetch(`${devnet.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ? (body as string) : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

function expectEnvelope(r: { status: number; body: any }, status: number, code: string, field?: string) {
  expect(r.status).toBe(status);
  expect(r.body.success).toBe(false);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe('string');
  expect(typeof r.body.timestamp).toBe('number');
  if (field) expect(r.body.error.message).toContain(field);
}

const chainId = () => devnet.node.config.genesis.chainId;
const faucetKey = hexToBytes(DEVNET_KEYS.faucet.privateKey);
const to = DEVNET_KEYS.accounts[5].address;
const unsigned = (nonce: bigint) => ({ to, usdc: 1_000_000n, nativeWei: 0n, nonce });
/**
 * A nonce above every one the faucet's key has used on this node's chain (the faucet
 * route's own, when its test ran first, are millisecond timestamps), so the transaction
 * is refused or accepted for what the test means, never for a nonce another test spent.
 */
const freshFaucetNonce = () => (devnet.node.chain().state.nonces.get(toAddress(DEVNET_KEYS.faucet.address)) ?? []).reduce((a, n) => (n > a ? n : a), 0n) + 1n;

describe('the door: raw transactions', () => {
  it('accepts a valid signed transaction and answers once final', async () => {
    const tx = encodeTx(chainId(), TxKind.Faucet, signFaucet(chainId(), unsigned(freshFaucetNonce()), faucetKey));
    const r = await post('/tx', { tx: bytesToHex(tx.bytes) });
    expect(r.status).toBe(200);
    expect(r.body.data.txHash).toBe(bytesToHex(tx.hash));
    expect(r.body.data.height).toBeGreaterThan(0);
    const again = await post('/tx', { tx: bytesToHex(tx.bytes) });
    expectEnvelope(again, 409, 'NONCE_USED');
  });

  it('refuses malformed bytes, wrong chain id, bad signatures and oversized payloads, storing nothing', async () => {
    const freeBefore = devnet.node.chain().state.account(to).usdcFree;
    const nonce = freshFaucetNonce();
    const good = encodeTx(chainId(), TxKind.Faucet, signFaucet(chainId(), unsigned(nonce), faucetKey)).bytes;

    expectEnvelope(await post('/tx', { tx: bytesToHex(good.subarray(0, good.length - 3)) }), 400, 'MALFORMED_TX', 'tx');
    expectEnvelope(await post('/tx', { tx: bytesToHex(Uint8Array.of(...good, 0)) }), 400, 'MALFORMED_TX', 'trailing');
    expectEnvelope(await post('/tx', { tx: 'nothex' }), 400, 'INVALID_REQUEST', 'tx');
    expectEnvelope(await post('/tx', {}), 400, 'INVALID_REQUEST', 'tx');
    expectEnvelope(await post('/tx', '{"tx": ', true), 400, 'INVALID_REQUEST');

    const wrongChain = encodeTx(chainId() + 1, TxKind.Faucet, signFaucet(chainId() + 1, unsigned(nonce + 1n), faucetKey));
    expectEnvelope(await post('/tx', { tx: bytesToHex(wrongChain.bytes) }), 400, 'WRONG_CHAIN');

    const tampered = signFaucet(chainId(), unsigned(nonce + 2n), faucetKey);
    const badSig = encodeTx(chainId(), TxKind.Faucet, { ...tampered, usdc: tampered.usdc + 1n }); // signature no longer matches
    const r = await post('/tx', { tx: bytesToHex(badSig.bytes) });
    // Recovery yields some other address: not the faucet (403), never a credit.
    expect([401, 403]).toContain(r.status);
    expect(r.body.success).toBe(false);
    const highS = signFaucet(chainId(), unsigned(nonce + 3n), faucetKey);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(bytesToHex(highS.signature.subarray(32, 64)));
    const sig = highS.signature.slice();
    sig.set(hexToBytes(`0x${(n - s).toString(16).padStart(64, '0')}`), 32);
    sig[64] = sig[64] === 27 ? 28 : 27;
    expectEnvelope(await post('/tx', { tx: bytesToHex(encodeTx(chainId(), TxKind.Faucet, { ...highS, signature: sig }).bytes) }), 401, 'INVALID_SIGNATURE');

    const huge = await fetch(`${devnet.url}/tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx: `0x${'00'.repeat(300_000)}` }) });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
    const big = await post('/tx', { tx: `0x01${'00'.repeat(20_000)}` });
    expectEnvelope(big, 400, 'PAYLOAD_TOO_LARGE');

    expect(devnet.node.chain().state.account(to).usdcFree).toBe(freeBefore);
    for (const bytes of [wrongChain.bytes, badSig.bytes]) {
      const res = await fetch(`${devnet.url}/tx/${bytesToHex(keccak256(bytes))}`);
      expect(res.status).toBe(404);
    }
  });
});

// Shows contract [D-faucet-route].
describe('the door: faucet', () => {
  it('credits through consensus and names the field of a bad request', async () => {
    const before = devnet.node.chain().state.account(to);
    const ok = await post('/faucet', { address: to, amount: '12.345678' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ address: to, amount: '12.345678' });
    const after = devnet.node.chain().state.account(to);
    expect(after.usdcFree - before.usdcFree).toBe(12_345_678n);
    expect(after.nativeWei - before.nativeWei).toBe(devnet.node.config.genesis.faucet!.nativeWeiPerRequest);

    expectEnvelope(await post('/faucet', { address: '0x12', amount: '1' }), 400, 'INVALID_REQUEST', 'address');
    expectEnvelope(await post('/faucet', { amount: '1' }), 400, 'INVALID_REQUEST', 'address');
    expectEnvelope(await post('/faucet', { address: to, amount: '1.0000001' }), 400, 'INVALID_AMOUNT', 'amount');
    expectEnvelope(await post('/faucet', { address: to, amount: '-1' }), 400, 'INVALID_AMOUNT', 'amount');
    expectEnvelope(await post('/faucet', { address: to, amount: 5 }), 400, 'INVALID_REQUEST', 'amount');
    expectEnvelope(await post('/faucet', { address: to, amount: '100000000' }), 400, 'INVALID_AMOUNT', 'amount');
    expectEnvelope(await post('/faucet', { address: to, amount: '1', extra: 1 }), 400, 'INVALID_REQUEST', 'extra');
    expect(devnet.node.chain().state.account(to)).toEqual(after);
  });

  it('answers 404 in the envelope for unknown routes', async () => {
    const res = await fetch(`${devnet.url}/nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('NOT_FOUND');
  });

  // Shows contract [C-market-health].
  it('health answers {status, chain, chainId}', async () => {
    const body = (await (await fetch(`${devnet.url}/health`)).json()) as any;
    expect(body).toMatchObject({ status: 'ok', chain: 'devnet', chainId: 713799 });
  });
});
