/**
 * The operator's review, the tokens and the downloads of the onboarding service
 * (decision 78), over real HTTP on a real port and a real LevelDB in a temp folder:
 *   - the operator routes refuse a caller from a non-loopback address (the service on
 *     0.0.0.0, reached through this machine's own non-loopback IPv4 address) and an
 *     unsigned, wrongly signed, stale, replayed, other-chain or non-operator request, each
 *     changing nothing;
 *   - approve issues a token (stored only as its sha256) and steps the machine; each
 *     artifact downloads once with it, byte for byte the file, matching the published
 *     checksum, then 410; an expired token 410; an unknown or malformed token 401; no
 *     token exists before approval; reject, list, and review of a non-pending or unknown
 *     applicant refused;
 *   - the service restarted on the same folder keeps applicants, tokens (and their used
 *     artifacts) and operator nonces.
 * The artifacts are real files: genesis/devnet.json, and small files written here for the
 * binary and the boot bundle (stand-ins for `npm run build`'s output and the built
 * bundle, which other parts of issue 21 make).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/onboarding/artifacts';
import { onboardingArtifacts } from '../../src/onboarding/cli';
import { signOperatorRequest } from '../../src/onboarding/operator-auth';
import { devnetOperatorKey } from '../../src/onboarding/operator-key';
import { isLoopback } from '../../src/onboarding/operator-routes';
import { startOnboardingService, type OnboardingService } from '../../src/onboarding/service';
import type { NetworkBinding } from '../../src/onboarding/store';
import { tokenHash, TOKEN_LIFETIME_MS_DEFAULT } from '../../src/onboarding/tokens';
import { silentLogger } from '../../src/util/log';
import type { Hex } from '../../src/util/bytes';
import { applicantAddress, signedBody } from '../helpers/applicants';

const ROOT = resolve(__dirname, '../..');
const GENESIS_FILE = join(ROOT, 'genesis/devnet.json');
const BINDING: NetworkBinding = { network: 'devnet', chainId: 713799, genesisHash: `0x${'ab'.repeat(32)}` };
const OPERATOR = devnetOperatorKey();
/** Another key: a well-formed signature by someone who is not the operator. */
const STRANGER: Hex = `0x${'11'.repeat(32)}`;
/** Three applicants, in address order (the operator's list is). */
const [A, B, C] = [1, 2, 3].map(applicantAddress).sort();

let dir: string;
let files: string;
let service: OnboardingService;
let clock = 1_700_000_000_000;

async function start(host = '127.0.0.1'): Promise<void> {
  service = await startOnboardingService({
    dataDir: dir,
    binding: BINDING,
    log: silentLogger(),
    host,
    port: 0,
    nowMs: () => clock,
    artifacts: onboardingArtifacts(GENESIS_FILE, join(files, 'exchange-node.mjs'), join(files, 'boot-bundle.tar.gz')),
  });
}
const url = (path: string) => `${service.address}${path}`;

interface Answer {
  status: number;
  body: { success: boolean; data?: any; error?: { code: string; message: string } };
}
async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, base = service.address): Promise<Answer> {
  const r = await fetch(`${base}${path}`, { method, headers });
  return { status: r.status, body: (await r.json()) as Answer['body'] };
}
const signed = (method: 'GET' | 'POST', path: string, over: { key?: Hex; chainId?: number; ts?: number; nonce?: string; signedPath?: string } = {}) =>
  signOperatorRequest(over.key ?? OPERATOR.privateKey, { chainId: over.chainId ?? BINDING.chainId, method, path: over.signedPath ?? path, timestampMs: over.ts ?? clock, nonce: over.nonce });
const operator = (method: 'GET' | 'POST', path: string, over = {}, base?: string) => send(method, path, signed(method, path, over), base);
const approve = (address: string) => operator('POST', `/api/operator/applicants/${address}/approve`);
const reject = (address: string) => operator('POST', `/api/operator/applicants/${address}/reject`);

