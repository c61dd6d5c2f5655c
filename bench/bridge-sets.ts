/**
 * The bridge's validator set following the chain (issue 37; decisions 148, 151): four
 * validator processes with `--bridge FILE` beside a real hardhat chain
 * (test/helpers/bridge-network.ts), epochs of BENCH_BRIDGE_EPOCH (40) blocks, validator 1
 * bonding twice the others. The first epoch boundary caps its power to an equal share
 * (decision 158), so the chain records bridge
 * set 1 there; the genesis validators sign it, a relayer submits it and activates it once
 * the contract's dispute period (2 s here) has passed.
 *  - boundary to pending: from the moment validator 1's REST height first shows the
 *    boundary block (polled every 20 ms) to the contract holding set 1 pending (polled
 *    every 20 ms): signing on the chain and the relayer's submission;
 *  - boundary to in force: to the contract's validatorSetNonce being 1 (the dispute
 *    period and the activation included);
 *  - a withdrawal requested once set 1 is in force: request to paid (attested), the
 *    contract checking the new set's signatures (the same four validators: not a rotation
 *    of members, which needs validators joining and leaving).
 */
import { waitFor } from '../test/helpers/devnet';
import { BridgeNetwork, USDC } from '../test/helpers/bridge-network';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchBridgeSets(): Promise<Record<string, unknown>> {
  const epoch = Number(process.env.BENCH_BRIDGE_EPOCH ?? 40);
  const disputePeriodSec = 2;
  // Validator 1 bonds twice the others: the first boundary caps it to an equal share (decision 158), a change of powers.
  const b = await BridgeNetwork.start({ size: 4, disputePeriodSec, miningIntervalMs: 1_000, epochLengthBlocks: epoch, bondFactor: (i) => (i === 0 ? 2n : 1n) });
  try {
    let tBoundary: number | undefined;
    let tPending: number | undefined;
    let tInForce: number | undefined;
    await waitFor(
      async () => {
        const now = performance.now();
        if (tBoundary === undefined && (await b.net.height(1)) >= epoch) tBoundary = now;
        if (tBoundary !== undefined && tPending === undefined && (await b.bridgeRead<bigint>('pendingSetNonce')) === 1n) tPending = now;
        if (tBoundary !== undefined && (await b.bridgeRead<bigint>('validatorSetNonce')) === 1n) {
          tInForce = now;
          tPending ??= now;
          return true;
        }
        await sleep(20);
        return undefined;
      },
      epoch * 2_000 + 120_000,
      'bridge set 1 in force on the contract',
    );
    // A withdrawal once the new set is in force.
    const owner = BridgeNetwork.newAccount();
    const fee = b.genesis.fees.withdrawalFeeUsdc;
    await b.deposit(owner.address, 5n * USDC + fee);
    await b.waitFree(owner.address, 5n * USDC + fee, 60_000);
    const t0 = performance.now();
    const w = await b.client().withdraw(owner, { amount: 5n * USDC, destination: BridgeNetwork.newAccount().address });
    await b.waitWithdrawal(owner.address, w.withdrawal_id, 'paid', 120_000);
    const paidMs = performance.now() - t0;
    const stats = await b.net.status(1);
    const r = (x: number) => Math.round(x);
    return {
      conditions: `4 validators (processes) on this machine, block time ${b.genesis.consensus.blockTimeMs} ms, epochs of ${epoch} blocks; hardhat external chain, a block per transaction and one every 1,000 ms; bridge actor poll 500 ms; dispute period ${disputePeriodSec} s; set 1 = the genesis validators with validator 1's double bond capped`,
      'epoch boundary to the contract holding the new set pending, ms': r(tPending! - tBoundary!),
      'epoch boundary to the contract checking the new set, ms': r(tInForce! - tBoundary!),
      'withdrawal requested after the change to paid (attested), ms': r(paidMs),
      'validator 1 relayer': stats.bridge?.actor?.relayer ?? null,
    };
  } finally {
    await b.stop();
  }
}
