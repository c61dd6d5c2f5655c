/**
 * Deposits end to end (issue 22, items 1, 2 and 4): four validator processes, each with
 * `--bridge FILE`, beside a real hardhat chain with the bridge deployed (interval mining,
 * a block a second; the devnet's 2 confirmations). Shown here:
 *   - a deposit is credited once its block has its confirmations, not before, and exactly
 *     once (every validator, the ledger, next_deposit_id);
 *   - a validator SIGKILLed right after a deposit and restarted: still once;
 *   - every validator stopped and started again after deposits (their watchers rescan the
 *     bridge from its deployment block): balances unchanged, nothing credited twice, the
 *     next deposit credited;
 *   - a reorg above the confirmation depth (evm_snapshot before a deposit, evm_revert before
 *     its confirmations, another deposit taking its id): only the surviving one, once;
 *   - a `Deposit` event of the same shape from another contract (FakeDeposit) never credited;
 *   - GET /reserves: the bridge's external balance equals the credited deposits, difference 0;
 *     GET /v1/network names the external chain, the bridge and its RPC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { waitFor } from '../helpers/devnet';
import { BridgeNetwork, USDC } from '../helpers/bridge-network';
import { compileFixture } from '../bridge/fixtures';

let b: BridgeNetwork;
/** Every credit this file expects: recipient → amount. */
const expected = new Map<string, bigint>();

beforeAll(async () => {
  b = await BridgeNetwork.start({ size: 4 });
}, 120_000);
afterAll(async () => {
  await b?.stop();
});

/** Every expected credit is on every running validator, once. */
async function expectAllCreditedOnce(): Promise<void> {
  for (const [who, amount] of expected) await b.waitFree(who, amount);
  const r = await b.reserves();
  const total = [...expected.values()].reduce((a, v) => a + v, 0n);
  expect(r.credited_deposits).toBe(String(total));
  expect(r.next_deposit_id).toBe(String(expected.size));
}

const recipient = () => BridgeNetwork.newAccount().address.toLowerCase();

