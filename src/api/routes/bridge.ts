/**
 * The bridge's reads (issue 22; decisions 83, 84, 85), native routes (plain objects,
 * integer strings of USDC base units for the bridge's amounts):
 *   GET /withdrawals/{address}  an owner's withdrawals, newest first, final ones included
 *   GET /reserves               the vault (contract [C-res-vault-balance]: its JSON numbers
 *                               unchanged) and the bridge's reserve check: the external
 *                               bridge's USDC balance read now, credited deposits, paid and
 *                               pending withdrawals, the vault total against the USDC
 *                               issued, and their difference
 * and the `bridge` block of GET /status (bridgeStatus) and of GET /v1/network
 * (bridgeNetwork), built here so the three agree. /reserves and /v1/network show the
 * bridge alerts recorded in chain state (decision 154): the same on every node.
 */
import { routeSchemas, type RoutePlugin } from '../route-plugin';
import { getAddress } from 'viem';
import { BridgeAlertKind, WithdrawalVoidReason } from '../../codec/txs/bridge';
import { alertName, bridgeAlerts, type AlertClaim } from '../../state/bridge/alerts';
import type { BridgeAlertRecord } from '../../state/bridge/records';
import { bridgeLedger, bridgeParams, nextDepositId, pendingWithdrawals, reserveCheck, withdrawalsOf } from '../../state/bridge/reads';
import type { Withdrawal } from '../../state/records';
import { poolValuation } from '../../state/perps/pool';
import { bytesToHex, toAddress } from '../../util/bytes';
import { address, pathParams } from '../common';
import { errorSchema } from '../envelope';
import { addr, arr, dec, EX, hex, int, nullable, num as jsonNumber, obj, openObj, reply, str } from '../schemas';
import type { NodeApi } from '../node-api';

const errors = { '4xx': errorSchema, '5xx': errorSchema };

const withdrawalSchema = obj({
  withdrawal_id: dec(),
  amount: dec('USDC base units the destination receives.'),
  fee: dec('USDC base units.'),
  destination: addr('On the external chain.'),
  status: str('requested, queued, paid, refunded, …'),
  valid_until: int('Unix seconds: the signed withdrawal is void after it.'),
  created_ms: int(),
  updated_ms: int(),
  signatures: int('Validator signatures gathered.'),
  queued_tx: nullable(hex()),
  paid_tx: nullable(hex()),
  refund_reason: nullable(str('expired or cancelled, when refunded.')),
});

/** GET /status's `bridge` (bridgeStatus). */
export const bridgeStatusSchema = obj({
  difference: dec(),
  vaultTotal: dec(),
  expectedVaultTotal: dec(),
  nextDepositId: dec(),
  pendingWithdrawals: int(),
  pendingWithdrawalsAmount: dec(),
  rpcUrl: nullable(str()),
  actor: nullable(openObj('The watcher\u2019s and relayer\u2019s counters; null on a node that runs no bridge actor.')),
});

/** Alerts listed at most (newest first); `alert_count` counts them all. */
const ALERTS_LISTED_MAX = 100;

const alertSchema = obj({
  kind: str('forged_queue, forged_paid, unexplained_set or unexplained_owners.'),
  id: dec('The withdrawal id, or the set / owner nonce (the event\u2019s block when it names none).'),
  external_tx: hex('The external transaction holding the event.'),
  recipient: nullable(addr('What the forged queue or payout names.')),
  amount: nullable(dec()),
  valid_until: nullable(dec()),
  digest: nullable(hex('Of the unexplained set or owners.')),
  voters: int('Validators whose attestations recorded it.'),
  height: int('The block that recorded it.'),
  recorded_ms: int(),
});

const reservesSchema = obj({
  total_usdc_vault: jsonNumber('USDC base units (JSON number).'),
  vlp_pool_value: jsonNumber(),
  vlp_pool_usdc: jsonNumber(),
  locked_in_orders: jsonNumber(),
  open_orders: int(),
  open_positions: int(),
  external: nullable(obj({ chain_id: int(), bridge: addr(), usdc: addr(), balance: nullable(dec()), block: nullable(dec()) })),
  credited_deposits: dec(),
  paid_withdrawals: dec(),
  pending_withdrawals: dec(),
  vault_total: dec(),
  expected_vault_total: dec(),
  difference: dec(),
  next_deposit_id: dec(),
  alert_count: int('Bridge alerts recorded in chain state (decision 154).'),
  alerts: arr(alertSchema),
});
/** 6-decimal units as a JSON number, as the contract's /reserves fields are (exact below 2^53 units). */
const num = (v: bigint) => Number(v);

const REFUND_REASONS: Record<number, string> = { [WithdrawalVoidReason.Expired]: 'expired', [WithdrawalVoidReason.Cancelled]: 'cancelled' };

/** One withdrawal as GET /withdrawals/{address} shows it. */
export function withdrawalJson(w: Withdrawal) {
  return {
    withdrawal_id: String(w.id),
    amount: String(w.amount),
    fee: String(w.fee),
    destination: w.destination,
    status: w.status,
    valid_until: Number(w.validUntilSec),
    created_ms: w.createdMs,
    updated_ms: w.updatedMs,
    signatures: w.signatures.length,
    queued_tx: w.queuedTx ? bytesToHex(w.queuedTx) : null,
    paid_tx: w.paidTx ? bytesToHex(w.paidTx) : null,
    refund_reason: w.voidReason !== undefined && w.status === 'refunded' ? (REFUND_REASONS[w.voidReason] ?? null) : null,
  };
}

