/**
 * `npm run operator` (src/onboarding/operator-cli.ts, operator-main.ts) against a real
 * onboarding service on a free port: list, approve and reject print one JSON line; approve's
 * token downloads; the devnet signs with its default operator key, another operator with a
 * key file of `keygen` or of `init`; a key file others can read, a key that is not the
 * operator's and a refusal of the service exit with the error and change nothing.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateNodeKeys, writeKeyFile } from '../../src/node/keyfile';
import { onboardingArtifacts } from '../../src/onboarding/cli';
import { operatorCommand, OperatorRefusal } from '../../src/onboarding/operator-cli';
import { readOperatorKey } from '../../src/onboarding/operator-key';
import { startOnboardingService, type OnboardingService } from '../../src/onboarding/service';
import type { NetworkBinding } from '../../src/onboarding/store';
import type { Address } from '../../src/util/bytes';
import { silentLogger } from '../../src/util/log';
import { applicantAddress, signedBody } from '../helpers/applicants';
import { NODE_PROGRAM } from '../helpers/node-program';

const ROOT = resolve(__dirname, '../..');
const BINDING: NetworkBinding = { network: 'devnet', chainId: 713799, genesisHash: `0x${'ab'.repeat(32)}` };
const [A, B] = [1, 2].map(applicantAddress).sort();

let dir: string;
let service: OnboardingService;

async function start(operator?: Address): Promise<void> {
  writeFileSync(join(dir, 'exchange-node.mjs'), "console.log('a small real file standing for the node build');\n");
  service = await startOnboardingService({
    dataDir: join(dir, 'db'),
    binding: BINDING,
    log: silentLogger(),
    port: 0,
    operator,
    artifacts: onboardingArtifacts(join(ROOT, 'genesis/devnet.json'), join(dir, 'exchange-node.mjs')),
  });
  for (const [address, name] of [
    [A, 'node-a'],
    [B, 'node-b'],
  ]) {
    const r = await fetch(`${service.address}/api/validators/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signedBody({ address, name, endpoint: `${name}.example.org:9000`, email: 'ops@example.org' }, BINDING.chainId, Date.now())),
    });
    expect(r.status).toBe(200);
  }
}

async function run(argv: string[]): Promise<{ value: unknown; lines: string[] }> {
  const lines: string[] = [];
  const value = await operatorCommand([...argv, '--url', service.address], (l) => lines.push(l));
  return { value, lines };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'operator-cli-'));
});
afterEach(async () => {
  await service?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run operator', () => {
  it('on devnet: list, approve (whose token downloads) and reject, each one JSON line, with the default operator key', async () => {
    await start();
    const approved = await run(['approve', A.toUpperCase().replace('0X', '0x')]);
    expect(approved.lines).toHaveLength(1);
    const line = JSON.parse(approved.lines[0]) as { address: string; token: string; expires_ts: number };
    expect(line.address).toBe(A);
    expect(line.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await fetch(`${service.address}/api/validators/download/genesis?token=${line.token}`)).status).toBe(200);
    const rejected = await run(['reject', B]);
    expect(JSON.parse(rejected.lines[0])).toEqual({ address: B, status: 'rejected', token_issued: false, approved_ts: null });
    const list = await run(['list']);
    expect(list.lines).toHaveLength(1);
    expect((JSON.parse(list.lines[0]) as { applicants: { address: string; status: string }[] }).applicants.map((a) => [a.address, a.status])).toEqual([
      [A, 'approved'],
      [B, 'rejected'],
    ]);
    await expect(run(['approve', A])).rejects.toMatchObject({ status: 409, error: { code: 'APPLICANT_STATE' } });
  });

  it('another operator signs with its key file (keygen, mode 0600, or init); a readable file or a foreign key is refused', async () => {
    const keyFile = join(dir, 'operator.json');
    const made = await operatorCommand(['keygen', '--out', keyFile], () => undefined);
    expect((statSync(keyFile).mode & 0o777).toString(8)).toBe('600');
    const key = readOperatorKey(keyFile);
    expect(made).toEqual({ address: key.address, key: keyFile });
    await expect(operatorCommand(['keygen', '--out', keyFile], () => undefined)).rejects.toThrow(/a file is already there; a key file is never overwritten/);
    await start(key.address);

    // The devnet's default key is not this service's operator.
    await expect(run(['approve', A])).rejects.toBeInstanceOf(OperatorRefusal);
    await expect(run(['approve', A])).rejects.toMatchObject({ status: 403, error: { code: 'NOT_OPERATOR' } });
    chmodSync(keyFile, 0o644);
    await expect(run(['approve', A, '--key', keyFile])).rejects.toThrow(/chmod 600/);
    chmodSync(keyFile, 0o600);
    expect(((await run(['list', '--key', keyFile])).value as { applicants: { status: string }[] }).applicants.map((a) => a.status)).toEqual(['pending', 'pending']);

    // A node key file of init signs with its account key.
    const home = join(dir, 'home');
    const nodeKeys = await generateNodeKeys({ network: 'devnet', chainId: BINDING.chainId, genesisHash: BINDING.genesisHash as `0x${string}` });
    const nodeKeyFile = writeKeyFile(home, nodeKeys);
    expect(readOperatorKey(nodeKeyFile)).toEqual({ address: nodeKeys.address, privateKey: nodeKeys.ecdsaPrivateKey });
    await expect(run(['approve', A, '--key', nodeKeyFile])).rejects.toMatchObject({ error: { code: 'NOT_OPERATOR' } });
    expect(((await run(['approve', A, '--key', keyFile])).value as { address: string }).address).toBe(A);
  });

  it('refuses command mistakes before sending anything', async () => {
    await start();
    await expect(run(['approve'])).rejects.toThrow(/needs the applicant's ADDRESS/);
    await expect(run(['approve', '0x12'])).rejects.toThrow(/address/);
    await expect(run(['promote', A])).rejects.toThrow(/unknown command/);
    await expect(operatorCommand(['keygen'], () => undefined)).rejects.toThrow(/--out/);
    let help = '';
    expect(await operatorCommand(['--help'], (l) => (help += l))).toBeUndefined();
    expect(help).toContain('approve ADDRESS');
    expect((await run(['list'])).value).toMatchObject({ applicants: [{ status: 'pending' }, { status: 'pending' }] });
  });

  it('as a process: one JSON line on stdout and exit 0; a refusal on stderr and exit 1', { timeout: 60_000 }, async () => {
    await start();
    const proc = (argv: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((ok) => {
        const p = spawn(process.execPath, [...NODE_PROGRAM, 'operator', ...argv, '--url', service.address], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        p.on('exit', (code) => ok({ code, out, err }));
      });
    const approved = await proc(['approve', A]);
    expect(approved.code).toBe(0);
    expect(approved.out.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(approved.out)).toMatchObject({ address: A, token: expect.any(String) });
    const again = await proc(['approve', A]);
    expect(again.code).toBe(1);
    expect(again.out).toBe('');
    expect(JSON.parse(again.err)).toMatchObject({ status: 409, error: { code: 'APPLICANT_STATE' } });
  });
});