describe('deposits against a real external chain', () => {
  it('GET /v1/network names the external chain, the bridge and the RPC the node watches', async () => {
    for (const n of b.net.nodes) {
      const net = (await b.get<{ data: { bridge: any } }>('/v1/network', n.index)).data;
      expect(net.bridge).toEqual({ chainId: 31337, rpcUrl: b.chain.rpcUrl, address: getAddress(b.deployment.bridge), usdc: getAddress(b.deployment.usdc), alerts: 0 });
    }
  });

  // Shows contract [C-service-vault], [C-vault-deposit], [C-limits-deposit-time].
  it('credits a deposit once its block has the confirmations, exactly once', async () => {
    const to = recipient();
    // Numbered after every deposit the file made before it (none when it runs first).
    const dep = await b.deposit(to, 100n * USDC);
    expect(dep.depositId).toBe(BigInt(expected.size));
    const confirmations = BigInt(b.genesis.bridge!.confirmations);
    // Watch the credit appear, and the external head read just after seeing it: the head
    // when it was credited was at most that, so a credit before the depth shows below it.
    const seenAt = await waitFor(
      async () => ((await b.free(to)) > 0n ? (await b.head()).number : undefined),
      30_000,
      'the credit',
    );
    expect(seenAt - dep.blockNumber + 1n).toBeGreaterThanOrEqual(confirmations);
    expected.set(to, 100n * USDC);
    await expectAllCreditedOnce();
    // More external blocks and exchange blocks: still once.
    await b.waitExternalBlock((await b.head()).number + 4n);
    await expectAllCreditedOnce();
  }, 60_000);

  it('a validator SIGKILLed right after a deposit and restarted: credited once', async () => {
    const to = recipient();
    await b.deposit(to, 7n * USDC);
    await b.net.kill(2);
    expected.set(to, 7n * USDC);
    // Three of four (3 × 1 > 2 × … of equal powers) credit it without validator 2.
    await expectAllCreditedOnce();
    await b.launch(2);
    await b.net.waitHeight(await b.net.height(1), [2]);
    await expectAllCreditedOnce();
    // Its watcher rescanned the bridge: a deposit after it is still credited, once.
    const next = recipient();
    await b.deposit(next, 3n * USDC);
    expected.set(next, 3n * USDC);
    await expectAllCreditedOnce();
  }, 120_000);

  it('every validator stopped and started again after deposits: nothing twice, the next deposit credited', async () => {
    const to = recipient();
    await b.deposit(to, 11n * USDC);
    expected.set(to, 11n * USDC);
    await expectAllCreditedOnce();
    expect(await Promise.all(b.net.nodes.map((n) => b.stopNode(n.index)))).toEqual([0, 0, 0, 0]);
    await Promise.all(b.net.nodes.map((n) => b.launch(n.index)));
    const h = await b.net.height(1);
    await b.net.waitHeight(h + 5);
    await expectAllCreditedOnce();
    const next = recipient();
    await b.deposit(next, 13n * USDC);
    expected.set(next, 13n * USDC);
    await expectAllCreditedOnce();
    await b.net.waitHeight((await b.net.height(1)) + 3);
    await expectAllCreditedOnce();
  }, 150_000);

  it('a reorg above the confirmation depth: only the deposit that survived is credited, once', async () => {
    // Blocks only per transaction while the reorg is made, so its timing is the test's.
    await b.rpc('evm_setIntervalMining', [0]);
    const lost = recipient();
    const kept = recipient();
    let revertedId: bigint;
    try {
      const snapshot = await b.rpc<string>('evm_snapshot');
      const gone = await b.deposit(lost, 50n * USDC);
      revertedId = gone.depositId;
      // Its block is the head: one confirmation of the two needed. Every watcher sees it as the head (and votes nothing).
      await waitFor(
        async () => {
          for (const n of b.net.nodes) if (BigInt((await b.net.status(n.index)).bridge.actor.watcher.headBlock) < gone.blockNumber) return undefined;
          return true;
        },
        30_000,
        'every watcher to see the doomed deposit at the head',
      );
      expect((await b.head()).number).toBe(gone.blockNumber);
      expect(await b.rpc<boolean>('evm_revert', [snapshot])).toBe(true);
      const survivor = await b.deposit(kept, 70n * USDC);
      expect(survivor.depositId).toBe(revertedId);
      expect(survivor.txHash).not.toBe(gone.txHash);
    } finally {
      await b.rpc('evm_setIntervalMining', [1_000]);
    }
    expected.set(kept, 70n * USDC);
    await expectAllCreditedOnce();
    await b.waitExternalBlock((await b.head()).number + 3n);
    await expectAllCreditedOnce();
    for (const n of b.net.nodes) expect(await b.free(lost, n.index)).toBe(0n);
  }, 90_000);

  it('a Deposit of the same shape from another contract is never credited', async () => {
    const fixture = compileFixture('FakeDeposit');
    const from = b.freshAccount();
    const fake = await b.deployContract(from, fixture.abi, fixture.bytecode);
    const thief = recipient();
    // A deposit of its own, credited: the id the fake repeats below.
    const earlier = recipient();
    const credited = await b.deposit(earlier, 2n * USDC);
    expected.set(earlier, 2n * USDC);
    await expectAllCreditedOnce();
    // The id the bridge numbers next, and one already credited, both to the thief.
    const nextId = BigInt(expected.size);
    await b.send(from, fake, fixture.abi, 'emitDeposit', [nextId, getAddress(thief), 1_000_000n * USDC]);
    await b.send(from, fake, fixture.abi, 'emitDeposit', [credited.depositId, getAddress(thief), 1_000_000n * USDC]);
    // A real deposit after them takes that id and is the one credited.
    const honest = recipient();
    const dep = await b.deposit(honest, 5n * USDC);
    expect(dep.depositId).toBe(nextId);
    expected.set(honest, 5n * USDC);
    await expectAllCreditedOnce();
    await b.waitExternalBlock((await b.head()).number + 3n);
    for (const n of b.net.nodes) expect(await b.free(thief, n.index)).toBe(0n);
    await expectAllCreditedOnce();
  }, 90_000);

  it('GET /reserves: the bridge holds exactly the credited deposits, difference 0 on every validator', async () => {
    const total = [...expected.values()].reduce((a, v) => a + v, 0n);
    expect(await b.usdcBalance(b.deployment.bridge)).toBe(total);
    for (const n of b.net.nodes) {
      const r = await b.reserves(n.index);
      expect(r.external).toMatchObject({ chain_id: 31337, bridge: getAddress(b.deployment.bridge), usdc: getAddress(b.deployment.usdc), balance: String(total) });
      expect(BigInt(r.credited_deposits) - BigInt(r.paid_withdrawals)).toBe(BigInt(r.external.balance));
      expect(r.pending_withdrawals).toBe('0');
      expect(r.difference).toBe('0');
      expect((await b.net.status(n.index)).bridge.difference).toBe('0');
    }
  });
});