async function apply(address: string, name = 'node-1'): Promise<void> {
  const r = await fetch(url('/api/validators/apply'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(signedBody({ address, name, endpoint: `${name}.example.org:9000`, email: 'ops@example.org' }, BINDING.chainId, clock)),
  });
  expect(r.status).toBe(200);
}
const status = async (address: string) => (await send('GET', `/api/onboarding/status/${address}`)).body.data;
async function download(segment: string, token: string): Promise<{ status: number; bytes: Buffer; sha: string | null; json?: Answer['body'] }> {
  const r = await fetch(url(`/api/validators/download/${segment}?token=${encodeURIComponent(token)}`));
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, bytes, sha: r.headers.get('x-checksum-sha256'), json: r.ok ? undefined : JSON.parse(bytes.toString()) };
}

function expectRefused(a: Answer, status: number, code: string): void {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(a.body.success).toBe(false);
  expect(a.body.error!.code).toBe(code);
}

/** The whole stored state, to show a refusal changed nothing. */
async function stored(): Promise<unknown> {
  return { records: await service.store.records(), tokens: await service.store.tokenRecords() };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-op-'));
  files = mkdtempSync(join(tmpdir(), 'onboarding-files-'));
  writeFileSync(join(files, 'exchange-node.mjs'), "#!/usr/bin/env node\nconsole.log('a small real file standing for the node build');\n");
  writeFileSync(join(files, 'boot-bundle.tar.gz'), Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
  clock = 1_700_000_000_000;
});
afterEach(async () => {
  await service?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  rmSync(files, { recursive: true, force: true });
});

describe('the operator routes answer loopback callers only', () => {
  it('loopback is 127.0.0.0/8 and ::1, also IPv4-mapped; nothing else', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a), a).toBe(true);
    for (const a of [undefined, '', '10.0.0.1', '::ffff:10.0.0.1', '0.0.0.0', '::', '128.0.0.1', 'fe80::1', '127.0.0.1.example.org', '::ffff:127.0.0.1:80']) {
      expect(isLoopback(a), String(a)).toBe(false);
    }
  });

  it('a signed request through a non-loopback address is 403 LOOPBACK_ONLY and changes nothing; the same from 127.0.0.1 is served', async () => {
    const ip = Object.values(networkInterfaces())
      .flat()
      .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;
    expect(ip, 'this machine has a non-loopback IPv4 address').toBeDefined();
    await start('0.0.0.0');
    await apply(A);
    const port = new URL(service.address).port;
    const outside = `http://${ip}:${port}`;
    const before = await stored();
    expectRefused(await operator('POST', `/api/operator/applicants/${A}/approve`, {}, outside), 403, 'LOOPBACK_ONLY');
    expectRefused(await operator('GET', '/api/operator/applicants', {}, outside), 403, 'LOOPBACK_ONLY');
    expectRefused(await send('GET', '/api/operator/network', {}, outside), 403, 'LOOPBACK_ONLY');
    expect(await stored()).toEqual(before);
    // The public routes answer there; the operator's answer on loopback.
    expect((await send('GET', `/api/onboarding/status/${A}`, {}, outside)).body.data.status).toBe('pending');
    expect((await operator('POST', `/api/operator/applicants/${A}/approve`, {}, `http://127.0.0.1:${port}`)).status).toBe(200);
  });
});

