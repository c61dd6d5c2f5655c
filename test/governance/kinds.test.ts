/**
 * The governance kinds of decision 76: AddPair (shape refused at proposal naming the
 * field; the pair trades once executed: native and REST orders match on it, perps open
 * on it once its oracle median exists), SetParam over limits and validator parameters
 * (ranges and relations; in force from the block after its execution), SetOwners
 * (high-impact timelock; only the new owners act after it; ex-owners' signatures on a
 * pending operation no longer count), and the halt, which neither shortcuts an owner
 * change nor lets funds out.
 */
import { describe, expect, it } from 'vitest';
import { decodeTx } from '../../src/codec/tx';
import { GovOpKind, GovParam, operationBytes, readOperation, type AddedPair, type GovOperation, type GovProposeBody } from '../../src/codec/txs/governance';
import { Reader } from '../../src/codec/binary';
import { operationFromJson, operationToJson } from '../../src/codec/txs/governance-json';
import { PAIR_MARKETS_BOTH } from '../../src/genesis/types';
import { DEVNET_ORACLE_SOURCE } from '../../src/state/pair-markets';
import { operationStateAt, timelockOf } from '../../src/state/governance/operations';
import { governanceCodec } from '../../src/state/governance/record';
import { bytesToHex, type Address } from '../../src/util/bytes';
import { failure, GovChain, HIGH_IMPACT_MS, OWNERS, ROUTINE_MS, TRADER, TRADER2, type Signer } from './harness';
import { keyOf } from '../validators/harness';

const [A, B, C] = OWNERS;
const ok = (r: { status: string; code?: string; message?: string }) => expect(r.status, `${r.code}: ${r.message}`).toBe('ok');
const root = (g: GovChain) => bytesToHex(g.state.root());
const P = 1_000_000n;
const E18 = 10n ** 18n;

const NEW_PAIR: AddedPair = {
  id: 100,
  symbol: 'PEPE',
  tickSize: 1_000n,
  lotSize: 10n ** 16n,
  minSize: 10n ** 16n,
  maxLeverage: 10,
  maintenanceMarginBps: 500,
  openInterestCapBps: 2_000,
  initialPrice: 2n * P,
  markets: PAIR_MARKETS_BOTH,
  oracleSource: DEVNET_ORACLE_SOURCE,
};
const addPair = (pair: Partial<AddedPair> = {}): GovOperation => ({ kind: GovOpKind.AddPair, pair: { ...NEW_PAIR, ...pair } });
const setParam = (param: GovParam, value: bigint): GovOperation => ({ kind: GovOpKind.SetParam, param, value });

/** Proposed by A, approved by B, executed by C once its timelock has passed: the executing block's receipt. */
function pass(g: GovChain, op: GovOperation, by: [Signer, Signer, Signer] = [A, B, C]) {
  const p = g.propose(by[0], op);
  ok(g.one(p.tx));
  ok(g.one(g.approve(by[1], p.id)));
  const readyAt = g.state.governance.get(p.id)!.context.readyAtMs;
  const r = g.one(g.execute(by[2], p.id), readyAt);
  ok(r);
  return { id: p.id, height: g.state.head().height };
}

/** The proposal's refusal: status, code, and the message naming the field. */
function refusedProposal(g: GovChain, op: GovOperation, field: RegExp, code = 'INVALID_OPERATION') {
  const r = g.one(g.propose(A, op).tx);
  expect(failure(r)).toEqual({ status: 400, code });
  expect(r.message).toMatch(field);
  expect(g.state.governance.size).toBe(0);
}

