/**
 * What the API's rate limits cost per request (issue 24; goal: under 5 µs): four fastify
 * apps in this process, each with the node's envelope, validation and CORS (whose
 * onRequest hook every route of the node runs; actors/api/api-actor.ts) and one small
 * GET route: `bare`, `control` (identical to bare: the pair's difference is the noise
 * floor of the method), `hook` (plus an empty async onRequest hook: what one more hook
 * in fastify's chain costs) and `limited` (plus src/api/rate-limit.ts: @fastify/rate-limit's
 * onRequest hook on the shared weighted store, budgets so large nothing is refused).
 * Requests go through fastify's inject (routing, hooks, handler, serialization; no
 * socket), from `ips` client addresses in turn; each round sends `requests` to each app
 * in blocks of 64 that rotate through the apps, each block timed (`round`).
 * overheadUs = median over rounds of (limited − bare).
 * The loop yields to the event loop after each block: inject's response finishes
 * through a setImmediate, and a loop of awaits that never yields piles every request of
 * a round into the immediate queue (gigabytes of heap whose collections swamped the
 * figure this bench gave before, with whole rounds per app measured apart).
 * `pluginCheckUs` times @fastify/rate-limit's check called directly (createRateLimit:
 * key, its awaits, the store; no hook runner), `storeChargeUs` the store's charge alone,
 * and `addressChargeUs` the per-signer charge a signed action pays after its signature.
 *
 * Standalone: `node --import tsx bench/rate-limit.ts [requests] [rounds] [ips]`.
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { pathToFileURL } from 'node:url';
import { installErrorHandling, installValidation, ok } from '../src/api/envelope';
import { RateLimiter, WeightedWindowStore } from '../src/api/rate-limit';
import { createLogger } from '../src/util/log';

const BIG = 1_000_000_000;
const VARIANTS = ['bare', 'control', 'hook', 'limited'] as const;
type Variant = (typeof VARIANTS)[number];
const YIELD_EVERY = 64;

async function variantApp(variant: Variant): Promise<FastifyInstance> {
  const a = Fastify({ logger: false });
  installErrorHandling(a, createLogger({ destination: 'silent' }));
  installValidation(a);
  if (variant === 'limited') await new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: BIG, addressWeightPerWindow: BIG, wsConnectionsPerIp: 0 }).install(a);
  if (variant === 'hook') a.addHook('onRequest', async () => {});
  // As the node's API registers it, after the limiter.
  await a.register(cors, { origin: '*', methods: ['GET', 'POST', 'DELETE', 'OPTIONS'] });
  a.get('/v1/ping', async () => ok({ pong: true }));
  await a.ready();
  return a;
}

/**
 * One round: `requests` requests to every app, in blocks of YIELD_EVERY that rotate
 * through the apps (so a slow moment of the machine falls on all of them alike), each
 * block timed by the clock (no I/O: the process is busy with the block throughout), and
 * a yield to the event loop after each. The time per request of each app, in µs.
 */
async function round(apps: Map<Variant, FastifyInstance>, requests: number, ips: string[], first: number): Promise<Map<Variant, number>> {
  const spent = new Map<Variant, bigint>(VARIANTS.map((v) => [v, 0n]));
  const blocks = Math.ceil(requests / YIELD_EVERY);
  let ip = 0;
  for (let b = 0; b < blocks * VARIANTS.length; b++) {
    const v = VARIANTS[(first + b) % VARIANTS.length];
    const a = apps.get(v)!;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < YIELD_EVERY; i++) {
      const r = await a.inject({ method: 'GET', url: '/v1/ping', remoteAddress: ips[ip++ % ips.length] });
      if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
    }
    spent.set(v, spent.get(v)! + process.hrtime.bigint() - t0);
    await new Promise(setImmediate);
  }
  return new Map(VARIANTS.map((v) => [v, Number(spent.get(v)!) / 1000 / (blocks * YIELD_EVERY)]));
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const r2 = (x: number) => Number(x.toFixed(2));

export async function benchRateLimit(requests = 20_000, rounds = 9, ipCount = 1000): Promise<Record<string, unknown>> {
  const ips = Array.from({ length: ipCount }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const apps = new Map<Variant, FastifyInstance>();
  for (const v of VARIANTS) apps.set(v, await variantApp(v));
  const perRequest = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  // Warm each (JIT, the store's keys).
  await round(apps, requests / 4, ips, 0);
  for (let r = 0; r < rounds; r++) for (const [v, us] of await round(apps, requests, ips, r)) perRequest.get(v)!.push(us);
  for (const a of apps.values()) await a.close();
  const bare = perRequest.get('bare')!;
  const limited = perRequest.get('limited')!;
  const minus = (xs: number[]) => xs.map((x, i) => x - bare[i]);
  const overheads = minus(limited);

  // The plugin's own path without fastify's hook runner: key, async steps, store.
  const app = Fastify({ logger: false });
  await new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: BIG, addressWeightPerWindow: BIG, wsConnectionsPerIp: 0 }).install(app);
  await app.ready();
  const check = app.createRateLimit();
  const fakes = ips.map((ip) => ({ ip, method: 'GET', routeOptions: { url: '/v1/ping', config: {} } }) as never);
  const checks = 200_000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < checks; i++) await check(fakes[i % fakes.length]);
  const cd = process.cpuUsage(c0);
  const pluginCheckUs = (cd.user + cd.system) / checks;
  await app.close();

  // The store alone, and the per-signer charge.
  const store = new WeightedWindowStore();
  const n = 1_000_000;
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) store.incr(ips[i % ips.length], () => undefined, 60_000);
  const storeUs = Number(process.hrtime.bigint() - t0) / 1000 / n;
  const limiter = new RateLimiter({ windowMs: 60_000, ipWeightPerWindow: BIG, addressWeightPerWindow: BIG, wsConnectionsPerIp: 0 });
  const addrs = ips.map((_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) limiter.chargeAddress(addrs[i % addrs.length], 1);
  const addressUs = Number(process.hrtime.bigint() - t0) / 1000 / n;

  return {
    conditions: `fastify inject (no socket); GET returning the envelope, CORS on every app as on the node; ${requests} requests × ${rounds} rounds per app, in timed blocks of ${YIELD_EVERY} rotating through the apps; ${ipCount} client IPs in turn; budgets never reached`,
    perRequestBareUs: r2(median(bare)),
    perRequestLimitedUs: r2(median(limited)),
    overheadUs: r2(median(overheads)),
    ratio: Number((median(limited) / median(bare)).toFixed(3)),
    overheadUsPerRound: overheads.map(r2),
    emptyHookOverheadUs: r2(median(minus(perRequest.get('hook')!))),
    controlDifferenceUs: r2(median(minus(perRequest.get('control')!))),
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
