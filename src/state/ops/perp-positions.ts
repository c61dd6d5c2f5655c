/**
 * Execution rules of the perp position kinds: PerpOpen, PerpClose, PerpTpsl (the engine
 * is src/state/perps/engine.ts; the pool's own kinds are pool-shares.ts).
 *
 * The signature is the personal signature (EIP-191) of the JSON payload,
 * rebuilt here from the body (src/codec/txs/perps.ts), by `signer`: the owner (`wallet`)
 * or the owner's live session key (the `trader` signer rule, src/state/accounts/sessions.ts). An
 * open by the session key answers to the owner's agent mode and caps.
 */
import { verifyPersonal } from './signature-checks';
import {
  isWalletText,
  perpCloseMessage,
  perpOpenMessage,
  perpTpslMessage,
  type PerpCloseBody,
  type PerpOpenBody,
  type PerpTpslBody,
} from '../../codec/txs/perps';
import type { Address } from '../../util/bytes';
import { parseDecimal } from '../../util/decimal';
import type { TxOp } from '../context';
import { badRequest } from '../errors';
import { requireAgentMayOrder } from '../accounts/agents';
import { closePosition, openPosition, setTpsl } from '../perps/engine';
import { authorityOf, isAgentSigner } from '../accounts/subaccounts';

const POSITION_ID_RE = /^[1-9][0-9]{0,15}$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Leverage beyond any pair's (≤ 50 by genesis) is a shape error before the pair is looked up. */
const MAX_LEVERAGE_FIELD = 1000;

const walletOwner = (wallet: string) => wallet.toLowerCase() as Address;

function checkWallet(wallet: string): void {
  if (!isWalletText(wallet)) throw badRequest('INVALID_WALLET', 'wallet: must be a 0x address of 20 bytes');
}

function checkNonce(b: { nonce: bigint; nonceQuoted: boolean }): void {
  if (!b.nonceQuoted && b.nonce > MAX_SAFE) throw badRequest('INVALID_NONCE', 'nonce: a JSON number nonce must be at most 2^53 − 1 (send a string beyond)');
}

function parsePositionId(id: string, quoted: boolean): bigint {
  if (!POSITION_ID_RE.test(id) || (!quoted && BigInt(id) > MAX_SAFE)) throw badRequest('INVALID_POSITION_ID', 'positionId: must be a decimal position id');
  return BigInt(id);
}

/** Margin: a positive USDC decimal string with at most 6 decimals. */
export function parseMargin(margin: string): bigint {
  const v = parseDecimal(margin, 6);
  if (v === null || v === 0n) throw badRequest('INVALID_MARGIN', 'margin: must be a positive decimal string with at most 6 decimals (USDC)');
  return v;
}

/** Close size: a decimal string with at most 18 decimals; "0" closes the whole position. */
function parseCloseSize(size: string): bigint {
  const v = parseDecimal(size, 18);
  if (v === null) throw badRequest('INVALID_AMOUNT', 'size: must be a decimal string with at most 18 decimals ("0" closes the whole position)');
  return v;
}

/** A TP/SL price: "" unsets it (0); otherwise a positive decimal with at most 6 decimals. */
function parseTarget(value: string, field: 'takeProfit' | 'stopLoss'): bigint {
  if (value === '') return 0n;
  const v = parseDecimal(value, 6);
  if (v === null || v === 0n || v > MAX_SAFE) throw badRequest('INVALID_TPSL', `${field}: must be "" (unset) or a positive decimal price with at most 6 decimals`);
  return v;
}

export const perpOpenOp: TxOp<PerpOpenBody> = {
  shape(b) {
    checkWallet(b.wallet);
    checkNonce(b);
    if (b.leverage < 1 || b.leverage > MAX_LEVERAGE_FIELD) throw badRequest('INVALID_LEVERAGE', 'leverage: must be an integer from 1 to the pair\'s maximum');
    parseMargin(b.margin);
  },
  verify: (tx) => verifyPersonal(perpOpenMessage(tx.body), tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  authorize(state, b, signer) {
    const owner = walletOwner(b.wallet);
    if (isAgentSigner(state, owner, signer)) requireAgentMayOrder(state, authorityOf(state, owner));
  },
  apply(ctx, tx, signer) {
    const b = tx.body;
    const owner = walletOwner(b.wallet);
    openPosition(ctx, { owner, signer, pairId: b.pairId, isLong: b.isLong, leverage: b.leverage, margin: parseMargin(b.margin), isAgent: isAgentSigner(ctx.state, owner, signer) });
  },
};

export const perpCloseOp: TxOp<PerpCloseBody> = {
  shape(b) {
    checkWallet(b.wallet);
    checkNonce(b);
    parsePositionId(b.positionId, b.positionIdQuoted);
    parseCloseSize(b.size);
  },
  verify: (tx) => verifyPersonal(perpCloseMessage(tx.body), tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const b = tx.body;
    closePosition(ctx, walletOwner(b.wallet), parsePositionId(b.positionId, b.positionIdQuoted), parseCloseSize(b.size));
  },
};

export const perpTpslOp: TxOp<PerpTpslBody> = {
  shape(b) {
    checkWallet(b.wallet);
    checkNonce(b);
    parsePositionId(b.positionId, b.positionIdQuoted);
    parseTarget(b.takeProfit, 'takeProfit');
    parseTarget(b.stopLoss, 'stopLoss');
  },
  verify: (tx) => verifyPersonal(perpTpslMessage(tx.body), tx.body.signature, tx.body.signer),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const b = tx.body;
    setTpsl(ctx, walletOwner(b.wallet), parsePositionId(b.positionId, b.positionIdQuoted), parseTarget(b.takeProfit, 'takeProfit'), parseTarget(b.stopLoss, 'stopLoss'));
  },
};
