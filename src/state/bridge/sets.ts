/**
 * The bridge validator sets the chain hands to the contract (issue 37 item 1; decision
 * 151), pure. Set 0 is the genesis validators with their bonds as powers (what the deploy
 * gives the contract's constructor, src/bridge/deploy.ts). At the end of every block in
 * which the active set or a power changed (an epoch boundary), the chain records the next
 * set: nonce + 1, the active validators ascending (their addresses are their external
 * accounts) and their powers (the power consensus uses). Set N reaches the contract signed
 * by more than 2/3 of set N−1's power, because set N−1 is what the contract checks when N
 * is submitted (updateValidatorSet applies a due pending set first): so set N is signed by
 * the validators of set N−1, whether or not they are still active here (an outgoing
 * validator signs its successor before it leaves; its node still runs while it unbonds).
 * The signatures come in BridgeSetSignatures transactions (src/state/ops/bridge-set-signatures.ts)
 * and stay on the record for the relayer (actors/bridge/relayer.ts). The last
 * KEPT_BRIDGE_SETS sets are kept (meta `bridgeSets`); older ones are long in force.
 */
import type { BridgeOwnersMessage, BridgeSetMessage } from '../../signing/bridge-withdrawal';
import type { Address } from '../../util/bytes';
import type { ChainEvent } from '../context';
import type { State } from '../state';
import { activeValidators } from '../validators/set';
import { bridgeDomain } from './reads';

export interface BridgeSetSignature {
  validator: Address;
  /** 0x-hex of the 65-byte r‖s‖v signature the contract recovers. */
  signature: string;
}

export interface BridgeSet {
  nonce: bigint;
  /** Ascending, lower-case. */
  validators: Address[];
  powers: bigint[];
  /** Exchange height of the block that recorded it (0: genesis). */
  height: number;
  /** Signatures of set nonce−1's validators over this set's digest, ascending by validator. */
  signatures: BridgeSetSignature[];
}

export const KEPT_BRIDGE_SETS = 16;

