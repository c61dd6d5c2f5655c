/**
 * The single-file build (src/build/binary.ts, decision 77): the embedded addons are this
 * machine's node-gyp-build choices with their sha256; materializeAddon writes them once,
 * checks what is on disk and rewrites a damaged copy; the build is deterministic, bakes
 * in the version asked for, and runs alone in an empty folder with the native addons
 * loaded from the bundle (the genesis hash exercises the native Keccak).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addonFile, buildBinary, embeddedAddonsModule, packageVersion, REPO_ROOT } from '../../src/build/binary';
import { addonCacheDir, materializeAddon } from '../../src/build/addon-cache';
import { genesisHash, loadGenesisFile } from '../../src/genesis/load';
import { bytesToHex } from '../../src/util/bytes';
import { tempDir } from '../helpers/devnet';

const dir = tempDir('exchain-build-');
afterAll(() => dir.remove());
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Where two builds part, for the failure message: the first differing line of each with its neighbours. */
function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  const i = x.findIndex((line, k) => line !== y[k]);
  if (i < 0) return x.length === y.length ? 'same text' : `one build has ${Math.abs(x.length - y.length)} more lines`;
  const around = (lines: string[]) => lines.slice(Math.max(0, i - 3), i + 3).map((l) => l.slice(0, 200)).join('\n');
  return `the builds differ from line ${i + 1}:\n--- first\n${around(x)}\n--- second\n${around(y)}`;
}

describe('embedded addons', () => {
  it('embeds the four addons node-gyp-build loads here, with their sha256', () => {
    const src = embeddedAddonsModule();
    expect(src).toContain(`export const platform = "${process.platform}-${process.arch}"`);
    for (const name of ['classic-level', 'secp256k1', 'keccak', 'sodium-native']) {
      const a = addonFile(name);
      expect(a.path.endsWith('.node')).toBe(true);
      expect(a.sha256).toBe(sha(a.bytes));
      expect(src).toContain(`sha256: "${a.sha256}"`);
      expect(src).toContain(a.bytes.toString('base64').slice(0, 200));
    }
  });

  it('writes an addon once, by its sha256, and rewrites a damaged copy', () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5]);
    const digest = sha(bytes);
    const path = materializeAddon(dir.path, 'x', 'x.node', bytes, digest);
    expect(path).toBe(join(dir.path, 'addons', digest, 'x.node'));
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes);
    writeFileSync(path, 'damaged');
    expect(materializeAddon(dir.path, 'x', 'x.node', bytes, digest)).toBe(path);
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes);
    expect(readdirSync(join(dir.path, 'addons', digest))).toEqual(['x.node']);
    expect(() => materializeAddon(dir.path, 'x', 'x.node', bytes, sha(new Uint8Array([9])))).toThrow(/do not match their sha256/);
  });

  it('puts the cache in $EXCHANGE_NODE_CACHE, else under $XDG_CACHE_HOME', () => {
    expect(addonCacheDir({ EXCHANGE_NODE_CACHE: '/x/y' })).toBe('/x/y');
    expect(addonCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/exchange-node');
  });
});

describe('buildBinary', () => {
  it('builds the same bytes twice, with the version asked for, runnable alone', async () => {
    const a = await buildBinary({ outFile: join(dir.path, 'a', 'exchange-node.mjs'), version: '9.8.7-test' });
    const b = await buildBinary({ outFile: join(dir.path, 'b', 'exchange-node.mjs'), version: '9.8.7-test' });
    expect(a.sha256, firstDifference(readFileSync(a.file, 'utf8'), readFileSync(b.file, 'utf8'))).toBe(b.sha256);
    expect(a.bytes).toBe(readFileSync(a.file).byteLength);
    expect(sha(readFileSync(a.file))).toBe(a.sha256);
    expect(a.version).toBe('9.8.7-test');
    const other = await buildBinary({ outFile: join(dir.path, 'c', 'exchange-node.mjs') });
    expect(other.version).toBe(packageVersion());
    expect(other.sha256).not.toBe(a.sha256);
    await expect(buildBinary({ outFile: join(dir.path, 'd', 'exchange-node.mjs'), version: 'dev' })).rejects.toThrow(/not a semantic version/);

    // Alone in an empty folder: no node_modules anywhere up the tree from /tmp.
    const alone = tempDir('exchain-alone-');
    try {
      copyFileSync(a.file, join(alone.path, 'exchange-node.mjs'));
      copyFileSync(join(REPO_ROOT, 'genesis', 'devnet.json'), join(alone.path, 'genesis.json'));
      const env = { ...process.env, EXCHANGE_NODE_CACHE: join(alone.path, 'cache'), NODE_PATH: '' };
      const run = (...args: string[]) => execFileSync(process.execPath, ['exchange-node.mjs', ...args], { cwd: alone.path, env, encoding: 'utf8' }).trim();
      expect(run('--version')).toBe('9.8.7-test');
      expect(run('genesis', 'genesis.json')).toBe(bytesToHex(genesisHash(loadGenesisFile(join(REPO_ROOT, 'genesis', 'devnet.json')))));
      expect(readdirSync(join(alone.path, 'cache', 'addons')).length).toBeGreaterThanOrEqual(2);
      // The devnet genesis is carried by the build: init finds it by name.
      const keys = JSON.parse(run('init', '--home', join(alone.path, 'home'), '--network', 'devnet'));
      expect(keys.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(JSON.parse(readFileSync(join(alone.path, 'home', 'node-key.json'), 'utf8')).genesisHash).toBe(bytesToHex(genesisHash(loadGenesisFile(join(REPO_ROOT, 'genesis', 'devnet.json')))));
    } finally {
      alone.remove();
    }
  }, 120_000);
});
