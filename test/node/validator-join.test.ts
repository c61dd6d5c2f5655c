/**
 * A validator joins a running network, with real processes on real libp2p and nobody
 * restarting (issue 20): the six-validator devnet (its genesis with short epochs and
 * windows) runs; a seventh node is made with `init`, started with `start --home` as an
 * observer, reaches the head with the same state root, is approved by the operator
 * (`validator approve`, decision 159), registers through itself (its
 * write is relayed to the validators), is active from the next epoch boundary and signs
 * commits; stopped, it is jailed with 0.1% of its bond slashed while the chain goes on;
 * restarted, it unjails once the window has passed and signs again; a genesis validator
 * restarted with `--equivocate` is tombstoned with 5% slashed and never signs again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { freePort } from '../../src/cli/launcher';
import { runCli, tempDir } from '../cli/run-cli';
import { DEVNET_KEYS, ROOT, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';
import { step } from '../helpers/steps';

const N = 6;
const TOKEN = 10n ** 18n;
const EPOCH = 40;
const BOND_TOKENS = 1_000_000n;
const dir = tempDir('exchain-join-');
const genesisFile = join(dir.path, 'genesis.json');
const home = join(dir.path, 'seventh');
let net: LocalNetwork;
let seventh: number;
let seventhAddress: string;

/** The devnet genesis with an epoch of 40 blocks, jail of one epoch, a downtime window of 100 blocks, and a rich account to fund the bond. */
function writeGenesis(): void {
  const g = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
  g.consensus = { ...g.consensus, epochLengthBlocks: EPOCH, unbondingEpochs: 1, downtimeWindowBlocks: 100, downtimeMaxMissedBps: 5000 };
  g.accounts[0].nativeWei = (5n * BOND_TOKENS * TOKEN).toString();
  writeFileSync(genesisFile, JSON.stringify(g, null, 2));
}

