/**
 * `npm run onboarding` as a real process (src/onboarding/main.ts): it starts alone for a
 * network on a free port, prints its READY line, takes an application, stops cleanly on
 * SIGTERM, and a second process on the same data folder answers the same status. Flag
 * mistakes are refused before anything opens (src/onboarding/cli.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StatusView } from '../../src/onboarding/applicants';
import { onboardingCommand } from '../../src/onboarding/cli';
import { applicantAddress, signedBody } from '../helpers/applicants';
import { NODE_PROGRAM } from '../helpers/node-program';

const ROOT = resolve(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'onboarding-cli-'));
const ADDRESS = applicantAddress(1);
/** The devnet's chain id: the service the test starts is the devnet's. */
const DEVNET_CHAIN_ID = 713799;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The service refuses to start without the binary it serves; a small real file stands for `npm run build`'s output. */
const binary = join(dir, 'exchange-node.mjs');
writeFileSync(binary, "console.log('a small real file standing for the node build');\n");

/** Starts the service process; resolves with it and the READY line once it listens. */
function startProcess(): Promise<{ proc: ChildProcess; ready: string }> {
  const proc = spawn(process.execPath, [...NODE_PROGRAM, 'onboarding', '--network', 'devnet', '--data-dir', join(dir, 'db'), '--binary', binary, '--port', '0', '--log-level', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`no READY line in 30 s; stderr: ${err}`)), 30_000);
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line) {
        clearTimeout(timer);
        ok({ proc, ready: line });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`exited ${code} before READY; stderr: ${err}`));
    });
  });
}

function stop(proc: ChildProcess): Promise<number | null> {
  return new Promise((ok) => {
    proc.removeAllListeners('exit');
    proc.on('exit', (code) => ok(code));
    proc.kill('SIGTERM');
  });
}

const apiOf = (ready: string) => /api=(\S+)/.exec(ready)![1];

describe('npm run onboarding', () => {
  it('runs alone, takes an application, stops on SIGTERM, and restarts with its state', { timeout: 90_000 }, async () => {
    const first = await startProcess();
    expect(first.ready).toMatch(/^READY onboarding devnet chainId=713799 genesis=0x[0-9a-f]{64} api=http:\/\/127\.0\.0\.1:\d+ data=/);
    const api = apiOf(first.ready);
    const r = await fetch(`${api}/api/validators/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signedBody({ address: ADDRESS, name: 'cli-node', endpoint: 'cli.example.org:9000', email: 'cli@example.org' }, DEVNET_CHAIN_ID, Date.now())),
    });
    expect(r.status).toBe(200);
    expect(await stop(first.proc)).toBe(0);

    const second = await startProcess();
    try {
      const s = (await (await fetch(`${apiOf(second.ready)}/api/onboarding/status/${ADDRESS}`)).json()) as { data: StatusView };
      expect(s.data).toEqual({ address: ADDRESS, status: 'pending', token_issued: false, approved_ts: null });
    } finally {
      expect(await stop(second.proc)).toBe(0);
    }
  });

  it('refuses flag mistakes before opening anything', async () => {
    await expect(onboardingCommand(['--data-dir', dir], () => undefined)).rejects.toThrow(/--network .* is required/);
    await expect(onboardingCommand(['--network', 'devnet', '--port', '1', '--onboarding-port', '2'], () => undefined)).rejects.toThrow(/disagree/);
    await expect(onboardingCommand(['--network', 'nowhere.json'], () => undefined)).rejects.toThrow(/neither devnet/);
    await expect(onboardingCommand(['--network', 'devnet', '--bogus'], () => undefined)).rejects.toThrow(/unknown flag/);
    let help = '';
    expect(await onboardingCommand(['--help'], (l) => (help += l))).toBeUndefined();
    expect(help).toContain('--onboarding-port');
  });
});
