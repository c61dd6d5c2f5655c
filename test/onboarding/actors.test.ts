/**
 * The onboarding service's concerns as supervised actors (src/onboarding/service-actors.ts,
 * actors/onboarding/), over a real LevelDB in a temp folder and the real fastify app: GET
 * /status lists each actor and its lifecycle state; an actor whose handler fails (the
 * database failing a read, the clock failing a step) is restarted by its supervisor after
 * the backoff while the service goes on answering, the messages sent meanwhile answered
 * once it runs again; a full mailbox refuses with 503 SERVICE_BUSY and Retry-After, its
 * refusals counted, instead of queueing without bound; a request reached after its
 * deadline (its asker answered busy) is dropped, nothing done; the node client tries a node it
 * cannot reach again, with backoff, and passes any other answer on at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActorError, type ActorStats, type SupervisedActor } from '../../actors/actor';
import type { ReviewMsg } from '../../actors/onboarding/messages';
import { askBy } from '../../actors/onboarding/refusal';
import type { RecordStore } from '../../actors/onboarding/store-actor';
import { ApiError } from '../../src/api/envelope';
import type { NodeRegistrar } from '../../src/onboarding/book';
import { httpNodeRegistrar, NodeUnreachableError, retryable } from '../../src/onboarding/node-client';
import { buildOnboardingApp, startOnboardingService } from '../../src/onboarding/service';
import { startOnboardingActors, type OnboardingActors, type OnboardingActorsOptions } from '../../src/onboarding/service-actors';
import { OnboardingStore, type NetworkBinding } from '../../src/onboarding/store';
import { APPLY_LIMITS_OFF } from '../../src/onboarding/apply-throttle';
import { silentLogger } from '../../src/util/log';
import { applicantAddress, signedBody } from '../helpers/applicants';

const BINDING: NetworkBinding = { network: 'devnet', chainId: 713799, genesisHash: `0x${'ab'.repeat(32)}` };
const addr = (i: number) => applicantAddress(i);
const form = (i: number) => ({ address: addr(i), name: `node-${i}`, endpoint: `node${i}.example.org:9000`, email: 'ops@example.org' });

let dir: string;
let actors: OnboardingActors | undefined;
let app: FastifyInstance | undefined;
const clock = 1_700_000_000_000;
/** Applications checked at the test's clock, without the budgets (test/exploits/onboarding-apply.test.ts has those). */
const APPLY = { chainId: BINDING.chainId, nowMs: () => clock, limits: APPLY_LIMITS_OFF };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-actors-'));
});
afterEach(async () => {
  await app?.close();
  await actors?.stop();
  app = undefined;
  actors = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function open(over: Partial<OnboardingActorsOptions> = {}): Promise<void> {
  actors = await startOnboardingActors({ dataDir: dir, binding: BINDING, log: silentLogger(), nowMs: () => clock, ...over });
  app = await buildOnboardingApp(actors.book, silentLogger(), APPLY, undefined, undefined, actors.health);
}
const apply = (i: number) => app!.inject({ method: 'POST', url: '/api/validators/apply', payload: signedBody(form(i), BINDING.chainId, clock) });
const statusOf = async (i: number) => (await app!.inject({ method: 'GET', url: `/api/onboarding/status/${addr(i)}` })).json().data.status as string;
async function actorsShown(): Promise<Record<string, ActorStats>> {
  const r = await app!.inject({ method: 'GET', url: '/status' });
  expect(r.statusCode).toBe(200);
  return r.json().data.actors;
}
async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The store of the folder, with `record` replaced: the test's fault or gate. */
function storeWith(record: (real: RecordStore['record'], address: string) => Promise<Awaited<ReturnType<RecordStore['record']>>>, opens: { n: number }) {
  return async (): Promise<RecordStore> => {
    opens.n++;
    const real = await OnboardingStore.open(dir, BINDING);
    return {
      record: (address) => record((a) => real.record(a), address),
      records: () => real.records(),
      tokenRecordByHash: (h) => real.tokenRecordByHash(h),
      tokenRecords: () => real.tokenRecords(),
      nonces: () => real.nonces(),
      write: (w) => real.write(w),
      close: () => real.close(),
    };
  };
}

/** A store whose reads wait until `release()`: the review that asks it is held, its mailbox filling. */
function gatedStore(): { openStore: () => Promise<RecordStore>; release: () => void; reached: () => boolean } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached = false;
  const openStore = storeWith(async (real, address) => {
    reached = true;
    await gate;
    return real(address);
  }, { n: 0 });
  return { openStore, release, reached: () => reached };
}

describe('GET /status', () => {
  it('lists each actor in start order, running, with its mailbox counters', async () => {
    const service = await startOnboardingService({ dataDir: dir, binding: BINDING, log: silentLogger(), port: 0, nowMs: () => clock });
    try {
      expect((await fetch(`${service.address}/api/validators/apply`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signedBody(form(1), BINDING.chainId, clock)) })).status).toBe(200);
      const body = (await (await fetch(`${service.address}/status`)).json()) as { success: boolean; data: { service: string; actors: Record<string, ActorStats> } };
      expect(body.success).toBe(true);
      expect(body.data.service).toBe('onboarding');
      expect(Object.keys(body.data.actors)).toEqual(['store', 'review', 'downloads']);
      for (const a of Object.values(body.data.actors)) expect(a).toMatchObject({ status: 'running', restarts: 0, failed: 0, dropped: 0, mailboxSize: 0 });
      expect(body.data.actors.review.processed).toBe(1);
    } finally {
      await service.close();
    }
  });

  it('with a node to register through, the node client is the fourth', async () => {
    await open({ node: { register: async () => ({ txHash: '0x', height: 1 }) } });
    expect(Object.keys(await actorsShown())).toEqual(['store', 'review', 'downloads', 'node-client']);
  });
});

