/**
 * The two-build network bench's pure parts (bench/network-builds.ts, bench/two-builds.ts):
 * a profile's CPU per order beyond what the window's blocks cost idle, /status counters by
 * path, one function key
 * for a bundle's frame and a source tree's, and the launcher a revision without the
 * single-file build runs from. No network, no process.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { functionKey, perOrder } from '../../bench/network-builds';
import { numericLeaves } from '../../bench/network';
import { programOf } from '../../bench/two-builds';
import { tempDir } from '../helpers/devnet';

describe('perOrder', () => {
  it('subtracts the window blocks at their idle cost per block, then divides by the final orders (µs)', () => {
    // Idle: 100 blocks, the API 50 ms and the network 200 ms (0.5 and 2 ms a block). Loaded:
    // 40 blocks, 1,000 orders; the API 450 ms, the network 180 ms, the indexer 30 ms.
    const out = perOrder({ API: 50, network: 200 }, 100, { API: 450, network: 180, indexer: 30 }, 40, 1_000);
    // API (450 − 40 × 0.5) / 1,000 orders = 430 µs; network (180 − 80) / 1,000 = 100 µs;
    // the indexer, idle at 0, 30 µs.
    expect(out).toEqual({ API: 430, network: 100, indexer: 30 });
  });

  it('can go below zero: a part that cost less per block under load than idle', () => {
    expect(perOrder({ privval: 100 }, 100, { privval: 30 }, 40, 100)).toEqual({ privval: -100 });
  });
});

describe('numericLeaves', () => {
  it("lists a /status object's numbers by their dotted path, skipping strings, lists and absent parts", () => {
    const status = { p2p: { peers: 5, direct: { bundlesSent: 120, itemsSent: 300 }, peerId: '12D3…', listen: ['/ip4/…'] }, signatures: undefined };
    expect(numericLeaves(status)).toEqual({ 'p2p.peers': 5, 'p2p.direct.bundlesSent': 120, 'p2p.direct.itemsSent': 300 });
  });
});

describe('functionKey', () => {
  it('gives a bundle frame and a source tree frame of the same function one key', () => {
    const bundle = functionKey('keccak256 (bundle:/src/crypto/keccak.ts:1012)');
    const source = functionKey('keccak256 (file:///tmp/bench-network-builds-x/base-tree/src/crypto/keccak.ts:1)');
    expect(bundle).toBe('keccak256 (src/crypto/keccak.ts)');
    expect(source).toBe(bundle);
    expect(functionKey('applyTx (file:///srv/checkout/actors/chain/chain-actor.ts:40)')).toBe('applyTx (actors/chain/chain-actor.ts)');
  });

  it('drops a package frame line, so two builds of the package meet', () => {
    expect(functionKey('ecdsaRecover (secp256k1/lib/index.js:883)')).toBe(functionKey('ecdsaRecover (secp256k1/lib/index.js:302)'));
  });
});

describe('programOf, a revision without the single-file build', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => dir?.remove());

  const treeWith = (cli: string) => {
    dir = tempDir('network-builds-test-');
    mkdirSync(join(dir.path, 'src/cli'), { recursive: true });
    writeFileSync(join(dir.path, 'src/cli/main.ts'), cli);
    return dir.path;
  };

  it('writes a launcher that runs the tree through tsx from the tree, dropping a flag its CLI does not know', () => {
    const tree = treeWith("const START_FLAGS = { port: { type: 'int' } };\n");
    const { file, kind } = programOf(tree, join(tree, 'base.mjs'));
    expect(kind).toBe('source (tsx)');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('const drop = new Set(["--no-rate-limit"]);');
    expect(text).toContain(`process.chdir(${JSON.stringify(tree)});`);
    expect(text).toContain('/src/cli/main.ts');
  });

  it('keeps the flag when the CLI knows rate limits', () => {
    const tree = treeWith("const START_FLAGS = { 'rate-limit': { type: 'bool' } };\n");
    expect(readFileSync(programOf(tree, join(tree, 'base.mjs')).file, 'utf8')).toContain('const drop = new Set([]);');
  });

  it('keeps the flag when another file of src/cli declares it (6b6a52a: node-run.ts)', () => {
    const tree = treeWith("import { START_FLAGS } from './node-run';\n");
    writeFileSync(join(tree, 'src/cli/node-run.ts'), "export const START_FLAGS = { 'rate-limit': { type: 'bool', default: true } };\n");
    expect(readFileSync(programOf(tree, join(tree, 'base.mjs')).file, 'utf8')).toContain('const drop = new Set([]);');
  });
});
