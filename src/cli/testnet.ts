/**
 * `npm run testnet -- up --hosts N [--observers K] | status | stop HOST | down` (root): a
 * test network laid across hosts the way separate machines would carry it, each node in
 * its own Linux network namespace with its own address (testnet-netns.ts), on this one
 * machine. `up`:
 *   1. makes the bridge and a namespace per host: hosts 1 … N at <base>.0.1 … N, observer
 *      o1 on the bridge at <base>.0.101, and each further observer reachable over a link
 *      to the observer before it only (plus a management link for this machine to read
 *      its API);
 *   2. makes four validators' keys (`init`), the operator's key (`operator keygen`), and
 *      the genesis with `genesis new` (the validators at <host>:9000, the operator, a
 *      funded account for the joiners' bonds, short epochs), and binds each key (`bind`);
 *   3. starts the four validators (`start --home`, each in its namespace, bootstrapped
 *      from the other three) and the onboarding service on host 1 (its boot bundle
 *      naming ONE bootstrap address, validator 1's);
 *   4. starts the observers (observer 1 bootstrapped from validator 2, each next one from
 *      the observer before it), and takes hosts 5 … N through the onboarding journey
 *      (testnet-journey.ts) to the active set;
 *   5. prints one JSON line: the hosts (name, role, namespace, address, api, p2p), the
 *      genesis and the onboarding service, and leaves everything running.
 * Every node listens on the same ports as on a machine of its own (libp2p 9000, session
 * 9001, REST/JSON-RPC 8545; the onboarding service 8080 on host 1). `status` prints each
 * host's height; `stop HOST` stops one host's node; `down` stops every process in the
 * namespaces and removes the namespaces, the veths, the bridge and the folder; it is safe
 * to run twice. docs/operations.md "A network across machines" is the same on real hosts.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Hex } from 'viem';
import { parseFlags, usage, type FlagSpec } from './args';
import { onboard, waitActive, type JourneyContext } from './testnet-journey';
import { getData, launch, plan, readState, runJson, STATE_FILE, until, waitReady, writeState, type Host, type TestnetState } from './testnet-hosts';
import { addBridge, addNamespace, attachToBridge, bridgeAddress, linkHosts, managementLink, nsName, stopProcesses, teardown } from './testnet-netns';

const ROOT = resolve(import.meta.dirname, '..', '..');
const VALIDATORS = 4;
/** Native tokens the joiners' funding account holds at genesis: bonds of up to twenty joiners. */
const FUNDER_TOKENS = 25_000_000n;

const FLAGS = {
  hosts: { type: 'int', default: 6, help: 'hosts on the bridge: four genesis validators, the rest join through onboarding (at least 4, at most 99)' },
  observers: { type: 'int', default: 0, help: 'observer nodes: the first on the bridge, each next one reachable only through the one before it (at most 9)' },
  dir: { type: 'string', default: 'data/testnet-hosts', help: "the folder of the hosts' keys, data and logs (removed by down)" },
  prefix: { type: 'string', default: 'xtn', help: 'names the namespaces (<prefix>-<host>), the veths and the bridge (<prefix>-br): 1 to 6 of a-z 0-9' },
  base: { type: 'string', default: '10.77', help: 'the first two octets of the addresses: the bridge is <base>.0.0/24, this machine <base>.0.254' },
  'epoch-blocks': { type: 'int', default: 60, help: "the genesis's epoch length: a registered validator is active from the next boundary" },
  bond: { type: 'int', default: 1_000_000, help: "a joiner's bond, whole native tokens" },
  binary: { type: 'string', default: join(ROOT, 'dist/exchange-node.mjs'), help: 'the single-file build the hosts run and the onboarding service serves (npm run build)' },
} satisfies FlagSpec;

/** Set once `up` has made its folder: from then on a failure leaves something to remove. */
let folderMade = false;

const HELP = `usage: npm run testnet -- up [--hosts N] [--observers K] [flags] | status | stop HOST | down   (as root)
Lays a test network across hosts, each node in its own network namespace with its own address (docs/operations.md
"A network across machines"): four validators from genesis new, the others through the onboarding journey.
${usage(FLAGS)}
`;

