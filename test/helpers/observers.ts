/**
 * Full nodes beside a LocalNetwork, made as an operator makes one (`init --home`, then
 * `start --home` with its bootstrap addresses), and how far behind the head they are.
 * Used by test/node/discovery.test.ts and `npm run bench -- discovery`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/cli/launcher';
import { runCli } from '../cli/run-cli';
import { ROOT, waitFor } from './devnet';
import { NODE_PROGRAM } from './node-program';

export interface Observer {
  name: string;
  url: string;
  peerId: string;
  /** Its p2p multiaddr with /p2p/<peer id>: what another node is given to bootstrap from it. */
  p2p: string;
  proc?: ChildProcess;
  output: string;
  /** When its process was spawned (Date.now()). */
  spawnedAt: number;
}

/** GET a node route's `data`. */
export async function getData(url: string, path: string): Promise<any> {
  const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) });
  return ((await res.json()) as { data: any }).data;
}

/** `init --home <dir>/<name>` on `genesis`, then `start --home` with `bootstrap`, until READY; added to `list` (to be stopped). */
export async function startObserver(dir: string, list: Observer[], name: string, genesis: string, bootstrap: string[], extra: string[] = []): Promise<Observer> {
  const home = join(dir, name);
  const init = await runCli(['init', '--home', home, '--network', genesis]);
  if (init.code !== 0) throw new Error(`init of ${name} failed: ${init.stderr}`);
  const keys = JSON.parse(init.stdout) as { peer_id: string };
  const [api, p2p] = [await freePort(), await freePort()];
  const o: Observer = { name, url: `http://127.0.0.1:${api}`, peerId: keys.peer_id, p2p: `/ip4/127.0.0.1/tcp/${p2p}/p2p/${keys.peer_id}`, output: '', spawnedAt: Date.now() };
  // prettier-ignore
  const args = ['start', '--home', home, '--network', genesis, '--bootstrap', bootstrap.join(','), '--port', String(api), '--session-port', '0', '--p2p-port', String(p2p), '--log-level', 'warn', '--no-rate-limit', ...extra];
  const proc = spawn(process.execPath, [...NODE_PROGRAM, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  o.proc = proc;
  proc.stdout!.on('data', (d) => (o.output += d));
  proc.stderr!.on('data', (d) => (o.output += d));
  list.push(o);
  await waitFor(() => (o.output.includes('READY') ? true : proc.exitCode !== null ? Promise.reject(new Error(`${name} exited: ${o.output}`)) : undefined), 90_000, `${name} READY`);
  return o;
}

/** SIGTERM, SIGKILL after 10 s. */
export async function stopObserver(o: Observer): Promise<void> {
  const proc = o.proc;
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

/** Heights of the head (the node at `headUrl`) and of `o`, read at once, with their blocks' times. */
export async function lagBehind(headUrl: string, o: Observer): Promise<{ blocks: number; ms: number }> {
  const [head, own] = await Promise.all([getData(headUrl, '/v1/network'), getData(o.url, '/v1/network')]);
  return { blocks: Math.max(0, head.blockHeight - own.blockHeight), ms: Math.max(0, head.latestBlockTimeMs - own.latestBlockTimeMs) };
}

/** The p-th percentile (nearest rank below) of `xs`. */
export const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** Samples `o`'s lag behind `headUrl` every 250 ms for `ms`. */
export async function sampleLag(headUrl: string, o: Observer, ms: number): Promise<{ blocks: number[]; ms: number[] }> {
  const out = { blocks: [] as number[], ms: [] as number[] };
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const l = await lagBehind(headUrl, o);
    out.blocks.push(l.blocks);
    out.ms.push(l.ms);
    await new Promise((r) => setTimeout(r, 250));
  }
  return out;
}