async function validators(via: number): Promise<any[]> {
  const res = await fetch(`${net.nodes[via - 1].url}/v1/validators`, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as any;
  return body.data.validators ?? body.data;
}

async function validator(via: number, address: string): Promise<any> {
  return (await validators(via)).find((v) => v.address === address);
}

async function waitStatus(address: string, status: string, timeoutMs = 90_000): Promise<any> {
  return waitFor(async () => {
    const v = await validator(1, address).catch(() => undefined);
    return v?.status === status ? v : undefined;
  }, timeoutMs, `${address} ${status}`);
}

const cli = async (args: string[]) => {
  const r = await runCli(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
};

describe('a validator joins the running devnet over libp2p', () => {
  beforeAll(async () => {
    writeGenesis();
    // Validator 6 double-signs from its start (a validator restarted with --equivocate
    // after a stop would be jailed for its downtime first, and a jailed one does not vote).
    net = await LocalNetwork.start(N, (i) => (i === 6 ? ['--equivocate'] : []), { genesisFile });
  }, 120_000);
  afterAll(async () => {
    await net?.stop();
    dir.remove();
  }, 60_000);

  // One journey of the seventh node, in order: it is made and follows, then registers and
  // signs, then is jailed and unjails; each step needs what the one before did. A failing
  // step names itself (test/helpers/steps.ts) and the steps after it do not run.
  it('the seventh node: made with init and following, registered and signing, jailed and back', async () => {
    await step('an observer made with init follows the chain to the same state root', async () => {
      await net.waitHeight(5);
      const made = await cli(['init', '--home', home, '--network', genesisFile]);
      seventhAddress = made.address;
      const [api, p2p] = [await freePort(), await freePort()];
      seventh = await net.addNode(['--home', home, '--network', genesisFile, '--bootstrap', net.p2pAddrs.join(','), '--p2p-port', String(p2p), '--session-port', '0', '--log-level', 'warn'], api);
      const head = await net.height(1);
      await net.waitHeight(head, [seventh]);
      const [a, b] = await Promise.all([net.block(1, head), net.block(seventh, head)]);
      expect(b.hash).toBe(a.hash);
      expect(b.stateRoot).toBe(a.stateRoot);
      const status = await net.status(seventh);
      expect(status.validator).toEqual({ address: seventhAddress, status: 'observer' });
      expect(status.sync.height).toBeGreaterThanOrEqual(head);
      const network = (await (await fetch(`${net.nodes[seventh - 1].url}/v1/network`)).json()) as any;
      expect(network.data.p2p.multiaddrs.every((m: string) => m.includes(`/tcp/${p2p}/p2p/${made.peer_id}`))).toBe(true);
    });

    await step('registers through itself, is active from the next epoch boundary and signs commits', async () => {
      const rich = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey);
      const chain = defineChain({ id: 713799, name: 'devnet', nativeCurrency: { name: 'EXC', symbol: 'EXC', decimals: 18 }, rpcUrls: { default: { http: [net.nodes[seventh - 1].url] } } });
      const wallet = createWalletClient({ account: rich, chain, transport: http(net.nodes[seventh - 1].url) });
      const gasPrice = BigInt(JSON.parse(readFileSync(genesisFile, 'utf8')).fees.gasPriceWei);
      await wallet.sendTransaction({ to: seventhAddress as `0x${string}`, value: (BOND_TOKENS + 10n) * TOKEN, type: 'legacy', gasPrice });
      const one = createPublicClient({ chain, transport: http(net.nodes[0].url) });
      await waitFor(async () => ((await one.getBalance({ address: seventhAddress as `0x${string}` }).catch(() => 0n)) >= BOND_TOKENS * TOKEN ? true : undefined), 30_000, 'the bond funded');
      // The network's operator approves it first (decision 159): the devnet's operator is owner-1, the command's default key there.
      const approved = await cli(['validator', 'approve', seventhAddress, '--network', genesisFile, '--api', net.nodes[0].url]);
      expect(approved).toMatchObject({ op: 'ApproveValidator', candidate: seventhAddress });
      const reg = await cli(['validator', 'register', '--home', home, '--api', net.nodes[seventh - 1].url, '--bond', String(BOND_TOKENS), '--name', 'seventh', '--endpoint', '127.0.0.1:9999']);
      expect(reg.height).toBeGreaterThan(0);
      expect((await validator(1, seventhAddress)).status).toMatch(/registered|active/);
      const active = await waitStatus(seventhAddress, 'active');
      expect(BigInt(active.bond)).toBe(BOND_TOKENS * TOKEN);
      await net.waitForSigner(seventhAddress, reg.height, 1, 60_000);
      expect((await net.status(seventh)).validator.status).toBe('active');
    });

    await step('stopped, it is jailed with 0.1% slashed while the chain commits; restarted, it unjails after the window and signs again', async () => {
      await net.kill(seventh);
      const jailed = await waitStatus(seventhAddress, 'jailed');
      expect(BigInt(jailed.bond)).toBe((BOND_TOKENS * TOKEN * 999n) / 1000n);
      const at = await net.height(1);
      await net.waitHeight(at + 10, [1, 2, 3, 4, 5, 6]);
      await net.launch(seventh);
      // Unjail is refused until the jail has been served, then accepted.
      await waitFor(async () => {
        const r = await runCli(['validator', 'unjail', '--home', home, '--api', net.nodes[seventh - 1].url]);
        if (r.code === 0) return true;
        // An attempt answered 504 NOT_FINAL_YET may still execute a block later: the next
        // attempt then finds it unjailed already ("not jailed"), which is the success.
        if (/not jailed/.test(r.stderr)) return true;
        expect(r.stderr).toMatch(/JAIL_NOT_SERVED|not final|NOT_FINAL_YET|TIMEOUT/);
        await new Promise((res) => setTimeout(res, 1_000));
        return undefined;
      }, 120_000, 'unjail accepted');
      await waitStatus(seventhAddress, 'active');
      await net.waitForSigner(seventhAddress, await net.height(1), 1, 90_000);
    });
  }, 600_000);

  it('a validator that double-signs is tombstoned with 5% slashed and never signs again', async () => {
    const six = DEVNET_KEYS.validators[5].address.toLowerCase();
    const genesisBond = BigInt(JSON.parse(readFileSync(genesisFile, 'utf8')).validators.find((v: any) => v.address.toLowerCase() === six).bondWei);
    const tomb = await waitStatus(six, 'tombstoned');
    expect(BigInt(tomb.bond)).toBe((genesisBond * 95n) / 100n);
    expect(tomb.power).toBe('0');
    const from = (await net.height(1)) + 2;
    await net.waitHeight(from + 20, [1, 2, 3, 4, 5]);
    for (let h = from; h <= from + 20; h++) expect((await net.block(1, h)).lastCommit?.signers ?? []).not.toContain(six);
  }, 180_000);
});
