/**
 * The chain's sets reach the contract through the relayer (issue 37 item 1; decision
 * 151), against a real hardhat chain: the bridge deployed for a genesis of six validators
 * with 2-block epochs, the chain's state executed here block by block. The first boundary
 * caps the powers, so the chain records set 1; every genesis validator's relayer signs it
 * (BridgeSetSignatures, applied in a block); an active relayer submits it with
 * updateValidatorSet, and once the dispute period has passed on the external clock it
 * activates it: the contract's set is the chain's, nonce 1. A withdrawal requested then is
 * signed, queued with the signatures of the set in force and paid. Then the chain's owners
 * change (what an executed SetOwners writes): the owner set is recorded, signed by the
 * validators, submitted with updateOwners and in force after the dispute period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { Relayer, RELAYER_TAKEOVER_MS_DEFAULT } from '../../actors/bridge/relayer';
import type { BridgeRelayerStats } from '../../actors/bridge/messages';
import { BridgeClient } from '../../src/bridge/evm';
import type { Tx } from '../../src/codec/tx';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { genesisHash } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { bridgeOwnerSets, bridgeSet, latestBridgeSet, setSignedByPredecessor } from '../../src/state/bridge/sets';
import { genesisState } from '../../src/state/genesis';
import type { State } from '../../src/state/state';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { applyAt, destination, outcomes, T0, withdrawTx } from '../bridge-state/harness';
import { devnetGenesis, waitFor } from '../helpers/devnet';
import { GENESIS_VALIDATOR_KEYS, HardhatBridge, USDC } from '../helpers/hardhat-bridge';

const DISPUTE_SEC = 60n;
const base = devnetGenesis(6).genesis;
const genesis: Genesis = { ...base, consensus: { ...base.consensus, epochLengthBlocks: 2 } };
let b: HardhatBridge;
let state: State;
let now = T0;
const submitted: Tx[] = [];

const stats = (): BridgeRelayerStats => ({
  signatureTxsSubmitted: 0,
  signaturesSubmitted: 0,
  signatureTxsRefused: 0,
  queued: 0,
  executed: 0,
  sendFailures: 0,
  inFlight: 0,
  setSignaturesSubmitted: 0,
  setsSubmitted: 0,
  setsActivated: 0,
});

function relayerOf(key: Hex): Relayer {
  const external = new BridgeClient({ rpcUrl: b.chain.rpcUrl, bridge: b.dep.bridge, usdc: b.dep.usdc, expectedChainId: b.dep.chainId, receiptPollMs: 50 });
  return new Relayer({
    external,
    signer: new Secp256k1Signer(hexToBytes(key)),
    privateKey: hexToBytes(key),
    state: () => state,
    height: () => state.head().height,
    blockTimeMs: () => now,
    chainId: genesis.chainId,
    takeoverMs: RELAYER_TAKEOVER_MS_DEFAULT,
    submit: async (tx) => {
      submitted.push(tx);
    },
    stats: stats(),
    log: createLogger({ destination: 'silent' }),
  });
}

const block = (txs: Tx[] = []) => applyAt(state, txs, (now += 1_000));
const externalHead = async () => ({ timestampSec: await b.latestTime() });

beforeAll(async () => {
  b = await HardhatBridge.start({ genesis, disputePeriodSec: DISPUTE_SEC });
  state = genesisState(genesis, genesisHash(genesis)).state;
  // The chain's clock near the external one: a withdrawal's validUntil is measured against the latter.
  now = Math.max(T0, Number(await b.latestTime()) * 1000);
}, 120_000);

afterAll(async () => {
  await b?.stop();
});

describe("the relayer carries the chain's sets to the contract", () => {
  it('signs set 1 with every genesis key, submits it, activates it after the dispute period; a withdrawal then is paid', async () => {
    block();
    block(); // height 2: the boundary records set 1
    const set1 = latestBridgeSet(state);
    expect(set1.nonce).toBe(1n);
    const relayers = GENESIS_VALIDATOR_KEYS.map(relayerOf);

    // Nothing signed yet: an active relayer submits nothing.
    await relayers[0].pollSets(await externalHead(), true);
    expect((await b.read<bigint>('pendingSetActiveAt'))).toBe(0n);

    // Each genesis validator signs (active or not), one transaction each, applied in a block.
    for (const r of relayers) await r.pollSets(await externalHead(), false);
    expect(outcomes(block(submitted.splice(0)))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(setSignedByPredecessor(state, bridgeSet(state, 1n)!)).toBe(true);
    // Signed already: a second poll sends nothing.
    await relayers[1].pollSets(await externalHead(), false);
    expect(submitted).toEqual([]);

    // An active relayer submits it; the contract holds it pending.
    await relayers[2].pollSets(await externalHead(), true);
    await waitFor(async () => ((await b.read<bigint>('pendingSetNonce')) === 1n ? true : undefined), 20_000, 'set 1 pending on the contract');
    const [pending, powers] = await b.read<[string[], bigint[]]>('pendingValidatorSet');
    expect(pending.map((a) => a.toLowerCase())).toEqual(set1.validators);
    expect(powers).toEqual(set1.powers);
    // Not due: another relayer neither activates nor submits again.
    await relayers[3].pollSets(await externalHead(), true);
    await new Promise((r) => setTimeout(r, 500));
    expect(await b.read<bigint>('validatorSetNonce')).toBe(0n);

    // Due: activated.
    await b.increaseTime(DISPUTE_SEC);
    await relayers[4].pollSets(await externalHead(), true);
    await waitFor(async () => ((await b.read<bigint>('validatorSetNonce')) === 1n ? true : undefined), 20_000, 'set 1 in force on the contract');
    const [current, currentPowers] = await b.read<[string[], bigint[]]>('validatorSet');
    expect(current.map((a) => a.toLowerCase())).toEqual(set1.validators);
    expect(currentPowers).toEqual(set1.powers);

    // A withdrawal requested now is signed for the set in force and paid by the contract.
    await b.deposit(b.accounts[1], b.accounts[1], 100n * USDC);
    expect(outcomes(block([withdrawTx(5n * USDC)]))).toEqual(['ok']);
    const head = await b.pub.getBlock();
    const extHead = { number: head.number, timestampSec: head.timestamp };
    for (const r of relayers) await r.poll(extHead);
    block(submitted.splice(0));
    expect(state.withdrawals.get('1')!.status).toBe('signed');
    for (const r of relayers) await r.poll(extHead); // the designated submitter queues it
    await waitFor(async () => ((await b.read<[string, bigint, number]>('withdrawals', [1n]))[2] === 1 ? true : undefined), 20_000, 'withdrawal 1 queued');
    await b.increaseTime(DISPUTE_SEC);
    const later = await b.pub.getBlock();
    // Its state here is still `signed` (no watcher in this test): mark it submitted as the watchers' quorum would.
    state.withdrawals.set('1', { ...state.withdrawals.get('1')!, status: 'submitted' });
    for (const r of relayers) await r.poll({ number: later.number, timestampSec: later.timestamp });
    await waitFor(async () => ((await b.usdcBalance(destination)) === 5n * USDC ? true : undefined), 20_000, 'withdrawal 1 paid');
  });

  it("the chain's SetOwners reaches the contract: recorded, signed, submitted, in force after the dispute period", async () => {
    // What an executed SetOwners writes (src/state/governance/operations.ts): params.owners.
    const owners = ['0x00000000000000000000000000000000000000c1', '0x00000000000000000000000000000000000000c2', '0x00000000000000000000000000000000000000c3'] as Address[];
    const params = state.params();
    state.meta.set('params', { ...params, owners: { ...params.owners, addresses: owners } });
    block();
    expect(bridgeOwnerSets(state).at(-1)!.nonce).toBe(1n);
    const relayers = GENESIS_VALIDATOR_KEYS.map(relayerOf);
    for (const r of relayers) await r.pollSets(await externalHead(), false);
    expect(outcomes(block(submitted.splice(0)))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    await relayers[0].pollSets(await externalHead(), true);
    await waitFor(async () => ((await b.read<bigint>('pendingOwnerSetNonce')) === 1n ? true : undefined), 20_000, 'owner set 1 pending on the contract');
    expect((await b.read<string[]>('owners')).length).toBe(3);
    expect((await b.read<string[]>('owners')).map((o) => o.toLowerCase())).not.toEqual(owners);
    await b.increaseTime(DISPUTE_SEC);
    await relayers[1].pollSets(await externalHead(), true);
    await waitFor(async () => ((await b.read<bigint>('ownerSetNonce')) === 1n ? true : undefined), 20_000, 'owner set 1 in force');
    expect((await b.read<string[]>('owners')).map((o) => o.toLowerCase())).toEqual(owners);
    expect(await b.read<bigint>('ownerThreshold')).toBe(2n);
  });
});