/** The genesis set (nonce 0): the genesis validators ascending, powers = bonds in wei. */
function genesisSet(state: State): BridgeSet {
  const validators = ((state.meta.get('validators') as { address: Address; bondWei: bigint }[] | undefined) ?? [])
    .map((v) => ({ address: v.address.toLowerCase() as Address, power: BigInt(v.bondWei) }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { nonce: 0n, validators: validators.map((v) => v.address), powers: validators.map((v) => v.power), height: 0, signatures: [] };
}

/** The kept sets, ascending by nonce (the genesis set alone until the first change). */
export function bridgeSets(state: State): BridgeSet[] {
  return (state.meta.get('bridgeSets') as BridgeSet[] | undefined) ?? [genesisSet(state)];
}

export function bridgeSet(state: State, nonce: bigint): BridgeSet | undefined {
  return bridgeSets(state).find((s) => s.nonce === nonce);
}

/** The newest set the chain recorded. */
export function latestBridgeSet(state: State): BridgeSet {
  const sets = bridgeSets(state);
  return sets[sets.length - 1];
}

/** What validators sign for `set` and the contract checks (validatorSetDigest). */
export function bridgeSetMessage(state: State, set: BridgeSet): BridgeSetMessage {
  return { ...bridgeDomain(state), setNonce: set.nonce, validators: set.validators, powers: set.powers };
}

/** Whether the signers of `set` hold more than 2/3 of the power of the set before it (the contract's quorum). */
export function setSignedByPredecessor(state: State, set: BridgeSet): boolean {
  const prev = bridgeSet(state, set.nonce - 1n);
  if (!prev) return false;
  let total = 0n;
  let signed = 0n;
  const signers = new Set(set.signatures.map((s) => s.validator));
  prev.validators.forEach((v, i) => {
    total += prev.powers[i];
    if (signers.has(v)) signed += prev.powers[i];
  });
  return total > 0n && 3n * signed > 2n * total;
}

/** End of block: when the active set or a power differs from the newest bridge set, record the next one. */
export function recordBridgeSet(state: State, height: number, emit: (e: ChainEvent) => void): BridgeSet | undefined {
  const active = activeValidators(state).validators;
  const latest = latestBridgeSet(state);
  const same = latest.validators.length === active.length && active.every((v, i) => v.address === latest.validators[i] && v.power === latest.powers[i]);
  if (same || active.length === 0) return undefined;
  const next: BridgeSet = { nonce: latest.nonce + 1n, validators: active.map((v) => v.address), powers: active.map((v) => v.power), height, signatures: [] };
  state.meta.set('bridgeSets', [...bridgeSets(state), next].slice(-KEPT_BRIDGE_SETS));
  emit({ type: 'BridgeSetRecorded', setNonce: String(next.nonce), validators: next.validators, powers: next.powers.map(String) });
  return next;
}

/** Adds `validator`'s signature to set `nonce` (the caller checked it may sign and has not). */
export function addSetSignature(state: State, nonce: bigint, validator: Address, signature: string): void {
  const sets = bridgeSets(state).map((s) =>
    s.nonce !== nonce
      ? s
      : { ...s, signatures: [...s.signatures, { validator, signature }].sort((a, b) => (a.validator < b.validator ? -1 : a.validator > b.validator ? 1 : 0)) },
  );
  state.meta.set('bridgeSets', sets);
}

/**
 * The owner sets the chain hands to the contract (issue 37 item 3; decision 149): set 0 is
 * the genesis owners; at the end of every block whose owners (params.owners, which an
 * executed SetOwners replaces) differ from the newest recorded owner set, the next is
 * recorded (meta `bridgeOwnerSets`, the last KEPT_BRIDGE_SETS kept; event
 * `BridgeOwnersRecorded`). The contract checks an owner set against its validator set in
 * force, which the chain does not know exactly, so any validator of a kept bridge set
 * signs it; the relayer passes the signatures of the contract's set.
 */
export interface BridgeOwnerSet {
  nonce: bigint;
  /** Ascending, lower-case. */
  owners: Address[];
  threshold: bigint;
  height: number;
  signatures: BridgeSetSignature[];
}

function ownersNow(state: State): { owners: Address[]; threshold: bigint } {
  const o = state.params().owners;
  return { owners: o.addresses.map((a) => a.toLowerCase() as Address).sort(), threshold: BigInt(o.threshold) };
}

/** Owner set 0, written at genesis when the genesis has a bridge: the genesis owners (the contract's constructor's). */
export function genesisBridgeOwners(state: State): void {
  state.meta.set('bridgeOwnerSets', [{ nonce: 0n, ...ownersNow(state), height: 0, signatures: [] }] satisfies BridgeOwnerSet[]);
}

/** The kept owner sets, ascending by nonce (empty on a network without a bridge). */
export function bridgeOwnerSets(state: State): BridgeOwnerSet[] {
  return (state.meta.get('bridgeOwnerSets') as BridgeOwnerSet[] | undefined) ?? [];
}

export function bridgeOwnerSet(state: State, nonce: bigint): BridgeOwnerSet | undefined {
  return bridgeOwnerSets(state).find((s) => s.nonce === nonce);
}

/** Whether `validator` may sign an owner set: it is in a kept bridge validator set. */
export function mayBridgeSign(state: State, validator: Address): boolean {
  return bridgeSets(state).some((s) => s.validators.includes(validator));
}

/** What validators sign for owner set `set` and the contract checks (ownersDigest). */
export function bridgeOwnersMessage(state: State, set: BridgeOwnerSet): BridgeOwnersMessage {
  return { ...bridgeDomain(state), ownerSetNonce: set.nonce, owners: set.owners, threshold: set.threshold };
}

/** End of block: when the owners in force differ from the newest owner set, record the next one. */
export function recordBridgeOwners(state: State, height: number, emit: (e: ChainEvent) => void): BridgeOwnerSet | undefined {
  const sets = bridgeOwnerSets(state);
  const latest = sets[sets.length - 1];
  const now = ownersNow(state);
  if (!latest) return undefined;
  if (now.threshold === latest.threshold && now.owners.length === latest.owners.length && now.owners.every((o, i) => o === latest.owners[i])) return undefined;
  const next: BridgeOwnerSet = { nonce: latest.nonce + 1n, ...now, height, signatures: [] };
  state.meta.set('bridgeOwnerSets', [...sets, next].slice(-KEPT_BRIDGE_SETS));
  emit({ type: 'BridgeOwnersRecorded', ownerSetNonce: String(next.nonce), owners: next.owners, threshold: String(next.threshold) });
  return next;
}

/** Adds `validator`'s signature to owner set `nonce` (the caller checked it may sign and has not). */
export function addOwnerSetSignature(state: State, nonce: bigint, validator: Address, signature: string): void {
  const sets = bridgeOwnerSets(state).map((s) =>
    s.nonce !== nonce
      ? s
      : { ...s, signatures: [...s.signatures, { validator, signature }].sort((a, b) => (a.validator < b.validator ? -1 : a.validator > b.validator ? 1 : 0)) },
  );
  state.meta.set('bridgeOwnerSets', sets);
}
