/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and splits the CPU of a time window by what
 * it was spent on, for the idle bench (bench/idle.ts, issue 25). Each sample's leaf is put
 * in a category by its script (a package, a project folder, a node builtin); a leaf
 * without a script (native code: a libsecp256k1 call, a socket write) takes its nearest
 * caller's. `onStack` counts a sample in every category on its stack, which shows what
 * a part costs with all it calls (the consensus core with its signing and xstate).
 *
 * A profile of the compiled build (dist/exchange-node.mjs) is read the same way: each of
 * its frames is named by the module esbuild put there (the `// src/…` and
 * `// node_modules/…` line that opens each module in the bundle).
 *
 *   npx tsx bench/cpu-profile.ts FILE.cpuprofile [fromUs toUs] [perBlocks]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
  parent?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Ordered: the first rule whose pattern is in the url (or function name, for V8's own entries) wins. */
const RULES: [RegExp, string][] = [
  [/^\(idle\)$/, 'idle'],
  [/^\(garbage collector\)$/, 'V8 garbage collector'],
  [/^\(program\)$/, 'V8/native (program)'],
  [/libp2p-noise|@noble\/ciphers|chacha|poly1305/, 'libp2p noise (encryption)'],
  [/libp2p-yamux|src\/net\/yamux-window/, 'libp2p yamux'],
  [/libp2p-gossipsub/, 'gossipsub'],
  [/xstate/, 'xstate'],
  [/secp256k1|@noble\/curves|@noble\/hashes|keccak|src\/crypto\//, 'crypto (sign, verify, hash)'],
  [/classic-level|abstract-level|level-transcoder|module-error|maybe-combine-errors/, 'LevelDB binding'],
  [/pino|sonic-boom|thread-stream/, 'logging (pino)'],
  [/fastify|avvio|find-my-way|light-my-request|@fastify|ajv/, 'fastify/API'],
  [/prom-client/, 'metrics (prom-client)'],
  [/\/(libp2p|@libp2p|@multiformats|multiformats|it-[a-z-]+|uint8arraylist|uint8arrays|p-queue|p-defer|race-signal|progress-events|main-event|@chainsafe\/is-ip|@chainsafe\/netmask|abortable-iterator|protons-runtime|weald|any-signal|eventemitter3)\//, 'libp2p (other)'],
  [/src\/net\//, 'p2p wiring (src/net)'],
  [/actors\/p2p\//, 'p2p actor'],
  [/src\/consensus\//, 'consensus core (src/consensus)'],
  [/machines\//, 'machines (definitions)'],
  [/actors\/consensus\//, 'consensus actor'],
  [/src\/chain\/|actors\/chain\//, 'chain (apply, commit, validate)'],
  [/src\/state\//, 'state'],
  [/src\/storage\//, 'storage (project)'],
  [/src\/codec\//, 'codec'],
  [/src\/indexer\/|actors\/indexer\//, 'indexer'],
  [/actors\/mempool\//, 'mempool'],
  [/actors\/oracle\/|src\/oracle\//, 'oracle'],
  [/src\/api\/|actors\/api\//, 'API'],
  [/actors\/|src\/node\//, 'actors, supervisor, node'],
  [/src\//, 'project (other)'],
  [/node:internal\/timers|node:timers/, 'node timers'],
  [/node:internal\/(net|stream_base|streams|child_process)|node:net|node:stream/, 'node net/streams'],
  [/node:internal\/process\/task_queues|node:internal\/async_hooks/, 'node microtasks/async'],
  [/node:|^internal\//, 'node (other builtins)'],
  [/node_modules/, 'other packages'],
];

/**
 * What a sample was for: the first of these its stack meets from the leaf up (node's own
 * builtins and frames without a script are passed over, so a socket write counts for the
 * network and a LevelDB call for storage).
 */
const SUBSYSTEMS: [RegExp, string][] = [
  [/^\(idle\)$/, 'idle'],
  [/^\(garbage collector\)$/, 'V8 garbage collector'],
  [/src\/crypto\/(vrf|vrf-reference|ed25519-sodium)\.ts/, 'VRF (prove, verify, proof to hash)'],
  [/secp256k1|src\/crypto\/|@noble\/hashes|keccak/, 'consensus signatures and hashes (ECDSA, keccak)'],
  [/src\/storage\/privval-file\.ts/, 'privval write (O_DSYNC)'],
  [/xstate|machines\//, 'xstate and the round machine'],
  [/libp2p|@chainsafe|@multiformats|multiformats|it-[a-z-]+\/|uint8arraylist|src\/net\/|actors\/p2p\/|node:net|node:internal\/(net|stream_base|streams)/, 'network: libp2p, noise, yamux, sockets, p2p actor'],
  [/src\/storage\/|classic-level|abstract-level|actors\/chain\/|src\/chain\/|src\/state\//, 'chain: build, validate, apply, store'],
  [/src\/consensus\/|actors\/consensus\//, 'consensus core and actor'],
  [/src\/indexer\/|actors\/indexer\//, 'indexer'],
  [/actors\/mempool\//, 'mempool'],
  [/actors\/oracle\/|src\/oracle\//, 'oracle'],
  [/pino|sonic-boom/, 'logging'],
  [/fastify|src\/api\/|actors\/api\//, 'API'],
  [/node:internal\/timers|node:timers/, 'timers'],
  [/actors\/|src\/node\//, 'actors (mailboxes, supervisor)'],
  [/^\(program\)$/, 'V8/native (program)'],
];

const subsystemOf = (stack: ProfileNode[]): string => {
  for (const n of stack) {
    const key = n.callFrame.url || n.callFrame.functionName;
    for (const [re, cat] of SUBSYSTEMS) if (re.test(key)) return cat;
  }
  return 'other';
};

const categoryOf = (url: string, fn: string): string | undefined => {
  const key = url || fn;
  if (!url && !/^\(.*\)$/.test(fn)) return undefined; // native: the caller decides
  for (const [re, cat] of RULES) if (re.test(key)) return cat;
  return 'unknown';
};

export interface ProfileBreakdown {
  sampledMs: number;
  busyMs: number;
  /** ms of CPU by leaf category (self), largest first. */
  self: Record<string, number>;
  /** ms of CPU with the category anywhere on the stack. */
  onStack: Record<string, number>;
  /** ms of CPU by subsystem (the first one met from the leaf up; see SUBSYSTEMS). */
  bySubsystem: Record<string, number>;
  /** the heaviest functions by self time: "name (file:line)" → ms. */
  topFunctions: Record<string, number>;
}

/** A bundle's module openings: the 0-based line of each `// path` comment esbuild writes, with the path. */
function bundleModules(url: string): { lines: number[]; paths: string[] } | null {
  if (!/\.mjs$/.test(url) || !url.startsWith('file://')) return null;
  let text: string;
  try {
    text = readFileSync(new URL(url), 'utf8');
  } catch {
    return null;
  }
  const lines: number[] = [];
  const paths: string[] = [];
  text.split('\n').forEach((line, i) => {
    const m = /^\/\/ ((?:src|actors|machines|node_modules)\/\S+)$/.exec(line);
    if (m) {
      lines.push(i);
      paths.push(m[1]);
    }
  });
  return lines.length ? { lines, paths } : null;
}

/** Renames the frames of a bundle after the module each line belongs to (binary search over its openings). */
function unbundle(p: Profile): void {
  const bundles = new Map<string, ReturnType<typeof bundleModules>>();
  for (const n of p.nodes) {
    const { url, lineNumber } = n.callFrame;
    if (!url) continue;
    if (!bundles.has(url)) bundles.set(url, bundleModules(url));
    const b = bundles.get(url);
    if (!b) continue;
    let lo = 0;
    let hi = b.lines.length - 1;
    if (lineNumber < b.lines[0]) continue;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (b.lines[mid] <= lineNumber) lo = mid;
      else hi = mid - 1;
    }
    n.callFrame.url = `bundle:/${b.paths[lo]}`;
  }
}

/** The breakdown of `file` between `fromUs` and `toUs` (the profile's clock, CLOCK_MONOTONIC µs). */
export function profileBreakdown(file: string, fromUs = -Infinity, toUs = Infinity, topN = 30, bySampleCount = false): ProfileBreakdown {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  // On a machine with more runnable threads than cores a sample's delta also holds the
  // time its thread waited for a core (the profiler's signal is handled when it runs
  // again): `bySampleCount` weighs every sample by the median delta instead, which
  // counts running time, not waiting.
  const nominalUs = bySampleCount ? [...p.timeDeltas].sort((a, b) => a - b)[p.timeDeltas.length >> 1] : 0;
  unbundle(p);
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) byId.set(n.id, n);
  for (const n of p.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const leafCat = new Map<number, string>();
  const stackCats = new Map<number, Set<string>>();
  const catOfNode = (id: number): string => {
    const hit = leafCat.get(id);
    if (hit) return hit;
    let cur: ProfileNode | undefined = byId.get(id);
    let cat: string | undefined;
    while (cur && cat === undefined) {
      cat = categoryOf(cur.callFrame.url, cur.callFrame.functionName);
      cur = cur.parent !== undefined ? byId.get(cur.parent) : undefined;
    }
    cat ??= 'V8/native (program)';
    leafCat.set(id, cat);
    return cat;
  };
  const stackOf = (id: number): Set<string> => {
    const hit = stackCats.get(id);
    if (hit) return hit;
    const set = new Set<string>();
    for (let cur = byId.get(id); cur; cur = cur.parent !== undefined ? byId.get(cur.parent) : undefined) {
      const c = categoryOf(cur.callFrame.url, cur.callFrame.functionName);
      if (c) set.add(c);
    }
    set.add(catOfNode(id));
    stackCats.set(id, set);
    return set;
  };
  const self = new Map<string, number>();
  const onStack = new Map<string, number>();
  const fns = new Map<string, number>();
  const subsystems = new Map<string, number>();
  const subsystemCache = new Map<number, string>();
  const subsystemOfNode = (id: number): string => {
    let hit = subsystemCache.get(id);
    if (hit === undefined) {
      const stack: ProfileNode[] = [];
      for (let cur = byId.get(id); cur; cur = cur.parent !== undefined ? byId.get(cur.parent) : undefined) stack.push(cur);
      hit = subsystemOf(stack);
      subsystemCache.set(id, hit);
    }
    return hit;
  };
  let t = p.startTime;
  let sampledUs = 0;
  let busyUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    // A sample stands for the time until the next one.
    const next = i + 1 < p.timeDeltas.length ? p.timeDeltas[i + 1] : 0;
    const dt = bySampleCount && next > 0 ? nominalUs : next;
    if (t < fromUs || t > toUs || dt <= 0) continue;
    const id = p.samples[i];
    const cat = catOfNode(id);
    sampledUs += dt;
    if (cat === 'idle') continue;
    busyUs += dt;
    self.set(cat, (self.get(cat) ?? 0) + dt);
    const sub = subsystemOfNode(id);
    subsystems.set(sub, (subsystems.get(sub) ?? 0) + dt);
    for (const c of stackOf(id)) onStack.set(c, (onStack.get(c) ?? 0) + dt);
    const f = byId.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'} (${f.url.replace(/^.*\/(node_modules|wt\/[^/]+)\//, '')}:${f.lineNumber + 1})`;
    fns.set(name, (fns.get(name) ?? 0) + dt);
  }
  const sorted = (m: Map<string, number>, n = Infinity) =>
    Object.fromEntries([...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, +(v / 1000).toFixed(1)]));
  return { sampledMs: +(sampledUs / 1000).toFixed(1), busyMs: +(busyUs / 1000).toFixed(1), bySubsystem: sorted(subsystems), self: sorted(self), onStack: sorted(onStack), topFunctions: sorted(fns, topN) };
}

/** The same breakdown in µs per block. */
export function perBlock(b: ProfileBreakdown, blocks: number): Record<string, unknown> {
  const per = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round((v * 1000) / blocks)]));
  const share = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, `${((v / b.busyMs) * 100).toFixed(1)}%`]));
  return { busyUsPerBlock: Math.round((b.busyMs * 1000) / blocks), bySubsystemShare: share(b.bySubsystem), selfUsPerBlock: per(b.self), onStackUsPerBlock: per(b.onStack), topFunctionsUsPerBlock: per(b.topFunctions) };
}

if (process.argv[1]?.endsWith('cpu-profile.ts')) {
  const [file, from, to, blocks] = process.argv.slice(2);
  const b = profileBreakdown(file, from ? Number(from) : -Infinity, to ? Number(to) : Infinity);
  console.log(JSON.stringify(blocks ? perBlock(b, Number(blocks)) : b, null, 2));
}
