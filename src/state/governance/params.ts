/**
 * The parameters a SetParam operation may change (decision 74 for the fees, decision 76
 * for the limits and the validator parameters, decision 114 for issue 24's limits): where
 * each lives in the chain parameters (state meta `params`), its range, and the relations
 * to the others it must keep (the maker fee at most the taker fee: decision 113).
 *
 * Every parameter here is read by execution from the state's parameters at the start of
 * each block (src/state/apply.ts), so an executed change takes effect from the next
 * block, at the same height on every node. consensus.epochLengthBlocks is not here:
 * epochs are numbered height / epochLengthBlocks and the validator records hold epoch
 * numbers (jailed until, unbonding done at), so a new length would renumber the epochs
 * (backwards when it grows) under them (decision 76).
 *
 * `paramShape` is the proposal's check (400 INVALID_OPERATION naming the parameter) and
 * runs again at execution, against the parameters then in force: another executed
 * change may have moved the bound a relation reads (min bond against max bond).
 */
import { GOV_PARAM_NAMES, GovParam } from '../../codec/txs/governance';
import { ACTIVE_SET_MAX_BOUND, PROTOCOL_MAX_LEVERAGE, VOTING_POWER_CAP_BPS_MAX, SCHEDULE_CANCELS_PER_DAY_RANGE, TWAP_SLICE_INTERVAL_MS_RANGE } from '../../genesis/sections';
import { badRequest } from '../errors';
import type { ChainParams } from '../records';
import { PROTOCOL_MAX_SUB_ACCOUNTS } from '../accounts/subaccounts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const BPS = 10_000n;
/** The active set's floor a governance change may not go under: BFT needs 3f + 1 with f ≥ 1. */
const ACTIVE_SET_MIN_FLOOR = 4;

type Section = 'fees' | 'limits' | 'consensus';

interface ParamRule {
  section: Section;
  field: string;
  min: bigint;
  max: bigint;
  /** A bigint field (USDC, wei); the others are JS numbers. */
  big?: true;
  /** The relation to the other parameters, as they would be with the change: a message when broken. */
  relation?: (next: ChainParams) => string | undefined;
}

