/** POST /withdraw: an EIP-712 Withdraw request (contract [D-vault-withdraw]). */
import type { Address } from '../../util/bytes';
import { registerTxKind, TxKind } from '../tx';
import { writeOptions, type ActionOptions } from './options';
import { optionsField } from './options-field';

export interface WithdrawBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  /** The key that signed: it must be the owner (a session key can only trade). */
  signer: Address;
  /** USDC units the destination receives on the external network. */
  amount: bigint;
  destination: Address;
  nonce: bigint;
  signature: Uint8Array;
}

registerTxKind<WithdrawBody>({
  kind: TxKind.Withdraw,
  name: 'Withdraw',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.amount).address(b.destination).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), amount: r.big(), destination: r.address(), nonce: r.big(), signature: r.signature(), ...optionsField(r) };
  },
});
