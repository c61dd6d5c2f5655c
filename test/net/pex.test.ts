/**
 * The peer-exchange wire (src/net/pex.ts, decision 184): an answer round-trips; an answer
 * is judged whole, and anything outside the bounds or not a dialable TCP address of the
 * named peer makes it malformed; the protocol id names the chain.
 */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/codec/binary';
import { peerIdOfKey } from '../../src/net/libp2p';
import { checkPeerAddress, decodePexAnswer, decodePexRequest, encodePexAnswer, encodePexRequest, pexProtocol, PEX_ANSWER_PEERS_MAX, PEX_VERSION } from '../../src/net/pex';
import { endpointAddress, splitPeerAddress } from '../../actors/p2p/discovery';

const key = (b: number) => new Uint8Array(32).fill(b);

describe('peer exchange', () => {
  it('round-trips a request and an answer, bounded', async () => {
    const [a, b] = await Promise.all([peerIdOfKey(key(7)), peerIdOfKey(key(9))]);
    expect(decodePexRequest(encodePexRequest(1_000)).want).toBe(PEX_ANSWER_PEERS_MAX);
    const peers = [
      { peerId: a, addrs: ['/ip4/10.0.0.1/tcp/9000', '/dns/node.example/tcp/9010'] },
      { peerId: b, addrs: [`/ip6/::1/tcp/9020/p2p/${b}`] },
    ];
    expect(decodePexAnswer(encodePexAnswer(peers))).toEqual([peers[0], { peerId: b, addrs: ['/ip6/::1/tcp/9020'] }]);
    expect(pexProtocol(7)).toBe('/exchange/7/pex/1');
  });

  it('refuses a malformed answer whole', async () => {
    const a = await peerIdOfKey(key(7));
    const b = await peerIdOfKey(key(9));
    const bad = (peers: { peerId: string; addrs: string[] }[]) => () => decodePexAnswer(encodePexAnswer(peers));
    expect(bad([{ peerId: 'not-a-peer', addrs: [] }])).toThrow();
    expect(bad([{ peerId: a, addrs: ['/ip4/1.2.3.4/udp/9000'] }])).toThrow(/TCP/);
    expect(bad([{ peerId: a, addrs: [`/ip4/1.2.3.4/tcp/9000/p2p/${b}`] }])).toThrow(/another peer/);
    expect(bad([{ peerId: a, addrs: ['/unix/tmp/sock'] }])).toThrow();
    expect(bad([{ peerId: a, addrs: [] }, { peerId: a, addrs: [] }])).toThrow(/twice/);
    // More peers than the bound, written by hand (the encoder would cut them).
    const w = new Writer().u8(PEX_VERSION).u16(PEX_ANSWER_PEERS_MAX + 1);
    expect(() => decodePexAnswer(w.finish())).toThrow(/over/);
    expect(() => decodePexAnswer(new Uint8Array([9, 0, 0]))).toThrow(/version/);
    // Trailing bytes.
    expect(() => decodePexAnswer(new Uint8Array([...encodePexAnswer([]), 0]))).toThrow();
    expect(() => decodePexRequest(new Uint8Array([1]))).toThrow();
  });

  it('reads addresses: a multiaddr with its peer id, a validator endpoint', async () => {
    const a = await peerIdOfKey(key(7));
    expect(checkPeerAddress(`/ip4/127.0.0.1/tcp/9000/p2p/${a}`, a)).toBe('/ip4/127.0.0.1/tcp/9000');
    expect(splitPeerAddress(`/ip4/127.0.0.1/tcp/9000/p2p/${a}`)).toEqual({ peerId: a, addr: '/ip4/127.0.0.1/tcp/9000' });
    expect(splitPeerAddress('/ip4/127.0.0.1/tcp/9000')).toBeUndefined();
    expect(endpointAddress('127.0.0.1:9000')).toBe('/ip4/127.0.0.1/tcp/9000');
    expect(endpointAddress('[::1]:9000')).toBe('/ip6/::1/tcp/9000');
    expect(endpointAddress('node-1.example.org:9000')).toBe('/dns/node-1.example.org/tcp/9000');
    expect(endpointAddress('127.0.0.1:0')).toBeUndefined();
    expect(endpointAddress('no port')).toBeUndefined();
  });
});
