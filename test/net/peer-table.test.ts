/**
 * The peer table (src/net/peer-table.ts, decision 184): bounded, scored, deterministic.
 * Misbehaviour lowers a score down to a ban that keeps the peer out (not re-learnt, not
 * dialled) until it expires; failed dials back off and an exchange-learnt address is
 * forgotten; a full table refuses or evicts by a fixed order; too many connections are
 * shed worst first, never a validator's or a bootstrap peer's.
 */
import { describe, expect, it } from 'vitest';
import { BAN_MS, BAN_SCORE, DIAL_ATTEMPTS_MAX, DIAL_BACKOFF_BASE_MS, DIAL_BACKOFF_MAX_MS, PEER_TABLE_LIMITS, PeerTable } from '../../src/net/peer-table';

const A = '/ip4/127.0.0.1/tcp/1';
const small = { ...PEER_TABLE_LIMITS, addressesMax: 3, connectionsMax: 2 };

describe('the peer table', () => {
  it('learns a peer once, merges its addresses up to the bound, refuses itself', () => {
    const t = new PeerTable('me');
    expect(t.learn('me', [A], 'pex', 0)).toBe(false);
    expect(t.learn('p', [A], 'pex', 0)).toBe(true);
    expect(t.learn('p', ['/ip4/127.0.0.1/tcp/2', '/ip4/127.0.0.1/tcp/3', '/ip4/127.0.0.1/tcp/4', '/ip4/127.0.0.1/tcp/5'], 'bootstrap', 1)).toBe(true);
    const e = t.get('p')!;
    expect(e.addrs).toHaveLength(PEER_TABLE_LIMITS.addrsPerPeerMax);
    // The stronger source stays.
    expect(e.source).toBe('bootstrap');
    expect(t.size).toBe(1);
  });

  it('bans a misbehaving peer at the floor: gone from the table, not re-learnt until the ban ends, then back at half the floor', () => {
    const t = new PeerTable('me');
    t.learn('bad', [A], 'pex', 0);
    let ban;
    for (let i = 0; i < 10 && ban === undefined; i++) ban = t.record('bad', 'malformed', 1_000, 'garbage');
    expect(ban).toBeDefined();
    expect(ban!.reason).toBe('malformed: garbage');
    expect(ban!.untilMs).toBe(1_000 + BAN_MS);
    expect(t.get('bad')).toBeUndefined();
    expect(t.learn('bad', [A], 'pex', 2_000)).toBe(false);
    expect(t.toDial(10, 2_000)).toEqual([]);
    expect(t.view(2_000).banned.map((b) => b.peerId)).toEqual(['bad']);
    // After the ban: known again, close to the floor so that a second offence bans it fast.
    expect(t.learn('bad', [A], 'pex', 1_000 + BAN_MS)).toBe(true);
    expect(t.get('bad')!.score).toBe(Math.round(BAN_SCORE / 2));
    expect(t.record('bad', 'malformed', 1_000 + BAN_MS, 'again')).toBeDefined();
  });

  it('a peer of another chain is banned at once; a peer with no entry that misbehaves is judged all the same', () => {
    const t = new PeerTable('me');
    t.learn('other', [A], 'bootstrap', 0);
    t.ban('other', 'WRONG_CHAIN', 60_000, 0);
    expect(t.get('other')).toBeUndefined();
    expect(t.banned('other', 59_999)?.reason).toBe('WRONG_CHAIN');
    expect(t.banned('other', 60_000)).toBeUndefined();
    t.record('stranger', 'gossipReject', 0, 'votes: MALFORMED');
    expect(t.get('stranger')!.score).toBe(-10);
    expect(t.get('stranger')!.lastPenalty).toBe('gossipReject: votes: MALFORMED');
  });

  it('backs off failed dials exponentially, forgets an exchange-learnt address after the attempts, keeps a bootstrap one at the cap', () => {
    const t = new PeerTable('me');
    t.learn('x', [A], 'pex', 0);
    t.learn('boot', [A], 'bootstrap', 0);
    t.dialFailed('x', 'refused', 0);
    expect(t.get('x')!.nextDialAtMs).toBe(DIAL_BACKOFF_BASE_MS);
    t.dialFailed('x', 'refused', 0);
    expect(t.get('x')!.nextDialAtMs).toBe(2 * DIAL_BACKOFF_BASE_MS);
    expect(t.toDial(10, DIAL_BACKOFF_BASE_MS).map((e) => e.peerId)).toEqual(['boot']);
    for (let i = 2; i < DIAL_ATTEMPTS_MAX; i++) t.dialFailed('x', 'refused', 0);
    expect(t.get('x')).toBeUndefined();
    for (let i = 0; i < 30; i++) t.dialFailed('boot', 'refused', 0);
    expect(t.get('boot')!.nextDialAtMs).toBe(DIAL_BACKOFF_MAX_MS);
    // Failed dials alone never ban.
    expect(t.view(0).banned).toEqual([]);
  });

  it('a full table evicts its worst unconnected exchange-learnt entry, and refuses a newcomer when every entry earned more', () => {
    const t = new PeerTable('me', small);
    t.learn('a', [A], 'pex', 0);
    t.learn('b', [A], 'pex', 1);
    t.learn('c', [A], 'chain', 2);
    t.record('a', 'pexUseful', 3);
    // b is the worst evictable (score 0, a earned 1, c is chain-sourced).
    expect(t.learn('d', [A], 'pex', 4)).toBe(true);
    expect(t.get('b')).toBeUndefined();
    t.record('d', 'pexUseful', 5);
    expect(t.learn('e', [A], 'pex', 6)).toBe(false);
    expect(t.stats.refusedFull).toBe(1);
  });

  it('orders dials and shares deterministically, and sheds the worst connections, never a validator or a bootstrap peer', () => {
    const build = () => {
      const t = new PeerTable('me', small);
      for (const [p, s] of [['p3', 'pex'], ['p1', 'pex'], ['p2', 'chain']] as const) t.learn(p, [A], s, 0);
      return t;
    };
    const a = build();
    const b = build();
    expect(a.toDial(3, 0).map((e) => e.peerId)).toEqual(['p2', 'p1', 'p3']);
    expect(a.toDial(3, 0).map((e) => e.peerId)).toEqual(b.toDial(3, 0).map((e) => e.peerId));
    expect(a.toShare(3, 'p1').map((e) => e.peerId)).toEqual(['p2', 'p3']);
    const t = new PeerTable('me', small);
    t.learn('v', [A], 'pex', 0);
    t.learn('boot', [A], 'bootstrap', 0);
    t.learn('good', [A], 'pex', 0);
    t.markValidator('v', true);
    t.record('v', 'malformed', 0);
    t.record('good', 'pexUseful', 0);
    for (const p of ['v', 'boot', 'good']) t.connected(p, 0);
    expect(t.connectionsToShed(['v', 'boot', 'good', 'stranger'], 0)).toEqual(['stranger', 'good']);
    expect(t.connectionsToShed(['v', 'boot'], 0)).toEqual([]);
  });
});
