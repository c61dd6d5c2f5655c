/**
 * `npm run node -- start --home DIR` (src/cli/start-home.ts) refuses, before starting
 * anything, a missing home, a home without a key file, and a key file of another network:
 * another network name (testnet keys on the devnet) or another genesis of the same name
 * (keys bound to a three-validator devnet, started on the devnet `npm start` runs).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trimValidators } from '../../src/cli/devnet';
import { loadHome } from '../../src/cli/start-home';
import { genesisToJson, renderJson } from '../../src/genesis/build';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import { ROOT, runCli, tempDir } from './run-cli';

const dir = tempDir('exchain-start-home-');
afterAll(() => dir.remove());
const DEVNET_HASH = genesisHashHex(loadGenesisFile(join(ROOT, 'genesis/devnet.json')));

describe('start --home refuses', () => {
  it('a home that does not exist', async () => {
    const r = await runCli(['start', '--home', join(dir.path, 'nowhere')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no such folder .*npm run node -- init --home/);
    expect(r.stdout).not.toContain('READY');
  });

  it('a home without a key file', async () => {
    const r = await runCli(['start', '--home', dir.path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no key file .*node-key\.json/);
  });

  it('a key file of another network', async () => {
    const home = join(dir.path, 'testnet-node');
    expect((await runCli(['init', '--home', home, '--network', 'testnet'])).code).toBe(0);
    const r = await runCli(['start', '--home', home, '--network', 'devnet', '--port', '0', '--p2p-port', '0', '--session-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/was made for testnet \(chain id 713715, genesis 0x[0-9a-f]{64}\); the devnet genesis built into this binary is devnet \(chain id 713799/);
    expect(r.stdout).not.toContain('READY');
    // Its own network is found from the key file without --network: the check passes.
    expect(loadHome(home, undefined).genesis.network).toBe('testnet');
  });

  it('a key file bound to another genesis of the same network', async () => {
    const file = join(dir.path, 'devnet-3v.json');
    writeFileSync(file, renderJson(genesisToJson(trimValidators(loadGenesisFile(join(ROOT, 'genesis/devnet.json')), 3))));
    const home = join(dir.path, 'devnet-3v-node');
    expect((await runCli(['init', '--home', home, '--network', file])).code).toBe(0);
    const r = await runCli(['start', '--home', home, '--port', '0', '--p2p-port', '0', '--session-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is devnet (chain id 713799, genesis ${DEVNET_HASH})`);
    expect(r.stderr).toMatch(/was made for devnet \(chain id 713799, genesis 0x[0-9a-f]{64}\)/);
    // With its own genesis file it is accepted.
    expect(loadHome(home, file).keys.genesisHash).toBe(genesisHashHex(loadGenesisFile(file)));
  });

  it('an unknown flag, naming the known ones', async () => {
    const r = await runCli(['start', '--home', dir.path, '--validators', '3']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown flag --validators \(known: --home, --network, --bootstrap/);
  });
});