const RULES: Readonly<Record<GovParam, ParamRule>> = {
  // The genesis rule (decision 103): no rebate, and a maker pays at most what a taker pays.
  [GovParam.MakerFeeBps]: {
    section: 'fees',
    field: 'makerFeeBps',
    min: 0n,
    max: BPS,
    relation: (p) => (p.fees.makerFeeBps > p.fees.takerFeeBps ? `must be at most fees.takerFeeBps (${p.fees.takerFeeBps})` : undefined),
  },
  [GovParam.TakerFeeBps]: {
    section: 'fees',
    field: 'takerFeeBps',
    min: 0n,
    max: BPS,
    relation: (p) => (p.fees.takerFeeBps < p.fees.makerFeeBps ? `must be at least fees.makerFeeBps (${p.fees.makerFeeBps})` : undefined),
  },
  [GovParam.WithdrawalFeeUsdc]: { section: 'fees', field: 'withdrawalFeeUsdc', min: 0n, max: 2n ** 128n - 1n, big: true },
  [GovParam.MinWithdrawalUsdc]: { section: 'fees', field: 'minWithdrawalUsdc', min: 0n, max: 2n ** 128n - 1n, big: true },
  [GovParam.MaxSessionDurationMs]: { section: 'limits', field: 'maxSessionDurationMs', min: 1n, max: MAX_SAFE },
  // Bounds the leverage of pairs added afterwards (AddPair); the pairs that exist keep theirs.
  [GovParam.MaxLeverage]: { section: 'limits', field: 'maxLeverage', min: 1n, max: BigInt(PROTOCOL_MAX_LEVERAGE) },
  [GovParam.PoolLockupMs]: { section: 'limits', field: 'poolLockupMs', min: 0n, max: MAX_SAFE },
  [GovParam.TpslCheckIntervalMs]: {
    section: 'limits',
    field: 'tpslCheckIntervalMs',
    min: 1n,
    max: MAX_SAFE,
    relation: (p) => (p.limits.tpslCheckIntervalMs > p.limits.fundingIntervalMs ? `must be at most limits.fundingIntervalMs (${p.limits.fundingIntervalMs})` : undefined),
  },
  [GovParam.FundingIntervalMs]: {
    section: 'limits',
    field: 'fundingIntervalMs',
    min: 1n,
    max: MAX_SAFE,
    relation: (p) => (p.limits.fundingIntervalMs < p.limits.tpslCheckIntervalMs ? `must be at least limits.tpslCheckIntervalMs (${p.limits.tpslCheckIntervalMs})` : undefined),
  },
  [GovParam.UnbondingEpochs]: { section: 'consensus', field: 'unbondingEpochs', min: 0n, max: 1_000_000n },
  [GovParam.SlashDowntimeBps]: { section: 'consensus', field: 'slashDowntimeBps', min: 0n, max: BPS },
  [GovParam.SlashDoubleSignBps]: { section: 'consensus', field: 'slashDoubleSignBps', min: 0n, max: BPS },
  [GovParam.DowntimeWindowBlocks]: { section: 'consensus', field: 'downtimeWindowBlocks', min: 1n, max: 10_000_000n },
  [GovParam.DowntimeMaxMissedBps]: { section: 'consensus', field: 'downtimeMaxMissedBps', min: 1n, max: BPS },
  [GovParam.MinBondWei]: {
    section: 'consensus',
    field: 'minBondWei',
    min: 1n,
    max: 2n ** 128n - 1n,
    big: true,
    relation: (p) => (p.consensus.minBondWei > p.consensus.maxBondWei ? `must be at most consensus.maxBondWei (${p.consensus.maxBondWei})` : undefined),
  },
  [GovParam.MaxBondWei]: {
    section: 'consensus',
    field: 'maxBondWei',
    min: 1n,
    max: 2n ** 128n - 1n,
    big: true,
    relation: (p) => (p.consensus.maxBondWei < p.consensus.minBondWei ? `must be at least consensus.minBondWei (${p.consensus.minBondWei})` : undefined),
  },
  [GovParam.ActiveSetMin]: {
    section: 'consensus',
    field: 'activeSetMin',
    min: BigInt(ACTIVE_SET_MIN_FLOOR),
    max: BigInt(ACTIVE_SET_MAX_BOUND),
    relation: (p) => (p.consensus.activeSetMin > p.consensus.activeSetMax ? `must be at most consensus.activeSetMax (${p.consensus.activeSetMax})` : undefined),
  },
  [GovParam.ActiveSetMax]: {
    section: 'consensus',
    field: 'activeSetMax',
    min: BigInt(ACTIVE_SET_MIN_FLOOR),
    max: BigInt(ACTIVE_SET_MAX_BOUND),
    relation: (p) => (p.consensus.activeSetMax < p.consensus.activeSetMin ? `must be at least consensus.activeSetMin (${p.consensus.activeSetMin})` : undefined),
  },
  [GovParam.VotingPowerCapBps]: { section: 'consensus', field: 'votingPowerCapBps', min: 1n, max: BigInt(VOTING_POWER_CAP_BPS_MAX) },
  // Issue 24's limits (decision 114), the genesis ranges. Lowering maxSubAccounts stops
  // new sub-accounts only: the existing ones keep trading (the signer rule's stateless
  // check reads the protocol bound, src/state/accounts/sessions.ts).
  [GovParam.MaxSubAccounts]: { section: 'limits', field: 'maxSubAccounts', min: 1n, max: BigInt(PROTOCOL_MAX_SUB_ACCOUNTS) },
  [GovParam.ScheduleCancelsPerDay]: {
    section: 'limits',
    field: 'scheduleCancelsPerDay',
    min: BigInt(SCHEDULE_CANCELS_PER_DAY_RANGE[0]),
    max: BigInt(SCHEDULE_CANCELS_PER_DAY_RANGE[1]),
  },
  // A running TWAP keeps its slice count; its later slices are spaced by the interval in force (src/state/timers/twap.ts).
  [GovParam.TwapSliceIntervalMs]: { section: 'limits', field: 'twapSliceIntervalMs', min: BigInt(TWAP_SLICE_INTERVAL_MS_RANGE[0]), max: BigInt(TWAP_SLICE_INTERVAL_MS_RANGE[1]) },
};

/** The chain parameters with `param` set to `value` (a new object; `params` is not touched). */
export function withParam(params: ChainParams, param: GovParam, value: bigint): ChainParams {
  const rule = RULES[param];
  const section = { ...(params[rule.section] as unknown as Record<string, unknown>), [rule.field]: rule.big ? value : Number(value) };
  return { ...params, [rule.section]: section };
}

/** 400 INVALID_OPERATION unless `value` is in the parameter's range and keeps its relations to the parameters `params`. */
export function paramShape(params: ChainParams, param: GovParam, value: bigint): void {
  const rule = RULES[param];
  const name = GOV_PARAM_NAMES[param];
  if (value < rule.min || value > rule.max) throw badRequest('INVALID_OPERATION', `operation.value: ${name} must be from ${rule.min} to ${rule.max}, got ${value}`);
  const broken = rule.relation?.(withParam(params, param, value));
  if (broken) throw badRequest('INVALID_OPERATION', `operation.value: ${name} ${broken}, got ${value}`);
}
