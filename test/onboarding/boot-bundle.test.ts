/**
 * The boot bundle (src/onboarding/boot-bundle.ts, src/onboarding/tar.ts; decision 79):
 * the same options give the same bytes; the system tar lists and unpacks what was
 * written; and its scripts, run by /bin/sh in a temporary folder, refuse a binary or
 * genesis whose sha256 differs from network.env's and a Node older than 22, and with
 * matching files run the node's start and init command lines (a stand-in Node prints
 * its arguments; starting a real observer from the bundle is the journey test's).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildBootBundle, type BootBundleOptions } from '../../src/onboarding/boot-bundle';
import { tar, tarGz } from '../../src/onboarding/tar';
import { parsePriceSources } from '../../src/oracle/feeds/config';

const BINARY = '// a stand-in for exchange-node.mjs\nconsole.log("node");\n';
const GENESIS = '{"network":"devnet","chainId":713714}\n';
const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

const OPTIONS: BootBundleOptions = {
  network: 'devnet',
  chainId: 713714,
  markets: ['ETH', 'BTC'],
  genesisHash: `0x${'ab'.repeat(32)}`,
  binarySha256: sha256(BINARY),
  genesisSha256: sha256(GENESIS),
  bootstrap: ['/ip4/127.0.0.1/tcp/9100/p2p/16Uiu2HAmA', '/ip4/127.0.0.1/tcp/9101/p2p/16Uiu2HAmB'],
  apiUrl: 'http://127.0.0.1:8545',
  onboardingUrl: 'http://127.0.0.1:8080',
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The bundle unpacked by the system tar into a fresh folder, with the two downloads beside it; the bundle's folder. */
function unpack(o: BootBundleOptions, files: { binary?: string; genesis?: string } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'boot-bundle-'));
  dirs.push(root);
  const bundle = buildBootBundle(o);
  writeFileSync(join(root, bundle.name), bundle.bytes);
  execFileSync('tar', ['-xzf', bundle.name], { cwd: root });
  const dir = join(root, `exchange-${o.network}`);
  if (files.binary !== undefined) writeFileSync(join(dir, 'exchange-node.mjs'), files.binary);
  if (files.genesis !== undefined) writeFileSync(join(dir, 'genesis.json'), files.genesis);
  return dir;
}

/** A stand-in Node: `--version` answers `version`, anything else prints its arguments one a line. */
function fakeNode(dir: string, version: string): string {
  const path = join(dir, 'fake-node');
  writeFileSync(path, `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; exit 0; fi\nfor a in "$@"; do echo "$a"; done\n`);
  chmodSync(path, 0o755);
  return path;
}

