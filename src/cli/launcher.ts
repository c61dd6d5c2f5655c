/**
 * The local network: `npm start` runs one process per validator on this machine, each
 * with its own data folder, REST port, session port and libp2p port, connected to the
 * others over TCP on loopback. This process supervises them: it prints one READY line
 * when every validator is serving, restarts a validator that dies (with backoff; not one
 * that stopped for a software upgrade, exit code 3), and on
 * Ctrl-C (SIGINT) or SIGTERM stops them all cleanly before it exits.
 *
 * Ports of validator i (1-based): REST/JSON-RPC port + i − 1 (8545 is validator 1),
 * session API session-port + 10(i − 1), libp2p p2p-port + 10(i − 1) (9000, 9010, …).
 * Each validator's output goes to <data>/validator-<i>/node.log; a log that cannot be
 * written (a full disk) is said once on stderr and skipped until it can (child-log.ts):
 * it never stops this process or the other validators.
 *
 * Each validator runs what this process runs, with the same Node flags: the single-file
 * build (`npm start` runs dist/exchange-node.mjs, decision 104), or the source tree through
 * tsx when this process was started so (tests, development).
 *
 * Beside them, in this process, once they serve, it runs the validator onboarding service
 * (decisions 75, 78, 79; src/onboarding/service.ts) on 127.0.0.1:--onboarding-port
 * (8080), over <data>/onboarding, serving the network's genesis (the file, or the trimmed
 * devnet's canonical JSON when --validators trims it), the binary of `npm run build`
 * (built first when the default file is absent) and a boot bundle naming the validators'
 * p2p addresses and validator 1's API, and registering through validator 1. The READY
 * line names its URL (`onboarding=…`, `none` when off); a service that cannot start (port
 * taken, say) is reported on stderr and the network runs without it; --no-onboarding
 * leaves it off.
 *
 * With --with-bridge (decision 86, bridge-devnet.ts), before any validator starts, it runs
 * the bridge's external chain (a hardhat node with interval mining on 127.0.0.1:
 * --bridge-port, 8645), deploys the bridge bound to the running genesis, writes
 * <data>/bridge.json and gives every validator `--bridge <data>/bridge.json`; the READY
 * line adds `bridgeRpc=… bridge=…`. The hardhat node stops with the network; one that
 * dies under it stops the network (exit 1): a new one would be a different chain.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../genesis/canonical';
import { genesisHashHex, loadGenesisFile, parseGenesis } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { bootBundleSource, onboardingArtifacts } from '../onboarding/cli';
import { startOnboardingService, type OnboardingService } from '../onboarding/service';
import { peerIdOfPublicKey } from '../net/libp2p';
import { bytesToHex, hexToBytes, utf8 } from '../util/bytes';
import { genesisParams } from '../state/genesis';
import { createLogger } from '../util/log';
import { EXIT_UPGRADE_REQUIRED } from './node-run';
import { bridgeDevnetLine, startBridgeDevnet, type BridgeDevnet } from './bridge-devnet';
import { ChildLog } from './child-log';

/** `--onboarding-binary`'s default: `npm run build`'s output, built when absent. */
export const ONBOARDING_BINARY_DEFAULT = 'dist/exchange-node.mjs';

declare const __EXCHANGE_NODE_VERSION__: string | undefined;
/**
 * The file this process runs when it is the single-file build (binary.ts defines the
 * version in it, and import.meta.url is the bundle's), else undefined: the source tree.
 */
const RUNNING_BUILD: string | undefined = typeof __EXCHANGE_NODE_VERSION__ === 'string' ? fileURLToPath(import.meta.url) : undefined;

const RESTART_BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000];

/** libp2p configuration of validator `index`: listen on its port, bootstrap from the others' endpoints. */
export async function p2pConfig(
  genesis: Genesis,
  index: number,
  host: string,
  port: number | undefined,
  bootstrap: string | undefined,
): Promise<{ listen: string[]; bootstrap: string[] }> {
  const own = genesis.validators[index - 1];
  const listenPort = port ?? Number(own?.endpoint.split(':')[1] ?? 0);
  const peers =
    bootstrap !== undefined
      ? bootstrap.split(',').filter(Boolean)
      : (await endpoints(genesis, genesis.validators.map((v) => Number(v.endpoint.split(':')[1])))).filter((_, i) => i !== index - 1);
  return { listen: [`/ip4/${host}/tcp/${listenPort}`], bootstrap: peers };
}

