/**
 * The limiter's parts without a node (src/api/rate-limit.ts; decision 98): the weighted
 * fixed-window store, the key of a client address, route weights, an action's weight,
 * and the budgets a client reads (GET /v1/rate-limit).
 */
import { normalizeIP } from '@fastify/rate-limit';
import { describe, expect, it } from 'vitest';
import { actionWeight, clientKey, RateLimiter, routeWeight, WeightedWindowStore } from '../../src/api/rate-limit';

describe('WeightedWindowStore', () => {
  it('adds weights within a window, starts a fresh one when it ends, and forgets the oldest key when full', () => {
    const s = new WeightedWindowStore(2);
    expect(s.charge('a', 1, 1000, 0)).toEqual({ current: 1, ttl: 1000 });
    expect(s.charge('a', 5, 1000, 400)).toEqual({ current: 6, ttl: 600 });
    expect(s.peek('a', 1000, 999)).toEqual({ current: 6, ttl: 1 });
    expect(s.charge('a', 1, 1000, 1000)).toEqual({ current: 1, ttl: 1000 });
    expect(s.peek('a', 1000, 2000)).toEqual({ current: 0, ttl: 0 });
    s.charge('b', 2, 1000, 1100);
    s.charge('c', 3, 1000, 1200); // full: 'a' (the oldest window) is forgotten
    expect(s.peek('a', 1000, 1300).current).toBe(0);
    expect(s.peek('b', 1000, 1300).current).toBe(2);
  });

  it("reads a weighted route's key (`key#w`) as that weight, a plain key as 1", () => {
    const s = new WeightedWindowStore();
    const seen: number[] = [];
    s.incr('10.0.0.1#5', (_e, r) => seen.push(r!.current), 60_000);
    s.incr('10.0.0.1', (_e, r) => seen.push(r!.current), 60_000);
    expect(seen).toEqual([5, 6]);
  });
});

describe('clientKey', () => {
  it('keeps an IPv4 address as it is and gives IPv6 addresses the plugin key (their /64), remembered or not', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    for (const ip of ['2001:db8:1:2:3:4:5:6', '2001:DB8:1:2:ffff::1', '::ffff:198.51.100.4', '::1']) {
      expect(clientKey(ip)).toBe(normalizeIP(ip));
      expect(clientKey(ip)).toBe(normalizeIP(ip));
    }
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe(clientKey('2001:db8:1:2:aaaa::9'));
    expect(clientKey('2001:db8:1:2:3:4:5:6')).not.toBe(clientKey('2001:db8:1:3::1'));
  });
});

describe('weights and budgets', () => {
  it('weighs the heavy routes 5 and the rest 1; an action by its longest list', () => {
    expect(routeWeight('GET', '/openapi.json')).toBe(5);
    expect(routeWeight('GET', '/v1/pairs')).toBe(1);
    expect(actionWeight({ orders: [1, 2, 3], cancels: [1] })).toBe(3);
    expect(actionWeight({ price: '1' })).toBe(1);
  });

  it('shows what an IP and a signer have spent, null for a budget that is off', () => {
    const l = new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: 10, addressWeightPerWindow: 4, wsConnectionsPerIp: 0 });
    l.chargeAddress('0xAbC0000000000000000000000000000000000001', 3);
    expect(l.chargeIpMessage('10.1.1.1')).toBeUndefined();
    const b = l.budgets('10.1.1.1', '0xabc0000000000000000000000000000000000001');
    expect(b.ip).toMatchObject({ limit: 10, used: 1, remaining: 9, windowMs: 60_000 });
    expect(b.address).toMatchObject({ limit: 4, used: 3, remaining: 1 });
    expect(() => l.chargeAddress('0xabc0000000000000000000000000000000000001', 2)).toThrow(/spent its 4 weight/);
    const off = new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: 0, addressWeightPerWindow: 0, wsConnectionsPerIp: 0 });
    expect(off.budgets('10.1.1.1', '0x0000000000000000000000000000000000000001')).toEqual({ ip: null, address: null });
  });
});
