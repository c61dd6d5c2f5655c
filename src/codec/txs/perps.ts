/**
 * Perpetuals and pool transactions.
 *
 * Perp kinds carry the signed payload's fields exactly as the client sent them (the
 * wallet's letter case, the margin's decimal text, whether the nonce and position id
 * were JSON numbers or strings), so every validator rebuilds the very JSON text that was
 * personal-signed (contract [D-signatures-perp]: `JSON.stringify` of the payload, keys in the
 * documented order, no whitespace) and verifies the signature itself.
 *
 * Pool kinds carry the EIP-712 PoolDeposit / PoolWithdraw members.
 */
import type { Address } from '../../util/bytes';
import type { Reader, Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';
import { writeOptions, type ActionOptions } from './options';
import { optionsField } from './options-field';
import { optionsText } from '../../signing/action-options';

const MAX_FIELD = 80;

/** A JSON value as signed: a number, or a string (`quoted`). */
interface Signed {
  /** The wallet (owner) address exactly as in the signed JSON. */
  wallet: string;
  /** The key that signed: the owner, or the owner's session key (`sessionWallet`). */
  signer: Address;
  nonce: bigint;
  /** The nonce was a JSON string in the signed text, not a number. */
  nonceQuoted: boolean;
  signature: Uint8Array;
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted; signed as the JSON's last key "options". */
  options?: ActionOptions;
}

/** POST /v1/perp/open: {action: "perp_open", wallet, pairId, isLong, leverage, margin, nonce}. */
export interface PerpOpenBody extends Signed {
  pairId: number;
  isLong: boolean;
  leverage: number;
  /** USDC decimal string as sent ("20" is 20 USDC). */
  margin: string;
}

/** POST /v1/perp/close: {action: "perp_close", wallet, positionId, size, nonce}; size "0" = whole. */
export interface PerpCloseBody extends Signed {
  positionId: string;
  positionIdQuoted: boolean;
  /** Size decimal string (18 decimals) as sent. */
  size: string;
}

/** POST /v1/perp/tpsl: {action: "perp_tpsl", wallet, positionId, takeProfit, stopLoss, nonce}; "" = unset. */
export interface PerpTpslBody extends Signed {
  positionId: string;
  positionIdQuoted: boolean;
  takeProfit: string;
  stopLoss: string;
}

/** EIP-712 PoolDeposit {owner, amount, nonce}. */
export interface PoolDepositBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  signer: Address;
  /** USDC units. */
  amount: bigint;
  nonce: bigint;
  signature: Uint8Array;
}

/** EIP-712 PoolWithdraw {owner, shares, nonce}. */
export interface PoolWithdrawBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  signer: Address;
  shares: bigint;
  nonce: bigint;
  signature: Uint8Array;
}

const str = (r: Reader) => r.string(MAX_FIELD);

function nonceJson(b: Pick<Signed, 'nonce' | 'nonceQuoted'>): string {
  return b.nonceQuoted ? JSON.stringify(b.nonce.toString()) : b.nonce.toString();
}

function idJson(id: string, quoted: boolean): string {
  return quoted ? JSON.stringify(id) : id;
}

/*
 * The signed texts, built by hand in the documented key order. Equal to
 * JSON.stringify({...}) of the same values (strings through JSON.stringify, numbers and
 * booleans as their literals); test/perps/codec.test.ts checks that against the client.
 */

export function perpOpenMessage(b: Omit<PerpOpenBody, 'signer' | 'signature'>): string {
  return `{"action":"perp_open","wallet":${JSON.stringify(b.wallet)},"pairId":${b.pairId},"isLong":${b.isLong},"leverage":${b.leverage},"margin":${JSON.stringify(b.margin)},"nonce":${nonceJson(b)}${optionsJson(b.options)}}`;
}

