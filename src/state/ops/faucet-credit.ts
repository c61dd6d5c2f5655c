/** Devnet faucet: credits USDC and gas to an address, within per-request and per-address bounds. */
import type { FaucetBody } from '../../codec/txs/faucet';
import { faucetSigningHash } from '../../codec/txs/faucet';
import { recoverSigner } from '../../crypto/secp256k1';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, unauthorized } from '../errors';
import { credit, mint } from '../accounts/vault';
import { addToLedger } from '../bridge/reads';
import { formatDecimal, USDC_DECIMALS } from '../../util/decimal';

export const faucetOp: TxOp<FaucetBody> = {
  verify(tx, chainId) {
    try {
      return recoverSigner(faucetSigningHash(chainId, tx.body), tx.body.signature);
    } catch (err) {
      throw unauthorized(`faucet signature: ${(err as Error).message}`);
    }
  },
  nonce: (b) => b.nonce,
  check(b, params, signer) {
    const f = params.faucet;
    if (!f) throw rejected('FAUCET_DISABLED', 'the faucet exists on devnet only');
    if (signer !== f.address) throw forbidden('NOT_FAUCET', `signer ${signer} is not the faucet`);
    if (b.usdc === 0n && b.nativeWei === 0n) throw badRequest('INVALID_AMOUNT', 'amount: must be positive');
    if (b.usdc > f.maxUsdcPerRequest) throw badRequest('INVALID_AMOUNT', `amount: at most ${formatDecimal(f.maxUsdcPerRequest, USDC_DECIMALS)} USDC per request`);
    if (b.nativeWei > f.nativeWeiPerRequest) throw badRequest('INVALID_AMOUNT', `native amount above ${f.nativeWeiPerRequest} wei per request`);
  },
  apply(ctx, tx, signer) {
    const f = ctx.params.faucet!;
    const b = tx.body;
    const claimed = ctx.state.faucetClaims.get(b.to) ?? 0n;
    if (claimed + b.usdc > f.maxUsdcPerAddress) {
      throw rejected('FAUCET_LIMIT', `address ${b.to} would exceed the faucet's ${formatDecimal(f.maxUsdcPerAddress, USDC_DECIMALS)} USDC per address`);
    }
    ctx.state.faucetClaims.set(b.to, claimed + b.usdc);
    mint(ctx.state, b.usdc, b.nativeWei);
    // The reserve check's ledger (src/state/bridge/reads.ts): faucet USDC is issuance too.
    addToLedger(ctx.state, 'faucetMinted', b.usdc);
    credit(ctx.state, b.to, b.usdc, b.nativeWei);
    ctx.emit({ type: 'FaucetCredit', to: b.to, usdc: b.usdc, nativeWei: b.nativeWei });
  },
};