describe('a crashed actor is restarted by its supervisor, the service still answering', () => {
  it('the store: a read that fails is 500, the store reopens the database after the backoff, and what waited meanwhile is answered', async () => {
    const opens = { n: 0 };
    let failNext = false;
    await open({
      openStore: storeWith(async (real, address) => {
        if (failNext) {
          failNext = false;
          throw new Error('disk read failed');
        }
        return real(address);
      }, opens),
    });
    expect((await apply(1)).statusCode).toBe(200);
    failNext = true;
    const failed = await apply(2);
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toMatchObject({ success: false, error: { code: 'INTERNAL' } });
    // Asked while the store is restarting: it waits in the mailbox and is answered.
    expect(await statusOf(1)).toBe('pending');
    const shown = await actorsShown();
    expect(shown.store).toMatchObject({ status: 'running', restarts: 1, failed: 1 });
    expect(shown.store.lastError).toContain('disk read failed');
    expect(shown.review).toMatchObject({ status: 'running', restarts: 0 });
    expect(opens.n).toBe(2); // opened at start, and again by the restart
    expect((await apply(2)).statusCode).toBe(200);
    expect(await statusOf(2)).toBe('pending');
    expect((await actors!.reader.records()).map((r) => r.application.address)).toEqual([addr(1), addr(2)].sort());
  });

  it('the review: a step that throws is 500, the review restarts (counting the pending applicants again), and the next step is served', async () => {
    let boom = false;
    await open({
      pendingMax: 2,
      nowMs: () => {
        if (boom) {
          boom = false;
          throw new Error('clock fault');
        }
        return clock;
      },
    });
    expect((await apply(1)).statusCode).toBe(200);
    boom = true;
    expect((await apply(2)).statusCode).toBe(500);
    await until('the review to run again', async () => (await actorsShown()).review.status === 'running');
    expect((await actorsShown()).review).toMatchObject({ restarts: 1, failed: 1 });
    expect(await statusOf(2)).toBe('not_found');
    expect((await apply(2)).statusCode).toBe(200);
    // The count read again at the restart holds the bound: 2 pending, the most.
    expect((await apply(3)).json()).toMatchObject({ error: { code: 'APPLICATIONS_FULL' } });
  });
});

describe('stopping', () => {
  it('a download served just before the stop is marked used: the stop waits for its finish', async () => {
    await open();
    await actors!.book.apply(form(1));
    const { token } = await actors!.book.approve(addr(1));
    const artifacts = { genesis: { name: 'genesis.json', bytes: new TextEncoder().encode('{"network":"devnet"}'), sha256: 'unused' } };
    const operator = { network: 'devnet', chainId: BINDING.chainId, genesisHash: BINDING.genesisHash, operator: addr(9) as `0x${string}`, nowMs: () => clock, windowMs: 60_000 };
    await app!.close();
    app = await buildOnboardingApp(actors!.book, silentLogger(), APPLY, { book: actors!.book, operator, artifacts }, undefined, actors!.health);
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    expect((await fetch(`${base}/api/validators/download/genesis?token=${token}`)).status).toBe(200);
    await app.close();
    await actors!.stop();
    app = undefined;
    actors = undefined;
    const store = await OnboardingStore.open(dir, BINDING);
    try {
      expect((await store.tokenRecord(token))!.used.genesis).toBe(clock);
    } finally {
      await store.close();
    }
  });
});

