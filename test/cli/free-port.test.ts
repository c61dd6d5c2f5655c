/**
 * freePort (src/cli/launcher.ts) draws ports below the kernel's ephemeral range, so an
 * outgoing connection's source port cannot take a port the test network hands a child
 * before the child binds it; and the port it gives can be bound.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/launcher';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('gives bindable ports below the ephemeral range', async () => {
    const ports = await Promise.all(Array.from({ length: 12 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralLow);
      await new Promise<void>((res, rej) => {
        const srv = createServer();
        srv.once('error', rej);
        srv.listen(port, '127.0.0.1', () => srv.close(() => res()));
      });
    }
  });
});