describe('signed requests', () => {
  beforeEach(async () => {
    await start();
    await apply(A);
  });

  it('unsigned, wrongly signed, tampered, stale, other-chain and non-operator requests are refused, changing nothing', async () => {
    const path = `/api/operator/applicants/${A}/approve`;
    const before = await stored();
    expectRefused(await send('POST', path), 401, 'MISSING_SIGNATURE');
    const good = signed('POST', path);
    const { 'x-operator-signature': _dropped, ...unsignedHeaders } = good;
    expectRefused(await send('POST', path, unsignedHeaders), 401, 'MISSING_SIGNATURE');
    expectRefused(await send('POST', path, { ...good, 'x-operator-signature': '0x' + '00'.repeat(65) }), 400, 'INVALID_SIGNATURE_FORMAT');
    expectRefused(await send('POST', path, { ...good, 'x-operator-nonce': 'abc' }), 400, 'INVALID_SIGNATURE_FORMAT');
    // A signature over another path, chain or nonce recovers to someone else.
    expectRefused(await send('POST', path, signed('POST', path, { signedPath: `/api/operator/applicants/${B}/approve` })), 403, 'NOT_OPERATOR');
    expectRefused(await send('POST', path, { ...good, 'x-operator-nonce': '0x' + 'ee'.repeat(16) }), 403, 'NOT_OPERATOR');
    expectRefused(await operator('POST', path, { chainId: 713715 }), 403, 'NOT_OPERATOR');
    expectRefused(await operator('POST', path, { key: STRANGER }), 403, 'NOT_OPERATOR');
    expectRefused(await operator('POST', path, { ts: clock - 5 * 60_000 - 1 }), 401, 'REQUEST_EXPIRED');
    expectRefused(await operator('POST', path, { ts: clock + 5 * 60_000 + 1 }), 401, 'REQUEST_EXPIRED');
    expectRefused(await operator('GET', '/api/operator/applicants', { key: STRANGER }), 403, 'NOT_OPERATOR');
    expect(await stored()).toEqual(before);
    expect((await status(A)).status).toBe('pending');
    // The same request, well signed, is served.
    expect((await send('POST', path, good)).status).toBe(200);
  });

  it('a replayed request is 409 NONCE_USED, even to another route, and changes nothing', async () => {
    await apply(B, 'node-2');
    const nonce = '0x' + '42'.repeat(16);
    expect((await operator('POST', `/api/operator/applicants/${A}/reject`, { nonce })).status).toBe(200);
    const before = await stored();
    expectRefused(await operator('POST', `/api/operator/applicants/${A}/reject`, { nonce }), 409, 'NONCE_USED');
    expectRefused(await operator('POST', `/api/operator/applicants/${B}/approve`, { nonce }), 409, 'NONCE_USED');
    expect(await stored()).toEqual(before);
    expect((await status(B)).status).toBe('pending');
  });

  it('a body is refused: the signature would not cover it', async () => {
    const path = `/api/operator/applicants/${A}/approve`;
    const r = await fetch(url(path), { method: 'POST', headers: { ...signed('POST', path), 'content-type': 'application/json' }, body: JSON.stringify({ address: B }) });
    expect(r.status).toBe(400);
    expect((await status(A)).status).toBe('pending');
  });
});

describe('review', () => {
  beforeEach(async () => {
    await start();
    await apply(A);
    await apply(B, 'node-2');
  });

  // Shows contract [C-state-onboarding].
  it('list shows every applicant; approve and reject step the machine', async () => {
    clock += 1_000;
    const approved = await approve(A);
    expect(approved.status).toBe(200);
    expect(approved.body.data).toEqual({ address: A, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_ts: clock + TOKEN_LIFETIME_MS_DEFAULT });
    expect(await status(A)).toEqual({ address: A, status: 'approved', token_issued: true, approved_ts: clock });
    clock += 1_000;
    const rejected = await reject(B);
    expect(rejected.body.data).toEqual({ address: B, status: 'rejected', token_issued: false, approved_ts: null });
    const list = await operator('GET', '/api/operator/applicants');
    expect(list.body.data.applicants).toEqual([
      { address: A, name: 'node-1', endpoint: 'node-1.example.org:9000', email: 'ops@example.org', status: 'approved', applied_ts: clock - 2_000, approved_ts: clock - 1_000, rejected_ts: null, token_issued: true },
      { address: B, name: 'node-2', endpoint: 'node-2.example.org:9000', email: 'ops@example.org', status: 'rejected', applied_ts: clock - 2_000, approved_ts: null, rejected_ts: clock, token_issued: false },
    ]);
  });

  it('only a pending applicant is reviewed: twice, after the other outcome, or never applied is refused, changing nothing', async () => {
    expect((await approve(A)).status).toBe(200);
    expect((await reject(B)).status).toBe(200);
    const before = await stored();
    expectRefused(await approve(A), 409, 'APPLICANT_STATE');
    expectRefused(await reject(A), 409, 'APPLICANT_STATE');
    expectRefused(await approve(B), 409, 'APPLICANT_STATE');
    expectRefused(await approve(C), 404, 'NOT_FOUND');
    expectRefused(await operator('POST', '/api/operator/applicants/0x1234/approve'), 400, 'INVALID_VALIDATOR');
    expect(await stored()).toEqual(before);
  });
});