describe('a full mailbox refuses instead of queueing without bound', () => {
  it('the review busy: past its capacity, apply is 503 SERVICE_BUSY with Retry-After; /status answers meanwhile; the accepted ones are served', async () => {
    const { openStore, release, reached } = gatedStore();
    await open({ capacities: { review: 2 }, openStore });
    let queued: Promise<{ statusCode: number }>[] = [];
    let first: Promise<{ statusCode: number }> | undefined;
    try {
      const mailboxSize = () => actors!.supervisor.stats().review.mailboxSize;
      first = apply(1); // taken by the review, which waits on the store
      await until('the review to hold the first application', async () => reached());
      // The mailbox's two places, one after the other so that the refused one is the fourth.
      queued = [apply(2)];
      await until('the second to wait in the mailbox', async () => mailboxSize() === 1);
      queued.push(apply(3));
      await until('the third to wait in the mailbox', async () => mailboxSize() === 2);
      const refused = await apply(4);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toMatchObject({ success: false, error: { code: 'SERVICE_BUSY' } });
      expect(refused.json().error.message).toContain('mailbox full');
      const shown = await actorsShown();
      expect(shown.review).toMatchObject({ status: 'running', mailboxSize: 2, dropped: 1 });
    } finally {
      release(); // the gate opens whatever the assertions found: nothing is left waiting
    }
    expect((await Promise.all([first!, ...queued])).map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(await statusOf(4)).toBe('not_found');
    expect((await apply(4)).statusCode).toBe(200);
  });
});

describe('a request its asker stopped waiting for', () => {
  it('is dropped unhandled when the actor reaches it: answered busy, nothing stored', async () => {
    const { openStore, release, reached } = gatedStore();
    await open({ openStore });
    const review = actors!.supervisor.get('review') as SupervisedActor<ReviewMsg>;
    const first = apply(1);
    let late: unknown;
    try {
      await until('the review to hold the first application', async () => reached());
      // Asked with a deadline already passed when the review can take it.
      late = await askBy<ReviewMsg, unknown>(review, (reply, startByMs) => ({ type: 'apply', application: form(2), reply, startByMs }), 200, 0).catch((e: unknown) => e);
    } finally {
      release();
    }
    expect(late).toBeInstanceOf(ActorError);
    expect(late).toMatchObject({ code: 'ASK_TIMEOUT' });
    expect((await first).statusCode).toBe(200);
    expect(await statusOf(2)).toBe('not_found');
    expect((await actors!.reader.records()).map((r) => r.application.address)).toEqual([addr(1)]);
  });
});

describe('the node client', () => {
  it('tries a node it cannot reach again with backoff, and passes a refusal on at once', async () => {
    let calls = 0;
    const node: NodeRegistrar = {
      async register(endpoint) {
        calls++;
        if (endpoint === 'refused:1') throw new ApiError(409, 'NOT_SYNCED', 'no node listening');
        if (calls < 3) throw new NodeUnreachableError('connection refused', true);
        return { txHash: '0xabc', height: 7 };
      },
    };
    await open({ node });
    const started = performance.now();
    await expect(actors!.node!.register('host:1', new Uint8Array([1]))).resolves.toEqual({ txHash: '0xabc', height: 7 });
    expect(calls).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250 + 500 - 5); // the two pauses, doubling
    calls = 0;
    await expect(actors!.node!.register('refused:1', new Uint8Array([1]))).rejects.toMatchObject({ status: 409, code: 'NOT_SYNCED' });
    expect(calls).toBe(1);
  });

  it('a refused connection is retryable, the node’s own answer is not', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const err = await httpNodeRegistrar({ nodeUrl: `http://127.0.0.1:${port}`, blockTimeMs: 1_000 }).register('h:1', new Uint8Array([1])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnreachableError);
    expect(err).toMatchObject({ status: 503, code: 'NOT_SYNCED' });
    expect(retryable(err)).toBe(true);
    expect(retryable(new ApiError(409, 'NOT_SYNCED', 'behind'))).toBe(false);
  });
});
