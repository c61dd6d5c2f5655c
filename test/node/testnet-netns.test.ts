/**
 * A network across hosts (issue 39 item 7): `npm run testnet -- up --hosts 6 --observers 2`
 * as root lays every node in its own network namespace with its own address: four
 * validators of a genesis `genesis new` built, hosts 5 and 6 taken through the onboarding
 * journey (apply, the operator's approval, the downloads, the boot bundle's start.sh with
 * ONE bootstrap address, register with a bond, active), observer o1 on the bridge and
 * observer o2 reachable only over a link to o1. Shown here:
 *   - a joiner given one bootstrap address reaches the head and stays within 2 blocks of it;
 *   - the observer connected only to another observer follows;
 *   - the two onboarded validators sign blocks;
 *   - stopping the bootstrap node (validator 1, the address in the bundle) does not stop the joiner;
 *   - `down` removes the processes, namespaces, veths, bridge and folder, and is safe twice.
 * `up` is run once; each test reads the hosts it made (its state.json), so a step of `up`
 * that fails still leaves the others' assertions to say what they see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readState, type Host, type TestnetState } from '../../src/cli/testnet-hosts';
import { tempDir } from '../cli/run-cli';
import { ROOT, waitFor } from '../helpers/devnet';
import { NODE_BUILD } from '../helpers/node-program';

const PREFIX = 'xtt';
const BASE = '10.78';
const dir = tempDir('exchain-testnet-');
const netDir = join(dir.path, 'net');
const FLAGS = ['--dir', netDir, '--prefix', PREFIX, '--base', BASE];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run testnet -- ARGS` as the script runs it (the build is the run's fresh one). */
function testnet(args: string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/testnet.ts', ...args], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

let up: Run;
let state: TestnetState;
const host = (name: string): Host => {
  const h = state.hosts.find((x) => x.name === name);
  if (h === undefined) throw new Error(`up made no host ${name}: ${up.stderr}`);
  return h;
};

async function status(h: Host): Promise<{ height: number; validator?: { status: string } } | undefined> {
  try {
    const res = await fetch(`${h.api}/status`, { signal: AbortSignal.timeout(5_000) });
    return ((await res.json()) as { data: any }).data;
  } catch {
    return undefined;
  }
}

async function height(h: Host): Promise<number> {
  return (await status(h))?.height ?? -1;
}

/** Both heights read at the same moment: `[head as `via` has it, the host's]`. */
async function pair(via: Host, h: Host): Promise<[number, number]> {
  return Promise.all([height(via), height(h)]);
}

/** Samples `h` against `via` every 500 ms for `samples` times: the largest gap seen. */
async function largestGap(via: Host, h: Host, samples: number): Promise<{ gap: number; seen: [number, number][] }> {
  const seen: [number, number][] = [];
  for (let i = 0; i < samples; i++) {
    seen.push(await pair(via, h));
    await new Promise((r) => setTimeout(r, 500));
  }
  return { gap: Math.max(...seen.map(([a, b]) => a - b)), seen };
}

/** Waits until `ok(head, height)` holds for `h` read beside `via`; the error names the last heights read. */
async function waitPair(via: Host, h: Host, ok: (head: number, height: number) => boolean, timeoutMs: number, what: string): Promise<void> {
  let last: [number, number] = [-1, -1];
  await waitFor(async () => {
    last = await pair(via, h);
    return ok(...last) ? true : undefined;
  }, timeoutMs, what).catch((err: Error) => {
    throw new Error(`${err.message}; last read: head ${last[0]} (host ${via.name}), host ${h.name} at ${last[1]}`);
  });
}

async function signedBy(via: Host, address: string, from: number): Promise<boolean> {
  const head = await height(via);
  for (let h = from; h <= head; h++) {
    const res = await fetch(`${via.api}/block/${h}`, { signal: AbortSignal.timeout(5_000) });
    if (((await res.json()) as { data: any }).data?.lastCommit?.signers.includes(address)) return true;
  }
  return false;
}

const ipIn = (ns: string, args: string[]) => spawnSync('ip', ['-n', ns, ...args], { encoding: 'utf8' }).stdout;

describe('npm run testnet -- up --hosts 6: a network across network namespaces', () => {
  beforeAll(async () => {
    // A run killed before its own down left its namespaces: remove them first.
    await testnet(['down', ...FLAGS]);
    up = await testnet(['up', '--hosts', '6', '--observers', '2', '--binary', NODE_BUILD, ...FLAGS], 300_000);
    state = readState(netDir)!;
    expect(state, up.stderr).toBeDefined();
  }, 320_000);

  afterAll(async () => {
    await testnet(['down', ...FLAGS]);
    dir.remove();
  }, 60_000);

  it('puts each host in its own namespace with its own address, and takes hosts 5 and 6 through onboarding to the active set', async () => {
    expect(up.code, up.stderr).toBe(0);
    const names = state.hosts.map((h) => h.name);
    expect(names).toEqual(['1', '2', '3', '4', '5', '6', 'o1', 'o2']);
    expect(new Set(state.hosts.map((h) => h.ip)).size).toBe(8);
    for (const h of state.hosts) expect(ipIn(h.ns, ['-4', 'addr', 'show'])).toContain(`inet ${h.ip}/`);
    const line = JSON.parse(up.stdout.trim().split('\n').pop()!);
    expect(line.hosts.map((h: Host) => h.role)).toEqual(['validator', 'validator', 'validator', 'validator', 'joiner', 'joiner', 'observer', 'observer']);
    for (const j of ['5', '6']) expect((await status(host(j)))?.validator?.status).toBe('active');
  });

  it('a joiner given one bootstrap address reaches the head and stays within 2 blocks of it', async () => {
    const joiner = host('5');
    // The boot bundle it started from names one bootstrap address: validator 1's.
    const env = readFileSync(join(joiner.home, '..', 'network.env'), 'utf8');
    expect(/^EXCHANGE_BOOTSTRAP='([^']*)'$/m.exec(env)?.[1]).toBe(host('1').p2p);
    await waitPair(host('2'), joiner, (head, h) => h >= 0 && head - h <= 2, 30_000, 'the joiner at the head');
    const { gap, seen } = await largestGap(host('2'), joiner, 10);
    expect(gap, `[head, joiner] heights: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(2);
  }, 90_000);

  it('an observer connected only to another observer follows', async () => {
    const leaf = host('o2');
    // o2's only way out is its link to o1 (and the management link this machine reads it over): no route to the bridge.
    const routes = ipIn(leaf.ns, ['-4', 'route', 'show']);
    expect(routes).not.toContain(`${BASE}.0.0/24`);
    expect(routes).not.toContain('default');
    const peers = (await (await fetch(`${leaf.api}/v1/network/peers`, { signal: AbortSignal.timeout(5_000) })).json()) as { data: { peers: { peerId: string }[] } };
    expect(peers.data.peers.map((p) => p.peerId)).toEqual([host('o1').p2p.split('/p2p/')[1]]);
    const start = await height(leaf);
    await waitPair(host('2'), leaf, (head, h) => h > start && head - h <= 5, 45_000, `the observer behind an observer following (it was at ${start})`);
    const { gap, seen } = await largestGap(host('2'), leaf, 6);
    expect(gap, `[head, o2] heights: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(5);
    expect(seen.at(-1)![1]).toBeGreaterThan(seen[0][1]);
  }, 90_000);

  it('the two onboarded validators sign blocks', async () => {
    const from = await height(host('2'));
    for (const j of ['5', '6']) {
      const address = host(j).address;
      await waitFor(async () => ((await signedBy(host('2'), address, from)) ? true : undefined), 30_000, `a commit signed by host ${j} (${address}, ${(await status(host(j)))?.validator?.status ?? 'no status'} when the wait began)`);
    }
  }, 90_000);

  it('stopping the bootstrap node does not stop the joiner', async () => {
    const stopped = await testnet(['stop', '1', ...FLAGS]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(await status(host('1'))).toBeUndefined();
    const joiner = host('5');
    const before = await height(joiner);
    await new Promise((r) => setTimeout(r, 5_000));
    const { gap, seen } = await largestGap(host('2'), joiner, 6);
    expect(seen[0][1], 'the joiner advanced after its bootstrap node stopped').toBeGreaterThan(before);
    expect(gap, `[head, joiner] heights: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(2);
  }, 60_000);

  it('down removes the processes, namespaces, veths, bridge and folder, and is safe to run twice', async () => {
    const pids = state.hosts.map((h) => h.pid).filter((p): p is number => p !== undefined);
    const first = await testnet(['down', ...FLAGS]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).namespaces.sort()).toEqual(state.hosts.map((h) => h.ns).sort());
    expect(spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout).not.toMatch(new RegExp(`^${PREFIX}-`, 'm'));
    expect(spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout).not.toContain(`${PREFIX}-`);
    for (const pid of pids) expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow();
    expect(existsSync(netDir)).toBe(false);
    const second = await testnet(['down', ...FLAGS]);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ processes: 0, namespaces: [], links: [] });
  }, 60_000);
});