describe('AddPair', () => {
  it('is refused at proposal, naming the field: duplicate id or symbol, zero increments, bad leverage or margin, bad symbol', () => {
    const g = new GovChain();
    const existing = g.state.pairs.get('1')!;
    refusedProposal(g, addPair({ id: 1 }), /operation\.pair\.id: pair 1 exists/);
    refusedProposal(g, addPair({ symbol: existing.symbol }), /operation\.pair\.symbol: .* is pair 1's symbol/);
    refusedProposal(g, addPair({ tickSize: 0n }), /operation\.pair\.tickSize/);
    refusedProposal(g, addPair({ lotSize: 0n }), /operation\.pair\.lotSize/);
    refusedProposal(g, addPair({ minSize: 15n * 10n ** 15n }), /operation\.pair\.minSize: must be a multiple/);
    refusedProposal(g, addPair({ maxLeverage: g.state.params().limits.maxLeverage + 1 }), /operation\.pair\.maxLeverage/);
    refusedProposal(g, addPair({ maxLeverage: 3, maintenanceMarginBps: 1666 }), /operation\.pair\.maxLeverage: must divide 5000/);
    refusedProposal(g, addPair({ maintenanceMarginBps: 400 }), /operation\.pair\.maintenanceMarginBps/);
    refusedProposal(g, addPair({ openInterestCapBps: 0 }), /operation\.pair\.openInterestCapBps/);
    refusedProposal(g, addPair({ symbol: 'pepe' }), /operation\.pair\.symbol/);
    refusedProposal(g, addPair({ initialPrice: 1n }), /operation\.pair\.initialPrice/);
  });

  it('is checked again at execution: a pair of the same symbol added meanwhile makes it refused, the operation left ready', () => {
    const g = new GovChain();
    const first = g.propose(A, addPair());
    const second = g.propose(B, addPair({ id: 101 }));
    ok(g.one(first.tx));
    ok(g.one(second.tx));
    ok(g.one(g.approve(C, first.id)));
    ok(g.one(g.approve(C, second.id)));
    ok(g.one(g.execute(A, first.id), g.timeMs + ROUTINE_MS));
    const r = g.one(g.execute(A, second.id));
    expect(failure(r)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    expect(r.message).toMatch(/operation\.pair\.symbol/);
    expect(g.state.pairs.has('101')).toBe(false);
    expect(operationStateAt(g.state.governance.get(second.id)!, g.timeMs).state).toBe('ready');
    expect(g.state.pairs.get(String(NEW_PAIR.id))).toEqual(NEW_PAIR);
  });

  it('waits the routine timelock; once executed the pair trades: native and REST orders match on it, perps open on it', () => {
    const g = new GovChain();
    // Before: no such pair.
    expect(failure(g.one(g.orderOn(TRADER, NEW_PAIR.id, 0, 2n * P, E18)))).toEqual({ status: 400, code: 'UNKNOWN_PAIR' });
    expect(failure(g.one(g.restOrder(TRADER, 'PEPE', 'buy', '2', '1')))).toEqual({ status: 400, code: 'UNKNOWN_PAIR' });

    const p = g.propose(A, addPair());
    ok(g.one(p.tx));
    ok(g.one(g.approve(B, p.id)));
    expect(g.state.governance.get(p.id)!.context.timelockMs).toBe(ROUTINE_MS);
    expect(failure(g.one(g.execute(C, p.id)))).toEqual({ status: 422, code: 'TIMELOCK_NOT_PASSED' });
    ok(g.one(g.execute(C, p.id), g.state.governance.get(p.id)!.context.readyAtMs));
    expect(g.state.pairs.get(String(NEW_PAIR.id))).toEqual(NEW_PAIR);
    expect(g.state.symbolToPair.get('PEPE')).toBe(NEW_PAIR.id);

    // Native orders: a resting sell, then a buy that crosses it.
    ok(g.one(g.orderOn(TRADER2, NEW_PAIR.id, 1, 2n * P, E18)));
    const buy = g.one(g.orderOn(TRADER, NEW_PAIR.id, 0, 2n * P, E18));
    ok(buy);
    expect(buy.events.filter((e) => e.type === 'TradeExecuted')).toHaveLength(1);
    expect(g.state.position(TRADER.address, NEW_PAIR.id).size).toBe(E18);
    expect(g.state.position(TRADER2.address, NEW_PAIR.id).size).toBe(-E18);

    // REST orders by symbol: the same.
    ok(g.one(g.restOrder(TRADER2, 'PEPE', 'sell', '2.001', '0.5')));
    ok(g.one(g.restOrder(TRADER, 'PEPE', 'buy', '2.001', '0.5')));
    expect(g.state.position(TRADER.address, NEW_PAIR.id).size).toBe(E18 + E18 / 2n);

    // Perps need the pair's oracle median: refused until the validators' observations bring one.
    expect(failure(g.one(g.perpOpen(TRADER, NEW_PAIR.id))).code).toMatch(/ORACLE|PRICE|STALE/);
    for (const r of g.block(g.observations(NEW_PAIR.id, 2n * P, g.timeMs + 1000), g.timeMs + 1000).receipts) ok(r);
    const open = g.one(g.perpOpen(TRADER, NEW_PAIR.id, '100', 5));
    ok(open);
    expect(open.events.some((e) => e.type === 'PerpOpened')).toBe(true);
    // Beyond the pair's own max leverage: refused by the pair's parameters.
    expect(failure(g.one(g.perpOpen(TRADER, NEW_PAIR.id, '100', 20))).code).toBe('INVALID_LEVERAGE');
  });

  it('encodes and decodes to the same operation, a proposal transaction round-trips, and its stored record decodes as stored', () => {
    const g = new GovChain();
    for (const op of [addPair(), { kind: GovOpKind.SetOwners, owners: [TRADER.address, TRADER2.address, A.address] } as GovOperation]) {
      expect(readOperation(new Reader(operationBytes(op)))).toEqual(op);
      const p = g.propose(A, op);
      expect((decodeTx(p.tx.bytes, 1 << 20).body as GovProposeBody).operation).toEqual(op);
      ok(g.one(p.tx));
      const rec = g.state.governance.get(p.id)!;
      expect(governanceCodec.decode(governanceCodec.encode(rec))).toEqual(rec);
    }
  });
});

describe('the JSON form of the new kinds (decision 80)', () => {
  it('round-trips AddPair and SetOwners, and names a bad field of a pair', () => {
    const ops: GovOperation[] = [addPair(), { kind: GovOpKind.SetOwners, owners: [TRADER.address, TRADER2.address, A.address] }];
    for (const op of ops) expect(operationFromJson(JSON.parse(JSON.stringify(operationToJson(op))))).toEqual(op);
    expect(operationToJson(addPair())).toEqual({ kind: 'AddPair', pair: { id: 100, symbol: 'PEPE', tickSize: '1000', lotSize: '10000000000000000', minSize: '10000000000000000', maxLeverage: 10, maintenanceMarginBps: 500, openInterestCapBps: 2000, initialPrice: '2000000', markets: ['spot', 'perp'], oracleSource: 'devnet-path' } });
    const json = operationToJson(addPair()) as { pair: Record<string, unknown> };
    expect(() => operationFromJson({ ...json, pair: { ...json.pair, tickSize: 1000 } })).toThrow(/pair\.tickSize: must be a decimal string/);
    expect(() => operationFromJson({ ...json, pair: { ...json.pair, colour: 'red' } })).toThrow(/pair\.colour: unknown field/);
    expect(() => operationFromJson({ kind: 'SetOwners', owners: [A.address, B.address] })).toThrow(/owners: must be an array of three addresses/);
  });
});

describe('SetParam over the limits and the validator parameters', () => {
  it('is refused at proposal out of range or breaking a relation, naming the parameter', () => {
    const g = new GovChain();
    const c = g.state.params().consensus;
    const cases: [GovParam, bigint, RegExp][] = [
      [GovParam.SlashDowntimeBps, 10_001n, /consensus\.slashDowntimeBps must be from 0 to 10000/],
      [GovParam.SlashDoubleSignBps, 10_001n, /consensus\.slashDoubleSignBps/],
      [GovParam.DowntimeMaxMissedBps, 0n, /consensus\.downtimeMaxMissedBps/],
      [GovParam.DowntimeWindowBlocks, 0n, /consensus\.downtimeWindowBlocks/],
      [GovParam.VotingPowerCapBps, 10_001n, /consensus\.votingPowerCapBps/],
      [GovParam.ActiveSetMin, 3n, /consensus\.activeSetMin must be from 4/],
      [GovParam.ActiveSetMin, BigInt(c.activeSetMax + 1), /consensus\.activeSetMin must be at most consensus\.activeSetMax/],
      [GovParam.ActiveSetMax, BigInt(c.activeSetMin - 1), /consensus\.activeSetMax must be from 4|must be at least consensus\.activeSetMin/],
      [GovParam.MinBondWei, c.maxBondWei + 1n, /consensus\.minBondWei must be at most consensus\.maxBondWei/],
      [GovParam.MaxBondWei, c.minBondWei - 1n, /consensus\.maxBondWei must be at least consensus\.minBondWei/],
      [GovParam.MaxLeverage, 51n, /limits\.maxLeverage must be from 1 to 50/],
      [GovParam.TpslCheckIntervalMs, BigInt(g.state.params().limits.fundingIntervalMs + 1), /limits\.tpslCheckIntervalMs must be at most limits\.fundingIntervalMs/],
      [GovParam.MaxSessionDurationMs, 0n, /limits\.maxSessionDurationMs/],
      [GovParam.MakerFeeBps, 10_001n, /fees\.makerFeeBps/],
    ];
    for (const [param, value, message] of cases) refusedProposal(g, setParam(param, value), message);
  });

  it('a relation is checked again at execution against the parameters then in force', () => {
    const g = new GovChain();
    const c = g.state.params().consensus;
    // Both fine alone; together min > max. The second to execute is refused.
    const raiseMin = g.propose(A, setParam(GovParam.MinBondWei, c.maxBondWei - TOKEN_WEI));
    const lowerMax = g.propose(A, setParam(GovParam.MaxBondWei, c.minBondWei + TOKEN_WEI));
    ok(g.one(raiseMin.tx));
    ok(g.one(lowerMax.tx));
    ok(g.one(g.approve(B, raiseMin.id)));
    ok(g.one(g.approve(B, lowerMax.id)));
    ok(g.one(g.execute(C, raiseMin.id), g.timeMs + ROUTINE_MS));
    const r = g.one(g.execute(C, lowerMax.id));
    expect(failure(r)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    expect(r.message).toMatch(/consensus\.maxBondWei must be at least consensus\.minBondWei/);
    expect(g.state.params().consensus.maxBondWei).toBe(c.maxBondWei);
  });

  it('takes effect from the block after its execution height: the session limit, the slash rate, the bond bounds', () => {
    const g = new GovChain();
    const { height } = pass(g, setParam(GovParam.MaxBondWei, 6_000n * TOKEN_WEI));
    expect(g.state.head().height).toBe(height);
    expect(g.state.params().consensus.maxBondWei).toBe(6_000n * TOKEN_WEI);
    const slash = pass(g, setParam(GovParam.SlashDowntimeBps, 1234n));
    expect(g.state.params().consensus.slashDowntimeBps).toBe(1234);
    expect(slash.height).toBeGreaterThan(height);
    // Values are stored with their type: numbers stay numbers, bigints bigints.
    expect(typeof g.state.params().consensus.slashDowntimeBps).toBe('number');
    expect(typeof g.state.params().consensus.maxBondWei).toBe('bigint');
  });
});

const TOKEN_WEI = 10n ** 18n;

describe('a parameter change on every node', () => {
  it('four states applying the same blocks reach the same root at every height, and the new value from the height after execution', () => {
    const nodes = [new GovChain(), new GovChain(), new GovChain(), new GovChain()];
    const [g] = nodes;
    const op = setParam(GovParam.SlashDowntimeBps, 250n);
    const p = g.propose(A, op);
    const ap = g.approve(B, p.id);
    const ex = g.execute(C, p.id);
    const t0 = g.timeMs;
    const plan: [typeof p.tx[], number][] = [
      [[p.tx], t0 + 1000],
      [[ap], t0 + 2000],
      [[], t0 + 3000],
      [[ex], t0 + 2000 + ROUTINE_MS],
      [[], t0 + 3000 + ROUTINE_MS],
    ];
    const before = g.state.params().consensus.slashDowntimeBps;
    let executedAt = 0;
    for (const [txs, at] of plan) {
      const results = nodes.map((n) => n.block(txs, at));
      const roots = new Set(nodes.map(root));
      expect(roots.size).toBe(1);
      for (const r of results) expect(r.receipts).toEqual(results[0].receipts);
      if (txs[0] === ex) executedAt = g.state.head().height;
      for (const n of nodes) expect(n.state.params().consensus.slashDowntimeBps).toBe(executedAt ? 250 : before);
    }
    expect(executedAt).toBeGreaterThan(0);
  });
});

describe('SetOwners', () => {
  const NEW: Signer[] = [keyOf(101), keyOf(102), keyOf(103)].map((k) => ({ priv: k.privateKey, address: k.address }));
  const newOwners = (): GovOperation => ({ kind: GovOpKind.SetOwners, owners: [NEW[0].address, NEW[1].address, NEW[2].address] });

  it('is refused at proposal with a repeated or zero owner', () => {
    const g = new GovChain();
    refusedProposal(g, { kind: GovOpKind.SetOwners, owners: [NEW[0].address, NEW[1].address, NEW[0].address.toUpperCase().replace('0X', '0x') as Address] }, /operation\.owners\[2\]: .* named twice/);
    refusedProposal(g, { kind: GovOpKind.SetOwners, owners: [NEW[0].address, '0x0000000000000000000000000000000000000000', NEW[2].address] }, /operation\.owners\[1\]: the zero address/);
  });

  it('waits the high-impact timelock; then only the new owners act, and a pending operation of the old owners no longer executes', () => {
    const g = new GovChain();
    expect(timelockOf(g.state.params(), newOwners())).toBe(HIGH_IMPACT_MS);
    expect(timelockOf(g.state.params(), { kind: GovOpKind.Halt })).toBe(0);
    expect(timelockOf(g.state.params(), addPair())).toBe(ROUTINE_MS);

    // An operation of the old owners, approved, still waiting.
    const pendingFee = g.propose(A, setParam(GovParam.TakerFeeBps, 9n));
    ok(g.one(pendingFee.tx));
    ok(g.one(g.approve(B, pendingFee.id)));

    const p = g.propose(A, newOwners());
    ok(g.one(p.tx));
    ok(g.one(g.approve(C, p.id)));
    const approvedAt = g.timeMs;
    expect(g.state.governance.get(p.id)!.context.readyAtMs).toBe(approvedAt + HIGH_IMPACT_MS);
    // The routine timelock is not enough.
    expect(failure(g.one(g.execute(B, p.id), approvedAt + ROUTINE_MS))).toEqual({ status: 422, code: 'TIMELOCK_NOT_PASSED' });
    ok(g.one(g.execute(B, p.id), approvedAt + HIGH_IMPACT_MS));
    expect(g.state.params().owners.addresses).toEqual(NEW.map((n) => n.address));

    // Old owners are refused; the new ones propose, approve and execute.
    expect(failure(g.one(g.propose(A, setParam(GovParam.TakerFeeBps, 8n)).tx))).toEqual({ status: 403, code: 'NOT_GOVERNANCE_OWNER' });
    // The pending operation keeps its state, but its signatures were the old owners': a new owner cannot execute it.
    expect(operationStateAt(g.state.governance.get(pendingFee.id)!, g.timeMs).state).toBe('ready');
    const stale = g.one(g.execute(NEW[0], pendingFee.id));
    expect(failure(stale)).toEqual({ status: 403, code: 'NOT_GOVERNANCE_OWNER' });
    expect(stale.message).toMatch(/no longer an owner/);
    expect(g.state.params().fees.takerFeeBps).not.toBe(9);
    // Two new owners may cancel it (decision 162).
    ok(g.one(g.cancel(NEW[1], pendingFee.id)));
    ok(g.one(g.cancel(NEW[2], pendingFee.id)));
    expect(g.state.governance.get(pendingFee.id)!.state).toBe('cancelled');

    pass(g, setParam(GovParam.TakerFeeBps, 8n), [NEW[0], NEW[1], NEW[2]]);
    expect(g.state.params().fees.takerFeeBps).toBe(8);
  });

  it('an operation proposed by an owner later removed cannot be approved by the new owners', () => {
    const g = new GovChain();
    const proposedByA = g.propose(A, setParam(GovParam.TakerFeeBps, 9n));
    ok(g.one(proposedByA.tx));
    // Keep B and C, replace A.
    const swap = g.propose(B, { kind: GovOpKind.SetOwners, owners: [NEW[0].address, B.address, C.address] });
    ok(g.one(swap.tx));
    ok(g.one(g.approve(C, swap.id)));
    ok(g.one(g.execute(B, swap.id), g.timeMs + HIGH_IMPACT_MS));
    const r = g.one(g.approve(C, proposedByA.id));
    expect(failure(r)).toEqual({ status: 403, code: 'NOT_GOVERNANCE_OWNER' });
    expect(g.state.governance.get(proposedByA.id)!.state).toBe('proposed');
  });
});

describe('a halt does not shortcut anything', () => {
  it('during a halt an owner change still waits its high-impact timelock, and withdrawals move no funds', () => {
    const g = new GovChain();
    const halt = g.propose(A, { kind: GovOpKind.Halt });
    ok(g.one(halt.tx));
    ok(g.one(g.approve(B, halt.id)));
    expect(g.state.meta.get('halt')).toBeDefined();
    const owners = g.state.params().owners;
    const account = g.state.account(TRADER.address);
    const supply = g.state.supply();

    expect(failure(g.one(g.withdraw(TRADER, 5_000_000n)))).toEqual({ status: 422, code: 'CHAIN_HALTED' });
    const swap = g.propose(A, { kind: GovOpKind.SetOwners, owners: [TRADER.address, B.address, C.address] });
    ok(g.one(swap.tx));
    ok(g.one(g.approve(B, swap.id)));
    expect(g.state.governance.get(swap.id)!.context.timelockMs).toBe(HIGH_IMPACT_MS);
    expect(failure(g.one(g.execute(C, swap.id), g.timeMs + ROUTINE_MS))).toEqual({ status: 422, code: 'TIMELOCK_NOT_PASSED' });
    expect(g.state.params().owners).toEqual(owners);
    expect(g.state.account(TRADER.address)).toEqual(account);
    expect(g.state.supply()).toEqual(supply);
    expect(g.state.withdrawals.size).toBe(0);
  });
});
