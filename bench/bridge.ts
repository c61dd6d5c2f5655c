/**
 * The bridge end to end (issue 22): four validator processes with `--bridge FILE` beside a
 * real hardhat chain (test/helpers/bridge-network.ts), interval mining a block a second,
 * the devnet's 2 confirmations.
 *  - deposit to credit: BENCH_BRIDGE_DEPOSITS (10) deposits one after another; for each,
 *    the time from the moment the external head reached the deposit's confirmation depth
 *    (head − block + 1 = confirmations, seen by polling eth_blockNumber every 10 ms: the
 *    earliest a watcher could count it) to its credit being visible through REST on
 *    validator 1 (polled every 10 ms); p50 and max, and the whole send-to-credit time;
 *  - withdrawals to payout: BENCH_BRIDGE_WITHDRAWALS (20) withdrawals requested at once
 *    (POST /withdraw, each answered once final), then the time until every one is signed,
 *    queued on the external chain and paid there (GET /withdrawals polled every 50 ms), and
 *    withdrawals per second to payout, with the dispute period (2 s here) in the figures;
 *  - forged queue to pause (issue 37, decision 154): BENCH_BRIDGE_FORGERIES (3) times, the
 *    genesis validators' keys (the keys the contract counts) queue a withdrawal of an id
 *    the chain never made; the time from its block being mined to the bridge reading
 *    paused (polled every 10 ms), then the owners unpause it for the next one. It includes
 *    the confirmations and the 2 s margin an unknown id waits (UNKNOWN_ID_MARGIN_MS).
 */
