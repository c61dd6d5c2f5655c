/**
 * `--with-bridge`'s data-folder rule (decision 86, src/cli/bridge-devnet.ts): a folder whose
 * exchange chain ran beside a devchain (validator data and a bridge.json) is refused with
 * what to do; a fresh folder, one without bridge.json, or one whose validators never wrote
 * anything but their log, is accepted. Nothing is removed either way.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeDeploymentPath, checkBridgeDataFolder } from '../../src/cli/bridge-devnet';
import { tempDir } from '../helpers/devnet';

let dir: { path: string; remove(): void };
afterEach(() => dir.remove());

describe('--with-bridge on an existing data folder', () => {
  it('accepts a fresh folder, one that never ran a bridge, and one whose validators only logged', () => {
    dir = tempDir('bridge-devnet-');
    expect(() => checkBridgeDataFolder(join(dir.path, 'absent'))).not.toThrow();
    mkdirSync(join(dir.path, 'validator-1', 'chain'), { recursive: true });
    expect(() => checkBridgeDataFolder(dir.path)).not.toThrow(); // a chain, but no devchain ever beside it
    const other = join(dir.path, 'other');
    mkdirSync(join(other, 'validator-1'), { recursive: true });
    writeFileSync(join(other, 'validator-1', 'node.log'), 'refused before it started\n');
    writeFileSync(bridgeDeploymentPath(other), '{}');
    expect(() => checkBridgeDataFolder(other)).not.toThrow();
  });

  it('refuses a chain that ran beside a devchain, naming the remedies, and removes nothing', () => {
    dir = tempDir('bridge-devnet-');
    mkdirSync(join(dir.path, 'validator-3', 'chain'), { recursive: true });
    writeFileSync(bridgeDeploymentPath(dir.path), '{}');
    const before = readdirSync(dir.path).sort();
    expect(() => checkBridgeDataFolder(dir.path)).toThrow(/holds an exchange chain that ran beside a bridge devchain/);
    expect(() => checkBridgeDataFolder(dir.path)).toThrow(`rm -rf ${dir.path}`);
    expect(() => checkBridgeDataFolder(dir.path)).toThrow(/start without --with-bridge/);
    expect(readdirSync(dir.path).sort()).toEqual(before);
  });
});