/** A recorded alert as GET /reserves lists it. */
export function alertJson(r: BridgeAlertRecord) {
  const c = r.claim as AlertClaim;
  const a = c.alert;
  const seen =
    a.kind === BridgeAlertKind.ForgedQueue
      ? { recipient: a.recipient, amount: String(a.amount), valid_until: String(a.validUntil), digest: null }
      : a.kind === BridgeAlertKind.ForgedPaid
        ? { recipient: a.recipient, amount: String(a.amount), valid_until: null, digest: null }
        : { recipient: null, amount: null, valid_until: null, digest: bytesToHex(a.digest) };
  return { kind: alertName(a.kind), id: String(c.id), external_tx: bytesToHex(c.externalTx), ...seen, voters: r.voters.length, height: r.height, recorded_ms: r.recordedMs };
}

/** GET /v1/network's `bridge`: the external chain and the contracts (EIP-55, as Ethereum tools show them); null without a genesis bridge. */
export function bridgeNetwork(node: NodeApi) {
  const b = node.genesis.bridge;
  if (!b) return null;
  const alerts = node.chain().state.bridgeAlerts.size;
  return { chainId: b.externalChainId, rpcUrl: node.bridge().rpcUrl, address: getAddress(b.address), usdc: getAddress(b.usdc), alerts };
}

/** GET /status's `bridge`: the reserve check and the bridge actor's counters; null without a genesis bridge. */
export function bridgeStatus(node: NodeApi) {
  const state = node.chain().state;
  if (!bridgeParams(state)) return null;
  const r = reserveCheck(state);
  const { rpcUrl, stats } = node.bridge();
  return {
    difference: String(r.difference),
    vaultTotal: String(r.vault),
    expectedVaultTotal: String(r.expectedVault),
    nextDepositId: String(nextDepositId(state)),
    pendingWithdrawals: pendingWithdrawals(state).length,
    pendingWithdrawalsAmount: String(r.pendingWithdrawals),
    rpcUrl,
    /** The watcher's and relayer's counters; null on a node that runs no bridge actor. */
    actor: stats as Record<string, unknown> | null,
  };
}

/** The schemas of this file's routes by method and path (src/api/route-table.ts). */
export const bridgeSchemas = routeSchemas({
  'GET /withdrawals/:address': {
    tags: ['bridge'],
    summary: 'An owner\u2019s withdrawals',
    description: 'Newest first, final ones included. Amounts are integer strings of USDC base units.',
    params: pathParams({ address }),
    response: {
      200: reply(obj({ withdrawals: arr(withdrawalSchema) }), {
        withdrawals: [{ withdrawal_id: '1', amount: '5000000', fee: '1000000', destination: EX.address, status: 'paid', valid_until: 1767229200, created_ms: EX.timestampMs, updated_ms: EX.timestampMs, signatures: 3, queued_tx: null, paid_tx: EX.hash, refund_reason: null }],
      }),
      ...errors,
    },
  },
  'GET /reserves': {
    tags: ['bridge'],
    summary: 'The vault and the bridge\u2019s reserve check',
    description: 'The vault\u2019s totals as JSON numbers of USDC base units; the external bridge\u2019s USDC balance read now (null without a deployment file or when the endpoint does not answer within 2 s), credited deposits, paid and pending withdrawals, the vault total against the USDC issued, and the bridge alerts recorded in chain state (newest first, at most 100).',
    response: {
      200: reply(reservesSchema, {
        total_usdc_vault: 1000000000, vlp_pool_value: 0, vlp_pool_usdc: 0, locked_in_orders: 0, open_orders: 0, open_positions: 0, external: null,
        credited_deposits: '0', paid_withdrawals: '0', pending_withdrawals: '0', vault_total: '1000000000', expected_vault_total: '1000000000', difference: '0', next_deposit_id: '0',
        alert_count: 0, alerts: [],
      }),
      ...errors,
    },
  },
});

export const bridgeRoutes: RoutePlugin = async (app, { node }) => {
  app.get('/withdrawals/:address', {
    schema: bridgeSchemas['GET /withdrawals/:address'],
    handler: async (req) => ({ withdrawals: withdrawalsOf(node.chain().state, toAddress(req.params.address)).map(withdrawalJson) }),
  });

  app.get('/reserves', {
    schema: bridgeSchemas['GET /reserves'],
  }, async () => {
    const s = node.chain().state;
    // The liquidity pool at its mark-to-market value (realPoolValue, src/state/perps/pool.ts).
    const pool = poolValuation(s, s.head().timestampMs);
    const b = bridgeParams(s);
    const r = reserveCheck(s);
    const ledger = bridgeLedger(s);
    // Read before answering, bounded (NodeApi.bridgeExternalBalance): null when the node has no deployment file or the endpoint does not answer.
    const external = b ? await node.bridgeExternalBalance() : null;
    return {
      total_usdc_vault: num(s.supply().usdc),
      vlp_pool_value: num(pool.realPoolValue),
      vlp_pool_usdc: num(pool.usdc),
      locked_in_orders: num(s.totals.usdcLocked),
      open_orders: s.orders.size,
      open_positions: s.perp.size,
      external: b
        ? {
            chain_id: b.externalChainId,
            bridge: getAddress(b.address),
            usdc: getAddress(b.usdc),
            balance: external ? String(external.balance) : null,
            block: external ? String(external.block) : null,
          }
        : null,
      credited_deposits: String(ledger.depositsCredited),
      paid_withdrawals: String(ledger.withdrawalsPaid),
      pending_withdrawals: String(r.pendingWithdrawals),
      vault_total: String(r.vault),
      expected_vault_total: String(r.expectedVault),
      difference: String(r.difference),
      next_deposit_id: String(nextDepositId(s)),
      alert_count: s.bridgeAlerts.size,
      alerts: bridgeAlerts(s).slice(0, ALERTS_LISTED_MAX).map(alertJson),
    };
  });
};