export function perpCloseMessage(b: Omit<PerpCloseBody, 'signer' | 'signature'>): string {
  return `{"action":"perp_close","wallet":${JSON.stringify(b.wallet)},"positionId":${idJson(b.positionId, b.positionIdQuoted)},"size":${JSON.stringify(b.size)},"nonce":${nonceJson(b)}${optionsJson(b.options)}}`;
}

export function perpTpslMessage(b: Omit<PerpTpslBody, 'signer' | 'signature'>): string {
  return `{"action":"perp_tpsl","wallet":${JSON.stringify(b.wallet)},"positionId":${idJson(b.positionId, b.positionIdQuoted)},"takeProfit":${JSON.stringify(b.takeProfit)},"stopLoss":${JSON.stringify(b.stopLoss)},"nonce":${nonceJson(b)}${optionsJson(b.options)}}`;
}

function writeSigned(w: Writer, b: Signed): Writer {
  return w.string(b.wallet).address(b.signer);
}

function writeTail(w: Writer, b: Signed): void {
  w.big(b.nonce).bool(b.nonceQuoted).bytes(b.signature);
  writeOptions(w, b.options);
}

function readSigned(r: Reader): Pick<Signed, 'wallet' | 'signer'> {
  const wallet = str(r);
  return { wallet, signer: r.address() };
}

function readTail(r: Reader): Pick<Signed, 'nonce' | 'nonceQuoted' | 'signature' | 'options'> {
  return { nonce: r.big(), nonceQuoted: r.bool(), signature: r.signature(), ...optionsField(r) };
}

/** The signed JSON's last key when there are options: `,"options":"<optionsText>"` (decision 90); nothing otherwise. */
function optionsJson(o: ActionOptions | undefined): string {
  const text = optionsText(o);
  return text === '' ? '' : `,"options":${JSON.stringify(text)}`;
}

registerTxKind<PerpOpenBody>({
  kind: TxKind.PerpOpen,
  name: 'PerpOpen',
  encodeBody(w, b) {
    writeSigned(w, b).u32(b.pairId).bool(b.isLong).u32(b.leverage).string(b.margin);
    writeTail(w, b);
  },
  decodeBody(r) {
    // Property initializers run in order: the fields are read as they were written.
    return { ...readSigned(r), pairId: r.u32(), isLong: r.bool(), leverage: r.u32(), margin: str(r), ...readTail(r) };
  },
});

registerTxKind<PerpCloseBody>({
  kind: TxKind.PerpClose,
  name: 'PerpClose',
  encodeBody(w, b) {
    writeSigned(w, b).string(b.positionId).bool(b.positionIdQuoted).string(b.size);
    writeTail(w, b);
  },
  decodeBody(r) {
    return { ...readSigned(r), positionId: str(r), positionIdQuoted: r.bool(), size: str(r), ...readTail(r) };
  },
});

registerTxKind<PerpTpslBody>({
  kind: TxKind.PerpTpsl,
  name: 'PerpTpsl',
  encodeBody(w, b) {
    writeSigned(w, b).string(b.positionId).bool(b.positionIdQuoted).string(b.takeProfit).string(b.stopLoss);
    writeTail(w, b);
  },
  decodeBody(r) {
    return { ...readSigned(r), positionId: str(r), positionIdQuoted: r.bool(), takeProfit: str(r), stopLoss: str(r), ...readTail(r) };
  },
});

registerTxKind<PoolDepositBody>({
  kind: TxKind.PoolDeposit,
  name: 'PoolDeposit',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.amount).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), amount: r.big(), nonce: r.big(), signature: r.signature(), ...optionsField(r) };
  },
});

registerTxKind<PoolWithdrawBody>({
  kind: TxKind.PoolWithdraw,
  name: 'PoolWithdraw',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.shares).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), shares: r.big(), nonce: r.big(), signature: r.signature(), ...optionsField(r) };
  },
});

/** Guard used by the decoder's callers: a wallet text must be a 0x address (either case). */
export function isWalletText(s: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(s);
}

