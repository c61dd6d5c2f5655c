/**
 * `npm run node -- genesis new`: four operators each run `init`; the genesis built from
 * their public values (a key file, a JSON file of init's line, the line itself) loads
 * with the loader, holds exactly those four validators with the testnet's parameters,
 * and `genesis FILE` prints the hash genesis new announced. The same inputs give the
 * same hash. Duplicate keys, names and endpoints, too few validators and bad values are
 * refused with the field and the --validator named, and no file is written. `bind`
 * moves an operator's keys to the new genesis of their chain, and to no other chain.
 * `--bridge-deployer` names the bridge before it exists, where that account's next two
 * contracts land; `bridge deploy --genesis` on a fresh hardhat chain puts them there, bound
 * to that genesis's hash (decision 152). A deployment file as the bridge is refused.
 * `--accounts` funds accounts beside the template's, and `--epoch-length-blocks` sets the epoch.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http } from 'viem';
import { EXCHANGE_BRIDGE_ABI } from '../../src/bridge/abi';
import { bridgeAddressesAt } from '../../src/bridge/addresses';
import { startDevChain } from '../../src/bridge/devchain';
import { readDeploymentFile } from '../../src/bridge/evm';
import { freePort } from '../../src/cli/launcher';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import { KEY_FILE_NAME, readKeyFile } from '../../src/node/keyfile';
import { ROOT, runCli, tempDir } from './run-cli';

const dir = tempDir('exchain-genesis-new-');
afterAll(() => dir.remove());

interface Pub {
  address: string;
  ecdsa_pubkey: string;
  vrf_pubkey: string;
  peer_id: string;
}

/** Hardhat's first development account: the deployer `bridge deploy` uses on a devchain. */
const HARDHAT_DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const pubs: Pub[] = [];
const home = (i: number) => join(dir.path, `v${i + 1}`);
const keyFile = (i: number) => join(home(i), KEY_FILE_NAME);
const pubFile = (i: number) => join(dir.path, `v${i + 1}.json`);

beforeAll(async () => {
  const results = await Promise.all([0, 1, 2, 3].map((i) => runCli(['init', '--home', home(i), '--network', 'testnet'])));
  for (const [i, r] of results.entries()) {
    expect(r.code).toBe(0);
    pubs.push(JSON.parse(r.stdout));
    writeFileSync(pubFile(i), r.stdout);
  }
}, 120_000);

/** The four validators, each from another kind of source. */
const sources = () => [
  `${keyFile(0)},name=alice,endpoint=10.0.0.1:26656`,
  pubFile(1),
  `${JSON.stringify({ ...pubs[2], name: 'carol', bond: '2000000' })},endpoint=carol.example.org:9000`,
  keyFile(3),
];

const validatorArgs = (list: string[]) => list.flatMap((s) => ['--validator', s]);

