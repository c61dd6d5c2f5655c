/**
 * The storage flags of every `start` (issue 27, decisions 132 and 134): --retain-blocks,
 * --archive and the genesis default resolve to the node's block window; the index's
 * retention flags to days of block time.
 */
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../src/cli/args';
import { storageConfig } from '../../src/cli/node-run';
import { START_HOME_FLAGS } from '../../src/cli/start-home';
import { DAY_MS } from '../../src/indexer/retention';
import { parseGenesis } from '../../src/genesis/load';
import { DEVNET_RETAIN_BLOCKS, genesisToJson } from '../../src/genesis/build';
import { devnetGenesis } from '../helpers/devnet';

const { genesis } = devnetGenesis(1);
const config = (argv: string[], g = genesis) => storageConfig(parseFlags(['--home', '/tmp/x', ...argv], START_HOME_FLAGS), g);

describe('storage flags', () => {
  it('follow the genesis default unless --retain-blocks or --archive says otherwise', () => {
    expect(genesis.storage?.retainBlocks).toBe(DEVNET_RETAIN_BLOCKS);
    expect(config([]).retainBlocks).toBe(DEVNET_RETAIN_BLOCKS);
    expect(config(['--retain-blocks', '5000']).retainBlocks).toBe(5_000);
    expect(config(['--archive']).retainBlocks).toBeUndefined();
    const { storage: _, ...noStorage } = genesis;
    expect(config([], noStorage).retainBlocks).toBeUndefined();
    expect(() => config(['--archive', '--retain-blocks', '5000'])).toThrow(/not both/);
    expect(() => config(['--retain-blocks', '10'])).toThrow(/at least 100/);
  });

  it("give the index's retention in days of block time (0: all)", () => {
    expect(config([]).indexRetention).toEqual({ tradesMs: 30 * DAY_MS, candlesMs: 0, ordersMs: 30 * DAY_MS });
    expect(config(['--index-retain-trades-days', '0', '--index-retain-candles-days', '365', '--index-retain-orders-days', '7']).indexRetention).toEqual({ tradesMs: 0, candlesMs: 365 * DAY_MS, ordersMs: 7 * DAY_MS });
  });

  it('genesis refuses a storage section out of range or with unknown fields', () => {
    const json = genesisToJson(genesis) as Record<string, unknown>;
    expect(() => parseGenesis({ ...json, storage: { retainBlocks: 10 } })).toThrow(/retainBlocks/);
    expect(() => parseGenesis({ ...json, storage: { keepBlocks: 1000 } })).toThrow(/unknown field/);
    expect(parseGenesis({ ...json, storage: {} }).storage).toEqual({});
  });
});