/** The bootstrap multiaddr of each validator, from its endpoint and key. */
async function endpoints(genesis: Genesis, ports: number[]): Promise<string[]> {
  return Promise.all(
    genesis.validators.map(async (v, i) => {
      const host = v.endpoint.split(':')[0];
      return `/ip4/${host}/tcp/${ports[i]}/p2p/${await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey))}`;
    }),
  );
}

/**
 * A port free now, for a child process to bind later. It is drawn below the kernel's
 * ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by
 * default): a port the kernel handed out for `listen(0)` could be taken, between our
 * check and the child's bind, as the source port of any outgoing connection on the
 * machine (seen: a validator's API port taken so, EADDRINUSE, in a full test run).
 * A port this process handed out already is never handed out again: calls made together
 * (a network's twelve ports drawn at once) would otherwise both find a drawn port free,
 * since nothing binds it before the children start (seen: two validators given the same
 * port, EADDRINUSE, in a full test run). Falls back to the kernel's choice where the
 * range cannot be read.
 */
export async function freePort(): Promise<number> {
  const ephemeralLow = ephemeralRangeLow();
  if (ephemeralLow !== undefined && ephemeralLow > FREE_PORT_LOW + 1_000) {
    for (let attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
      const port = FREE_PORT_LOW + Math.floor(Math.random() * (ephemeralLow - FREE_PORT_LOW));
      if (portsGiven.has(port)) continue;
      portsGiven.add(port);
      if (await canListen(port)) return port;
    }
  }
  for (;;) {
    const port = await listenOnce(0);
    if (!portsGiven.has(port)) {
      portsGiven.add(port);
      return port;
    }
  }
}

/** Every port freePort handed out in this process (a few per network started: small). */
const portsGiven = new Set<number>();

/** Lowest port freePort draws from (above the well-known and most registered services' ports). */
const FREE_PORT_LOW = 20_000;
/** Ports tried below the ephemeral range before freePort lets the kernel choose. */
const FREE_PORT_ATTEMPTS = 50;

function ephemeralRangeLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

async function canListen(port: number): Promise<boolean> {
  try {
    await listenOnce(port);
    return true;
  } catch {
    return false;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => res(bound));
    });
  });
}

interface Child {
  index: number;
  args: string[];
  proc?: ChildProcess;
  log: ChildLog;
  ready: boolean;
  api: string;
  restarts: number;
}

/**
 * The binary the onboarding service serves: the file given; when it is the default and
 * absent, the build this process runs, or (run from the source tree) the default built
 * with `npm run build`'s function. The build module is imported by a computed path so
 * that the single-file build itself does not bundle esbuild.
 */
async function ensureBinary(file: string, isDefault: boolean): Promise<string> {
  if (existsSync(file) || !isDefault) return file;
  if (RUNNING_BUILD) return RUNNING_BUILD;
  const buildModule = ['..', 'build', 'binary'].join('/');
  const { buildBinary } = (await import(buildModule)) as typeof import('../build/binary');
  const built = await buildBinary({ outFile: file });
  process.stdout.write(`built the node binary the onboarding service serves: ${built.file} (${built.bytes} bytes, sha256 ${built.sha256})\n`);
  return file;
}

/**
 * The onboarding service beside the local network, once its validators serve (its
 * register route submits to validator 1, its boot bundle names their p2p addresses), or
 * why it is not running (printed, not fatal).
 */
