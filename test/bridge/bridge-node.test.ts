/**
 * The node's bridge actor against a REAL external chain (issue 22 items 2–4; decisions
 * 84, 85): a hardhat node started here on a free port with interval mining (1 s: blocks,
 * confirmations and the external clock advance without transactions), the bridge
 * deployed by src/bridge/deploy.ts against the 1-validator devnet genesis with a 2 s
 * dispute period, and an in-process 1-validator devnet node given the deployment file
 * (`--bridge`, read by readDeploymentFile). Shown:
 *   - a deposit (approve + deposit from a development account) is credited to its
 *     recipient once, only after the confirmations;
 *   - a POST /withdraw signed by the owner is signed, queued, paid on the external chain
 *     after the dispute period (the destination receives `amount`; the fee stays here) and
 *     shows as paid with the external transaction in GET /withdrawals;
 *   - GET /reserves' external balance is the bridge's USDC balance, the difference 0;
 *   - a restarted node rescans from the deployment block and votes nothing settled;
 *   - a paused bridge queues nothing, and a withdrawal unpaid past validUntil is refunded once;
 *   - an endpoint on another chain id halts the node with a message naming both; a
 *     reset external chain (fewer deposits than this chain credited) is refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, type Address as ViemAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { deployBridge, writeDeployment, type BridgeDeployment } from '../../src/bridge/deploy';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { readDeploymentFile } from '../../src/bridge/evm';
import { freePort } from '../../src/cli/launcher';
import { ExchangeClient } from '../../src/client';
import type { Node } from '../../src/node/node';
import { DEVNET_KEYS, devnetGenesis, startNode, tempDir, waitFor } from '../helpers/devnet';
import { step } from '../helpers/steps';

const USDC = 10n ** 6n;
const DISPUTE_SEC = 2n;
const { ExchangeBridge, TestUSDC } = contractArtifacts();
const { genesis } = devnetGenesis(1);

let chain: DevChain;
let dep: BridgeDeployment;
let node: Node;
let client: ExchangeClient;
const dir = tempDir('bridge-node-');
const files = tempDir('bridge-node-files-');
const alice = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey);

function external(rpcUrl: string) {
  const c = defineChain({ id: 31337, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  const transport = http(rpcUrl);
  return { pub: createPublicClient({ chain: c, transport }), wallet: (account: ViemAddress) => createWalletClient({ chain: c, transport, account }) };
}

async function send(from: ViemAddress, address: ViemAddress, abi: typeof TestUSDC.abi, functionName: string, args: unknown[]): Promise<bigint> {
  const { pub, wallet } = external(chain.rpcUrl);
  const hash = await wallet(from).writeContract({ address, abi, functionName, args } as never);
  const r = await pub.waitForTransactionReceipt({ hash });
  expect(r.status).toBe('success');
  return r.blockNumber;
}

const usdcBalanceOf = async (who: ViemAddress): Promise<bigint> =>
  (await external(chain.rpcUrl).pub.readContract({ address: dep.usdc, abi: TestUSDC.abi, functionName: 'balanceOf', args: [who] } as never)) as bigint;

async function get(path: string): Promise<any> {
  return (await fetch(`${node.apiAddress}${path}`)).json();
}

/** The deployment written as `bridge:deploy` writes it and read back as the node's --bridge reads it. */
function deploymentFile(d: BridgeDeployment, name: string) {
  const file = join(files.path, name);
  writeDeployment(file, d);
  return readDeploymentFile(file);
}

beforeAll(async () => {
  chain = await startDevChain({ port: await freePort(), miningIntervalMs: 1_000 });
  dep = await deployBridge({ rpcUrl: chain.rpcUrl, genesis, disputePeriodSec: DISPUTE_SEC });
  ({ node } = await startNode(dir.path, { bridge: deploymentFile(dep, 'devnet.json'), bridgeTiming: { pollMs: 200 } }));
  client = new ExchangeClient(node.apiAddress!, { chainId: genesis.chainId });
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await chain?.stop();
  dir.remove();
  files.remove();
});

