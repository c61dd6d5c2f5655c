/**
 * freePort (src/cli/launcher.ts) draws ports below the kernel's ephemeral range, so an
 * outgoing connection's source port cannot take a port the test network hands a child
 * before the child binds it; the port it gives can be bound; and it never gives a port twice.
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

  it('never hands out one port twice (a network draws its p2p ports, then its API ports, before any child binds one)', async () => {
    // 600 draws, one after another, from the ~12,800 ports below the ephemeral range: each
    // is free when checked (nothing binds it meanwhile), so without the record of ports
    // given two equal draws are all but certain (1 - e^(-600^2 / 25,600) > 0.9999).
    const ports: number[] = [];
    for (let i = 0; i < 600; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});
