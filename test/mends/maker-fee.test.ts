/**
 * Issue 24 mend: the maker fee is read from the genesis (`fees.makerFeeBps`) and charged,
 * as every fee parameter is (decision 103). A resting order locks its maker fee with its
 * margin; each fill pays it to the fee account; the TradeExecuted event carries it
 * (absent when 0, so a chain with makerFeeBps 0 executes to the same bytes as before).
 * The genesis refuses a negative maker fee (no rebates) and one above the taker fee.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimValidators } from '../../src/cli/devnet';
import { parseGenesis } from '../../src/genesis/load';
import type { TradeExecutedEvent } from '../../src/state/events';
import { notional } from '../../src/state/orders/settlement';
import { ROOT } from '../helpers/devnet';
import { accounts, Harness, ok, txs } from '../sessions/harness';

const devnetJson = () => JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
const withFees = (fees: Record<string, unknown>) => {
  const json = devnetJson();
  json.fees = { ...json.fees, ...fees };
  return json;
};

describe('genesis fees.makerFeeBps', () => {
  it('refuses a negative maker fee (a rebate) and one above the taker fee, naming the field', () => {
    expect(() => parseGenesis(withFees({ makerFeeBps: -1 }))).toThrow(/fees\.makerFeeBps/);
    expect(() => parseGenesis(withFees({ makerFeeBps: 4, takerFeeBps: 3 }))).toThrow(/fees\.makerFeeBps/);
    expect(parseGenesis(withFees({ makerFeeBps: 2, takerFeeBps: 3 })).fees.makerFeeBps).toBe(2);
  });
});

// Shows contract [C-limits-fees].
describe('a non-zero maker fee in execution', () => {
  const MAKER_BPS = 2;
  const TAKER_BPS = 3;
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.open(false, trimValidators(parseGenesis(withFees({ makerFeeBps: MAKER_BPS, takerFeeBps: TAKER_BPS })), 1));
  });
  afterAll(async () => h.close());

  it('the resting order locks its fee; the fill charges the maker and pays the fee account', async () => {
    const [maker, taker] = [accounts[0], accounts[1]];
    const price = 2_000_000_000n; // 2000 USDC on ETH (pair 1)
    const size = 10n ** 18n; // 1 ETH
    const value = notional(price, size);
    const makerFee = (value * BigInt(MAKER_BPS) + 9_999n) / 10_000n;
    const takerFee = (value * BigInt(TAKER_BPS) + 9_999n) / 10_000n;
    const feeAccount = h.state.params().feeAccount;
    const before = h.state.account(maker.address);
    const feesBefore = h.state.account(feeAccount).usdcFree;

    ok(await h.one(txs.place(maker.address, maker, { pairId: 1, side: 1, orderType: 1, price, size, nonce: 1n })));
    const resting = [...h.state.orders.entries()].map(([, o]) => o).find((o) => o.owner === maker.address)!;
    expect(resting.locked).toBe(value + makerFee);
    expect(h.state.account(maker.address).usdcLocked - before.usdcLocked).toBe(value + makerFee);

    const fill = await h.one(txs.place(taker.address, taker, { pairId: 1, side: 0, orderType: 1, price, size, nonce: 1n }));
    ok(fill);
    const trade = fill.events.find((e) => e.type === 'TradeExecuted') as TradeExecutedEvent;
    expect(trade).toMatchObject({ makerFee, takerFee });

    const after = h.state.account(maker.address);
    // The maker's short opened with margin = the notional (leverage 1), and it paid its fee; its lock is released.
    expect(after.usdcLocked).toBe(before.usdcLocked);
    expect(after.usdcFree + after.usdcInPositions).toBe(before.usdcFree + before.usdcInPositions - makerFee);
    expect(h.state.account(feeAccount).usdcFree - feesBefore).toBe(makerFee + takerFee);
  });
});