import { type Hex } from 'viem';
import { contractArtifacts } from '../src/bridge/contracts';
import { signAll, withdrawalDigest } from '../src/bridge/signatures';
import { waitFor } from '../test/helpers/devnet';
import { BridgeNetwork, USDC } from '../test/helpers/bridge-network';
import { GENESIS_VALIDATOR_KEYS } from '../test/helpers/hardhat-bridge';
import { quantile } from './network';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchBridge(opts: { deposits?: number; withdrawals?: number; forgeries?: number } = {}): Promise<Record<string, unknown>> {
  const deposits = opts.deposits ?? Number(process.env.BENCH_BRIDGE_DEPOSITS ?? 10);
  const withdrawals = opts.withdrawals ?? Number(process.env.BENCH_BRIDGE_WITHDRAWALS ?? 20);
  const forgeries = opts.forgeries ?? Number(process.env.BENCH_BRIDGE_FORGERIES ?? 3);
  const disputePeriodSec = 2;
  const b = await BridgeNetwork.start({ size: 4, disputePeriodSec, miningIntervalMs: 1_000 });
  try {
    const confirmations = BigInt(b.genesis.bridge!.confirmations);
    await b.net.waitHeight(20);
    // ---- deposit → credit
    const afterConfirmedMs: number[] = [];
    const sendToCreditMs: number[] = [];
    for (let i = 0; i < deposits; i++) {
      const to = BridgeNetwork.newAccount().address;
      const t0 = performance.now();
      const dep = await b.deposit(to, 10n * USDC);
      let confirmedAt: number | undefined;
      let creditedAt: number | undefined;
      const depth = dep.blockNumber + confirmations - 1n;
      await Promise.all([
        (async () => {
          while (confirmedAt === undefined) {
            if ((await b.pub.getBlockNumber({ cacheTime: 0 })) >= depth) confirmedAt = performance.now();
            else await sleep(10);
          }
        })(),
        (async () => {
          while (creditedAt === undefined) {
            if ((await b.free(to)) === 10n * USDC) creditedAt = performance.now();
            else await sleep(10);
          }
        })(),
      ]);
      afterConfirmedMs.push(creditedAt! - confirmedAt!);
      sendToCreditMs.push(creditedAt! - t0);
    }
    // ---- withdrawals → payout
    const owner = BridgeNetwork.newAccount();
    const fee = b.genesis.fees.withdrawalFeeUsdc;
    const each = 5n * USDC;
    await b.deposit(owner.address, BigInt(withdrawals) * (each + fee));
    await b.waitFree(owner.address, BigInt(withdrawals) * (each + fee), 60_000);
    const client = b.client();
    const t0 = performance.now();
    const requested = await Promise.all(
      Array.from({ length: withdrawals }, () => client.withdraw(owner, { amount: each, destination: BridgeNetwork.newAccount().address })),
    );
    const tRequested = performance.now() - t0;
    const reached: Record<string, number | undefined> = { signed: undefined, submitted: undefined, paid: undefined };
    const rank: Record<string, number> = { requested: 0, signed: 1, submitted: 2, paid: 3, refunded: 4 };
    await waitFor(
      async () => {
        const ws = (await b.withdrawals(owner.address)).filter((w) => requested.some((r) => r.withdrawal_id === w.withdrawal_id));
        if (ws.some((w) => w.status === 'refunded')) throw new Error('a benchmark withdrawal was refunded');
        const now = performance.now() - t0;
        for (const s of ['signed', 'submitted', 'paid']) if (reached[s] === undefined && ws.length === withdrawals && ws.every((w) => rank[w.status] >= rank[s])) reached[s] = now;
        if (reached.paid !== undefined) return true;
        await sleep(50);
        return undefined;
      },
      180_000,
      'every benchmark withdrawal paid',
    );
    // ---- forged queue → pause (last: it pauses the bridge)
    const { ExchangeBridge } = contractArtifacts();
    const keys = GENESIS_VALIDATOR_KEYS.slice(0, 4) as Hex[];
    const thief = '0x000000000000000000000000000000000000bad0';
    const toPauseMs: number[] = [];
    for (let i = 0; i < forgeries; i++) {
      const id = 1_000_000n + BigInt(i);
      const signatures = await signAll(keys, withdrawalDigest(b.domain, id, thief, USDC, 4_000_000_000n));
      await b.send(b.accounts[0], b.deployment.bridge, ExchangeBridge.abi, 'queueWithdrawal', [id, thief, USDC, 4_000_000_000n, signatures]);
      const t = performance.now();
      while (!(await b.bridgeRead<boolean>('paused'))) await sleep(10);
      toPauseMs.push(performance.now() - t);
      await b.unpause();
    }
    const stats = await b.net.status(1);
    const r = (x: number) => Math.round(x);
    return {
      conditions: `4 validators (processes) on this machine, block time ${b.genesis.consensus.blockTimeMs} ms; hardhat external chain, a block per transaction and one every 1,000 ms; ${confirmations} confirmations; bridge actor poll 500 ms; dispute period ${disputePeriodSec} s`,
      deposits,
      'deposit credit after its confirmation depth, p50 ms': r(quantile(afterConfirmedMs, 0.5)),
      'deposit credit after its confirmation depth, max ms': r(Math.max(...afterConfirmedMs)),
      'deposit credit after its confirmation depth, all ms': afterConfirmedMs.map(r),
      'deposit sent to credit, p50 ms': r(quantile(sendToCreditMs, 0.5)),
      withdrawals,
      'withdrawals requested (all final), ms': r(tRequested),
      'all signed (>2/3 signatures on the chain), ms': r(reached.signed!),
      'all queued on the external chain (attested), ms': r(reached.submitted!),
      'all paid (attested), ms': r(reached.paid!),
      'withdrawals per second to payout': Number(((withdrawals * 1000) / reached.paid!).toFixed(2)),
      'withdrawals per second to payout, the dispute period left out': Number(((withdrawals * 1000) / (reached.paid! - disputePeriodSec * 1000)).toFixed(2)),
      forgeries,
      'forged queue mined to bridge paused, p50 ms': r(quantile(toPauseMs, 0.5)),
      'forged queue mined to bridge paused, all ms': toPauseMs.map(r),
      'validator 1 bridge actor': stats.bridge?.actor ? { watcher: stats.bridge.actor.watcher, relayer: stats.bridge.actor.relayer } : null,
    };
  } finally {
    await b.stop();
  }
}
