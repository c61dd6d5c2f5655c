/**
 * Issue 24 mend: field ranges are checked before signatures on every signed route
 * (decisions: shape 400, signature 401, ...). Each row is a body whose one field is out
 * of its range, sent with a well-formed signature that does not verify: the answer must
 * be 400 naming the field, never the 401 of the signature.
 *
 * Rows name the routes' range rules that depend on the pair (tick, lot, minimum,
 * leverage) as well as the fixed ones. /faucet has no client signature (the node signs
 * its credit), governance and validator operations arrive as raw transactions on /tx,
 * which decodes and checks the shape before the signature in the mempool (pool.ts).
 */
import { describe, expect, it } from 'vitest';
import { DEVNET_KEYS, useDevnetNode } from '../helpers/devnet';

const ctx = useDevnetNode();
const owner = DEVNET_KEYS.accounts[0].address;
const other = DEVNET_KEYS.accounts[1].address;
/** 65 bytes r‖s‖v, low s: well-formed, and it verifies for no one here. */
const badSig = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b`;
const nonce = 1_700_000_000_123;

// BTC (pair 2 on the devnet): tick 0.1 USDC (100000), lot 0.00001 (1e13), minimum 0.0001 (1e14), leverage up to 50.
const native = { pair_id: 2, side: 'Buy', size: '100000000000000', owner, order_type: 'Limit', price: '90000000000', leverage: 1, nonce, signature: badSig };
const rest = { trader: owner, symbol: 'BTC', side: 'buy', type: 'limit', price: '90000', amount: '0.001', nonce, signature: badSig };
const perpOpen = { action: 'perp_open', wallet: owner, pairId: 2, isLong: true, leverage: 5, margin: '100', nonce, signature: badSig };

const ROWS: [string, string, Record<string, unknown>, string][] = [
  ['/order/place', 'size 0', { ...native, size: '0' }, 'size'],
  ['/order/place', 'leverage 51', { ...native, leverage: 51 }, 'leverage'],
  ['/order/place', 'size off the lot', { ...native, size: '100000000000001' }, 'size'],
  ['/order/place', 'size below the minimum', { ...native, size: '10000000000000' }, 'size'],
  ['/order/place', 'price off the tick', { ...native, price: '90000000001' }, 'price'],
  ['/v1/order', 'price off the tick', { ...rest, price: '90000.01' }, 'price'],
  ['/v1/order', 'amount off the lot', { ...rest, amount: '0.000011' }, 'amount'],
  ['/v1/order', 'amount below the minimum', { ...rest, amount: '0.00001' }, 'amount'],
  ['/v1/order', 'amount 0', { ...rest, amount: '0' }, 'amount'],
  ['/v1/perp/open', 'leverage 51', { ...perpOpen, leverage: 51 }, 'leverage'],
  ['/v1/perp/open', 'margin below 1 USDC', { ...perpOpen, margin: '0.5' }, 'margin'],
  ['/v1/perp/close', 'size not a decimal', { action: 'perp_close', wallet: owner, positionId: 1, size: '1.1234567890123456789', nonce, signature: badSig }, 'size'],
  ['/v1/perp/tpsl', 'take profit 0', { action: 'perp_tpsl', wallet: owner, positionId: 1, takeProfit: '0', stopLoss: '', nonce, signature: badSig }, 'takeProfit'],
  ['/v1/pool/deposit', 'amount 0', { owner, amount: '0', nonce, signature: badSig }, 'amount'],
  ['/v1/pool/withdraw', 'shares 0', { owner, shares: '0', nonce, signature: badSig }, 'shares'],
  ['/withdraw', 'amount below the minimum', { owner, amount: '1', destination: other, nonce, signature: badSig }, 'amount'],
  ['/agent/mode', 'mode 3', { owner, mode: 3, nonce, signature: badSig }, 'mode'],
  ['/agent/caps', 'max_input_per_trade over 128 bits', { owner, max_leverage: 1, allowed_order_types: 3, max_input_per_trade: (1n << 128n).toString(), max_total_position: '1', nonce, signature: badSig }, 'max_input_per_trade'],
  ['/session/create', 'session key equal to the owner', { owner, session_key: owner, expires_at: 4_102_444_800, nonce, signature: badSig }, 'session_key'],
];

describe('field ranges answer 400 before a bad signature is looked at', () => {
  it.each(ROWS)('%s with %s → 400 naming the field', async (route, _what, body, field) => {
    const res = await fetch(ctx.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const reply = (await res.json()) as { error?: { code: string; message: string } };
    expect(res.status, JSON.stringify(reply)).toBe(400);
    expect(reply.error?.message).toContain(field);
  });

  it('a body in range with the same bad signature is 401 (the rows above fail for their range, not for their form)', async () => {
    for (const [route, body] of [['/order/place', native], ['/v1/order', rest], ['/v1/perp/open', perpOpen]] as const) {
      const res = await fetch(ctx.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, route).toBe(401);
    }
  });
});