describe('the bridge actor on a real external chain (hardhat)', () => {
  // One journey on one external chain and one node, in order: each step needs what the
  // steps before left (the deposit pays the withdrawal, the reserves and the restart count
  // both, the pause is never lifted, the reset replaces the chain). A failing step names
  // itself (test/helpers/steps.ts) and the steps after it do not run.
  // Shows contract [C-vault-deposit], [C-limits-deposit-time], [C-vault-withdraw].
  it('a deposit credited, a withdrawal paid, the reserves, a restart, a pause and an expiry, a reset chain: in order', async () => {
    await step('credits a deposit to its recipient once, after the confirmations', async () => {
      const [, depositor] = await external(chain.rpcUrl).wallet(getAddress('0x0000000000000000000000000000000000000001')).getAddresses();
      const recipient = '0x00000000000000000000000000000000000de901' as const;
      const amount = 25n * USDC;
      await send(depositor, dep.usdc, TestUSDC.abi, 'approve', [dep.bridge, amount]);
      const depositBlock = await send(depositor, dep.bridge, ExchangeBridge.abi, 'deposit', [recipient, amount]);

      const credited = await waitFor(
        async () => {
          const b = await get(`/balance/${recipient}`);
          return b.free_balance > 0 ? { balance: b, watcher: node.bridgeStats()!.watcher } : undefined;
        },
        30_000,
        'the deposit to be credited',
      );
      expect(BigInt(credited.balance.free_balance)).toBe(amount);
      // Voted only once the deposit's block had its confirmations (head − confirmations + 1 ≥ its block).
      expect(BigInt(credited.watcher.confirmedBlock)).toBeGreaterThanOrEqual(depositBlock);
      const record = node.chain().state.deposits.get('0');
      expect(record).toMatchObject({ id: 0n, recipient, amount });

      // Once: more external blocks and polls later (the watcher scanned past it again), still one credit.
      const cursor = BigInt(node.bridgeStats()!.watcher.cursorBlock);
      await waitFor(() => (BigInt(node.bridgeStats()!.watcher.cursorBlock) > cursor + 2n ? true : undefined), 20_000, 'the watcher to scan further');
      expect(BigInt((await get(`/balance/${recipient}`)).free_balance)).toBe(amount);
      const reserves = await get('/reserves');
      expect(reserves).toMatchObject({ credited_deposits: String(amount), next_deposit_id: '1', difference: '0' });
    });

    await step('pays a withdrawal on the external chain after the dispute period, the fee staying here; GET /withdrawals shows it paid', async () => {
      const destination = '0x00000000000000000000000000000000000de902' as const;
      const amount = 7n * USDC;
      const feeAccount = genesis.feeAccount;
      const feeBefore = BigInt((await get(`/balance/${feeAccount}`)).free_balance);
      const r = await client.withdraw(alice, { amount, destination });
      expect(r.status).toBe('requested');

      const paid = await waitFor(
        async () => {
          const w = (await get(`/withdrawals/${alice.address}`)).withdrawals.find((x: any) => x.withdrawal_id === r.withdrawal_id);
          return w?.status === 'paid' ? w : undefined;
        },
        60_000,
        'the withdrawal to be paid',
      );
      expect(paid).toMatchObject({ amount: String(amount), fee: String(USDC), destination, signatures: 1, refund_reason: null });
      expect(await usdcBalanceOf(destination)).toBe(amount);
      // The paid transaction is the external chain's executeWithdrawal, sent to the bridge, after the dispute period.
      const { pub } = external(chain.rpcUrl);
      const payout = await pub.getTransactionReceipt({ hash: paid.paid_tx as Hex });
      expect(payout.status).toBe('success');
      expect(payout.to?.toLowerCase()).toBe(dep.bridge.toLowerCase());
      const queued = await pub.getTransactionReceipt({ hash: paid.queued_tx as Hex });
      const [queuedAt, paidAt] = await Promise.all([pub.getBlock({ blockNumber: queued.blockNumber }), pub.getBlock({ blockNumber: payout.blockNumber })]);
      expect(paidAt.timestamp - queuedAt.timestamp).toBeGreaterThanOrEqual(DISPUTE_SEC);
      // The fee went to the fee account here; the owner's lock ended.
      expect(BigInt((await get(`/balance/${feeAccount}`)).free_balance) - feeBefore).toBe(USDC);
      const stats = node.bridgeStats()!;
      expect(stats.relayer).toMatchObject({ queued: 1, executed: 1, sendFailures: 0 });
    });

    await step("GET /reserves reads the bridge's USDC balance on the external chain; the books balanced", async () => {
      const reserves = await get('/reserves');
      const onChain = await usdcBalanceOf(dep.bridge);
      expect(onChain).toBe(25n * USDC - 7n * USDC);
      expect(reserves.external).toMatchObject({ chain_id: 31337, bridge: getAddress(dep.bridge), usdc: getAddress(dep.usdc), balance: String(onChain) });
      expect(BigInt(reserves.external.block)).toBeGreaterThan(0n);
      expect(reserves).toMatchObject({ paid_withdrawals: String(7n * USDC), pending_withdrawals: '0', difference: '0' });
      const status = (await get('/status')).data.bridge;
      expect(status).toMatchObject({ difference: '0', nextDepositId: '1', rpcUrl: chain.rpcUrl, actor: { external: 'ok', active: true } });
    });

    await step('a restarted node rescans from the deployment block and votes nothing already settled', async () => {
      const recipient = '0x00000000000000000000000000000000000de901';
      await node.stop();
      ({ node } = await startNode(dir.path, { bridge: deploymentFile(dep, 'devnet.json'), bridgeTiming: { pollMs: 200 } }));
      client = new ExchangeClient(node.apiAddress!, { chainId: genesis.chainId });
      const stats = node.bridgeStats()!;
      const head = await external(chain.rpcUrl).pub.getBlockNumber();
      // Caught up past every event of the tests before (the deposit, the queueing, the payout).
      await waitFor(() => (BigInt(stats.watcher.cursorBlock) > head && stats.polls > 3 ? true : undefined), 30_000, 'the rescan to pass the head of before');
      expect(stats.watcher).toMatchObject({ attestationsSubmitted: 0, attestationsRefused: 0, claimsPending: 0 });
      expect(stats.relayer).toMatchObject({ signatureTxsSubmitted: 0, signatureTxsRefused: 0, queued: 0, executed: 0, sendFailures: 0 });
      expect(BigInt((await get(`/balance/${recipient}`)).free_balance)).toBe(25n * USDC);
      expect(await get('/reserves')).toMatchObject({ credited_deposits: String(25n * USDC), next_deposit_id: '1', paid_withdrawals: String(7n * USDC), difference: '0' });
    });

    await step('a paused bridge queues nothing; once the external clock passes validUntil unpaid, the withdrawal is refunded once', async () => {
      const { pub } = external(chain.rpcUrl);
      // A validator is a locker: its own key pauses the bridge.
      const locker = privateKeyToAccount(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
      const c = defineChain({ id: 31337, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } });
      const pauseTx = await createWalletClient({ chain: c, transport: http(chain.rpcUrl), account: locker }).writeContract({ address: dep.bridge, abi: ExchangeBridge.abi, functionName: 'pause', args: [] } as never);
      expect((await pub.waitForTransactionReceipt({ hash: pauseTx })).status).toBe('success');

      const freeBefore = BigInt((await get(`/balance/${alice.address}`)).free_balance);
      const stats = node.bridgeStats()!;
      const before = { ...stats.relayer, expiries: stats.watcher.expiriesDetected };
      const r = await client.withdraw(alice, { amount: 2n * USDC, destination: '0x00000000000000000000000000000000000de904' });
      const mine = async () => (await get(`/withdrawals/${alice.address}`)).withdrawals.find((x: any) => x.withdrawal_id === r.withdrawal_id);
      // Signed here, but the relayer does not queue it on a paused bridge: it tries, counts the failure, sends nothing.
      await waitFor(async () => ((await mine())?.status === 'signed' && stats.relayer.sendFailures > before.sendFailures ? true : undefined), 30_000, 'a queueing attempt refused by the pause');
      expect(stats.relayer.queued).toBe(before.queued);
      expect(BigInt((await get(`/balance/${alice.address}`)).free_balance)).toBe(freeBefore - 3n * USDC);

      // The external clock passes validUntil (interval mining then confirms blocks after it).
      const w = await mine();
      const head = await pub.getBlock();
      await pub.request({ method: 'evm_increaseTime', params: [Number(BigInt(w.valid_until) - head.timestamp + 5n)] } as never);
      await pub.request({ method: 'evm_mine', params: [] } as never);
      const refunded = await waitFor(async () => {
        const x = await mine();
        return x?.status === 'refunded' ? x : undefined;
      }, 30_000, 'the expired withdrawal to be refunded');
      expect(refunded).toMatchObject({ refund_reason: 'expired', queued_tx: null, paid_tx: null });
      expect(stats.watcher.expiriesDetected).toBe(before.expiries + 1);
      // The whole amount and the fee back, once.
      expect(BigInt((await get(`/balance/${alice.address}`)).free_balance)).toBe(freeBefore);
      expect(stats.relayer.queued).toBe(before.queued);
      expect(await usdcBalanceOf('0x00000000000000000000000000000000000de904')).toBe(0n);
      expect((await get('/reserves')).difference).toBe('0');
    });

    await step('refuses an external chain that was reset: fewer deposits there than this chain credited', async () => {
      await node.stop();
      await chain.stop();
      // A fresh hardhat: the same deterministic addresses, but none of the deposits.
      chain = await startDevChain({ port: await freePort(), miningIntervalMs: 1_000 });
      dep = await deployBridge({ rpcUrl: chain.rpcUrl, genesis, disputePeriodSec: DISPUTE_SEC });
      ({ node } = await startNode(dir.path, { bridge: deploymentFile(dep, 'reset.json'), bridgeTiming: { pollMs: 200 } }));
      const stats = await waitFor(() => (node.bridgeStats()?.external === 'refused' ? node.bridgeStats() : undefined), 30_000, 'the watcher to refuse the reset chain');
      expect(stats!.lastError).toMatch(/the external chain was reset or is another chain: its bridge holds 0 deposits, this chain credited 1/);
      expect(node.halted).toBeUndefined(); // the exchange chain runs on; the bridge waits for an operator
      expect((await get('/status')).data.bridge.actor.external).toBe('refused');
    });
  }, 480_000);

  it('votes for a deposit only once its block has the confirmations: not while it is the head, at once when one block follows', async () => {
    // Its own chain without interval mining: blocks come only from transactions and evm_mine.
    const manual = await startDevChain({ port: await freePort() });
    const d = tempDir('bridge-node-confirm-');
    let n: Node | undefined;
    try {
      const md = await deployBridge({ rpcUrl: manual.rpcUrl, genesis, disputePeriodSec: DISPUTE_SEC });
      ({ node: n } = await startNode(d.path, { bridge: deploymentFile(md, 'manual.json'), bridgeTiming: { pollMs: 100 } }));
      const { pub, wallet } = external(manual.rpcUrl);
      const [, depositor] = await wallet(getAddress('0x0000000000000000000000000000000000000001')).getAddresses();
      const recipient = '0x00000000000000000000000000000000000de903' as const;
      const call = async (address: ViemAddress, abi: typeof TestUSDC.abi, functionName: string, args: unknown[]) => {
        const r = await pub.waitForTransactionReceipt({ hash: await wallet(depositor).writeContract({ address, abi, functionName, args } as never) });
        expect(r.status).toBe('success');
        return r.blockNumber;
      };
      await call(md.usdc, TestUSDC.abi, 'approve', [md.bridge, 3n * USDC]);
      const block = await call(md.bridge, ExchangeBridge.abi, 'deposit', [recipient, 3n * USDC]);
      // The deposit's block is the head: confirmations 2 need one more. Many polls see it, none votes.
      const node2 = n;
      const polls = node2.bridgeStats()!.polls;
      await waitFor(() => (node2.bridgeStats()!.polls >= polls + 10 && node2.bridgeStats()!.watcher.headBlock === String(block) ? true : undefined), 20_000, 'ten polls at the deposit head');
      expect(node2.bridgeStats()!.watcher).toMatchObject({ confirmedBlock: String(block - 1n), attestationsSubmitted: 0, claimsPending: 0 });
      expect((await (await fetch(`${node2.apiAddress}/balance/${recipient}`)).json()) as any).toMatchObject({ free_balance: 0 });
      await pub.request({ method: 'evm_mine', params: [] } as never);
      await waitFor(async () => (((await (await fetch(`${node2.apiAddress}/balance/${recipient}`)).json()) as any).free_balance === 3_000_000 ? true : undefined), 20_000, 'the credit once confirmed');
      expect(node2.bridgeStats()!.watcher.attestationsSubmitted).toBe(1);
    } finally {
      await n?.stop();
      await manual.stop();
      d.remove();
    }
  }, 90_000);

  it('halts a validator whose endpoint is another chain than the genesis names', async () => {
    const other = await startDevChain({ port: await freePort(), chainId: 31338 });
    const d = tempDir('bridge-node-other-');
    try {
      // The file says 31337 (as the genesis), the endpoint answers 31338.
      const file = join(files.path, 'other.json');
      writeFileSync(file, JSON.stringify({ ...dep, rpcUrl: other.rpcUrl }));
      const { node: n } = await startNode(d.path, { bridge: readDeploymentFile(file), bridgeTiming: { pollMs: 100 } });
      // It halts on its own (the wait is bounded by the test's timeout, not a window of its own).
      const stopped = await n.stopped;
      expect(stopped.halted).toMatch(/the external endpoint .* is chain 31338, but genesis bridge\.externalChainId is 31337/);
      await n.stop();
    } finally {
      await other.stop();
      d.remove();
    }
  }, 60_000);
});
