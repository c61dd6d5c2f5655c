/**
 * The validator onboarding journey with real processes (issue 21): a four-validator
 * network (its genesis with short epochs and timelocks), the onboarding service as its
 * own process (`npm run onboarding`) serving a single-file build of the node (`npm run
 * build`), and a candidate that
 *   applies → is approved by `npm run operator -- approve` (the service sends the
 *   operator's ApproveValidator to the chain, decision 159) → downloads the binary, the
 *   genesis and the boot bundle with the one-time token, each matching the published
 *   sha256 (and refused a second time, 410) → unpacks the bundle, binds its key with
 *   keygen.sh and starts its node with start.sh, which verifies the checksums → the
 *   observer syncs to the head → registers through the service (`validator register
 *   --onboarding`) → is active from the next epoch boundary and signs commits;
 * and a second candidate seated by the owners instead: an observer whose seeding it signs
 * (`validator seed-sign`, decision 160) proposed as AdminSeedValidator by one owner (`npm run node -- gov propose`), approved by a second,
 * executed after the timelock, active from the next boundary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { freePort } from '../../src/cli/launcher';
import { runCli, tempDir } from '../cli/run-cli';
import { DEVNET_KEYS, ROOT, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';
import { NODE_BUILD, NODE_PROGRAM } from '../helpers/node-program';

const N = 4;
const TOKEN = 10n ** 18n;
const BOND_TOKENS = 1_000_000n;
const EPOCH = 30;
const TIMELOCK_MS = 8_000;
const NODE = join(ROOT, 'node_modules/.bin/node');
const dir = tempDir('exchain-onboard-');
/** The built node's environment: this test's Node, and its addon cache in the test's folder. */
const builtEnv = { ...process.env, NODE, EXCHANGE_NODE_CACHE: join(dir.path, 'addon-cache') };
const genesisFile = join(dir.path, 'genesis.json');
const binaryFile = join(dir.path, 'build/exchange-node.mjs');
let net: LocalNetwork;
let service: ChildProcess | undefined;
let serviceUrl = '';
let serviceOutput = '';
let observer: ChildProcess | undefined;
let observerOutput = '';

/** The devnet genesis cut to four validators, with epochs of 30 blocks, timelocks of seconds, and a rich account to fund bonds. */
function writeGenesis(): void {
  const g = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
  g.validators = g.validators.slice(0, N);
  g.consensus = { ...g.consensus, activeSetMin: Math.min(g.consensus.activeSetMin, N), epochLengthBlocks: EPOCH, timelockRoutineMs: TIMELOCK_MS, timelockHighImpactMs: 4 * TIMELOCK_MS };
  g.accounts[0].nativeWei = (5n * BOND_TOKENS * TOKEN).toString();
  writeFileSync(genesisFile, JSON.stringify(g, null, 2));
}

