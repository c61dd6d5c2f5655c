/**
 * `--bridge FILE` on the node's start commands (src/cli/node-run.ts, decision 84): the
 * deployment file `npm run bridge:deploy` writes becomes NodeConfig.bridge, read and
 * checked by readDeploymentFile; no flag, no bridge; a file that is not a deployment is
 * refused naming the file, before any node is built. Both start commands know the flag.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bridgeConfig } from '../../src/cli/node-run';
import { START_HOME_FLAGS } from '../../src/cli/start-home';
import { tempDir } from '../helpers/devnet';

const dir = tempDir('exchain-bridge-flag-');
afterAll(() => dir.remove());

describe('--bridge FILE', () => {
  it('reads the deployment file into the node config; without the flag there is none', () => {
    const file = join(dir.path, 'devnet.json');
    writeFileSync(
      file,
      JSON.stringify({ chainId: 31337, rpcUrl: 'http://127.0.0.1:8545/', bridge: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', usdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3', deployBlock: 2 }),
    );
    expect(bridgeConfig(file)).toEqual({
      bridge: { chainId: 31337, rpcUrl: 'http://127.0.0.1:8545/', bridge: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512', usdc: '0x5fbdb2315678afecb367f032d93f642f64180aa3', deployBlock: 2 },
    });
    expect(bridgeConfig(undefined)).toEqual({});
  });

  it('refuses a missing or malformed file, naming it', () => {
    expect(() => bridgeConfig(join(dir.path, 'absent.json'))).toThrow(/bridge deployment file .*absent\.json/);
    const bad = join(dir.path, 'bad.json');
    writeFileSync(bad, JSON.stringify({ chainId: 31337, rpcUrl: 'http://127.0.0.1:8545/' }));
    expect(() => bridgeConfig(bad)).toThrow(/bad\.json: missing field/);
  });

  it('is a flag of start --home too', () => {
    expect(START_HOME_FLAGS.bridge.type).toBe('string');
  });
});
