/**
 * The network plumbing of `npm run testnet` (testnet.ts): Linux network namespaces, one per
 * host, each with its own address, as separate machines would have. Every host's namespace
 * `<prefix>-<host>` holds a veth whose other end is in the root namespace, enslaved to the
 * bridge `<prefix>-br`; the bridge carries the root namespace's address on the same /24,
 * so this machine reaches every host (its API, the onboarding service) and the hosts reach
 * each other, and nothing else. A host can instead be reached only over a point-to-point
 * link to another host (an observer behind an observer), with a separate link to the root
 * namespace that carries no route to the others: the management network a datacenter gives
 * its machines.
 *
 * Everything made is named by the prefix, so `down` finds it all again without a record:
 * the namespaces (and the processes in them), the root namespace's veth ends and the
 * bridge. Deleting a namespace deletes the veth ends inside it, and with them their peers.
 * Needs root and iproute2's `ip`.
 */
import { spawnSync } from 'node:child_process';

/** Runs `ip ARGS`; throws with ip's own message when it fails. */
export function ip(args: string[]): string {
  const r = spawnSync('ip', args, { encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw new Error(`ip ${args.join(' ')}: ${r.error.message} (iproute2's ip is needed: apt-get install iproute2)`);
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim() || `exit ${r.status}`}`);
  return r.stdout;
}

/** Interface names are at most 15 bytes (IFNAMSIZ − 1). */
const IFNAME_MAX = 15;

function ifname(name: string): string {
  if (name.length > IFNAME_MAX) throw new Error(`interface name ${name} is longer than ${IFNAME_MAX} characters: use a shorter --prefix`);
  return name;
}

export interface Plan {
  /** Names every namespace, interface and the bridge: 1 to 6 of a-z 0-9. */
  prefix: string;
  /** The first two octets of the addresses, e.g. "10.77": the bridge is <base>.0.0/24. */
  base: string;
}

export const ROOT_HOST_OCTET = 254;

export const nsName = (p: Plan, host: string) => `${p.prefix}-${host}`;
export const bridgeName = (p: Plan) => ifname(`${p.prefix}-br`);
/** A host's address on the bridge. */
export const bridgeAddress = (p: Plan, octet: number) => `${p.base}.0.${octet}`;
/** This machine's (the root namespace's) address on the bridge. */
export const rootAddress = (p: Plan) => bridgeAddress(p, ROOT_HOST_OCTET);

/** The bridge in the root namespace, with this machine's address on it. */
export function addBridge(p: Plan): void {
  ip(['link', 'add', bridgeName(p), 'type', 'bridge']);
  ip(['addr', 'add', `${rootAddress(p)}/24`, 'dev', bridgeName(p)]);
  ip(['link', 'set', bridgeName(p), 'up']);
}

/** A host's namespace with its loopback up (the node's RPC and admin stay on it). */
export function addNamespace(p: Plan, host: string): string {
  const ns = nsName(p, host);
  ip(['netns', 'add', ns]);
  ip(['-n', ns, 'link', 'set', 'lo', 'up']);
  return ns;
}

/** The host's `eth0` on the bridge, with address `<base>.0.<octet>/24`. */
export function attachToBridge(p: Plan, host: string, octet: number): string {
  const ns = nsName(p, host);
  const outer = ifname(`${p.prefix}-${host}`);
  ip(['link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
  ip(['link', 'set', outer, 'master', bridgeName(p)]);
  ip(['link', 'set', outer, 'up']);
  ip(['-n', ns, 'addr', 'add', `${bridgeAddress(p, octet)}/24`, 'dev', 'eth0']);
  ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
  return bridgeAddress(p, octet);
}

/**
 * A point-to-point link between two hosts' namespaces, on the /30 `<base>.<net>.0`: host a
 * gets .1, host b .2. Neither routes beyond it, so b reaches a and nothing else over it.
 */
export function linkHosts(p: Plan, a: string, b: string, net: number): { a: string; b: string } {
  const [nsA, nsB] = [nsName(p, a), nsName(p, b)];
  const [ifA, ifB] = [ifname(`to-${b}`), ifname(`to-${a}`)];
  ip(['link', 'add', `${p.prefix}-tmp`, 'type', 'veth', 'peer', 'name', `${p.prefix}-tmq`]);
  ip(['link', 'set', `${p.prefix}-tmp`, 'netns', nsA, 'name', ifA]);
  ip(['link', 'set', `${p.prefix}-tmq`, 'netns', nsB, 'name', ifB]);
  const addrA = `${p.base}.${net}.1`;
  const addrB = `${p.base}.${net}.2`;
  ip(['-n', nsA, 'addr', 'add', `${addrA}/30`, 'dev', ifA]);
  ip(['-n', nsB, 'addr', 'add', `${addrB}/30`, 'dev', ifB]);
  ip(['-n', nsA, 'link', 'set', ifA, 'up']);
  ip(['-n', nsB, 'link', 'set', ifB, 'up']);
  return { a: addrA, b: addrB };
}

/**
 * A management link from the root namespace to a host that is not on the bridge: this
 * machine reaches the host's API at `<base>.<net>.2`, and the host has a route to
 * `<base>.<net>.1` only, never to the bridge's hosts.
 */
export function managementLink(p: Plan, host: string, net: number): string {
  const ns = nsName(p, host);
  const outer = ifname(`${p.prefix}-${host}`);
  ip(['link', 'add', outer, 'type', 'veth', 'peer', 'name', 'mgmt0', 'netns', ns]);
  ip(['addr', 'add', `${p.base}.${net}.1/30`, 'dev', outer]);
  ip(['link', 'set', outer, 'up']);
  ip(['-n', ns, 'addr', 'add', `${p.base}.${net}.2/30`, 'dev', 'mgmt0']);
  ip(['-n', ns, 'link', 'set', 'mgmt0', 'up']);
  return `${p.base}.${net}.2`;
}

/** The namespaces of this prefix that exist now. */
export function namespaces(p: Plan): string[] {
  return ip(['netns', 'list'])
    .split('\n')
    .map((l) => l.split(' ')[0])
    .filter((n) => n.startsWith(`${p.prefix}-`));
}

/** The ids of the processes running in a namespace. */
export function pidsIn(ns: string): number[] {
  try {
    return ip(['netns', 'pids', ns])
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // gone already
  }
}

/** Whether process `pid` still runs. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the given processes: SIGTERM, then SIGKILL for any still there after `graceMs`. */
export async function stopProcesses(pids: number[], graceMs = 10_000): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  const until = Date.now() + graceMs;
  while (pids.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone in between
    }
  }
}

/**
 * Removes everything of the prefix: the processes in its namespaces (by their ids, as
 * `ip netns pids` lists them), the namespaces, the root namespace's ends of its veths and
 * the bridge. Whatever is not there is skipped, so it is safe to run twice. Returns what it
 * removed, for the command's line.
 */
export async function teardown(p: Plan): Promise<{ processes: number; namespaces: string[]; links: string[] }> {
  const spaces = namespaces(p);
  const pids = spaces.flatMap(pidsIn);
  await stopProcesses(pids);
  for (const ns of spaces) ip(['netns', 'del', ns]);
  const links = ip(['-o', 'link', 'show'])
    .split('\n')
    .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n.startsWith(`${p.prefix}-`));
  // The bridge last: its ports first (most went with their namespaces' ends).
  links.sort((a, b) => Number(a === bridgeName(p)) - Number(b === bridgeName(p)));
  const removed: string[] = [];
  for (const l of links) {
    try {
      ip(['link', 'del', l]);
      removed.push(l);
    } catch {
      // a veth end that went with its peer's namespace a moment ago
    }
  }
  return { processes: pids.length, namespaces: spaces, links: removed };
}
