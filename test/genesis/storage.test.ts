/**
 * The genesis section `storage`'s snapshot settings (src/genesis/storage.ts, decision 136):
 * optional, bounded, unknown keys refused, part of the genesis hash.
 */
import { describe, expect, it } from 'vitest';
import { buildGenesis } from '../../src/genesis/build';
import { genesisHash, parseGenesis } from '../../src/genesis/load';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const devnet = (): Json => structuredClone(buildGenesis('devnet'));

describe('genesis storage section', () => {
  it('is optional; when given its snapshot settings are read and change the genesis hash', () => {
    expect(parseGenesis(devnet()).storage).toBeUndefined();
    const g = devnet();
    g.storage = { snapshotIntervalBlocks: 1000, snapshotKeep: 3 };
    expect(parseGenesis(g).storage).toEqual({ snapshotIntervalBlocks: 1000, snapshotKeep: 3 });
    expect(Buffer.from(genesisHash(parseGenesis(g))).equals(genesisHash(parseGenesis(devnet())))).toBe(false);
    const only = devnet();
    only.storage = { snapshotIntervalBlocks: 200 };
    expect(parseGenesis(only).storage).toEqual({ snapshotIntervalBlocks: 200 });
  });

  it.each([
    [{ snapshotIntervalBlocks: 0 }, 'genesis.storage.snapshotIntervalBlocks'],
    [{ snapshotIntervalBlocks: 9 }, 'genesis.storage.snapshotIntervalBlocks'],
    [{ snapshotIntervalBlocks: 100.5 }, 'genesis.storage.snapshotIntervalBlocks'],
    [{ snapshotKeep: 0 }, 'genesis.storage.snapshotKeep'],
    [{ snapshotKeep: 101 }, 'genesis.storage.snapshotKeep'],
    [{ snapshotEvery: 10 }, 'genesis.storage.snapshotEvery'],
  ])('refuses %j naming %s', (storage, path) => {
    const g = devnet();
    g.storage = storage;
    expect(() => parseGenesis(g)).toThrow(path);
  });
});