const cli = async (args: string[]) => {
  const r = await runCli(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
};

function operator(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...NODE_PROGRAM, 'operator', ...args, '--url', serviceUrl], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function validator(address: string): Promise<any> {
  const { body } = await json(`${net.nodes[0].url}/v1/validators`);
  return (body.data.validators ?? body.data).find((v: any) => v.address === address);
}

async function waitStatus(address: string, status: string, timeoutMs = 120_000): Promise<any> {
  return waitFor(async () => {
    const v = await validator(address).catch(() => undefined);
    return v?.status === status ? v : undefined;
  }, timeoutMs, `${address} ${status}`);
}

/** Sends `tokens` native tokens from the rich genesis account to `to`, and waits until node 1 shows them. */
async function fund(to: string, tokens: bigint): Promise<void> {
  const rich = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey);
  const chain = defineChain({ id: 713799, name: 'devnet', nativeCurrency: { name: 'EXC', symbol: 'EXC', decimals: 18 }, rpcUrls: { default: { http: [net.nodes[0].url] } } });
  const wallet = createWalletClient({ account: rich, chain, transport: http(net.nodes[0].url) });
  const gasPrice = BigInt(JSON.parse(readFileSync(genesisFile, 'utf8')).fees.gasPriceWei);
  await wallet.sendTransaction({ to: to as `0x${string}`, value: tokens * TOKEN, type: 'legacy', gasPrice });
  const one = createPublicClient({ chain, transport: http(net.nodes[0].url) });
  await waitFor(async () => ((await one.getBalance({ address: to as `0x${string}` }).catch(() => 0n)) >= tokens * TOKEN ? true : undefined), 30_000, `${to} funded`);
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// Shows contract [C-service-onboarding].
describe('a validator joins through the onboarding service, and another through AdminSeedValidator', () => {
  beforeAll(async () => {
    writeGenesis();
    // The binary the service serves: the build this run's nodes run (test/global-setup.ts).
    mkdirSync(dirname(binaryFile), { recursive: true });
    copyFileSync(NODE_BUILD, binaryFile);
    net = await LocalNetwork.start(N, () => [], { genesisFile });
    const port = await freePort();
    service = spawn(
      process.execPath,
      [
        ...NODE_PROGRAM, 'onboarding',
        '--network', genesisFile,
        '--data-dir', join(dir.path, 'onboarding'),
        '--port', String(port),
        '--binary', binaryFile,
        '--node', net.nodes[0].url,
        '--bootstrap', net.p2pAddrs.join(','),
        '--log-level', 'warn',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    service.stdout!.on('data', (d: Buffer) => (serviceOutput += d.toString()));
    service.stderr!.on('data', (d: Buffer) => (serviceOutput += d.toString()));
    serviceUrl = await waitFor(async () => /READY onboarding .* api=(\S+)/.exec(serviceOutput)?.[1], 60_000, `the onboarding service (${serviceOutput})`);
  }, 180_000);

  afterAll(async () => {
    observer?.kill('SIGTERM');
    service?.kill('SIGTERM');
    await net?.stop();
    dir.remove();
  }, 60_000);

  const bundleDir = join(dir.path, 'applicant');
  const app = join(bundleDir, 'exchange-devnet');
  let candidate = '';
  let endpoint = '';
  let apiPort = 0;

  it('applies, is approved by the operator, and downloads each artifact once, matching the published sha256', async () => {
    // The applicant's key, made before applying: its address is the candidate that registers.
    const made = await cli(['init', '--home', join(dir.path, 'candidate-home'), '--network', genesisFile]);
    candidate = made.address;
    const p2pPort = await freePort();
    endpoint = `127.0.0.1:${p2pPort}`;
    // The application is signed with the same key (decision 164): `validator apply` as the applicant runs it.
    const applied = await cli(['validator', 'apply', '--home', join(dir.path, 'candidate-home'), '--onboarding', serviceUrl, '--name', 'journey', '--endpoint', endpoint, '--email', 'ops@journey.example']);
    expect(applied).toMatchObject({ op: 'Apply', address: candidate, status: 'pending', token_issued: false });
    // Nothing downloads before approval: no token exists.
    expect((await json(`${serviceUrl}/api/validators/download/genesis?token=${'A'.repeat(43)}`)).status).toBe(401);

    const approved = operator(['approve', candidate]);
    expect(approved.code, approved.stderr).toBe(0);
    const { address, token } = JSON.parse(approved.stdout.trim());
    expect(address).toBe(candidate);
    const status = await json(`${serviceUrl}/api/onboarding/status/${candidate}`);
    expect(status.body.data).toMatchObject({ status: 'approved', token_issued: true });
    expect(status.body.data.approved_ts).toBeGreaterThan(0);

    const sums = (await json(`${serviceUrl}/api/validators/checksums`)).body.data;
    const files: Record<string, Uint8Array> = {};
    for (const [kind, path] of [['binary', 'binary'], ['genesis', 'genesis'], ['boot_bundle', 'boot-bundle']] as const) {
      const res = await fetch(`${serviceUrl}/api/validators/download/${path}?token=${token}`);
      expect(res.status, kind).toBe(200);
      files[kind] = new Uint8Array(await res.arrayBuffer());
      expect(sha256(files[kind]), kind).toBe(sums[kind].sha256);
      const again = await json(`${serviceUrl}/api/validators/download/${path}?token=${token}`);
      expect(again.status, `${kind} twice`).toBe(410);
      expect(again.body.success).toBe(false);
    }
    expect(sha256(files.binary)).toBe(sha256(readFileSync(binaryFile)));
    expect(sha256(files.genesis)).toBe(sha256(readFileSync(genesisFile)));

    // Unpack the bundle, put the two verified files beside its scripts and the applicant's key in home/.
    writeFileSync(join(dir.path, 'boot.tar.gz'), files.boot_bundle);
    cpSync(join(dir.path, 'candidate-home'), join(app, 'home'), { recursive: true });
    const untar = spawnSync('tar', ['-xzf', join(dir.path, 'boot.tar.gz'), '-C', bundleDir], { encoding: 'utf8' });
    expect(untar.status, untar.stderr).toBe(0);
    writeFileSync(join(app, 'exchange-node.mjs'), files.binary);
    writeFileSync(join(app, 'genesis.json'), files.genesis);
    const keygen = spawnSync('sh', ['keygen.sh'], { cwd: app, encoding: 'utf8', env: builtEnv, timeout: 60_000 });
    expect(keygen.status, keygen.stderr).toBe(0);
    expect(JSON.parse(keygen.stdout.trim().split('\n').pop()!).address).toBe(candidate);
    apiPort = await freePort();
    const env = { ...builtEnv, EXCHANGE_API_PORT: String(apiPort), EXCHANGE_SESSION_PORT: String(await freePort()), EXCHANGE_P2P_PORT: String(p2pPort) };
    observer = spawn('sh', ['start.sh'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    observer.stdout!.on('data', (d: Buffer) => (observerOutput += d.toString()));
    observer.stderr!.on('data', (d: Buffer) => (observerOutput += d.toString()));
  }, 180_000);

  it('the observer started by the bundle syncs to the head with the same state root', async () => {
    const url = `http://127.0.0.1:${apiPort}`;
    await waitFor(async () => (/READY/.test(observerOutput) ? true : undefined), 90_000, `the bundle's node to start (${observerOutput})`);
    const head = await net.height(1);
    const synced = await waitFor(async () => {
      const s = (await json(`${url}/status`).catch(() => undefined))?.body?.data;
      return s && s.height >= head ? s : undefined;
    }, 90_000, 'the observer synced');
    expect(synced.validator).toEqual({ address: candidate, status: 'observer' });
    const [a, b] = await Promise.all([json(`${net.nodes[0].url}/block/${head}`), json(`${url}/block/${head}`)]);
    expect(b.body.data.hash).toBe(a.body.data.hash);
    expect(b.body.data.stateRoot).toBe(a.body.data.stateRoot);
  }, 180_000);

  it('registers through the service once funded, and is active from the next epoch boundary', async () => {
    await fund(candidate, BOND_TOKENS + 10n);
    const args = ['validator', 'register', '--home', join(app, 'home'), '--onboarding', serviceUrl, '--bond', String(BOND_TOKENS), '--name', 'journey', '--endpoint', endpoint];
    // The network's node learns the observer's listen address and head within a probe or two.
    const reg = await waitFor(async () => {
      const r = await runCli(args);
      if (r.code === 0) return JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(r.stderr).toMatch(/NOT_SYNCED/);
      await new Promise((res) => setTimeout(res, 1_000));
      return undefined;
    }, 60_000, 'registration through the onboarding service');
    expect(reg.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await validator(candidate)).status).toMatch(/registered|active/);
    const active = await waitStatus(candidate, 'active');
    expect(BigInt(active.bond)).toBe(BOND_TOKENS * TOKEN);
    await net.waitForSigner(candidate, reg.height, 1, 90_000);
  }, 240_000);

  it('an observer seated by two owners through AdminSeedValidator after the timelock is active from the next boundary', async () => {
    const home = join(dir.path, 'seeded');
    const made = await cli(['init', '--home', home, '--network', genesisFile]);
    const [api, p2p] = [await freePort(), await freePort()];
    await net.addNode(['--home', home, '--network', genesisFile, '--bootstrap', net.p2pAddrs.join(','), '--p2p-port', String(p2p), '--session-port', '0', '--log-level', 'warn'], api);
    await fund(made.address, BOND_TOKENS + 10n);
    const owners = join(dir.path, 'owners');
    await cli(['gov', 'key', 'devnet', '--out', owners]);
    // The validator signs its seeding (decision 160): the operation as `validator seed-sign` prints it.
    const seed = await cli(['validator', 'seed-sign', '--home', home, '--bond', String(BOND_TOKENS), '--name', 'seeded', '--endpoint', `127.0.0.1:${p2p}`]);
    expect(seed).toMatchObject({ kind: 'AdminSeedValidator', validator: made.address, funder: made.address });
    const api1 = ['--api', net.nodes[0].url];
    const proposed = await cli(['gov', 'propose', '--key', join(owners, 'owner-1.json'), ...api1, '--op', JSON.stringify(seed)]);
    // One owner's signature does nothing: execution waits for a second owner and the timelock.
    const early = await runCli(['gov', 'execute', '--key', join(owners, 'owner-1.json'), ...api1, proposed.operationId]);
    expect(early.code).toBe(1);
    expect(await validator(made.address)).toBeUndefined();
    const approved = await cli(['gov', 'approve', '--key', join(owners, 'owner-2.json'), ...api1, proposed.operationId]);
    expect(approved.state).toBe('approved');
    const executed = await waitFor(async () => {
      const r = await runCli(['gov', 'execute', '--key', join(owners, 'owner-3.json'), ...api1, proposed.operationId]);
      if (r.code === 0) return JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(r.stderr).toMatch(/TIMELOCK_NOT_PASSED/);
      await new Promise((res) => setTimeout(res, 1_000));
      return undefined;
    }, 60_000, 'the execution after the timelock');
    expect(executed.state).toBe('executed');
    expect((await validator(made.address)).status).toMatch(/registered|active/);
    await waitStatus(made.address, 'active');
    await net.waitForSigner(made.address, executed.height, 1, 90_000);
  }, 300_000);
});
