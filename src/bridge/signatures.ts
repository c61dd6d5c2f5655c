/**
 * The two messages the bridge contract checks signatures over (contracts/ExchangeBridge.sol,
 * decision 81), computed here exactly as the contract computes them, and signing with a
 * raw secp256k1 key: a withdrawal (validators, more than 2/3 of the power) and an owner
 * action (the owners' threshold). Both digests bind the external chain id and the bridge's
 * address, so a signature for one chain or one bridge is worthless on another. Each
 * signature is over the EIP-191 hash of the 32-byte digest ("\x19Ethereum Signed
 * Message:\n32" ‖ digest), 65 bytes r ‖ s ‖ v with v 27/28 and low s (what viem's
 * signMessage({message: {raw}}) gives). The contract wants them ordered by ascending signer
 * address: `orderedSignatures` does that. The withdrawal digest (v2, with validUntil) is
 * the one src/signing/bridge-withdrawal.ts computes for execution; here it is written with
 * viem's ABI encoder, and test/bridge/signatures.test.ts holds the two (and the contract's
 * `withdrawalDigest` view) equal.
 */
import { encodeAbiParameters, keccak256, toBytes, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const tag = (s: string): Hex => keccak256(toBytes(s));
export const WITHDRAWAL_TAG = tag('ExchangeBridge.Withdrawal.v2');
export const OWNER_ACTION_TAG = tag('ExchangeBridge.OwnerAction.v1');
export const ACTION_UNPAUSE = tag('unpause');
export const ACTION_SET_VALIDATORS = tag('setValidators');
export const ACTION_CANCEL_WITHDRAWAL = tag('cancelWithdrawal');

export interface BridgeDomain {
  chainId: bigint;
  bridge: Address;
}

/** keccak256(abi.encode(WITHDRAWAL_TAG, chainId, bridge, withdrawalId, recipient, amount, validUntil)): `validUntil` in Unix seconds. */
export function withdrawalDigest(d: BridgeDomain, withdrawalId: bigint, recipient: Address, amount: bigint, validUntil: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }],
      [WITHDRAWAL_TAG, d.chainId, d.bridge, withdrawalId, recipient, amount, validUntil],
    ),
  );
}

/** keccak256(abi.encode(OWNER_ACTION_TAG, chainId, bridge, nonce, actionHash)). */
export function ownerActionDigest(d: BridgeDomain, nonce: bigint, actionHash: Hex): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }],
      [OWNER_ACTION_TAG, d.chainId, d.bridge, nonce, actionHash],
    ),
  );
}

/** The action hashes of the three owner actions. */
export const ownerActions = {
  unpause: (): Hex => keccak256(encodeAbiParameters([{ type: 'bytes32' }], [ACTION_UNPAUSE])),
  setValidators: (validators: readonly Address[], powers: readonly bigint[]): Hex =>
    keccak256(
      encodeAbiParameters([{ type: 'bytes32' }, { type: 'address[]' }, { type: 'uint256[]' }], [ACTION_SET_VALIDATORS, validators, powers]),
    ),
  cancelWithdrawal: (withdrawalId: bigint): Hex =>
    keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [ACTION_CANCEL_WITHDRAWAL, withdrawalId])),
};

export interface SignedDigest {
  signer: Address;
  signature: Hex;
}

/** Signs `digest` (under the EIP-191 prefix) with `privateKey`. */
export async function signDigest(privateKey: Hex, digest: Hex): Promise<SignedDigest> {
  const account = privateKeyToAccount(privateKey);
  return { signer: account.address, signature: await account.signMessage({ message: { raw: digest } }) };
}

/** The signatures ordered by ascending signer address, as the contract requires (a signer counts once). */
function orderedSignatures(signed: readonly SignedDigest[]): Hex[] {
  return [...signed]
    .sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : BigInt(a.signer) > BigInt(b.signer) ? 1 : 0))
    .map((s) => s.signature);
}

/** Signs `digest` with each key and orders the signatures for the contract. */
export async function signAll(privateKeys: readonly Hex[], digest: Hex): Promise<Hex[]> {
  return orderedSignatures(await Promise.all(privateKeys.map((k) => signDigest(k, digest))));
}