async function startOnboarding(p: {
  genesis: Genesis;
  genesisHash: Uint8Array;
  genesisFile: string;
  base: string;
  flags: Record<string, any>;
  nodeUrl: string;
  bootstrap: string[];
}): Promise<OnboardingService | undefined> {
  if (!p.flags.onboarding) return undefined;
  const hash = bytesToHex(p.genesisHash);
  try {
    const binary = await ensureBinary(resolve(p.flags['onboarding-binary']), p.flags['onboarding-binary'] === ONBOARDING_BINARY_DEFAULT);
    const artifacts = onboardingArtifacts(p.genesisFile, binary);
    // The genesis a joining validator needs is the one running: the file, unless --validators trimmed the devnet.
    if (genesisHashHex(loadGenesisFile(p.genesisFile)) !== hash) {
      artifacts.genesis = { name: `${p.genesis.network}-${p.genesis.validators.length}v.json`, bytes: utf8.encode(canonicalJson(parseGenesis(p.genesis))) };
    }
    const port: number = p.flags['onboarding-port'] === 0 ? await freePort() : p.flags['onboarding-port'];
    const binding = { network: p.genesis.network, chainId: p.genesis.chainId, genesisHash: hash };
    artifacts.boot_bundle = bootBundleSource({ ...binding, bootstrap: p.bootstrap, apiUrl: p.nodeUrl, onboardingUrl: `http://127.0.0.1:${port}` });
    return await startOnboardingService({
      dataDir: join(p.base, 'onboarding'),
      binding,
      log: createLogger({ level: p.flags['log-level'] ?? 'info', name: `onboarding-${p.genesis.network}` }),
      host: '127.0.0.1',
      port,
      artifacts,
      register: { chainId: p.genesis.chainId, params: genesisParams(p.genesis), blockTimeMs: p.genesis.consensus.blockTimeMs, nodeUrl: p.nodeUrl },
    });
  } catch (err) {
    process.stderr.write(`onboarding service not started: ${err instanceof Error ? err.message : String(err)} (--no-onboarding to leave it off)\n`);
    return undefined;
  }
}

