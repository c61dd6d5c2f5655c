/**
 * `npm start -- --with-bridge` (decision 86): the launcher starts the external chain
 * (hardhat, interval mining), deploys the bridge bound to the running genesis, gives every
 * validator the deployment file, and names the external RPC and the bridge in its READY
 * line; a deposit made there is credited on every validator; Ctrl-C stops the validators
 * and the hardhat node (its port is free again). Started again on the same data folder
 * with --with-bridge, it refuses loudly (that chain saw a devchain which is gone) and
 * leaves the folder as it was.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, type Address } from 'viem';
import { contractArtifacts } from '../../src/bridge/contracts';
import { ROOT, tempDir, waitFor } from '../helpers/devnet';
import { showFileOnFailure } from '../helpers/failure-output';
import { BridgeNetwork, usdcUnits, USDC } from '../helpers/bridge-network';
import { NODE_PROGRAM } from '../helpers/node-program';
import { step } from '../helpers/steps';

const dir = tempDir('exchain-launch-bridge-');
// The launcher's validators log to files, not to the test's pipes: shown when a test fails.
for (let i = 1; i <= 4; i++) showFileOnFailure(`validator ${i} node.log`, join(dir.path, `validator-${i}`, 'node.log'));
afterAll(() => dir.remove());

const ARGS = ['--validators', '4', '--data-dir', dir.path, '--port', '0', '--session-port', '0', '--p2p-port', '0', '--no-onboarding', '--bridge-port', '0', '--log-level', 'warn', '--no-rate-limit'];

function launch(extra: string[]) {
  const proc = spawn(process.execPath, [...NODE_PROGRAM, 'start', ...ARGS, ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { text: '' };
  proc.stdout!.on('data', (d) => (out.text += d));
  proc.stderr!.on('data', (d) => (out.text += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, out, exited };
}

const portFree = (port: number) =>
  new Promise<boolean>((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });

describe('npm start -- --with-bridge', () => {
  // One journey on one data folder, in order: the refusal needs the folder the first run
  // left (a chain that ran beside a devchain now gone). A failing step names itself
  // (test/helpers/steps.ts) and the steps after it do not run.
  it('runs with the bridge and stops; started again on that folder with --with-bridge, refuses', async () => {
    await step('starts the external chain and the validators with the bridge, credits a deposit, and Ctrl-C stops hardhat too', async () => {
      const { proc, out, exited } = launch(['--with-bridge']);
      try {
        const line = await waitFor(() => out.text.split('\n').find((l) => l.startsWith('READY ')), 150_000, `READY (output: ${out.text})`);
        const rpcUrl = /bridgeRpc=(\S+)/.exec(line)![1];
        const bridge = /bridge=(0x[0-9a-fA-F]{40})/.exec(line)![1] as Address;
        expect(rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/$/);
        // The devnet genesis's addresses (hardhat's first account, nonces 0 and 1).
        expect(bridge).toBe(getAddress('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512'));
        const file = JSON.parse(readFileSync(join(dir.path, 'bridge.json'), 'utf8'));
        expect(file).toMatchObject({ chainId: 31337, rpcUrl, bridge, usdc: getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3') });
        const nodes = /nodes=(\S+)/.exec(line)![1].split(',');
        expect(nodes).toHaveLength(4);
        for (const url of nodes) {
          const net = ((await (await fetch(`${url}/v1/network`)).json()) as any).data;
          expect(net.bridge).toEqual({ chainId: 31337, rpcUrl, address: bridge, usdc: file.usdc, alerts: 0 });
        }
        // The chain mines on its own (interval mining): its head moves with no transaction.
        const chain = defineChain({ id: 31337, name: 'devchain', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
        const pub = createPublicClient({ chain, transport: http(rpcUrl) });
        const h0 = await pub.getBlockNumber();
        await waitFor(async () => ((await pub.getBlockNumber()) >= h0 + 2n ? true : undefined), 10_000, 'idle blocks');
        // A deposit from a development account is credited on every validator.
        const [, from] = (await pub.request({ method: 'eth_accounts' } as never)) as Address[];
        const wallet = createWalletClient({ chain, transport: http(rpcUrl), account: getAddress(from) });
        const { TestUSDC, ExchangeBridge } = contractArtifacts();
        const to = BridgeNetwork.newAccount().address;
        await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: file.usdc, abi: TestUSDC.abi, functionName: 'approve', args: [bridge, 25n * USDC] } as never) });
        await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: bridge, abi: ExchangeBridge.abi, functionName: 'deposit', args: [to, 25n * USDC] } as never) });
        for (const url of nodes) {
          await waitFor(
            async () => (usdcUnits(((await (await fetch(`${url}/v1/account/${to}`)).json()) as any).data.freeBalance) === 25n * USDC ? true : undefined),
            30_000,
            `the deposit credited on ${url}`,
          );
        }
        proc.kill('SIGINT');
        expect(await exited).toBe(0);
        expect(out.text).toContain('stopped');
        for (const url of nodes) await expect(fetch(url + '/health', { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
        await expect(fetch(rpcUrl, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
        expect(await portFree(Number(new URL(rpcUrl).port))).toBe(true);
      } finally {
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
    });

    await step('refuses --with-bridge on a data folder whose chain ran beside a devchain that is gone, and leaves it as it was', async () => {
      const before = readdirSync(dir.path).sort();
      expect(before).toContain('validator-1');
      const { proc, out, exited } = launch(['--with-bridge']);
      try {
        expect(await exited).toBe(1);
        expect(out.text).toContain('holds an exchange chain that ran beside a bridge devchain');
        expect(out.text).toContain(`rm -rf ${dir.path}`);
        expect(out.text).not.toContain('READY');
        expect(readdirSync(dir.path).sort()).toEqual(before);
        expect(existsSync(join(dir.path, 'validator-1'))).toBe(true);
      } finally {
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
    });
  }, 360_000);
});
