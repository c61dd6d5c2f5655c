import { describe, expect, it } from 'vitest';
import { decodeSessionPort, encodeSessionPort, sessionListen } from '../../actors/p2p/session-link';

describe('where a consensus session listens (actors/p2p/session-link.ts, decision 179)', () => {
  it('listens on the libp2p host, at the configured port or any free one; -1 runs none', () => {
    expect(sessionListen({ listen: ['/ip4/0.0.0.0/tcp/9000'] })).toEqual({ host: '0.0.0.0', port: 0 });
    expect(sessionListen({ listen: ['/ip4/127.0.0.1/tcp/9000'], consensusPort: 9005 })).toEqual({ host: '127.0.0.1', port: 9005 });
    expect(sessionListen({ listen: ['/ip4/127.0.0.1/tcp/9000'], consensusPort: -1 })).toBeUndefined();
    expect(sessionListen({ listen: [] })).toBeUndefined();
  });

  it('answers its port in two bytes; 0 or a malformed answer names none', () => {
    for (const port of [1, 255, 256, 9005, 65535]) expect(decodeSessionPort(encodeSessionPort(port))).toBe(port);
    expect(decodeSessionPort(encodeSessionPort(0))).toBeUndefined();
    expect(decodeSessionPort(Uint8Array.of(1))).toBeUndefined();
    expect(decodeSessionPort(Uint8Array.of(1, 2, 3))).toBeUndefined();
  });
});
