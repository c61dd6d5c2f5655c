/**
 * Session and agent transactions: the EIP-712 members of SessionCreate, SessionRevoke,
 * SetAgentCaps and SetAgentMode (contract [C-auth-eip712], [D-signatures-native]), plus the account acted for
 * (`owner`) and the key that signed (`signer`). The signature is checked against
 * `signer`; who may sign for `owner` is one central rule (src/state/accounts/sessions.ts:
 * these kinds are owner-only, so a session key's signature is refused with 403).
 */
import type { Address } from '../../util/bytes';

import { registerTxKind, TxKind } from '../tx';
import { writeOptions, type ActionOptions } from './options';
import { optionsField } from './options-field';

/** EIP-712 SessionCreate {sessionKey, expiresAt, nonce}: the owner authorizes `sessionKey`. */
export interface SessionCreateBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  signer: Address;
  sessionKey: Address;
  /** Unix seconds (the typed data's uint256). */
  expiresAt: bigint;
  nonce: bigint;
  signature: Uint8Array;
}

/** EIP-712 SessionRevoke {owner, nonce}. */
export interface SessionRevokeBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  signer: Address;
  nonce: bigint;
  signature: Uint8Array;
}

/** EIP-712 SetAgentCaps {owner, maxLeverage, allowedOrderTypes, maxInputPerTrade, maxTotalPosition, nonce}. */
export interface SetAgentCapsBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  signer: Address;
  /** uint64, basis points. */
  maxLeverage: bigint;
  /** uint32 bitmask. */
  allowedOrderTypes: number;
  /** uint128, USDC units. */
  maxInputPerTrade: bigint;
  /** uint128, size units (×1e18). */
  maxTotalPosition: bigint;
  nonce: bigint;
  signature: Uint8Array;
}

/** EIP-712 SetAgentMode {owner, mode, nonce}; mode 0 OFF, 1 REDUCE_ONLY, 2 ACTIVE. */
export interface SetAgentModeBody {
  /** Action options (src/codec/txs/options.ts): only expiresAfter is accepted on this kind. */
  options?: ActionOptions;
  owner: Address;
  signer: Address;
  mode: number;
  nonce: bigint;
  signature: Uint8Array;
}

registerTxKind<SessionCreateBody>({
  kind: TxKind.SessionCreate,
  name: 'SessionCreate',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).address(b.sessionKey).big(b.expiresAt).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), sessionKey: r.address(), expiresAt: r.big(), nonce: r.big(), signature: r.signature(), ...optionsField(r) };
  },
});

registerTxKind<SessionRevokeBody>({
  kind: TxKind.SessionRevoke,
  name: 'SessionRevoke',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), nonce: r.big(), signature: r.signature(), ...optionsField(r) };
  },
});

registerTxKind<SetAgentCapsBody>({
  kind: TxKind.SetAgentCaps,
  name: 'SetAgentCaps',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.maxLeverage).u32(b.allowedOrderTypes).big(b.maxInputPerTrade).big(b.maxTotalPosition).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return {
      owner: r.address(), signer: r.address(), maxLeverage: r.big(), allowedOrderTypes: r.u32(), maxInputPerTrade: r.big(), maxTotalPosition: r.big(),
      nonce: r.big(), signature: r.signature(), ...optionsField(r),
    };
  },
});

registerTxKind<SetAgentModeBody>({
  kind: TxKind.SetAgentMode,
  name: 'SetAgentMode',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).u8(b.mode).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), mode: r.u8(), nonce: r.big(), signature: r.signature(), ...optionsField(r) };
  },
});