describe('tokens and downloads', () => {
  beforeEach(async () => {
    await start();
    await apply(A);
  });

  // Shows contract [C-onboard-token], [D-validators-onboarding].
  it('the checksums are each artifact’s sha256, name and size', async () => {
    const r = await send('GET', '/api/validators/checksums');
    const of = (p: string) => ({ name: p.split('/').pop(), bytes: readFileSync(p).length, sha256: sha256Hex(readFileSync(p)) });
    expect(r.body.data).toEqual({ binary: of(join(files, 'exchange-node.mjs')), genesis: of(GENESIS_FILE), boot_bundle: of(join(files, 'boot-bundle.tar.gz')) });
  });

  // Shows contract [C-onboard-download], [C-onboard-token], [C-limits-onboard-link],
  //   [D-validators-onboarding].
  it('the token is stored only as its sha256; each artifact downloads once, the file itself, then 410 TOKEN_USED', async () => {
    const token: string = (await approve(A)).body.data.token;
    const tokens = await service.store.tokenRecords();
    expect(tokens.map(([hash]) => hash)).toEqual([tokenHash(token)]);
    // Nothing in the database folder holds the token's text.
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(Buffer.from(token)), f).toBe(false);
    const checksums = (await send('GET', '/api/validators/checksums')).body.data;
    for (const [segment, kind, path] of [
      ['binary', 'binary', join(files, 'exchange-node.mjs')],
      ['genesis', 'genesis', GENESIS_FILE],
      ['boot-bundle', 'boot_bundle', join(files, 'boot-bundle.tar.gz')],
    ] as const) {
      const first = await download(segment, token);
      expect(first.status).toBe(200);
      expect(first.bytes.equals(readFileSync(path))).toBe(true);
      expect(sha256Hex(first.bytes)).toBe(checksums[kind].sha256);
      expect(first.sha).toBe(checksums[kind].sha256);
      const second = await download(segment, token);
      expect(second.status).toBe(410);
      expect(second.json!.error!.code).toBe('TOKEN_USED');
    }
    expect(Object.values((await service.store.tokenRecord(token))!.used).every((t) => t === clock)).toBe(true);
  });

  it('a HEAD of a download is not served and does not spend the token', async () => {
    const token: string = (await approve(A)).body.data.token;
    const head = await fetch(url(`/api/validators/download/binary?token=${token}`), { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect((await service.store.tokenRecord(token))!.used.binary).toBeNull();
    expect((await download('binary', token)).status).toBe(200);
  });

  it('two downloads of one artifact at the same moment: one is served, the other 410', async () => {
    const token: string = (await approve(A)).body.data.token;
    const both = await Promise.all([download('genesis', token), download('genesis', token)]);
    expect(both.map((d) => d.status).sort()).toEqual([200, 410]);
  });

  // Shows contract [C-onboard-token], [C-limits-onboard-link].
  it('an expired token is 410 TOKEN_EXPIRED, for every artifact', async () => {
    const token: string = (await approve(A)).body.data.token;
    clock += TOKEN_LIFETIME_MS_DEFAULT - 1;
    expect((await download('binary', token)).status).toBe(200);
    clock += 1;
    for (const segment of ['genesis', 'boot-bundle', 'binary']) {
      const d = await download(segment, token);
      expect(d.status).toBe(410);
      expect(d.json!.error!.code).toBe('TOKEN_EXPIRED');
    }
  });

  it('an unknown, malformed or missing token is refused; before approval there is no token to download with', async () => {
    const before = await stored();
    for (const token of ['A'.repeat(43), 'short', 'A'.repeat(42) + '=', '']) {
      const d = await download('binary', token);
      expect(d.status, token).toBe(401);
      expect(d.json!.error!.code).toBe('INVALID_TOKEN');
    }
    const missing = await send('GET', '/api/validators/download/genesis');
    expectRefused(missing, 400, 'INVALID_REQUEST');
    expect(await stored()).toEqual(before);
    expect(await status(A)).toEqual({ address: A, status: 'pending', token_issued: false, approved_ts: null });
    // A rejected applicant gets no token either.
    expect((await reject(A)).status).toBe(200);
    expect(await service.store.tokenRecords()).toEqual([]);
  });

  it('an artifact the service was started without is 503 ARTIFACT_UNAVAILABLE and its checksum null', async () => {
    await service.close();
    service = await startOnboardingService({
      dataDir: dir,
      binding: BINDING,
      log: silentLogger(),
      port: 0,
      nowMs: () => clock,
      artifacts: onboardingArtifacts(GENESIS_FILE, join(files, 'exchange-node.mjs')),
    });
    expect((await send('GET', '/api/validators/checksums')).body.data.boot_bundle).toBeNull();
    const token: string = (await approve(A)).body.data.token;
    const d = await download('boot-bundle', token);
    expect(d.status).toBe(503);
    expect(d.json!.error!.code).toBe('ARTIFACT_UNAVAILABLE');
    expect((await service.store.tokenRecord(token))!.used.boot_bundle).toBeNull();
  });

  it('a built artifact (a builder giving name and bytes, as the boot bundle plugs in) is published and served as given', async () => {
    await service.close();
    const bundle = readFileSync(join(files, 'boot-bundle.tar.gz'));
    let builds = 0;
    service = await startOnboardingService({
      dataDir: dir,
      binding: BINDING,
      log: silentLogger(),
      port: 0,
      nowMs: () => clock,
      artifacts: { ...onboardingArtifacts(GENESIS_FILE, join(files, 'exchange-node.mjs')), boot_bundle: { load: async () => (builds++, { name: 'devnet-boot.tar.gz', bytes: bundle }) } },
    });
    expect(builds).toBe(1);
    expect((await send('GET', '/api/validators/checksums')).body.data.boot_bundle).toEqual({ name: 'devnet-boot.tar.gz', bytes: bundle.length, sha256: sha256Hex(bundle) });
    const token: string = (await approve(A)).body.data.token;
    const d = await download('boot-bundle', token);
    expect(d.status).toBe(200);
    expect(d.bytes.equals(bundle)).toBe(true);
    expect(builds).toBe(1);
  });

  it('a missing binary refuses the start, naming npm run build', async () => {
    await service.close();
    await expect(
      startOnboardingService({ dataDir: dir, binding: BINDING, log: silentLogger(), port: 0, artifacts: onboardingArtifacts(GENESIS_FILE, join(files, 'nothing.mjs')) }),
    ).rejects.toThrow(/npm run build/);
  });
});

describe('restart', () => {
  it('applicants, tokens with their used artifacts, and operator nonces survive a restart', async () => {
    await start();
    await apply(A);
    await apply(B, 'node-2');
    const nonce = '0x' + '77'.repeat(16);
    const token: string = (await operator('POST', `/api/operator/applicants/${A}/approve`, { nonce })).body.data.token;
    expect((await download('binary', token)).status).toBe(200);
    // The mark follows the sending; a second download waits for it and is refused.
    expect((await download('binary', token)).status).toBe(410);
    const before = await stored();
    expect((before as { tokens: Array<[string, { used: { binary: number | null } }]> }).tokens[0][1].used.binary).toBe(clock);
    const list = (await operator('GET', '/api/operator/applicants')).body.data;
    await service.close();
    await start();
    expect(await stored()).toEqual(before);
    expect((await operator('GET', '/api/operator/applicants')).body.data).toEqual(list);
    expect((await download('binary', token)).status).toBe(410);
    expect((await download('genesis', token)).status).toBe(200);
    expectRefused(await operator('POST', `/api/operator/applicants/${B}/approve`, { nonce }), 409, 'NONCE_USED');
    expect((await status(B)).status).toBe('pending');
  });
});
