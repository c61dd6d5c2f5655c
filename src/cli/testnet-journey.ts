/**
 * The onboarding journey of one host of `npm run testnet` (testnet.ts), as a new operator
 * on a machine of their own goes through it (docs/onboarding.md): make a key; apply to the
 * onboarding service with it (`validator apply`); the network's operator approves on the
 * service's machine (`operator approve`, which sends ApproveValidator to the chain) and
 * hands over the one-time token; download the binary, the genesis and the boot bundle with
 * it, each checked against the published sha256; unpack the bundle, bind the key
 * (keygen.sh) and start the node with start.sh, which knows one bootstrap address, the
 * one the service put in the bundle; once funded and synced, register with a bond through
 * the service (`validator register --onboarding`); active from the next epoch boundary.
 * Every command but the downloads runs in the host's namespace; the downloads go over
 * the same bridge from this machine's namespace, as a browser beside the host would.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getData, launch, run, runJson, until, waitReady, type Host } from './testnet-hosts';

const WEI_PER_TOKEN = 10n ** 18n;
/** Native tokens a joiner gets beyond its bond: its transactions' gas. */
const GAS_TOKENS = 10n;

export interface JourneyContext {
  /** Node 22 and the single-file build: `[node, exchange-node.mjs]`. */
  node: string[];
  genesisFile: string;
  /** The onboarding service as the hosts reach it, and its namespace (the operator's CLI answers loopback only). */
  onboardingUrl: string;
  onboardingNs: string;
  operatorKeyFile: string;
  /** The funding account's key and a node's JSON-RPC URL to send its transfer to. */
  funder: Hex;
  rpcUrl: string;
  chainId: number;
  gasPriceWei: bigint;
  bondTokens: bigint;
  /** The environment of every built node (its addon cache). */
  env: NodeJS.ProcessEnv;
  say: (line: string) => void;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function download(url: string, what: string): Promise<Uint8Array> {
  const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  if (res.status !== 200) throw new Error(`download ${what}: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Sends `tokens` native tokens from the funding account to `to` and waits until the transfer is final (POST /tx answers once final). */
async function fund(c: JourneyContext, to: string, tokens: bigint): Promise<void> {
  const chain = defineChain({ id: c.chainId, name: 'testnet', nativeCurrency: { name: 'EXC', symbol: 'EXC', decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } });
  const wallet = createWalletClient({ account: privateKeyToAccount(c.funder), chain, transport: http(c.rpcUrl, { timeout: 60_000 }) });
  await wallet.sendTransaction({ to: to as `0x${string}`, value: tokens * WEI_PER_TOKEN, type: 'legacy', gasPrice: c.gasPriceWei });
}

/**
 * Takes `host` (its namespace made, on the bridge; `host.home` the folder to work in)
 * through the journey up to a running node; resolves once the node runs and its
 * registration is sent. `waitActive` then waits for the active set.
 */
export async function onboard(c: JourneyContext, host: Host): Promise<void> {
  const say = (line: string) => c.say(`host ${host.name}: ${line}`);
  const work = host.home;
  mkdirSync(work, { recursive: true });
  const candidateHome = join(work, 'candidate-home');
  const made = await runJson(host.ns, [...c.node, 'init', '--home', candidateHome, '--network', c.genesisFile], `host ${host.name} init`, { env: c.env });
  host.address = made.address;
  const endpoint = `${host.ip}:9000`;
  const name = `host-${host.name}`;
  await runJson(
    host.ns,
    [...c.node, 'validator', 'apply', '--home', candidateHome, '--onboarding', c.onboardingUrl, '--name', name, '--endpoint', endpoint, '--email', `ops@${name}.testnet.example`],
    `host ${host.name} validator apply`,
    { env: c.env },
  );
  say(`applied as ${host.address}`);
  const approved = await runJson(
    c.onboardingNs,
    [...c.node, 'operator', 'approve', host.address, '--key', c.operatorKeyFile, '--url', 'http://127.0.0.1:8080'],
    `the operator's approval of host ${host.name}`,
    { env: c.env },
  );
  say('approved by the operator; downloading with the one-time token');

  const sums = (await getData(`${c.onboardingUrl}/api/validators/checksums`)) as Record<string, { sha256: string }> | undefined;
  if (sums === undefined) throw new Error(`the onboarding service at ${c.onboardingUrl} did not answer GET /api/validators/checksums`);
  const files: Record<string, Uint8Array> = {};
  for (const [kind, path] of [['binary', 'binary'], ['genesis', 'genesis'], ['boot_bundle', 'boot-bundle']] as const) {
    files[kind] = await download(`${c.onboardingUrl}/api/validators/download/${path}?token=${approved.token}`, kind);
    if (sha256(files[kind]) !== sums[kind]?.sha256) throw new Error(`host ${host.name}: the downloaded ${kind} has sha256 ${sha256(files[kind])}, the service publishes ${sums[kind]?.sha256}`);
  }
  writeFileSync(join(work, 'boot.tar.gz'), files.boot_bundle);
  const untar = await run(undefined, ['tar', '-xzf', join(work, 'boot.tar.gz'), '-C', work]);
  if (untar.code !== 0) throw new Error(`host ${host.name}: unpacking the boot bundle: ${untar.stderr.trim()}`);
  const network = JSON.parse(readFileSync(c.genesisFile, 'utf8')).network as string;
  const app = join(work, `exchange-${network}`);
  writeFileSync(join(app, 'exchange-node.mjs'), files.binary);
  writeFileSync(join(app, 'genesis.json'), files.genesis);
  cpSync(candidateHome, join(app, 'home'), { recursive: true });
  host.home = join(app, 'home');
  const env = { ...c.env, NODE: c.node[0], EXCHANGE_P2P_HOST: host.ip };
  const keygen = await runJson(host.ns, ['sh', 'keygen.sh'], `host ${host.name} keygen.sh`, { cwd: app, env });
  if (keygen.address !== host.address) throw new Error(`host ${host.name}: keygen.sh bound ${keygen.address}, not the applicant ${host.address}`);
  // start.sh with the bundle's one bootstrap address; the API on the host's addresses so this machine can read it.
  host.pid = launch(host.ns, ['sh', 'start.sh', '--host', '0.0.0.0', '--log-level', 'warn'], host.log, { cwd: app, env });
  const ready = await waitReady(host.pid, host.log, /READY .* p2p=(\S+)/, `host ${host.name}'s node (start.sh)`);
  host.p2p = ready[1].split(',').find((a) => a.includes(`/${host.ip}/`)) ?? ready[1].split(',')[0];
  say('its node runs (start.sh); funding its bond');

  await fund(c, host.address, c.bondTokens + GAS_TOKENS);
  let lastRefusal = '';
  const registered = await until(
    async () => {
      const r = await run(
        host.ns,
        [...c.node, 'validator', 'register', '--home', host.home, '--onboarding', c.onboardingUrl, '--bond', String(c.bondTokens), '--name', name, '--endpoint', endpoint],
        { env: c.env },
      );
      if (r.code === 0) return JSON.parse(r.stdout.trim().split('\n').pop()!);
      // The service registers a synced node only: wait while the node catches up.
      if (/NOT_SYNCED/.test(r.stderr)) {
        lastRefusal = r.stderr.trim().split('\n').pop() ?? '';
        return undefined;
      }
      throw new Error(`host ${host.name} validator register: ${r.stderr.trim()}`);
    },
    120_000,
    `host ${host.name}'s registration (its node synced to the head)`,
    1_000,
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; the service's last answer: ${lastRefusal || 'none'}`);
  });
  say(`registered at height ${registered.height} with a bond of ${c.bondTokens} tokens`);
}

/** Waits until `address` is in the active set, as node `api` reports it. */
export async function waitActive(api: string, address: string, timeoutMs: number): Promise<void> {
  await until(
    async () => {
      const data = await getData(`${api}/v1/validators`);
      const list = (data?.validators ?? data) as { address: string; status: string }[] | undefined;
      return list?.find((v) => v.address === address)?.status === 'active' ? true : undefined;
    },
    timeoutMs,
    `${address} active`,
  );
}
