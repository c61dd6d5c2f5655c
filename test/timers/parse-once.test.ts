/**
 * A TwapPlace body is parsed once for its checks and its execution (as the REST orders
 * are: src/state/ops/rest-orders.ts): `shape` at the door or before execution, then
 * `apply`, read the same parse of the same body.
 */
import { describe, expect, it } from 'vitest';
import type { BlockHeader } from '../../src/codec/block';
import type { TwapPlaceBody } from '../../src/codec/txs/timers';
import type { Tx } from '../../src/codec/tx';
import type { ChainEvent } from '../../src/state/context';
import { twapPlaceOp } from '../../src/state/ops/timers';
import { T0, TimerChain, traders } from './harness';

describe('TwapPlace parsing', () => {
  it('shape then apply of one body parse its amount once', () => {
    const c = new TimerChain();
    let reads = 0;
    const body = { trader: traders[0].address, symbol: 'ETH', side: 'buy', minutes: 5, randomize: false, nonce: 1n, signature: new Uint8Array(65) } as TwapPlaceBody;
    Object.defineProperty(body, 'amount', { enumerable: true, get: () => (reads++, '0.1') });
    const params = c.state.params();
    twapPlaceOp.shape!(body, params);
    const events: ChainEvent[] = [];
    twapPlaceOp.apply({ state: c.state, params, header: { timestampMs: T0 + 1000 } as BlockHeader, emit: (e) => events.push(e) }, { body } as Tx<TwapPlaceBody>, traders[0].address);
    expect(events.map((e) => e.type)).toEqual(['TwapPlaced']);
    expect(reads).toBe(1);
  });
});