// Each case is a child process running tsx; several run at once on a shared machine.
describe('genesis new', { timeout: 180_000 }, () => {
  it('builds a genesis from four fresh keys that loads, holds those four, and whose hash `genesis FILE` prints', async () => {
    const out = join(dir.path, 'testnet-a.json');
    const r = await runCli(['genesis', 'new', ...validatorArgs(sources()), '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const line = JSON.parse(r.stdout);
    const g = loadGenesisFile(out);
    expect(line.genesis_hash).toBe(genesisHashHex(g));
    expect(line).toMatchObject({ out, network: 'testnet', chain_id: 713715 });
    const printed = await runCli(['genesis', out]);
    expect(printed.stdout).toBe(`${line.genesis_hash}\n`);

    const TOKEN = 10n ** 18n;
    expect(g.validators).toEqual([
      { name: 'alice', address: pubs[0].address, ecdsaPubkey: `0x${pubs[0].ecdsa_pubkey}`, vrfPubkey: `0x${pubs[0].vrf_pubkey}`, bondWei: 10_000_000n * TOKEN, endpoint: '10.0.0.1:26656' },
      { name: 'validator-2', address: pubs[1].address, ecdsaPubkey: `0x${pubs[1].ecdsa_pubkey}`, vrfPubkey: `0x${pubs[1].vrf_pubkey}`, bondWei: 10_000_000n * TOKEN, endpoint: '127.0.0.1:9010' },
      { name: 'carol', address: pubs[2].address, ecdsaPubkey: `0x${pubs[2].ecdsa_pubkey}`, vrfPubkey: `0x${pubs[2].vrf_pubkey}`, bondWei: 2_000_000n * TOKEN, endpoint: 'carol.example.org:9000' },
      { name: 'validator-4', address: pubs[3].address, ecdsaPubkey: `0x${pubs[3].ecdsa_pubkey}`, vrfPubkey: `0x${pubs[3].vrf_pubkey}`, bondWei: 10_000_000n * TOKEN, endpoint: '127.0.0.1:9030' },
    ]);
    // Peers dial each validator at its endpoint with its peer id.
    expect(line.bootstrap).toEqual([
      `/ip4/10.0.0.1/tcp/26656/p2p/${pubs[0].peer_id}`,
      `/ip4/127.0.0.1/tcp/9010/p2p/${pubs[1].peer_id}`,
      `/dns/carol.example.org/tcp/9000/p2p/${pubs[2].peer_id}`,
      `/ip4/127.0.0.1/tcp/9030/p2p/${pubs[3].peer_id}`,
    ]);
    // Everything else is the testnet's.
    const testnet = loadGenesisFile(join(ROOT, 'genesis/testnet.json'));
    expect({ ...g, validators: testnet.validators }).toEqual(testnet);
    expect(line.genesis_hash).not.toBe(genesisHashHex(testnet));

    // The same inputs give the same file: each operator can rebuild it and compare.
    const again = join(dir.path, 'testnet-b.json');
    const r2 = await runCli(['genesis', 'new', ...validatorArgs(sources()), '--out', again]);
    expect(r2.code).toBe(0);
    expect(JSON.parse(r2.stdout).genesis_hash).toBe(line.genesis_hash);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(out, 'utf8'));
  });

  it("bind moves an operator's keys to the new genesis (same chain), never to another chain", async () => {
    // Its own new genesis, and its own copy of operator 1's home, so the other tests' files stay as init wrote them.
    const out = join(dir.path, 'bind-target.json');
    const built = await runCli(['genesis', 'new', ...validatorArgs(sources()), '--out', out]);
    expect(built.code, built.stderr).toBe(0);
    const own = join(dir.path, 'bind-v1');
    mkdirSync(own, { mode: 0o700 });
    const ownKey = join(own, KEY_FILE_NAME);
    copyFileSync(keyFile(0), ownKey);
    chmodSync(ownKey, 0o600);
    const before = readKeyFile(ownKey);
    const [bound, otherChain] = await Promise.all([
      runCli(['bind', '--home', own, '--network', out]),
      runCli(['bind', '--home', home(1), '--network', 'devnet']),
    ]);
    expect(bound.stderr).toBe('');
    expect(JSON.parse(bound.stdout)).toEqual(pubs[0]);
    const after = readKeyFile(ownKey);
    expect(after).toEqual({ ...before, genesisHash: genesisHashHex(loadGenesisFile(out)) });
    expect(statSync(ownKey).mode & 0o777).toBe(0o600);
    expect(readdirSync(own)).toEqual([KEY_FILE_NAME]);
    expect(otherChain.code).not.toBe(0);
    expect(otherChain.stderr).toMatch(/made for testnet \(chain id 713715\); a key is never moved to another network \(devnet, chain id 713799\)/);
    expect(readKeyFile(keyFile(1)).genesisHash).toBe(genesisHashHex(loadGenesisFile(join(ROOT, 'genesis/testnet.json'))));
  });

  it('takes the chain id, genesis time and owners given, and checks them with the loader', async () => {
    const out = join(dir.path, 'devnet-x.json');
    const owners = ['0x' + '11'.repeat(20), '0x' + '22'.repeat(20), '0x' + '33'.repeat(20)];
    const args = [...validatorArgs(sources()), '--genesis-time-ms', '1767225600000', '--owners', owners.join(',')];
    const [ok, badChain] = await Promise.all([
      runCli(['genesis', 'new', ...args, '--network', 'devnet', '--chain-id', '777001', '--out', out]),
      runCli(['genesis', 'new', ...args, '--chain-id', '777001', '--out', join(dir.path, 'bad-chain.json')]),
    ]);
    expect(ok.stderr).toBe('');
    const g = loadGenesisFile(out);
    expect({ network: g.network, chainId: g.chainId, genesisTimeMs: g.genesisTimeMs, owners: g.owners.addresses }).toEqual({
      network: 'devnet',
      chainId: 777001,
      genesisTimeMs: 1767225600000,
      owners,
    });
    expect(g.faucet).toBeDefined(); // a devnet starts from the devnet's parameters, faucet included
    expect(badChain.code).not.toBe(0);
    expect(badChain.stderr).toMatch(/genesis\.chainId: must be 713715 on testnet, got 777001/);
    expect(existsSync(join(dir.path, 'bad-chain.json'))).toBe(false);
  });

  it('funds the --accounts given beside the template\'s and takes --epoch-length-blocks; a bad or repeated account is refused', async () => {
    const out = join(dir.path, 'funded.json');
    const [a, b] = ['0x' + 'aa'.repeat(20), '0x' + 'bb'.repeat(20)];
    const [ok, bad, twice] = await Promise.all([
      runCli(['genesis', 'new', ...validatorArgs(sources()), '--accounts', `${a}=2500000,${b.toUpperCase().replace('0X', '0x')}=7`, '--epoch-length-blocks', '60', '--out', out]),
      runCli(['genesis', 'new', ...validatorArgs(sources()), '--accounts', `${a}=1.5`, '--out', join(dir.path, 'bad-account.json')]),
      runCli(['genesis', 'new', ...validatorArgs(sources()), '--accounts', `${a}=1,${a}=2`, '--out', join(dir.path, 'twice.json')]),
    ]);
    expect(ok.stderr).toBe('');
    const g = loadGenesisFile(out);
    const TOKEN = 10n ** 18n;
    expect(g.accounts.slice(-2)).toEqual([
      { address: a, usdc: 0n, nativeWei: 2_500_000n * TOKEN, label: 'account-1' },
      { address: b, usdc: 0n, nativeWei: 7n * TOKEN, label: 'account-2' },
    ]);
    expect(g.accounts[0].label).toBe('operator-1'); // the template's funded operator account stays
    expect(g.consensus.epochLengthBlocks).toBe(60);
    expect(bad.stderr).toMatch(/--accounts: entry 1 "0x(aa){20}=1\.5" is not ADDRESS=TOKENS/);
    expect(twice.stderr).toMatch(/--accounts: 0x(aa){20} is given twice/);
    expect(existsSync(join(dir.path, 'bad-account.json')) || existsSync(join(dir.path, 'twice.json'))).toBe(false);
  });

  it('names the bridge at the deployer\'s next two CREATE addresses; bridge:deploy --genesis lands there, bound to this genesis (decision 152)', async () => {
    const out = join(dir.path, 'testnet-bridge.json');
    const nonced = join(dir.path, 'testnet-bridge-nonce-5.json');
    const bridgeArgs = ['--bridge-deployer', HARDHAT_DEPLOYER, '--bridge-chain-id', '31338', '--bridge-confirmations', '6'];
    const [ok, at5] = await Promise.all([
      runCli(['genesis', 'new', ...validatorArgs(sources()), ...bridgeArgs, '--out', out]),
      runCli(['genesis', 'new', ...validatorArgs(sources()), ...bridgeArgs, '--bridge-deployer-nonce', '5', '--out', nonced]),
    ]);
    expect(ok.stderr).toBe('');
    const g = loadGenesisFile(out);
    const at0 = bridgeAddressesAt(HARDHAT_DEPLOYER, 0n);
    expect(g.bridge).toEqual({ externalChainId: 31338, address: at0.bridge.toLowerCase(), usdc: at0.usdc.toLowerCase(), confirmations: 6, withdrawalWindowMs: 3_600_000 });
    expect(JSON.parse(ok.stdout).bridge).toEqual({ external_chain_id: 31338, usdc: g.bridge!.usdc, address: g.bridge!.address });
    expect(at5.stderr).toBe('');
    expect(loadGenesisFile(nonced).bridge!.usdc).toBe(bridgeAddressesAt(HARDHAT_DEPLOYER, 5n).usdc.toLowerCase());

    // The deploy from hardhat's first account on a fresh chain of that id: its checks pass,
    // and the contract is bound to the very genesis that names it.
    const chain = await startDevChain({ port: await freePort(), chainId: 31338 });
    try {
      const deployment = join(dir.path, 'bridge.json');
      const deployed = await runCli(['bridge', 'deploy', '--genesis', out, '--rpc', chain.rpcUrl, '--out', deployment]);
      expect(deployed.stderr).toBe('');
      expect(deployed.code).toBe(0);
      const d = readDeploymentFile(deployment);
      expect(d).toMatchObject({ chainId: 31338, bridge: g.bridge!.address, usdc: g.bridge!.usdc });
      const pub = createPublicClient({ transport: http(chain.rpcUrl) });
      const read = (functionName: string) => pub.readContract({ address: at0.bridge, abi: EXCHANGE_BRIDGE_ABI, functionName });
      expect(await read('exchangeGenesisHash')).toBe(genesisHashHex(g));
      expect(await read('exchangeChainId')).toBe(BigInt(g.chainId));
      // The chain is used now: the genesis's addresses cannot be had again, and the deploy says so before sending anything.
      const again = await runCli(['bridge', 'deploy', '--genesis', out, '--rpc', chain.rpcUrl, '--out', join(dir.path, 'bridge-again.json')]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/refusing to deploy: .*this chain has been used already/);
    } finally {
      await chain.stop();
    }
  });

  it('refuses a deployment file as the bridge (its contract is bound to another genesis) and incomplete bridge flags', async () => {
    const deployment = join(dir.path, 'old-bridge.json');
    writeFileSync(deployment, JSON.stringify({ chainId: 11155111, rpcUrl: 'https://rpc.example.org', bridge: '0x' + 'ab'.repeat(20), usdc: '0x' + 'cd'.repeat(20), deployBlock: 7 }));
    const cases: [string[], RegExp][] = [
      [['--bridge', deployment], /--bridge FILE: a genesis cannot name a bridge deployed before it: .*decision 152.*--bridge-deployer ADDRESS/],
      [[`--bridge=${deployment}`], /--bridge FILE: a genesis cannot name a bridge deployed before it/],
      [['--bridge-deployer', HARDHAT_DEPLOYER], /--bridge-chain-id ID is required with --bridge-deployer/],
      [['--bridge-chain-id', '1'], /--bridge-chain-id goes with --bridge-deployer ADDRESS, which is missing/],
      [['--bridge-deployer-nonce', '3'], /--bridge-deployer-nonce goes with --bridge-deployer ADDRESS, which is missing/],
      [['--bridge-deployer', '0x1234', '--bridge-chain-id', '1'], /--bridge-deployer: "0x1234" is not an address/],
      [['--bridge-deployer', HARDHAT_DEPLOYER, '--bridge-chain-id', '1', '--bridge-confirmations', '0'], /genesis\.bridge\.confirmations/],
    ];
    const results = await Promise.all(cases.map(([args], i) => runCli(['genesis', 'new', ...validatorArgs(sources()), ...args, '--out', join(dir.path, `bad-bridge-${i}.json`)])));
    for (const [i, r] of results.entries()) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(cases[i][1]);
      expect(existsSync(join(dir.path, `bad-bridge-${i}.json`))).toBe(false);
    }
  });

  it('refuses a repeated address, vrf_pubkey, peer_id, name or endpoint, naming the field and both inputs', async () => {
    const [a, b, c, d] = sources();
    const forged = (i: number, field: keyof Pub, from: number) => JSON.stringify({ ...pubs[i], [field]: pubs[from][field] });
    const cases: [string[], RegExp][] = [
      [[a, b, c, d, pubFile(1)], /--validator 5 \(.*v2\.json\): duplicate address 0x[0-9a-f]{40}, already given by --validator 2/],
      [[a, b, c, keyFile(0)], /--validator 4 \(.*node-key\.json\): duplicate address .* already given by --validator 1/],
      [[a, b, c, forged(3, 'vrf_pubkey', 1)], /--validator 4 .*: duplicate vrf_pubkey [0-9a-f]{64}, already given by --validator 2/],
      [[a, b, c, forged(3, 'peer_id', 0)], /--validator 4 .*: duplicate peer_id 12D3KooW\w+, already given by --validator 1/],
      [[a, b, c, `${keyFile(3)},name=alice`], /--validator 4 .*: duplicate name alice, already given by --validator 1/],
      [[a, b, c, `${keyFile(3)},endpoint=10.0.0.1:26656`], /--validator 4 .*: duplicate endpoint 10\.0\.0\.1:26656, already given by --validator 1/],
    ];
    const results = await Promise.all(cases.map(([list], i) => runCli(['genesis', 'new', ...validatorArgs(list), '--out', join(dir.path, `dup-${i}.json`)])));
    for (const [i, r] of results.entries()) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(cases[i][1]);
      expect(existsSync(join(dir.path, `dup-${i}.json`))).toBe(false);
    }
  });

  it('refuses fewer validators than the active set minimum, bad public values, a bad bond and an existing --out', async () => {
    const [a, b, c] = sources();
    const existing = join(dir.path, 'existing.json');
    writeFileSync(existing, '{}');
    const wrongAddress = JSON.stringify({ ...pubs[3], address: pubs[0].address });
    const cases: [string[], RegExp][] = [
      [['genesis', 'new', ...validatorArgs([a, b, c])], /--validator: a testnet genesis needs at least consensus\.activeSetMin = 4 validators, got 3/],
      [['genesis', 'new', ...validatorArgs([a, b, c, wrongAddress])], /--validator 4 .*: address: does not match ecdsa_pubkey, which derives to 0x/],
      [['genesis', 'new', ...validatorArgs([a, b, c, JSON.stringify({ ...pubs[3], vrf_pubkey: '0x1234' })])], /--validator 4 .*: vrf_pubkey: must be 64 hex digits/],
      [['genesis', 'new', ...validatorArgs([a, b, c, JSON.stringify({ ...pubs[3], peer_id: 'nope' })])], /--validator 4 .*: peer_id: is not a libp2p peer id/],
      [['genesis', 'new', ...validatorArgs([a, b, c, `${keyFile(3)},bond=5`])], /--validator 4 .*: genesis\.validators\[3\]\.bondWei: must be from 1000000000000000000000000 \(consensus\.minBondWei\)/],
      [['genesis', 'new', ...validatorArgs([a, b, c, join(dir.path, 'missing.json')])], /--validator 4 .*: no such file/],
    ];
    const results = await Promise.all(cases.map(([args], i) => runCli([...args, '--out', join(dir.path, `bad-${i}.json`)])));
    for (const [i, r] of results.entries()) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(cases[i][1]);
      expect(existsSync(join(dir.path, `bad-${i}.json`))).toBe(false);
    }
    const over = await runCli(['genesis', 'new', ...validatorArgs(sources()), '--out', existing]);
    expect(over.code).not.toBe(0);
    expect(over.stderr).toMatch(/the file exists; genesis new never overwrites one/);
    expect(readFileSync(existing, 'utf8')).toBe('{}');
  });
});