function say(line: string): void {
  process.stderr.write(`testnet: ${line}\n`);
}

function checkPlan(f: Record<string, any>): void {
  if (!/^[a-z0-9]{1,6}$/.test(f.prefix)) throw new Error(`--prefix ${f.prefix}: 1 to 6 of a-z 0-9 (it names interfaces of at most 15 characters)`);
  const m = /^(\d{1,3})\.(\d{1,3})$/.exec(f.base);
  if (!m || Number(m[1]) > 255 || Number(m[2]) > 255) throw new Error(`--base ${f.base}: two octets, e.g. 10.77`);
  if (f.hosts < VALIDATORS || f.hosts > 99) throw new Error(`--hosts ${f.hosts}: ${VALIDATORS} to 99 (four validators, then joiners)`);
  if (f.observers > 9) throw new Error(`--observers ${f.observers}: at most 9`);
}

/** The peer id at the end of a multiaddr. */
const withPeer = (ip: string, peerId: string) => `/ip4/${ip}/tcp/9000/p2p/${peerId}`;

async function up(f: Record<string, any>): Promise<void> {
  checkPlan(f);
  if (process.getuid?.() !== 0) throw new Error('up makes network namespaces, veths and a bridge: run it as root');
  const binary = resolve(f.binary);
  if (!existsSync(binary)) throw new Error(`--binary ${binary}: no such file (npm run build makes it)`);
  const dir = resolve(f.dir);
  if (readState(dir) !== undefined) throw new Error(`${dir} holds a testnet already: npm run testnet -- down --dir ${f.dir} first`);
  if (existsSync(dir)) throw new Error(`--dir ${dir} exists: give a new folder (up makes it, down removes it)`);
  mkdirSync(dir, { recursive: true });
  folderMade = true;
  const state: TestnetState = { prefix: f.prefix, base: f.base, dir, hosts: [] };
  writeState(state); // first: down finds the folder by it
  const p = plan(state);
  const node = [process.execPath, binary];
  const env = { EXCHANGE_NODE_CACHE: join(dir, 'addon-cache') };

  // 1. The wires.
  addBridge(p);
  const bridged = (name: string, role: Host['role'], octet: number): Host => {
    addNamespace(p, name);
    const ip = attachToBridge(p, name, octet);
    const host: Host = { name, role, ns: nsName(p, name), ip, api: `http://${ip}:8545`, p2p: '', address: '', home: join(dir, `host-${name}`), log: join(dir, `host-${name}.log`) };
    state.hosts.push(host);
    return host;
  };
  const validators = Array.from({ length: VALIDATORS }, (_, i) => bridged(String(i + 1), 'validator', i + 1));
  const joiners = Array.from({ length: f.hosts - VALIDATORS }, (_, i) => bridged(String(VALIDATORS + i + 1), 'joiner', VALIDATORS + i + 1));
  const observers: Host[] = [];
  for (let k = 1; k <= f.observers; k++) {
    if (k === 1) {
      observers.push(bridged('o1', 'observer', 101));
      continue;
    }
    const name = `o${k}`;
    addNamespace(p, name);
    const link = linkHosts(p, `o${k - 1}`, name, 10 + k);
    const mgmt = managementLink(p, name, 30 + k);
    const host: Host = { name, role: 'observer', ns: nsName(p, name), ip: link.b, api: `http://${mgmt}:8545`, p2p: '', address: '', home: join(dir, `host-${name}`), log: join(dir, `host-${name}.log`) };
    state.hosts.push(host);
    observers.push(host);
  }
  writeState(state);
  say(`namespaces ${state.hosts.map((h) => h.ns).join(', ')} on bridge ${p.prefix}-br (${bridgeAddress(p, 0)}/24)`);

  // 2. Keys and the genesis, as the four operators and the network's operator make them.
  const made = await Promise.all(validators.map((h) => runJson(undefined, [...node, 'init', '--home', h.home, '--network', 'testnet'], `host ${h.name} init`, { env })));
  validators.forEach((h, i) => (h.address = made[i].address));
  const operatorKey = join(dir, 'operator-key.json');
  const operator = await runJson(undefined, [...node, 'operator', 'keygen', '--out', operatorKey], 'operator keygen', { env });
  const genesisFile = join(dir, 'genesis.json');
  const built = await runJson(
    undefined,
    [
      ...node, 'genesis', 'new',
      ...validators.flatMap((h) => ['--validator', `${join(h.home, 'node-key.json')},name=host-${h.name},endpoint=${h.ip}:9000`]),
      '--operator', operator.address,
      '--accounts', `${operator.address}=${FUNDER_TOKENS}`,
      '--epoch-length-blocks', String(f['epoch-blocks']),
      '--out', genesisFile,
    ],
    'genesis new',
    { env },
  );
  validators.forEach((h, i) => (h.p2p = built.bootstrap[i]));
  await Promise.all(validators.map((h) => runJson(undefined, [...node, 'bind', '--home', h.home, '--network', genesisFile], `host ${h.name} bind`, { env })));
  state.genesis = genesisFile;
  state.operatorKey = operatorKey;
  writeState(state);
  say(`genesis ${built.genesis_hash} (chain ${built.chain_id}): validators ${validators.map((h) => h.address).join(', ')}`);

  // 3. The validators, each from its key file in its namespace, and the onboarding service on host 1.
  for (const h of validators) {
    const peers = validators.filter((o) => o !== h).map((o) => o.p2p);
    h.pid = launch(h.ns, [...node, 'start', '--home', h.home, '--network', genesisFile, '--bootstrap', peers.join(','), '--host', '0.0.0.0', '--p2p-host', h.ip, '--log-level', 'warn'], h.log, { env });
  }
  writeState(state);
  await Promise.all(validators.map((h) => waitReady(h.pid!, h.log, /READY /, `validator ${h.name}`)));
  await until(async () => ((await getData(`${validators[0].api}/status`))?.height >= 3 ? true : undefined), 90_000, 'the first blocks');
  say('four validators sign blocks');
  const served = join(dir, 'onboarding', 'exchange-node.mjs');
  mkdirSync(join(dir, 'onboarding'), { recursive: true });
  copyFileSync(binary, served);
  const onboardingUrl = `http://${validators[0].ip}:8080`;
  const onboardingLog = join(dir, 'onboarding.log');
  const onboardingPid = launch(
    validators[0].ns,
    [
      ...node, 'onboarding',
      '--network', genesisFile,
      '--data-dir', join(dir, 'onboarding', 'data'),
      '--host', '0.0.0.0',
      '--port', '8080',
      '--public-url', onboardingUrl,
      '--binary', served,
      '--node', 'http://127.0.0.1:8545',
      '--bootstrap', validators[0].p2p,
      '--operator-key', operatorKey,
      '--log-level', 'warn',
    ],
    onboardingLog,
    { env },
  );
  state.onboarding = { url: onboardingUrl, pid: onboardingPid, log: onboardingLog };
  writeState(state);
  await waitReady(onboardingPid, onboardingLog, /READY onboarding/, 'the onboarding service');
  say(`onboarding service at ${onboardingUrl} (its boot bundle names one bootstrap address: ${validators[0].p2p})`);

  // 4. The observers, then the joiners through the journey, one after another (each funding transfer is from one account).
  const genesis = JSON.parse(readFileSync(genesisFile, 'utf8'));
  const operatorFile = JSON.parse(readFileSync(operatorKey, 'utf8')) as { privateKey: Hex };
  const ctx: JourneyContext = {
    node,
    genesisFile,
    onboardingUrl,
    onboardingNs: validators[0].ns,
    operatorKeyFile: operatorKey,
    funder: operatorFile.privateKey,
    rpcUrl: validators[1].api,
    chainId: genesis.chainId,
    gasPriceWei: BigInt(genesis.fees.gasPriceWei),
    bondTokens: BigInt(f.bond),
    env,
    say,
  };
  for (const [k, h] of observers.entries()) {
    const made = await runJson(undefined, [...node, 'init', '--home', h.home, '--network', genesisFile], `observer ${h.name} init`, { env });
    h.address = made.address;
    const bootstrap = k === 0 ? validators[1].p2p : withPeer(h.ip.replace(/\.2$/, '.1'), observers[k - 1].p2p.split('/p2p/')[1]);
    // An observer relaying to the next listens on all its addresses (the bridge and the link).
    const p2pHost = k < observers.length - 1 ? '0.0.0.0' : h.ip;
    h.pid = launch(h.ns, [...node, 'start', '--home', h.home, '--network', genesisFile, '--bootstrap', bootstrap, '--host', '0.0.0.0', '--p2p-host', p2pHost, '--log-level', 'warn'], h.log, { env });
    writeState(state);
    const ready = await waitReady(h.pid, h.log, /READY .* p2p=(\S+)/, `observer ${h.name}`);
    const peerId = ready[1].split('/p2p/')[1]?.split(',')[0];
    h.p2p = withPeer(h.ip, peerId);
    say(`observer ${h.name} started, bootstrapped from ${bootstrap}`);
  }
  for (const h of joiners) {
    try {
      await onboard(ctx, h);
    } finally {
      writeState(state); // its node's pid too when a later step failed: status and the logs still show it
    }
  }
  for (const h of joiners) {
    await waitActive(validators[1].api, h.address, 180_000);
    say(`host ${h.name} (${h.address}) is an active validator`);
  }
  process.stdout.write(
    `${JSON.stringify({
      dir,
      genesis: genesisFile,
      genesis_hash: built.genesis_hash,
      onboarding: onboardingUrl,
      hosts: state.hosts.map((h) => ({ name: h.name, role: h.role, ns: h.ns, ip: h.ip, address: h.address, api: h.api, p2p: h.p2p, pid: h.pid, log: h.log })),
    })}\n`,
  );
}