export async function launchLocalNetwork(p: {
  argv: string[];
  genesis: Genesis;
  genesisHash: Uint8Array;
  /** The genesis file the network was read from (served by the onboarding service when untrimmed). */
  genesisFile: string;
  flags: Record<string, any>;
}): Promise<void> {
  const { genesis, flags } = p;
  const n = genesis.validators.length;
  const base = resolve(flags['data-dir'] ?? `data/${genesis.network}-${n}v`);
  const p2pBase: number | undefined = flags['p2p-port'];
  const p2pPorts =
    p2pBase === 0
      ? await Promise.all(genesis.validators.map(() => freePort()))
      : genesis.validators.map((v, i) => (p2pBase === undefined ? Number(v.endpoint.split(':')[1]) : p2pBase + 10 * i));
  const addrs = await endpoints(genesis, p2pPorts);
  // Flags the children get from us, not passed through.
  const own = new Set([
    'validator-index', 'data-dir', 'port', 'session-port', 'p2p-port', 'bootstrap', 'exit-with-parent', 'onboarding', 'no-onboarding', 'onboarding-port', 'onboarding-binary',
    'with-bridge', 'bridge-port', 'bridge-dispute-period-sec',
  ]);
  const passed: string[] = [];
  for (let i = 0; i < p.argv.length; i++) {
    const name = p.argv[i].slice(2).split('=')[0];
    const takesValue = !p.argv[i].includes('=') && i + 1 < p.argv.length && !p.argv[i + 1].startsWith('--');
    if (own.has(name)) {
      if (takesValue) i++;
      continue;
    }
    passed.push(p.argv[i]);
    if (takesValue) passed.push(p.argv[++i]);
  }
  // The external chain first: every validator starts with its deployment file.
  let bridge: BridgeDevnet | undefined;
  if (flags['with-bridge']) {
    if (flags.bridge !== undefined) throw new Error('--with-bridge deploys its own bridge and gives every validator its file: leave --bridge out');
    bridge = await startBridgeDevnet({
      genesis,
      base,
      port: flags['bridge-port'] === 0 ? await freePort() : flags['bridge-port'],
      disputePeriodSec: flags['bridge-dispute-period-sec'],
    });
    process.stdout.write(bridgeDevnetLine(bridge));
  }
  const children: Child[] = genesis.validators.map((_, i) => {
    const index = i + 1;
    const dir = join(base, `validator-${index}`);
    mkdirSync(dir, { recursive: true });
    const port = flags.port === 0 ? 0 : flags.port + i;
    const session = flags['session-port'] === 0 ? 0 : flags['session-port'] + 10 * i;
    const args = [
      ...passed,
      '--validator-index', String(index),
      '--data-dir', dir,
      '--port', String(port),
      '--session-port', String(session),
      '--p2p-port', String(p2pPorts[i]),
      '--bootstrap', addrs.filter((_, j) => j !== i).join(','),
      '--exit-with-parent',
      ...(bridge ? ['--bridge', bridge.file] : []),
    ];
    return { index, args, log: new ChildLog(join(dir, 'node.log'), `validator ${index}`, (line) => process.stderr.write(`${line}\n`)), ready: false, api: '', restarts: 0 };
  });

  mkdirSync(base, { recursive: true });
  let onboarding: OnboardingService | undefined;

  let stopping = false;
  let announcing = false;
  let announced = false;
  const announce = async () => {
    if (announcing || !children.every((c) => c.ready)) return;
    announcing = true;
    onboarding = await startOnboarding({ genesis, genesisHash: p.genesisHash, genesisFile: p.genesisFile, base, flags, nodeUrl: children[0].api, bootstrap: addrs });
    if (stopping) return void (await onboarding?.close().catch(() => undefined));
    announced = true;
    process.stdout.write(
      `READY ${genesis.network} chainId=${genesis.chainId} genesis=${bytesToHex(p.genesisHash)} validators=${n} ` +
        `api=${children[0].api} nodes=${children.map((c) => c.api).join(',')} onboarding=${onboarding?.address ?? 'none'} data=${base}` +
        (bridge ? ` bridgeRpc=${bridge.chain.rpcUrl} bridge=${bridge.deployment.bridge}` : '') +
        '\n',
    );
  };

  const spawnChild = (c: Child) => {
    const proc = spawn(process.execPath, [...process.execArgv, RUNNING_BUILD ?? process.argv[1], 'start', ...c.args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    c.proc = proc;
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      c.log.write(d);
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^READY .* api=(\S+)/.exec(line);
        if (m) {
          c.ready = true;
          c.api = m[1];
          if (announced) process.stdout.write(`validator ${c.index} is back: ${c.api}\n`);
          void announce();
        }
      }
    });
    proc.stderr!.on('data', (d: Buffer) => c.log.write(d));
    proc.on('exit', (code, signal) => {
      c.ready = false;
      c.proc = undefined;
      if (stopping) return;
      if (code === EXIT_UPGRADE_REQUIRED) {
        // Restarting the same build would only stop again: the version to install is in its log.
        process.stderr.write(`validator ${c.index} stopped for a software upgrade; not restarted (the version to install: ${c.log.path})\n`);
        return;
      }
      const wait = RESTART_BACKOFF_MS[Math.min(c.restarts, RESTART_BACKOFF_MS.length - 1)];
      c.restarts++;
      process.stderr.write(`validator ${c.index} exited (${signal ?? `code ${code}`}); restarting in ${wait} ms (log: ${c.log.path})\n`);
      setTimeout(() => !stopping && spawnChild(c), wait);
    });
  };

  for (const c of children) spawnChild(c);
  process.stdout.write(`starting ${n} validators of ${genesis.network} (chain ${genesis.chainId}); logs in ${base}/validator-<i>/node.log\n`);

  const stopAll = async (signal: NodeJS.Signals, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`stopping ${n} validators…\n`);
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((res) => {
            const proc = c.proc;
            if (!proc || proc.exitCode !== null) return res();
            proc.once('exit', () => res());
            proc.kill(signal === 'SIGINT' ? 'SIGTERM' : signal);
            // A validator that does not stop in time is killed: its fsynced state is safe.
            setTimeout(() => proc.exitCode === null && proc.kill('SIGKILL'), 15_000).unref();
          }),
      ),
    );
    for (const c of children) c.log.end();
    await onboarding?.close().catch((err: unknown) => process.stderr.write(`onboarding service: ${err instanceof Error ? err.message : String(err)}\n`));
    await bridge?.chain.stop();
    process.stdout.write('stopped\n');
    process.exit(exitCode);
  };
  // The devchain is in memory: one that dies cannot be replaced under a running chain (decision 86).
  bridge?.chain.proc.once('exit', (code, sig) => {
    if (stopping) return;
    process.stderr.write(`the bridge devchain exited (${sig ?? `code ${code}`}); stopping the network (its chain is gone: start afresh, see docs/bridge.md)\n`);
    void stopAll('SIGTERM', 1);
  });
  process.on('SIGINT', () => void stopAll('SIGINT'));
  process.on('SIGTERM', () => void stopAll('SIGTERM'));
}
