/**
 * The boot bundle of the onboarding service (contract [C-onboard-download],
 * [C-onboard-token]; decision 79): a tar.gz an approved applicant downloads beside the
 * node binary (`exchange-node.mjs`, the single-file build) and the network's genesis file,
 * and unpacks into one folder with them. It holds:
 *
 *   exchange-<network>/network.env  the network (name, chain id, genesis hash), the sha256
 *                                   of the binary and of genesis.json, the bootstrap peers'
 *                                   multiaddrs, the network's API URL, the onboarding URL,
 *                                   and the node's port defaults (overridable from the
 *                                   environment; the checksums are not)
 *   exchange-<network>/keygen.sh    verifies both files, then `init --home ./home` (or `bind`
 *                                   when a key is there): prints the public values to register
 *   exchange-<network>/start.sh     verifies both files and Node >= 22, then starts an
 *                                   observer: `start --home ./home --network ./genesis.json
 *                                   --bootstrap … --port … --p2p-port …`
 *   exchange-<network>/price-sources.template.json  the price sources a validator's oracle
 *                                   may read for the network's markets (decision 170)
 *   exchange-<network>/README.md
 *
 * The scripts are plain POSIX sh (`set -eu`, sha256sum): a file whose sha256 differs from
 * network.env's is refused with a message saying which and exit status 1, before anything
 * runs it. The archive is deterministic (src/onboarding/tar.ts): the same options give the
 * same bytes, so the sha256 published at GET /api/validators/checksums is stable. Pure but
 * for the zlib call: no files, no network.
 */
import { PRICE_SOURCES_TEMPLATE_NAME, priceSourcesTemplate } from '../oracle/feeds/template';
import { tarGz, type TarEntry } from './tar';

export interface BootPorts {
  /** REST/JSON-RPC (loopback). */
  api: number;
  /** Session and agent API (loopback). */
  session: number;
  /** libp2p: the endpoint the validator registers is this port on its public host. */
  p2p: number;
}

/** The node's own defaults ([D-ports]; src/cli/start-home.ts). */
export const BOOT_PORTS_DEFAULT: BootPorts = { api: 8545, session: 9001, p2p: 9000 };
export const BOOT_BINARY_NAME = 'exchange-node.mjs';
export const BOOT_GENESIS_NAME = 'genesis.json';
export const BOOT_NODE_MAJOR_MIN = 22;

export interface BootBundleOptions {
  network: string;
  chainId: number;
  /** 0x + 64 hex. */
  genesisHash: string;
  /** sha256 of the binary and of the genesis file as served, 64 hex (0x allowed). */
  binarySha256: string;
  genesisSha256: string;
  /** Multiaddrs of the network's peers (/ip4/…/tcp/…/p2p/<peer id>). */
  bootstrap: readonly string[];
  /** The network's public REST address and the onboarding service's. */
  apiUrl: string;
  onboardingUrl: string;
  ports?: Partial<BootPorts>;
  /** libp2p listen host default (the node's default, loopback, unless the operator gives another). */
  p2pHost?: string;
  /** The network's market symbols (its genesis pairs'): the price sources template names each. */
  markets?: readonly string[];
}

export interface BootBundle {
  bytes: Uint8Array;
  /** The file name it is served as. */
  name: string;
}

const SHA256 = /^(?:0x)?([0-9a-fA-F]{64})$/;
const NETWORK = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** What may sit between single quotes in network.env: printable ASCII without the quote. */
const ENV_VALUE = /^[\x20-\x26\x28-\x7e]*$/;
const MULTIADDR = /^\/[\x21-\x7e]+$/;

function sha256Of(field: string, value: string): string {
  const m = SHA256.exec(value);
  if (!m) throw new Error(`boot bundle: ${field} must be a sha256 of 64 hex, got ${JSON.stringify(value.slice(0, 80))}`);
  return m[1].toLowerCase();
}

function envValue(field: string, value: string): string {
  if (!ENV_VALUE.test(value) || value.length > 4096) throw new Error(`boot bundle: ${field} must be printable ASCII without a single quote, got ${JSON.stringify(value.slice(0, 80))}`);
  return `'${value}'`;
}

function port(field: string, n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`boot bundle: ${field} port must be 1 to 65535, got ${n}`);
  return n;
}

