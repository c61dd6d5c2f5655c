/**
 * The onboarding service over real fastify (inject, and one real port) and a real
 * LevelDB in a temp folder: every field's bad input is refused with the error envelope
 * and nothing is stored; an application is pending; a second one of the same address
 * (any case, even at the same moment) is 409 and changes nothing; an unknown address is
 * not_found; the service closed and reopened on the same folder answers the same; a
 * folder of another network is refused. Statuses are the machine's
 * (machines/onboarding.ts), read through src/onboarding/applicants.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OnboardingStateName } from '../../machines/onboarding';
import type { ApplicantRecord, StatusView } from '../../src/onboarding/applicants';
import { buildOnboardingApp, startOnboardingService } from '../../src/onboarding/service';
import { startOnboardingActors, type OnboardingActors } from '../../src/onboarding/service-actors';
import { OnboardingStore, type NetworkBinding } from '../../src/onboarding/store';
import { APPLY_LIMITS_OFF } from '../../src/onboarding/apply-throttle';
import { silentLogger } from '../../src/util/log';
import { applicantAddress, signedBody } from '../helpers/applicants';

const BINDING: NetworkBinding = { network: 'devnet', chainId: 713799, genesisHash: `0x${'ab'.repeat(32)}` };
const ADDRESS = applicantAddress(1);
const GOOD = { address: ADDRESS, name: 'node-1', endpoint: 'node1.example.org:9000', email: 'ops@example.org' };

let dir: string;
let actors: OnboardingActors;
/** What the store holds (read through the store actor), and the operator's reject (through the review actor). */
let store: { records(): Promise<ApplicantRecord[]>; reject(address: string): Promise<StatusView> };
let app: FastifyInstance;
let clock = 1_700_000_000_000;

async function open(pendingMax?: number): Promise<void> {
  actors = await startOnboardingActors({ dataDir: dir, binding: BINDING, log: silentLogger(), nowMs: () => clock, pendingMax });
  store = { records: () => actors.reader.records(), reject: (address) => actors.book.reject(address) };
  app = await buildOnboardingApp(actors.book, silentLogger(), { chainId: BINDING.chainId, nowMs: () => clock, limits: APPLY_LIMITS_OFF });
}
async function close(): Promise<void> {
  await app.close();
  await actors.stop();
}

/** Signed by the address's key at the service's clock (test/helpers/applicants.ts). */
const apply = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/validators/apply', payload: signedBody(body, BINDING.chainId, clock) });
async function status(address: string): Promise<{ code: number; body: { success: boolean; data: StatusView } }> {
  const r = await app.inject({ method: 'GET', url: `/api/onboarding/status/${address}` });
  return { code: r.statusCode, body: r.json() };
}

