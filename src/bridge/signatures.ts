/**
 * The messages the bridge contract checks signatures over (contracts/ExchangeBridge.sol,
 * decisions 81, 148-150), computed here exactly as the contract computes them, and signing
 * with a raw secp256k1 key: a withdrawal, a validator set and an owner set (validators,
 * more than 2/3 of the power) and an owner action (the owners' threshold). Every digest
 * binds the external chain id, the bridge's address, the exchange chain's id and its
 * genesis hash, so a signature for one chain, one bridge or one exchange chain is
 * worthless on another. Each
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
export const WITHDRAWAL_TAG = tag('ExchangeBridge.Withdrawal.v3');
export const VALIDATOR_SET_TAG = tag('ExchangeBridge.ValidatorSet.v1');
export const OWNERS_TAG = tag('ExchangeBridge.Owners.v1');
export const OWNER_ACTION_TAG = tag('ExchangeBridge.OwnerAction.v2');
export const ACTION_UNPAUSE = tag('unpause');
export const ACTION_SET_VALIDATORS = tag('setValidators');
export const ACTION_CANCEL_WITHDRAWAL = tag('cancelWithdrawal');

/** What every digest is bound to: the external chain and bridge, the exchange chain and its genesis. */
export interface BridgeDomain {
  chainId: bigint;
  bridge: Address;
  exchangeChainId: bigint;
  genesisHash: Hex;
}

const DOMAIN_TYPES = [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }] as const;
const domainWords = (t: Hex, d: BridgeDomain) => [t, d.chainId, d.bridge, d.exchangeChainId, d.genesisHash] as const;

/** keccak256(abi.encode(WITHDRAWAL_TAG, domain…, withdrawalId, recipient, amount, validUntil)): `validUntil` in Unix seconds. */
export function withdrawalDigest(d: BridgeDomain, withdrawalId: bigint, recipient: Address, amount: bigint, validUntil: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [...DOMAIN_TYPES, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }],
      [...domainWords(WITHDRAWAL_TAG, d), withdrawalId, recipient, amount, validUntil],
    ),
  );
}

/** keccak256 of the 32-byte words of a list (Solidity's abi.encodePacked of an address[] or uint256[]). */
function packedListHash(type: 'address' | 'uint256', items: readonly (Address | bigint)[]): Hex {
  return keccak256(items.length === 0 ? '0x' : encodeAbiParameters(items.map(() => ({ type })), items as never));
}

/** keccak256(abi.encode(VALIDATOR_SET_TAG, domain…, setNonce, keccak256(packed validators), keccak256(packed powers))). */
export function validatorSetDigest(d: BridgeDomain, setNonce: bigint, validators: readonly Address[], powers: readonly bigint[]): Hex {
  return keccak256(
    encodeAbiParameters(
      [...DOMAIN_TYPES, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }],
      [...domainWords(VALIDATOR_SET_TAG, d), setNonce, packedListHash('address', validators), packedListHash('uint256', powers)],
    ),
  );
}

/** keccak256(abi.encode(OWNERS_TAG, domain…, ownerSetNonce, keccak256(packed owners), threshold)). */
export function ownersDigest(d: BridgeDomain, ownerSetNonce: bigint, owners: readonly Address[], threshold: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [...DOMAIN_TYPES, { type: 'uint256' }, { type: 'bytes32' }, { type: 'uint256' }],
      [...domainWords(OWNERS_TAG, d), ownerSetNonce, packedListHash('address', owners), threshold],
    ),
  );
}

/** keccak256(abi.encode(OWNER_ACTION_TAG, domain…, nonce, actionHash)). */
export function ownerActionDigest(d: BridgeDomain, nonce: bigint, actionHash: Hex): Hex {
  return keccak256(encodeAbiParameters([...DOMAIN_TYPES, { type: 'uint256' }, { type: 'bytes32' }], [...domainWords(OWNER_ACTION_TAG, d), nonce, actionHash]));
}

/** The action hashes of the three owner actions (setValidators is timelocked, the others immediate). */
export const ownerActions = {
  unpause: (): Hex => keccak256(encodeAbiParameters([{ type: 'bytes32' }], [ACTION_UNPAUSE])),
  setValidators: (validators: readonly Address[], powers: readonly bigint[], setNonce: bigint): Hex =>
    keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address[]' }, { type: 'uint256[]' }, { type: 'uint256' }],
        [ACTION_SET_VALIDATORS, validators, powers, setNonce],
      ),
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
export function orderedSignatures(signed: readonly SignedDigest[]): Hex[] {
  return [...signed]
    .sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : BigInt(a.signer) > BigInt(b.signer) ? 1 : 0))
    .map((s) => s.signature);
}

/** Signs `digest` with each key and orders the signatures for the contract. */
export async function signAll(privateKeys: readonly Hex[], digest: Hex): Promise<Hex[]> {
  return orderedSignatures(await Promise.all(privateKeys.map((k) => signDigest(k, digest))));
}
