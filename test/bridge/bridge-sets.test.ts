/**
 * The bridge's signers and owners follow the exchange chain (issue 37 items 1 and 3;
 * decisions 148, 149), on a real hardhat chain: a validator set signed by more than 2/3 of
 * the power in force is pending for the dispute period, during which the outgoing set
 * still signs and can pause; it then takes effect (activateValidatorSet, or lazily at the
 * next queueing); a second update waits for the first; owner sets come only from the
 * validators' signatures (the chain's SetOwners), timelocked the same way; the owners' own
 * set proposal is timelocked and any locker cancels it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, parseEventLogs, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { ownerActions, ownersDigest, signAll, validatorSetDigest, withdrawalDigest } from '../../src/bridge/signatures';
import { ascendingAddresses, FAR_VALID_UNTIL, GENESIS_VALIDATOR_KEYS, HardhatBridge, OWNER_KEYS, USDC } from '../helpers/hardhat-bridge';
import { revertEachTest } from './fixtures';

const DISPUTE_SEC = 3_600n;
let b: HardhatBridge;
let newKeys: Hex[];
let newSet: Address[];
const ONES = [1n, 1n, 1n];

beforeAll(async () => {
  b = await HardhatBridge.start({ disputePeriodSec: DISPUTE_SEC });
  newKeys = [await b.fundedKey(), await b.fundedKey(), await b.fundedKey()];
  newSet = ascendingAddresses(newKeys);
}, 120_000);

afterAll(async () => {
  await b?.stop();
});

revertEachTest(() => b.chain.rpcUrl);

const relayer = () => b.accounts[9];
const setSigs = (keys: readonly Hex[], nonce: bigint, set: readonly Address[], powers: readonly bigint[]) => signAll(keys, validatorSetDigest(b.domain, nonce, set, powers));
const withdrawalSigs = (keys: readonly Hex[], id: bigint, to: Address, amount: bigint) => signAll(keys, withdrawalDigest(b.domain, id, to, amount, FAR_VALID_UNTIL));
const queue = async (keys: readonly Hex[], id: bigint, to: Address, amount: bigint) =>
  b.call(relayer(), 'queueWithdrawal', [id, to, amount, FAR_VALID_UNTIL, await withdrawalSigs(keys, id, to, amount)]);
const current = async () => (await b.read<[Address[], bigint[]]>('validatorSet'))[0];
const TO = getAddress('0x000000000000000000000000000000000000d00d');

async function eventsOf(name: string) {
  const logs = await b.pub.getLogs({ address: b.dep.bridge, fromBlock: BigInt(b.dep.deployBlock) });
  return parseEventLogs({ abi: contractArtifacts().ExchangeBridge.abi, logs, eventName: name } as never) as unknown as { args: Record<string, unknown> }[];
}

describe('validator sets signed by the set in force', () => {
  it('a new set needs more than 2/3 of the current power over its exact digest and a higher nonce', async () => {
    const sigs4 = await setSigs(GENESIS_VALIDATOR_KEYS.slice(0, 4), 1n, newSet, ONES);
    await expect(b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, sigs4])).rejects.toThrow(/QuorumNotReached/);
    // Signed over another nonce, another set, or by the new keys themselves: not the current validators.
    await expect(b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 2n, newSet, ONES)])).rejects.toThrow(/UnknownSigner/);
    await expect(b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 1n, newSet, [1n, 1n, 2n])])).rejects.toThrow(/UnknownSigner/);
    await expect(b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(newKeys, 1n, newSet, ONES)])).rejects.toThrow(/UnknownSigner/);
    // Nonce 0 is the constructor's set: never again.
    await expect(b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 0n, await setSigs(GENESIS_VALIDATOR_KEYS, 0n, newSet, ONES)])).rejects.toThrow(/StaleNonce/);
    // A set out of order or with a zero power is refused whoever signs it.
    const unordered = [...newSet].reverse();
    await expect(b.call(relayer(), 'updateValidatorSet', [unordered, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 1n, unordered, ONES)])).rejects.toThrow(/BadSet/);

    await b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS.slice(1), 1n, newSet, ONES)]);
    const [pending, powers, nonce, activeAt, byOwners] = await b.read<[Address[], bigint[], bigint, bigint, boolean]>('pendingValidatorSet');
    expect([pending, powers, nonce, byOwners]).toEqual([newSet, ONES, 1n, false]);
    expect(activeAt).toBe((await b.latestTime()) + DISPUTE_SEC);
    const [proposed] = await eventsOf('ValidatorSetProposed');
    expect(proposed.args).toEqual({ setNonce: 1n, validators: newSet, powers: ONES, activeAt });
  });

  it('takes effect only after the dispute period: the outgoing set signs meanwhile, then only the new one', async () => {
    await b.deposit(b.accounts[1], b.accounts[1], 100n * USDC);
    await b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 1n, newSet, ONES)]);
    // During the delay: the genesis set is in force, the new one is not; activation is early.
    await expect(queue(newKeys, 1n, TO, USDC)).rejects.toThrow(/UnknownSigner/);
    await queue(GENESIS_VALIDATOR_KEYS, 1n, TO, USDC);
    await expect(b.call(relayer(), 'activateValidatorSet', [])).rejects.toThrow(/NotDue/);
    // A second update waits for the first.
    const next = ascendingAddresses(newKeys.slice(0, 2));
    await expect(b.call(relayer(), 'updateValidatorSet', [next, [1n, 1n], 2n, await setSigs(GENESIS_VALIDATOR_KEYS, 2n, next, [1n, 1n])])).rejects.toThrow(
      /SetUpdatePending/,
    );

    await b.increaseTime(DISPUTE_SEC);
    // Applied lazily by the next queueing: the new set alone signs, the genesis keys are strangers.
    await expect(queue(GENESIS_VALIDATOR_KEYS, 2n, TO, USDC)).rejects.toThrow(/UnknownSigner/);
    await queue(newKeys, 2n, TO, USDC);
    expect(await current()).toEqual(newSet);
    expect(await b.read<bigint>('validatorSetNonce')).toBe(1n);
    expect(await b.read<bigint>('totalPower')).toBe(3n);
    expect((await eventsOf('ValidatorSetChanged')).at(-1)!.args).toEqual({ validators: newSet, powers: ONES, totalPower: 3n });
    await expect(b.call(relayer(), 'activateValidatorSet', [])).rejects.toThrow(/NothingPending/);

    // The next set is signed by the set now in force; the first update's signatures do not replay.
    await expect(b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 1n, newSet, ONES)])).rejects.toThrow(/StaleNonce/);
    await expect(b.call(relayer(), 'updateValidatorSet', [next, [1n, 1n], 2n, await setSigs(GENESIS_VALIDATOR_KEYS, 2n, next, [1n, 1n])])).rejects.toThrow(/UnknownSigner/);
    await b.call(relayer(), 'updateValidatorSet', [next, [1n, 1n], 2n, await setSigs(newKeys, 2n, next, [1n, 1n])]);
    await b.increaseTime(DISPUTE_SEC);
    await b.call(relayer(), 'activateValidatorSet', []);
    expect(await current()).toEqual(next);
    // The withdrawal the genesis set queued before the change is paid all the same.
    await b.call(relayer(), 'executeWithdrawal', [1n]);
    expect(await b.usdcBalance(TO)).toBe(USDC);
  });

  it('the outgoing set pauses during the delay: nothing takes effect until the owners unpause', async () => {
    await b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 1n, newSet, ONES)]);
    await b.call(privateKeyToAccount(GENESIS_VALIDATOR_KEYS[4]), 'pause', []);
    await b.increaseTime(DISPUTE_SEC);
    await expect(b.call(relayer(), 'activateValidatorSet', [])).rejects.toThrow(/IsPaused/);
    await expect(queue(newKeys, 1n, TO, USDC)).rejects.toThrow(/IsPaused/);
    expect((await current()).length).toBe(6);
    await b.call(relayer(), 'unpause', [await b.ownerSigs(OWNER_KEYS.slice(0, 2), ownerActions.unpause())]);
    await b.call(relayer(), 'activateValidatorSet', []);
    expect(await current()).toEqual(newSet);
    // Now the departed genesis keys are not lockers either.
    await expect(b.call(privateKeyToAccount(GENESIS_VALIDATOR_KEYS[4]), 'pause', [])).rejects.toThrow(/NotLocker/);
  });
});

describe("the owners' paths", () => {
  it("the owners' set proposal waits the dispute period and any locker cancels it", async () => {
    const owned = ascendingAddresses(OWNER_KEYS);
    const action = ownerActions.setValidators(owned, [1n, 1n, 1n], 1n);
    await b.call(relayer(), 'setValidators', [owned, [1n, 1n, 1n], 1n, await b.ownerSigs(OWNER_KEYS.slice(0, 2), action)]);
    expect((await b.read<[Address[], bigint[], bigint, bigint, boolean]>('pendingValidatorSet'))[4]).toBe(true);
    // Not a locker: refused. A genesis validator: cancels.
    await expect(b.call(relayer(), 'cancelOwnersValidatorSet', [])).rejects.toThrow(/NotLocker/);
    await b.call(privateKeyToAccount(GENESIS_VALIDATOR_KEYS[0]), 'cancelOwnersValidatorSet', []);
    expect((await eventsOf('ValidatorSetCancelled')).map((e) => e.args.setNonce)).toEqual([1n]);
    await b.increaseTime(DISPUTE_SEC);
    await expect(b.call(relayer(), 'activateValidatorSet', [])).rejects.toThrow(/NothingPending/);
    expect((await current()).length).toBe(6);
    // A set the validators signed is not the owners' to cancel, nor a single locker's.
    await b.call(relayer(), 'updateValidatorSet', [newSet, ONES, 1n, await setSigs(GENESIS_VALIDATOR_KEYS, 1n, newSet, ONES)]);
    await expect(b.call(privateKeyToAccount(GENESIS_VALIDATOR_KEYS[0]), 'cancelOwnersValidatorSet', [])).rejects.toThrow(/NothingPending/);
  });

  // contract [C-limits-timelock]: a custody change on the bridge waits the high-impact timelock.
  it("the owners' set is a custody change: it waits the chain's high-impact timelock, not the dispute period (decision 153)", async () => {
    // The devnet genesis's high-impact timelock is 7 days; the dispute period here 1 hour.
    expect(b.ownerSetDelaySec).toBe(7n * 24n * 3_600n);
    expect(await b.read<bigint>('ownerSetDelay')).toBe(b.ownerSetDelaySec);
    const owned = ascendingAddresses(OWNER_KEYS);
    await b.call(relayer(), 'setValidators', [owned, ONES, 1n, await b.ownerSigs(OWNER_KEYS.slice(0, 2), ownerActions.setValidators(owned, ONES, 1n))]);
    await b.increaseTime(DISPUTE_SEC);
    await expect(b.call(relayer(), 'activateValidatorSet', [])).rejects.toThrow(/NotDue/);
    await b.increaseTime(b.ownerSetDelaySec - DISPUTE_SEC);
    await b.call(relayer(), 'activateValidatorSet', []);
    expect(await current()).toEqual(owned);
    // A contract whose owners' delay is shorter than its dispute period is refused at deployment.
    const { ExchangeBridge } = contractArtifacts();
    const d = b.domain;
    await expect(
      b.wallet(b.accounts[0]).deployContract({ abi: ExchangeBridge.abi, bytecode: ExchangeBridge.bytecode, args: [b.dep.usdc, 10n, 9n, d.exchangeChainId, d.genesisHash, owned, ONES, owned, 1n] } as never),
    ).rejects.toThrow(/BadSet|revert/);
  });

  it("owner sets come from the validators' signatures (the chain's SetOwners), after the delay", async () => {
    const newOwnerKeys = [await b.fundedKey(), await b.fundedKey()];
    const owners = ascendingAddresses(newOwnerKeys);
    const digest = ownersDigest(b.domain, 1n, owners, 1n);
    // The owners cannot name owners; short of 2/3 of the validators is not enough.
    await expect(b.call(relayer(), 'updateOwners', [owners, 1n, 1n, await signAll(OWNER_KEYS, digest)])).rejects.toThrow(/UnknownSigner/);
    await expect(b.call(relayer(), 'updateOwners', [owners, 1n, 1n, await signAll(GENESIS_VALIDATOR_KEYS.slice(0, 4), digest)])).rejects.toThrow(/QuorumNotReached/);
    await expect(b.call(relayer(), 'updateOwners', [owners, 3n, 1n, await signAll(GENESIS_VALIDATOR_KEYS, ownersDigest(b.domain, 1n, owners, 3n))])).rejects.toThrow(/BadSet/);
    await b.call(relayer(), 'updateOwners', [owners, 1n, 1n, await signAll(GENESIS_VALIDATOR_KEYS, digest)]);
    const [pendingOwners, threshold, nonce, activeAt] = await b.read<[Address[], bigint, bigint, bigint]>('pendingOwners');
    expect([pendingOwners, threshold, nonce]).toEqual([owners, 1n, 1n]);
    expect((await eventsOf('OwnersProposed'))[0].args).toEqual({ ownerNonce: 1n, owners, threshold: 1n, activeAt });
    await expect(b.call(relayer(), 'activateOwners', [])).rejects.toThrow(/NotDue/);
    await b.increaseTime(DISPUTE_SEC);
    await b.call(relayer(), 'activateOwners', []);
    expect(await b.read<Address[]>('owners')).toEqual(owners);
    expect(await b.read<bigint>('ownerThreshold')).toBe(1n);
    expect((await eventsOf('OwnersChanged')).at(-1)!.args).toEqual({ owners, threshold: 1n });
    // The old owners are strangers now; one new owner meets the threshold of 1.
    await b.call(privateKeyToAccount(GENESIS_VALIDATOR_KEYS[1]), 'pause', []);
    await expect(b.call(relayer(), 'unpause', [await b.ownerSigs(OWNER_KEYS.slice(0, 2), ownerActions.unpause())])).rejects.toThrow(/UnknownSigner/);
    await b.call(relayer(), 'unpause', [await b.ownerSigs(newOwnerKeys.slice(0, 1), ownerActions.unpause())]);
    expect(await b.read<boolean>('paused')).toBe(false);
    // The same signatures cannot bring the nonce back.
    await expect(b.call(relayer(), 'updateOwners', [owners, 1n, 1n, await signAll(GENESIS_VALIDATOR_KEYS, digest)])).rejects.toThrow(/StaleNonce/);
  });
});
