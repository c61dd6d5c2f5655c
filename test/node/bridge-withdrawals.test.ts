/**
 * Withdrawals end to end (issue 22, items 3 and 4): four validator processes with
 * `--bridge FILE` beside a real hardhat chain (a block a second, 2 confirmations), the
 * bridge deployed with a 60 s dispute period; the external clock is moved with
 * evm_increaseTime where a test needs the dispute period or a validUntil behind it, so the
 * windows in which the owners act are the test's, not a race. Shown here:
 *   - a withdrawal requested through POST /withdraw is signed, queued by the validators'
 *     relayer, paid after the dispute period: the destination's USDC grows by `amount`
 *     exactly, the fee stays on the exchange chain (the fee account's), GET /withdrawals
 *     shows `paid` with the external payout transaction's hash;
 *   - a bridge paused by a validator (a locker) during the dispute period pays nothing
 *     until the owners unpause it, then pays;
 *   - a queued withdrawal cancelled by the owners is refunded once (amount and fee back,
 *     status refunded, reason cancelled), and never paid;
 *   - a withdrawal the paused bridge never queued, once the external chain's time is past
 *     its validUntil, is refunded once (reason expired);
 *   - GET /reserves: the bridge's external balance equals credited deposits − paid
 *     withdrawals, nothing pending, difference 0.
 * Shows contract [D-vault-withdraw].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEventLog, getAddress, type Hex } from 'viem';
import { contractArtifacts } from '../../src/bridge/contracts';
import { BridgeNetwork, USDC } from '../helpers/bridge-network';

const DISPUTE_SEC = 60;
let b: BridgeNetwork;
const owner = BridgeNetwork.newAccount();
const DEPOSIT = 1_000n * USDC;
/**
 * The file's ledger of what its tests did, so each test's expectations follow from it in
 * whatever order they run: what the owner has paid out (amount + fee of each paid
 * withdrawal), what the bridge paid, and each withdrawal's final status, newest first.
 */
let spent = 0n;
let paidOut = 0n;
const outcomes: ('paid' | 'refunded')[] = [];
let fee: bigint;

beforeAll(async () => {
  b = await BridgeNetwork.start({ size: 4, disputePeriodSec: DISPUTE_SEC });
  fee = b.genesis.fees.withdrawalFeeUsdc;
  await b.deposit(owner.address, DEPOSIT);
  await b.waitFree(owner.address, DEPOSIT);
}, 150_000);
afterAll(async () => {
  await b?.stop();
});

/** Moves the external clock `seconds` ahead and mines a block there. */
async function externalTimePasses(seconds: number): Promise<void> {
  await b.rpc('evm_increaseTime', [seconds]);
  await b.rpc('evm_mine');
}

const destination = () => BridgeNetwork.newAccount().address;