async function status(f: Record<string, any>): Promise<void> {
  const state = readState(resolve(f.dir));
  if (state === undefined) throw new Error(`no testnet in ${resolve(f.dir)} (npm run testnet -- up)`);
  const rows = await Promise.all(
    state.hosts.map(async (h) => {
      const s = await getData(`${h.api}/status`);
      return { name: h.name, role: h.role, ns: h.ns, api: h.api, height: s?.height ?? null, validator: s?.validator ?? null };
    }),
  );
  process.stdout.write(`${JSON.stringify({ hosts: rows })}\n`);
}

async function stop(name: string | undefined, f: Record<string, any>): Promise<void> {
  const state = readState(resolve(f.dir));
  if (state === undefined) throw new Error(`no testnet in ${resolve(f.dir)}`);
  const host = state.hosts.find((h) => h.name === name);
  if (host?.pid === undefined) throw new Error(`stop HOST: one of ${state.hosts.map((h) => h.name).join(', ')}, got ${name}`);
  await stopProcesses([host.pid]);
  process.stdout.write(`${JSON.stringify({ stopped: host.name, pid: host.pid })}\n`);
}

async function down(f: Record<string, any>): Promise<void> {
  const dir = resolve(f.dir);
  const state = readState(dir);
  // The prefix the folder's testnet was made with; without a folder, the flags' (a run whose folder is gone).
  const p = plan(state ?? { prefix: f.prefix, base: f.base });
  if (process.getuid?.() !== 0) throw new Error('down removes network namespaces, veths and a bridge: run it as root');
  const removed = await teardown(p);
  // Only a folder up made (it holds the state file) is removed.
  if (existsSync(join(dir, STATE_FILE))) rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ down: p.prefix, processes: removed.processes, namespaces: removed.namespaces, links: removed.links, dir: state ? dir : null })}\n`);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === '--help' || command === '-h' || rest.includes('--help')) {
    process.stdout.write(HELP);
    return;
  }
  const host = command === 'stop' && rest[0] !== undefined && !rest[0].startsWith('--') ? rest.shift() : undefined;
  const f = parseFlags(rest, FLAGS);
  if (command === 'up') return up(f);
  if (command === 'status') return status(f);
  if (command === 'stop') return stop(host, f);
  if (command === 'down') return down(f);
  throw new Error(`unknown command ${command}\n${HELP}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`testnet: error: ${err instanceof Error ? err.message : String(err)}\n`);
  if (folderMade) process.stderr.write('testnet: what was made stays for inspection; npm run testnet -- down removes it\n');
  process.exit(1);
});