/** network.env: sourced by both scripts. Ports and hosts keep a value set in the environment. */
export function bootEnvFile(o: BootBundleOptions): string {
  if (!NETWORK.test(o.network)) throw new Error(`boot bundle: network name ${JSON.stringify(o.network)} must be 1 to 32 of a-z 0-9 -`);
  if (!Number.isSafeInteger(o.chainId) || o.chainId < 1) throw new Error(`boot bundle: chain id ${o.chainId} must be a positive integer`);
  if (!/^0x[0-9a-f]{64}$/.test(o.genesisHash)) throw new Error(`boot bundle: genesis hash ${JSON.stringify(o.genesisHash)} must be 0x and 64 lower-case hex`);
  for (const a of o.bootstrap) if (!MULTIADDR.test(a) || a.includes(',')) throw new Error(`boot bundle: bootstrap multiaddr ${JSON.stringify(a.slice(0, 120))} is not a multiaddr`);
  const ports = { ...BOOT_PORTS_DEFAULT, ...o.ports };
  const p2pHost = o.p2pHost ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(p2pHost)) throw new Error(`boot bundle: p2p host ${JSON.stringify(p2pHost)} is not a host`);
  return [
    `# The ${o.network} network (chain ${o.chainId}), written by its onboarding service.`,
    '# keygen.sh and start.sh read this file; they refuse a binary or genesis whose sha256 differs.',
    `EXCHANGE_NETWORK=${envValue('network', o.network)}`,
    `EXCHANGE_CHAIN_ID=${o.chainId}`,
    `EXCHANGE_GENESIS_HASH=${o.genesisHash}`,
    `EXCHANGE_BINARY=${BOOT_BINARY_NAME}`,
    `EXCHANGE_BINARY_SHA256=${sha256Of('binarySha256', o.binarySha256)}`,
    `EXCHANGE_GENESIS=${BOOT_GENESIS_NAME}`,
    `EXCHANGE_GENESIS_SHA256=${sha256Of('genesisSha256', o.genesisSha256)}`,
    `EXCHANGE_BOOTSTRAP=${envValue('bootstrap', o.bootstrap.join(','))}`,
    `EXCHANGE_API_URL=${envValue('apiUrl', o.apiUrl)}`,
    `EXCHANGE_ONBOARDING_URL=${envValue('onboardingUrl', o.onboardingUrl)}`,
    '# Defaults; set any of these in the environment to change it.',
    `EXCHANGE_API_PORT=\${EXCHANGE_API_PORT:-${port('api', ports.api)}}`,
    `EXCHANGE_SESSION_PORT=\${EXCHANGE_SESSION_PORT:-${port('session', ports.session)}}`,
    `EXCHANGE_P2P_HOST=\${EXCHANGE_P2P_HOST:-${p2pHost}}`,
    `EXCHANGE_P2P_PORT=\${EXCHANGE_P2P_PORT:-${port('p2p', ports.p2p)}}`,
    '',
  ].join('\n');
}

/** The part both scripts share: read network.env, verify the two files, find Node >= 22. */
const PRELUDE = `set -eu
cd "$(dirname "$0")"
me=$(basename "$0")
fail() {
  echo "$me: $*" >&2
  exit 1
}
[ -f network.env ] || fail "network.env is missing: unpack the whole boot bundle"
. ./network.env
command -v sha256sum >/dev/null 2>&1 || fail "sha256sum is not installed (coreutils): it verifies the downloads"
verify() {
  [ -f "$1" ] || fail "$1 is missing: download it from $EXCHANGE_ONBOARDING_URL and put it in $(pwd)"
  got=$(sha256sum "$1" | cut -d ' ' -f 1)
  [ "$got" = "$2" ] || fail "$1 has sha256 $got, but network.env expects $2: refusing to use it (download it again; do not run a file that does not match)"
}
verify "$EXCHANGE_BINARY" "$EXCHANGE_BINARY_SHA256"
verify "$EXCHANGE_GENESIS" "$EXCHANGE_GENESIS_SHA256"
NODE=\${NODE:-node}
command -v "$NODE" >/dev/null 2>&1 || fail "Node.js ($NODE) not found: install Node ${BOOT_NODE_MAJOR_MIN} or later, or set NODE=/path/to/node"
version=$("$NODE" --version 2>/dev/null) || fail "$NODE --version failed"
major=\${version#v}
major=\${major%%.*}
case "$major" in '' | *[!0-9]*) fail "cannot read a Node version from '$version'" ;; esac
[ "$major" -ge ${BOOT_NODE_MAJOR_MIN} ] || fail "Node $version is too old: the node needs Node ${BOOT_NODE_MAJOR_MIN} or later (set NODE=/path/to/node)"
`;

