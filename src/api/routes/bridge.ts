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
 * (bridgeNetwork), built here so the three agree.
 */
import type { FastifyPluginAsync } from 'fastify';
import { getAddress } from 'viem';
import { WithdrawalVoidReason } from '../../codec/txs/bridge';
import { bridgeLedger, bridgeParams, nextDepositId, pendingWithdrawals, reserveCheck, withdrawalsOf } from '../../state/bridge';
import type { Withdrawal } from '../../state/records';
import { poolValuation } from '../../state/perps/pool';
import { bytesToHex, toAddress } from '../../util/bytes';
import { address } from '../common';
import { errorSchema } from '../envelope';
import type { NodeApi } from '../node-api';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
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

/** GET /v1/network's `bridge`: the external chain and the contracts (EIP-55, as Ethereum tools show them); null without a genesis bridge. */
export function bridgeNetwork(node: NodeApi) {
  const b = node.genesis.bridge;
  if (!b) return null;
  return { chainId: b.externalChainId, rpcUrl: node.bridge().rpcUrl, address: getAddress(b.address), usdc: getAddress(b.usdc) };
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
    actor: stats,
  };
}

export const bridgeRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get<{ Params: { address: string } }>('/withdrawals/:address', {
    schema: { params: { type: 'object', properties: { address } }, response: errors },
    handler: async (req) => ({ withdrawals: withdrawalsOf(node.chain().state, toAddress(req.params.address)).map(withdrawalJson) }),
  });

  app.get('/reserves', { schema: { response: errors } }, async () => {
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
    };
  });
};
