/**
 * What the API's rate limits cost per request (issue 24; goal: under 5 µs): the same
 * fastify app (the node's error envelope and validation, one small GET route) with and
 * without the limiter (src/api/rate-limit.ts: @fastify/rate-limit's onRequest hook on the
 * shared weighted store, budgets so large nothing is refused), requests through
 * fastify's inject, in the same run: rounds alternate which app goes first (load on
 * the machine falls on both alike), each round `requests` requests from `ips` client
 * addresses in turn, timed in the process's CPU time. overheadUs = median over rounds of (with − without) ÷ requests.
 * `pluginCheck` times @fastify/rate-limit's check called directly (createRateLimit: key,
 * its awaits, the store; no fastify hook runner, no headers), `store` the store's charge alone (the limiter's own bookkeeping), and
 * `addressCharge` the per-signer charge a signed action pays after its signature.
 *
 * Standalone: `node --import tsx bench/rate-limit.ts [requests] [rounds] [ips]`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { pathToFileURL } from 'node:url';
import { installErrorHandling, installValidation, ok } from '../src/api/envelope';
import { RateLimiter, WeightedWindowStore } from '../src/api/rate-limit';
import { createLogger } from '../src/util/log';

const BIG = 1_000_000_000;

async function app(limited: boolean): Promise<FastifyInstance> {
  const a = Fastify({ logger: false });
  installErrorHandling(a, createLogger({ destination: 'silent' }));
  installValidation(a);
  if (limited) await new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: BIG, addressWeightPerWindow: BIG, wsConnectionsPerIp: 0 }).install(a);
  a.get('/v1/ping', async () => ok({ pong: true }));
  await a.ready();
  return a;
}

async function round(a: FastifyInstance, requests: number, ips: string[]): Promise<number> {
  // CPU time of this process (user + system): everything runs in it, and other processes on the machine disturb it less than wall time.
  const t0 = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const r = await a.inject({ method: 'GET', url: '/v1/ping', remoteAddress: ips[i % ips.length] });
    if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
  }
  const d = process.cpuUsage(t0);
  return d.user + d.system;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

export async function benchRateLimit(requests = 20_000, rounds = 9, ipCount = 1000): Promise<Record<string, unknown>> {
  const ips = Array.from({ length: ipCount }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const without = await app(false);
  const withLimit = await app(true);
  // Warm both (JIT, the store's keys).
  await round(without, requests, ips);
  await round(withLimit, requests, ips);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(await round(without, requests, ips));
      b.push(await round(withLimit, requests, ips));
    } else {
      b.push(await round(withLimit, requests, ips));
      a.push(await round(without, requests, ips));
    }
  }
  // The plugin's own path without fastify's hook runner: key, async steps, store.
  const check = withLimit.createRateLimit();
  const fakes = ips.map((ip) => ({ ip, method: 'GET', routeOptions: { url: '/v1/ping', config: {} } }) as never);
  const checks = 200_000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < checks; i++) await check(fakes[i % ipCount]);
  const cd = process.cpuUsage(c0);
  const pluginCheckUs = (cd.user + cd.system) / checks;
  await without.close();
  await withLimit.close();
  const perReqA = a.map((us) => us / requests);
  const perReqB = b.map((us) => us / requests);
  const overheads = a.map((_, i) => perReqB[i] - perReqA[i]);

  // The store alone, and the per-signer charge.
  const store = new WeightedWindowStore();
  const n = 1_000_000;
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) store.incr(`ip:${ips[i % ipCount]}#1`, () => undefined, 60_000);
  const storeUs = Number(process.hrtime.bigint() - t0) / 1000 / n;
  const limiter = new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: BIG, addressWeightPerWindow: BIG, wsConnectionsPerIp: 0 });
  const addrs = ips.map((_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) limiter.chargeAddress(addrs[i % ipCount], 1);
  const addressUs = Number(process.hrtime.bigint() - t0) / 1000 / n;

  const med = (xs: number[]) => Number(median(xs).toFixed(2));
  return {
    conditions: `fastify inject, GET returning the envelope, ${requests} requests × ${rounds} rounds per app alternating, ${ipCount} client IPs in turn, budgets never reached`,
    perRequestWithoutUs: med(perReqA),
    perRequestWithUs: med(perReqB),
    overheadUs: med(overheads),
    ratio: Number((median(perReqB) / median(perReqA)).toFixed(3)),
    overheadUsPerRound: overheads.map((x) => Number(x.toFixed(2))),
    pluginCheckUs: Number(pluginCheckUs.toFixed(3)),
    storeChargeUs: Number(storeUs.toFixed(3)),
    addressChargeUs: Number(addressUs.toFixed(3)),
    goalUs: 5,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [requests, rounds, ips] = process.argv.slice(2).map(Number);
  benchRateLimit(requests || undefined, rounds || undefined, ips || undefined).then((r) => console.log(r));
}