export function keygenScript(): string {
  return `#!/bin/sh
# keygen.sh: makes this validator's keys in ./home with the verified binary, or, when
# ./home/node-key.json is there already (the key whose address applied: copy the folder
# made by \`init\` here), binds it to this genesis; keys are never overwritten. Prints the
# public values to register with: address, ecdsa_pubkey, vrf_pubkey, peer_id (one JSON line).
${PRELUDE}
if [ -e home/node-key.json ]; then
  "$NODE" "$EXCHANGE_BINARY" bind --home ./home --network "./$EXCHANGE_GENESIS"
else
  "$NODE" "$EXCHANGE_BINARY" init --home ./home --network "./$EXCHANGE_GENESIS"
fi
echo "$me: register these with your endpoint <public host>:$EXCHANGE_P2P_PORT at $EXCHANGE_ONBOARDING_URL (POST /api/validators/register)" >&2
`;
}

export function startScript(): string {
  return `#!/bin/sh
# start.sh: starts this folder's node as an observer of the network (it validates once
# registered and ranked into the active set), after verifying the binary and genesis.json
# against network.env. Extra arguments go to the node's start command.
${PRELUDE}
[ -f home/node-key.json ] || fail "no keys in ./home: run ./keygen.sh first"
if [ -n "$EXCHANGE_BOOTSTRAP" ]; then set -- --bootstrap "$EXCHANGE_BOOTSTRAP" "$@"; fi
exec "$NODE" "$EXCHANGE_BINARY" start --home ./home --network "./$EXCHANGE_GENESIS" \\
  --port "$EXCHANGE_API_PORT" --session-port "$EXCHANGE_SESSION_PORT" \\
  --p2p-host "$EXCHANGE_P2P_HOST" --p2p-port "$EXCHANGE_P2P_PORT" "$@"
`;
}

export function bootReadme(o: BootBundleOptions): string {
  return `# Boot bundle: the ${o.network} network (chain ${o.chainId})

1. Put the two downloads next to these files: \`${BOOT_BINARY_NAME}\` (the node) and
   \`${BOOT_GENESIS_NAME}\` (the network's genesis). Both scripts check their sha256
   against \`network.env\` first and refuse a file that differs.
2. \`./keygen.sh\` makes your keys in \`./home\` (once) and prints \`address\`,
   \`ecdsa_pubkey\`, \`vrf_pubkey\` and \`peer_id\`.
3. \`./start.sh\` checks Node >= ${BOOT_NODE_MAJOR_MIN} (\`node\` on PATH, or \`$NODE\`) and starts
   the node against the network's bootstrap peers. It follows the chain as an observer.
   Ports come from \`network.env\` (REST ${o.ports?.api ?? BOOT_PORTS_DEFAULT.api},
   session ${o.ports?.session ?? BOOT_PORTS_DEFAULT.session}, libp2p ${o.ports?.p2p ?? BOOT_PORTS_DEFAULT.p2p});
   set \`EXCHANGE_P2P_HOST\`, \`EXCHANGE_P2P_PORT\`, \`EXCHANGE_API_PORT\` or
   \`EXCHANGE_SESSION_PORT\` in the environment to change them.
4. Once it is synced, register at ${o.onboardingUrl} (\`POST /api/validators/register\`)
   with the endpoint \`<public host>:<libp2p port>\` it listens on: the service checks
   that the network sees a node at that endpoint within a few blocks of the head.
5. A validator reports the markets' prices from the sources its operator names: copy
   \`${PRICE_SOURCES_TEMPLATE_NAME}\` to \`home/price-sources.json\` (the node reads it at
   start), check that each exchange lists each market, and edit to taste (docs/operations.md
   "Price sources"). Without it, the node reports no prices.

Network API: ${o.apiUrl}
`;
}

/** The bundle for one network; the same options give the same bytes. */
export function buildBootBundle(o: BootBundleOptions): BootBundle {
  const dir = `exchange-${o.network}`;
  const text = (s: string) => new TextEncoder().encode(s);
  const entries: TarEntry[] = [
    { path: `${dir}/network.env`, bytes: text(bootEnvFile(o)), mode: 0o644 },
    { path: `${dir}/keygen.sh`, bytes: text(keygenScript()), mode: 0o755 },
    { path: `${dir}/start.sh`, bytes: text(startScript()), mode: 0o755 },
    { path: `${dir}/${PRICE_SOURCES_TEMPLATE_NAME}`, bytes: text(priceSourcesTemplate(o.markets ?? [])), mode: 0o644 },
    { path: `${dir}/README.md`, bytes: text(bootReadme(o)), mode: 0o644 },
  ];
  return { bytes: tarGz(entries), name: `exchange-boot-${o.network}.tar.gz` };
}