describe('withdrawals against a real external chain', () => {
  // Shows contract [C-service-vault], [C-vault-withdraw].
  it('is signed, queued, paid after the dispute period: the destination gets the amount, the fee stays here', async () => {
    const to = destination();
    const feeAccount = b.genesis.feeAccount;
    const feesBefore = await b.free(feeAccount);
    const res = await b.withdraw(owner, 100n * USDC, to);
    expect(res).toMatchObject({ success: true, status: 'requested', amount: String(100n * USDC), fee: String(fee) });
    expect(await b.balances(owner.address)).toEqual({ free: DEPOSIT - spent - 100n * USDC - fee, locked: 100n * USDC + fee });
    const queued = await b.waitWithdrawal(owner.address, res.withdrawal_id, 'submitted');
    expect(queued.signatures).toBeGreaterThanOrEqual(3);
    expect(queued.queued_tx).toMatch(/^0x[0-9a-f]{64}$/);
    // Not before the dispute period.
    await b.waitExternalBlock((await b.head()).number + 3n);
    expect(await b.usdcBalance(to)).toBe(0n);
    await externalTimePasses(DISPUTE_SEC + 1);
    const paid = await b.waitWithdrawal(owner.address, res.withdrawal_id, 'paid');
    spent += 100n * USDC + fee;
    paidOut += 100n * USDC;
    outcomes.unshift('paid');
    expect(await b.usdcBalance(to)).toBe(100n * USDC);
    // paid_tx is the external transaction that paid it: the bridge's WithdrawalPaid is in it.
    const receipt = await b.pub.getTransactionReceipt({ hash: paid.paid_tx as Hex });
    const events = receipt.logs
      .filter((l) => l.address.toLowerCase() === b.deployment.bridge.toLowerCase())
      .map((l) => decodeEventLog({ abi: contractArtifacts().ExchangeBridge.abi, data: l.data, topics: l.topics }) as unknown as { eventName: string; args: any });
    expect(events).toContainEqual({ eventName: 'WithdrawalPaid', args: { withdrawalId: BigInt(res.withdrawal_id), recipient: getAddress(to), amount: 100n * USDC } });
    expect(paid).toMatchObject({ amount: String(100n * USDC), fee: String(fee), destination: to.toLowerCase(), refund_reason: null });
    for (const n of b.net.nodes) {
      expect(await b.balances(owner.address, n.index)).toEqual({ free: DEPOSIT - spent, locked: 0n });
      expect(await b.free(feeAccount, n.index)).toBe(feesBefore + fee);
    }
  }, 120_000);

  it('a bridge paused in the dispute period pays nothing until the owners unpause it', async () => {
    const to = destination();
    const res = await b.withdraw(owner, 50n * USDC, to);
    await b.waitWithdrawal(owner.address, res.withdrawal_id, 'submitted');
    await b.pause(2); // validator 3's key: any validator is a locker
    await externalTimePasses(DISPUTE_SEC + 1);
    // The relayer tries and is refused (IsPaused) while blocks pass.
    await b.waitExternalBlock((await b.head()).number + 5n);
    expect(await b.usdcBalance(to)).toBe(0n);
    expect((await b.withdrawal(owner.address, res.withdrawal_id)).status).toBe('submitted');
    await b.unpause();
    await b.waitWithdrawal(owner.address, res.withdrawal_id, 'paid');
    spent += 50n * USDC + fee;
    paidOut += 50n * USDC;
    outcomes.unshift('paid');
    expect(await b.usdcBalance(to)).toBe(50n * USDC);
    await b.waitFree(owner.address, DEPOSIT - spent);
  }, 120_000);

  it('a queued withdrawal the owners cancel is refunded once and never paid', async () => {
    const to = destination();
    const res = await b.withdraw(owner, 30n * USDC, to);
    expect(await b.free(owner.address)).toBe(DEPOSIT - spent - 30n * USDC - fee);
    await b.waitWithdrawal(owner.address, res.withdrawal_id, 'submitted');
    const { txHash } = await b.cancelWithdrawal(BigInt(res.withdrawal_id));
    const refunded = await b.waitWithdrawal(owner.address, res.withdrawal_id, 'refunded');
    expect(refunded).toMatchObject({ refund_reason: 'cancelled', paid_tx: null });
    outcomes.unshift('refunded');
    await b.waitFree(owner.address, DEPOSIT - spent);
    // Past its dispute period nothing pays it, and the refund is not repeated.
    await externalTimePasses(DISPUTE_SEC + 1);
    await b.waitExternalBlock((await b.head()).number + 4n);
    await b.net.waitHeight((await b.net.height(1)) + 3);
    expect(await b.usdcBalance(to)).toBe(0n);
    for (const n of b.net.nodes) expect(await b.balances(owner.address, n.index)).toEqual({ free: DEPOSIT - spent, locked: 0n });
    expect(txHash).toMatch(/^0x/);
  }, 120_000);

  it('a withdrawal the paused bridge never queued is refunded once when the external time passes its validUntil', async () => {
    await b.pause(0);
    const to = destination();
    const res = await b.withdraw(owner, 20n * USDC, to);
    const signed = await b.waitWithdrawal(owner.address, res.withdrawal_id, 'signed');
    await b.waitExternalBlock((await b.head()).number + 3n);
    expect((await b.withdrawal(owner.address, res.withdrawal_id)).status).toBe('signed');
    // The external chain's clock goes past validUntil: the contract can never queue or pay it now.
    const now = (await b.head()).timestampSec;
    await externalTimePasses(Number(BigInt(signed.valid_until) - now) + 5);
    const refunded = await b.waitWithdrawal(owner.address, res.withdrawal_id, 'refunded');
    expect(refunded).toMatchObject({ refund_reason: 'expired', queued_tx: null, paid_tx: null });
    outcomes.unshift('refunded');
    await b.waitFree(owner.address, DEPOSIT - spent);
    await b.unpause();
    await b.waitExternalBlock((await b.head()).number + 4n);
    await b.net.waitHeight((await b.net.height(1)) + 3);
    expect(await b.usdcBalance(to)).toBe(0n);
    for (const n of b.net.nodes) expect(await b.balances(owner.address, n.index)).toEqual({ free: DEPOSIT - spent, locked: 0n });
  }, 120_000);

  it('GET /reserves: the bridge holds credited deposits minus paid withdrawals, difference 0', async () => {
    // After the file's other tests, in file order: 150 USDC paid out, two refunded, two paid.
    expect(await b.usdcBalance(b.deployment.bridge)).toBe(DEPOSIT - paidOut);
    for (const n of b.net.nodes) {
      const r = await b.reserves(n.index);
      expect(r).toMatchObject({ credited_deposits: String(DEPOSIT), paid_withdrawals: String(paidOut), pending_withdrawals: '0', difference: '0' });
      expect(r.external.balance).toBe(String(DEPOSIT - paidOut));
      expect((await b.withdrawals(owner.address, n.index)).map((w) => w.status)).toEqual(outcomes);
    }
  });
});
