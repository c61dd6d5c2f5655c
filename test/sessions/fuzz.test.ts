/**
 * Random bodies and queries on the session and agent routes, on {base_url} and on the
 * session port: never a 5xx, every error in the envelope; and structurally valid but
 * unsigned or wrongly signed bodies never change state.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionApiAddress } from '../../actors/api/api-actor';
import type { Node } from '../../src/node/node';
import { startNode, tempDir } from '../helpers/devnet';

const dir = tempDir();
let node: Node;
let urls: string[];
beforeAll(async () => {
  const started = await startNode(dir.path, { sessionApi: { host: '127.0.0.1', port: 0 } });
  node = started.node;
  urls = [started.url, sessionApiAddress(node.config)!];
});
afterAll(async () => {
  await node?.stop();
  dir.remove();
});

const A = '0x' + '11'.repeat(20);
const ROUTES: [string, string][] = [
  ['POST', '/session/create'], ['POST', '/session/revoke'], ['POST', '/agent/caps'], ['POST', '/agent/mode'],
  ['GET', `/session/valid?owner=${A}&session_key=${A}`], ['GET', `/session/get?owner=${A}`], ['GET', `/agent/caps?owner=${A}`],
];

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(A, '0x' + '22'.repeat(20), '0x' + 'ab'.repeat(64), '0x' + 'ab'.repeat(65), '1.5', '-1', '1e9', '99999999999999999999999999999999999999999', 3, 255, -1, 2 ** 53, 1e300),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('owner', 'session_key', 'expires_at', 'nonce', 'signature', 'mode', 'max_leverage', 'allowed_order_types', 'max_input_per_trade', 'max_total_position', 'x'),
      tie('value'),
      { maxKeys: 8 },
    ),
  ),
})).value;

const queryJunk = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('&owner=x', '&session_key=', '?owner=0x12', '&extra=1', '%00'));

describe('fuzz: session and agent routes', () => {
  it('never answer a 5xx, and errors are in the envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), jsonValue, queryJunk, fc.boolean(), fc.nat(1), async ([method, path], body, junk, mangle, which) => {
        const p = mangle ? path + encodeURI(junk).slice(0, 30) : path;
        const hasBody = method !== 'GET';
        const res = await fetch(urls[which] + p, {
          method,
          headers: hasBody ? { 'content-type': 'application/json' } : {},
          body: hasBody ? JSON.stringify(body) : undefined,
        });
        const text = await res.text();
        expect(res.status, `${method} ${p} ${text.slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) {
          const parsed = JSON.parse(text);
          expect(parsed.success).toBe(false);
          expect(typeof parsed.error.code).toBe('string');
        }
      }),
      { numRuns: 1500 },
    );
    // Nothing random was signed by anyone: no session or agent record exists.
    const state = node.chain().state;
    expect(state.sessions.size).toBe(0);
    expect(state.agents.size).toBe(0);
  });
});
