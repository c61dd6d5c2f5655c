/** Faucet: devnet-only credit of USDC and gas, signed by the genesis faucet key. */
import { keccak256 } from '../../crypto/keccak';
import { sign } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import { Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';

export interface FaucetBody {
  to: Address;
  /** USDC, 6 decimals. */
  usdc: bigint;
  /** Native token, wei. */
  nativeWei: bigint;
  nonce: bigint;
  /** 65 bytes r‖s‖v over faucetSigningHash. */
  signature: Uint8Array;
}

const FAUCET_TAG = 'exchange-chain/faucet/v1';

/** What the faucet key signs: the tag, chain id and every field but the signature. */
export function faucetSigningHash(chainId: number, body: Omit<FaucetBody, 'signature'>): Uint8Array {
  const w = new Writer(96).string(FAUCET_TAG).u32(chainId).address(body.to).big(body.usdc).big(body.nativeWei).big(body.nonce);
  return keccak256(w.finish());
}

/** Signs a faucet credit with the faucet key (the node's /faucet route and tests). */
export function signFaucet(chainId: number, unsigned: Omit<FaucetBody, 'signature'>, privateKey: Uint8Array): FaucetBody {
  return { ...unsigned, signature: sign(faucetSigningHash(chainId, unsigned), privateKey) };
}

registerTxKind<FaucetBody>({
  kind: TxKind.Faucet,
  name: 'Faucet',
  encodeBody(w, b) {
    w.address(b.to).big(b.usdc).big(b.nativeWei).big(b.nonce).fixed(b.signature, 65);
  },
  decodeBody(r) {
    return { to: r.address(), usdc: r.big(), nativeWei: r.big(), nonce: r.big(), signature: r.fixed(65) };
  },
});
