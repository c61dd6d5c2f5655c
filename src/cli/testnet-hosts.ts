/**
 * What `npm run testnet` (testnet.ts) knows of the hosts it made, kept in `<dir>/state.json`
 * so that `status`, `stop` and `down` find them again, and the child processes it runs in
 * a host's namespace: the node's commands from the single-file build (`ip netns exec NS
 * node exchange-node.mjs …`), each either awaited (a command) or left running detached with
 * its output in a log file (a node, the onboarding service), so that `up` can return.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, type Plan } from './testnet-netns';

export type HostRole = 'validator' | 'joiner' | 'observer';

export interface Host {
  /** "1" … "N" for the hosts on the bridge, "o1" … for observers. */
  name: string;
  role: HostRole;
  ns: string;
  /** The address its node's libp2p listens on (the one its peers dial). */
  ip: string;
  /** Its REST/JSON-RPC address as this machine reaches it. */
  api: string;
  /** Its libp2p multiaddr with its peer id. */
  p2p: string;
  /** The account (and validator) address of its key. */
  address: string;
  home: string;
  log: string;
  pid?: number;
}

export interface TestnetState {
  prefix: string;
  base: string;
  dir: string;
  genesis?: string;
  operatorKey?: string;
  onboarding?: { url: string; pid: number; log: string };
  hosts: Host[];
}

export const STATE_FILE = 'state.json';

export function readState(dir: string): TestnetState | undefined {
  const file = join(dir, STATE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TestnetState) : undefined;
}

export function writeState(s: TestnetState): void {
  writeFileSync(join(s.dir, STATE_FILE), `${JSON.stringify(s, null, 2)}\n`);
}

export const plan = (s: Pick<TestnetState, 'prefix' | 'base'>): Plan => ({ prefix: s.prefix, base: s.base });

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `argv` in namespace `ns` (or in this one without) and waits for it. */
export function run(ns: string | undefined, argv: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<Result> {
  const [cmd, ...args] = ns === undefined ? argv : ['ip', 'netns', 'exec', ns, ...argv];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env }, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

/** Like run, but a failure throws with what the command said; returns its last stdout line parsed as JSON. */
export async function runJson(ns: string | undefined, argv: string[], what: string, opts: Parameters<typeof run>[2] = {}): Promise<any> {
  const r = await run(ns, argv, opts);
  if (r.code !== 0) throw new Error(`${what}: exit ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(`${what}: expected one JSON line, got ${JSON.stringify(last.slice(0, 200))}`);
  }
}

/** Starts `argv` in namespace `ns`, detached, its output appended to `log`; returns its pid (`ip netns exec` execs the command itself). */
export function launch(ns: string, argv: string[], log: string, opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): number {
  const fd = openSync(log, 'a');
  try {
    const child = spawn('ip', ['netns', 'exec', ns, ...argv], { env: { ...process.env, ...opts.env }, cwd: opts.cwd, detached: true, stdio: ['ignore', fd, fd] });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${argv.join(' ')} in ${ns}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

const tail = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-8).join('\n  ') : '(no output)');

/** Waits until `log` holds a line matching `ready` (returns its match), failing at once if the process died. */
export async function waitReady(pid: number, log: string, ready: RegExp, what: string, timeoutMs = 90_000): Promise<RegExpExecArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = existsSync(log) ? ready.exec(readFileSync(log, 'utf8')) : null;
    if (m) return m;
    if (!alive(pid)) throw new Error(`${what} exited before it was ready; its log ${log}:\n  ${tail(log)}`);
    if (Date.now() > until) throw new Error(`${what} was not ready within ${timeoutMs / 1000} s; its log ${log}:\n  ${tail(log)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** GET a node's envelope route and return its data, or undefined when it does not answer. */
export async function getData(url: string): Promise<any> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { data?: unknown };
    return res.ok ? body.data : undefined;
  } catch {
    return undefined;
  }
}

/** Polls `probe` until it returns a value; throws naming `what` after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string, everyMs = 500): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