function run(dir: string, script: string, env: Record<string, string> = {}) {
  const r = spawnSync('/bin/sh', [join(dir, script)], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('buildBootBundle', () => {
  it('gives the same bytes for the same options, and other bytes for another checksum', () => {
    const a = buildBootBundle(OPTIONS);
    const b = buildBootBundle({ ...OPTIONS, bootstrap: [...OPTIONS.bootstrap] });
    expect(a.name).toBe('exchange-boot-devnet.tar.gz');
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    const other = buildBootBundle({ ...OPTIONS, binarySha256: sha256('another build') });
    expect(sha256(other.bytes)).not.toBe(sha256(a.bytes));
    // A fixed gzip header: no mtime, OS byte 255.
    expect([...a.bytes.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff]);
  });

  it('lists under the system tar as written: sorted paths, modes, sizes, fixed owner and date', () => {
    const bundle = buildBootBundle(OPTIONS);
    const root = mkdtempSync(join(tmpdir(), 'boot-bundle-'));
    dirs.push(root);
    writeFileSync(join(root, 'b.tar.gz'), bundle.bytes);
    expect(execFileSync('tar', ['-tzf', 'b.tar.gz'], { cwd: root, encoding: 'utf8' }).trim().split('\n')).toEqual([
      'exchange-devnet/README.md',
      'exchange-devnet/keygen.sh',
      'exchange-devnet/network.env',
      'exchange-devnet/price-sources.template.json',
      'exchange-devnet/start.sh',
    ]);
    const long = execFileSync('tar', ['--numeric-owner', '--utc', '-tvzf', 'b.tar.gz'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    expect(long.map((l) => l.split(/\s+/)[0])).toEqual(['-rw-r--r--', '-rwxr-xr-x', '-rw-r--r--', '-rw-r--r--', '-rwxr-xr-x']);
    for (const l of long) expect(l).toMatch(/ 0\/0 .* 2024-01-01 00:00 /);
    execFileSync('tar', ['-xzf', 'b.tar.gz'], { cwd: root });
    const env = readFileSync(join(root, 'exchange-devnet/network.env'), 'utf8');
    expect(env).toContain(`EXCHANGE_BINARY_SHA256=${sha256(BINARY)}\n`);
    expect(env).toContain(`EXCHANGE_GENESIS_SHA256=${sha256(GENESIS)}\n`);
    expect(env).toContain("EXCHANGE_BOOTSTRAP='/ip4/127.0.0.1/tcp/9100/p2p/16Uiu2HAmA,/ip4/127.0.0.1/tcp/9101/p2p/16Uiu2HAmB'\n");
    expect(env).toContain(`EXCHANGE_GENESIS_HASH=0x${'ab'.repeat(32)}\n`);
    expect(env).toContain('EXCHANGE_CHAIN_ID=713714\n');
    expect(env).toContain("EXCHANGE_ONBOARDING_URL='http://127.0.0.1:8080'\n");
    expect(statSync(join(root, 'exchange-devnet/start.sh')).mode & 0o777).toBe(0o755);
    // The price sources template (decision 170): a file the node reads as it is, naming each market's two tickers.
    const template = parsePriceSources(JSON.parse(readFileSync(join(root, 'exchange-devnet/price-sources.template.json'), 'utf8')), root);
    expect(template.markets.map((m) => [m.symbol, m.minSources, m.sources])).toEqual([
      ['ETH', 2, [{ kind: 'binance', symbol: 'ETHUSDT' }, { kind: 'coinbase', product: 'ETH-USD' }]],
      ['BTC', 2, [{ kind: 'binance', symbol: 'BTCUSDT' }, { kind: 'coinbase', product: 'BTC-USD' }]],
    ]);
  });

  it('is a tar the system tar reads byte for byte (a file of 512 bytes and one past it)', () => {
    const root = mkdtempSync(join(tmpdir(), 'tar-'));
    dirs.push(root);
    const a = new Uint8Array(512).fill(0x61);
    const b = new Uint8Array(513).fill(0x62);
    writeFileSync(join(root, 'x.tar.gz'), tarGz([{ path: 'd/b', bytes: b, mode: 0o600 }, { path: 'd/a', bytes: a, mode: 0o644 }]));
    execFileSync('tar', ['-xzf', 'x.tar.gz'], { cwd: root });
    expect(readFileSync(join(root, 'd/a')).equals(Buffer.from(a))).toBe(true);
    expect(readFileSync(join(root, 'd/b')).equals(Buffer.from(b))).toBe(true);
    expect(gunzipSync(readFileSync(join(root, 'x.tar.gz'))).length).toBe(512 + 512 + 512 + 1024 + 1024);
  });

  it('refuses paths and values that would not survive tar or the shell', () => {
    expect(() => tar([{ path: '../x', bytes: new Uint8Array(), mode: 0o644 }])).toThrow(/path/);
    expect(() => tar([{ path: 'a'.repeat(101), bytes: new Uint8Array(), mode: 0o644 }])).toThrow(/path/);
    expect(() => tar([{ path: 'a', bytes: new Uint8Array(), mode: 0o644 }, { path: 'a', bytes: new Uint8Array(), mode: 0o644 }])).toThrow(/twice/);
    expect(() => buildBootBundle({ ...OPTIONS, binarySha256: 'abc' })).toThrow(/binarySha256/);
    expect(() => buildBootBundle({ ...OPTIONS, apiUrl: "http://x/'$(reboot)'" })).toThrow(/apiUrl/);
    expect(() => buildBootBundle({ ...OPTIONS, bootstrap: ['/ip4/1.2.3.4/tcp/1 ; rm'] })).toThrow(/bootstrap/);
  });
});

describe('the bundle scripts', () => {
  // Shows contract [C-onboard-token].
  it('start.sh refuses a binary whose sha256 differs, naming it, and runs nothing', () => {
    const dir = unpack(OPTIONS, { binary: `${BINARY}// tampered\n`, genesis: GENESIS });
    const node = fakeNode(dir, 'v22.20.0');
    const r = run(dir, 'start.sh', { NODE: node });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`exchange-node.mjs has sha256 ${sha256(`${BINARY}// tampered\n`)}, but network.env expects ${sha256(BINARY)}: refusing`);
    expect(r.stdout).toBe('');
  });

  it('start.sh and keygen.sh refuse a genesis whose sha256 differs, and a missing binary', () => {
    const dir = unpack(OPTIONS, { binary: BINARY, genesis: GENESIS.replace('713714', '713715') });
    const node = fakeNode(dir, 'v22.20.0');
    for (const script of ['start.sh', 'keygen.sh']) {
      const r = run(dir, script, { NODE: node });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${script}: genesis.json has sha256 `);
      expect(r.stdout).toBe('');
    }
    const missing = unpack({ ...OPTIONS, network: 'other' }, { genesis: GENESIS });
    const r = run(missing, 'start.sh', { NODE: node });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('exchange-node.mjs is missing: download it from http://127.0.0.1:8080');
  });

  it('start.sh refuses a Node older than 22, and a missing key', () => {
    const dir = unpack(OPTIONS, { binary: BINARY, genesis: GENESIS });
    const old = run(dir, 'start.sh', { NODE: fakeNode(dir, 'v20.11.1') });
    expect(old.status).toBe(1);
    expect(old.stderr).toContain('Node v20.11.1 is too old: the node needs Node 22 or later');
    const noKey = run(dir, 'start.sh', { NODE: fakeNode(dir, 'v22.20.0') });
    expect(noKey.status).toBe(1);
    expect(noKey.stderr).toContain('no keys in ./home: run ./keygen.sh first');
  });

  it('with matching files, keygen.sh runs init (bind when a key is there) and start.sh runs start against the bootstrap peers', () => {
    const dir = unpack({ ...OPTIONS, ports: { p2p: 9300 } }, { binary: BINARY, genesis: GENESIS });
    const node = fakeNode(dir, 'v22.20.0');
    const keygen = run(dir, 'keygen.sh', { NODE: node });
    expect(keygen.status).toBe(0);
    expect(keygen.stdout.trim().split('\n')).toEqual(['exchange-node.mjs', 'init', '--home', './home', '--network', './genesis.json']);
    // What init would have left: the key file start.sh looks for.
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(dir, 'home/node-key.json'), '{}');
    const start = run(dir, 'start.sh', { NODE: node, EXCHANGE_API_PORT: '18545' });
    expect(start.stderr).toBe('');
    expect(start.status).toBe(0);
    expect(start.stdout.trim().split('\n')).toEqual([
      'exchange-node.mjs', 'start', '--home', './home', '--network', './genesis.json',
      '--port', '18545', '--session-port', '9001', '--p2p-host', '127.0.0.1', '--p2p-port', '9300',
      '--bootstrap', '/ip4/127.0.0.1/tcp/9100/p2p/16Uiu2HAmA,/ip4/127.0.0.1/tcp/9101/p2p/16Uiu2HAmB',
    ]);
    // A key already there (the one whose address applied) is bound to this genesis, not replaced.
    const again = run(dir, 'keygen.sh', { NODE: node });
    expect(again.status).toBe(0);
    expect(again.stdout.trim().split('\n')).toEqual(['exchange-node.mjs', 'bind', '--home', './home', '--network', './genesis.json']);
  });
});