function expectEnvelope(r: { statusCode: number; json(): unknown }, code: number, errorCode: string, mentions: string): void {
  expect(r.statusCode).toBe(code);
  const body = r.json() as { success: boolean; error: { code: string; message: string }; timestamp: number };
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(errorCode);
  expect(body.error.message).toContain(mentions);
  expect(Number.isInteger(body.timestamp)).toBe(true);
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-'));
  await open();
});
afterEach(async () => {
  await close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

// Shows contract [C-onboard-apply].
describe('POST /api/validators/apply refuses every bad field, storing nothing', () => {
  const BAD: Array<[string, Record<string, unknown>, string, string]> = [
    ['address without 0x', { address: ADDRESS.slice(2) + '00' }, 'INVALID_VALIDATOR', 'address'],
    ['address too short', { address: ADDRESS.slice(0, 41) }, 'INVALID_VALIDATOR', 'address'],
    ['address not hex', { address: '0x' + 'g'.repeat(40) }, 'INVALID_VALIDATOR', 'address'],
    ['name with a space', { name: 'my node' }, 'INVALID_VALIDATOR', 'name'],
    ['name empty', { name: '' }, 'INVALID_VALIDATOR', 'name'],
    ['name of 33 characters', { name: 'n'.repeat(33) }, 'INVALID_VALIDATOR', 'name'],
    ['name with a dot', { name: 'node.1' }, 'INVALID_VALIDATOR', 'name'],
    ['endpoint without a port', { endpoint: 'node1.example.org' }, 'INVALID_VALIDATOR', 'endpoint'],
    ['endpoint port 0', { endpoint: 'node1.example.org:0' }, 'INVALID_VALIDATOR', 'endpoint'],
    ['endpoint port 65536', { endpoint: 'node1.example.org:65536' }, 'INVALID_VALIDATOR', 'endpoint'],
    ['endpoint with a scheme', { endpoint: 'http://node1.example.org:9000' }, 'INVALID_VALIDATOR', 'endpoint'],
    ['email without @', { email: 'ops.example.org' }, 'INVALID_VALIDATOR', 'email'],
    ['email without a dotted domain', { email: 'ops@localhost' }, 'INVALID_VALIDATOR', 'email'],
    ['email with a space', { email: 'o ps@example.org' }, 'INVALID_VALIDATOR', 'email'],
    ['email with two @', { email: 'ops@x@example.org' }, 'INVALID_VALIDATOR', 'email'],
    ['email over 254 characters', { email: `${'a'.repeat(64)}@${`${'b'.repeat(60)}.`.repeat(4)}org` }, 'INVALID_VALIDATOR', 'email'],
    ['email local part over 64 characters', { email: `${'a'.repeat(65)}@example.org` }, 'INVALID_VALIDATOR', 'email'],
    ['a field missing', { email: undefined }, 'INVALID_REQUEST', 'email'],
    ['a field not a string', { name: 7 }, 'INVALID_REQUEST', 'name'],
    ['an extra field', { bond: '1000000' }, 'INVALID_REQUEST', 'bond'],
  ];
  for (const [what, change, code, field] of BAD) {
    it(`${what}: 400 ${code} naming ${field}`, async () => {
      const body: Record<string, unknown> = { ...GOOD, ...change };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      expectEnvelope(await apply(body), 400, code, field);
      expect(await store.records()).toEqual([]);
    });
  }

  it('a body that is not JSON: 400 in the envelope', async () => {
    const r = await app.inject({ method: 'POST', url: '/api/validators/apply', headers: { 'content-type': 'application/json' }, payload: '{"address":' });
    expect(r.statusCode).toBe(400);
    expect((r.json() as { success: boolean }).success).toBe(false);
    expect(await store.records()).toEqual([]);
  });
});

describe('an application', () => {
  // Shows contract [C-onboard-status], [D-envelope-not-found].
  it('an unknown address is 200 not_found', async () => {
    const s = await status(ADDRESS);
    expect(s.code).toBe(200);
    expect(s.body.success).toBe(true);
    expect(s.body.data).toEqual({ address: ADDRESS, status: 'not_found', token_issued: false, approved_ts: null });
  });

  it('a bad address in the status path: 400 in the envelope', async () => {
    const r = await app.inject({ method: 'GET', url: '/api/onboarding/status/0x1234' });
    expectEnvelope(r, 400, 'INVALID_VALIDATOR', 'address');
  });

  // Shows contract [C-onboard-apply], [C-state-onboarding].
  it('apply → pending, stored with the form as given, read back in any case', async () => {
    const r = await apply({ ...GOOD, address: ADDRESS.toUpperCase().replace('0X', '0x') });
    expect(r.statusCode).toBe(200);
    const pending: StatusView = { address: ADDRESS, status: 'pending', token_issued: false, approved_ts: null };
    expect((r.json() as { data: StatusView }).data).toEqual(pending);
    expect((await status(ADDRESS)).body.data).toEqual(pending);
    expect((await status(ADDRESS.toUpperCase().replace('0X', '0x'))).body.data).toEqual(pending);
    expect(await store.records()).toEqual([{ application: GOOD, status: 'pending', context: { appliedTs: clock, approvedTs: null, rejectedTs: null, tokenIssued: false } }]);
  });

  it('a second application of the same address is 409 VALIDATOR_EXISTS and changes nothing', async () => {
    expect((await apply(GOOD)).statusCode).toBe(200);
    const before = await store.records();
    clock += 60_000;
    expectEnvelope(await apply({ ...GOOD, name: 'other', address: ADDRESS.toUpperCase().replace('0X', '0x') }), 409, 'VALIDATOR_EXISTS', ADDRESS);
    expect(await store.records()).toEqual(before);
  });

  it('two applications of one address at the same moment: one pending, one 409', async () => {
    const [a, b] = await Promise.all([apply(GOOD), apply({ ...GOOD, name: 'twin' })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const records = await store.records();
    expect(records).toHaveLength(1);
    expect(records[0].status satisfies OnboardingStateName).toBe('pending');
  });
});

describe('the bound on applications waiting for review', () => {
  it('past pendingMax, apply is 503 APPLICATIONS_FULL storing nothing, also after a restart; a review makes room', async () => {
    await close();
    const reopen = () => open(2);
    await reopen();
    const addr = (i: number) => applicantAddress(10 + i);
    expect((await apply({ ...GOOD, address: addr(1) })).statusCode).toBe(200);
    expect((await apply({ ...GOOD, address: addr(2) })).statusCode).toBe(200);
    const before = await store.records();
    expectEnvelope(await apply({ ...GOOD, address: addr(3) }), 503, 'APPLICATIONS_FULL', '2 applications are waiting');
    expect(await store.records()).toEqual(before);
    // The count is the stored pending applicants: a restart does not reset it.
    await close();
    await reopen();
    expectEnvelope(await apply({ ...GOOD, address: addr(3) }), 503, 'APPLICATIONS_FULL', 'waiting for review');
    await store.reject(addr(1));
    expect((await apply({ ...GOOD, address: addr(3) })).statusCode).toBe(200);
    expectEnvelope(await apply({ ...GOOD, address: addr(4) }), 503, 'APPLICATIONS_FULL', 'waiting for review');
  });
});

describe('restart', () => {
  it('closed and reopened on the same folder, the service answers the same', async () => {
    const other = applicantAddress(2);
    expect((await apply(GOOD)).statusCode).toBe(200);
    expect((await apply({ ...GOOD, address: other, name: 'node-2' })).statusCode).toBe(200);
    const before = [await status(ADDRESS), await status(other), await status('0x' + 'ef'.repeat(20))].map((s) => s.body.data);
    const records = await store.records();
    await close();
    await open();
    expect([await status(ADDRESS), await status(other), await status('0x' + 'ef'.repeat(20))].map((s) => s.body.data)).toEqual(before);
    expect(await store.records()).toEqual(records);
    expectEnvelope(await apply(GOOD), 409, 'VALIDATOR_EXISTS', ADDRESS);
  });

  it('a folder of another network is refused, and left as it was', async () => {
    expect((await apply(GOOD)).statusCode).toBe(200);
    await close();
    await expect(OnboardingStore.open(dir, { ...BINDING, network: 'testnet', chainId: 713715 })).rejects.toThrow(/belongs to devnet/);
    await expect(OnboardingStore.open(dir, { ...BINDING, genesisHash: `0x${'cd'.repeat(32)}` })).rejects.toThrow(/belongs to devnet/);
    await expect(startOnboardingActors({ dataDir: dir, binding: { ...BINDING, chainId: 1 }, log: silentLogger(), nowMs: () => clock })).rejects.toThrow(/belongs to devnet/);
    await open();
    expect((await status(ADDRESS)).body.data.status).toBe('pending');
  });
});

describe('on a real port', () => {
  it('listens, applies and answers over HTTP, and closes server and store', async () => {
    await close();
    const service = await startOnboardingService({ dataDir: dir, binding: BINDING, log: silentLogger(), port: 0, nowMs: () => clock });
    try {
      expect(service.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const r = await fetch(`${service.address}/api/validators/apply`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signedBody(GOOD, BINDING.chainId, clock)) });
      expect(r.status).toBe(200);
      const s = (await (await fetch(`${service.address}/api/onboarding/status/${ADDRESS}`)).json()) as { data: StatusView };
      expect(s.data.status).toBe('pending');
    } finally {
      await service.close();
    }
    await open();
    expect((await status(ADDRESS)).body.data.status).toBe('pending');
  });
});
