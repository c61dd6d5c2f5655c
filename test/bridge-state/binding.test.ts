/**
 * One bridge, one chain, in execution (issue 37 item 4; decision 150): the withdrawal
 * message validators sign carries this chain's id and genesis hash (a signature over
 * another chain's message is refused 401), and genesis bridge.firstDepositId is where
 * crediting starts: a deposit below it is never credited (its claim is stale, 409).
 */
import { describe, expect, it } from 'vitest';
import { bridgeDomain, nextDepositId, withdrawalMessage } from '../../src/state/bridge/reads';
import { genesisState } from '../../src/state/genesis';
import { bytesToHex } from '../../src/util/bytes';
import { applyAt, attestation, chainId, deposit, genesisWith, outcomes, POWER, signaturesTx, signers, T0, withdrawalSignature, withdrawTx } from './harness';

const USDC = 10n ** 6n;
const recipient = '0x00000000000000000000000000000000000000a1' as const;

describe('the bridge binding in execution', () => {
  it("withdrawal messages carry this chain's id and genesis hash; a signature for another chain or genesis is refused", () => {
    const genesis = new Uint8Array(32).fill(9);
    const state = genesisState(genesisWith([POWER]), genesis).state;
    expect(bridgeDomain(state)).toMatchObject({ exchangeChainId: BigInt(chainId) });
    expect(bytesToHex(bridgeDomain(state).genesisHash)).toBe(bytesToHex(genesis));
    applyAt(state, [withdrawTx(5n * USDC)], T0 + 1_000);
    const id = 1n;
    expect(withdrawalMessage(state, state.withdrawals.get(String(id))!).genesisHash).toEqual(genesis);
    const otherChain = withdrawalSignature(state, signers[0], id, (m) => ({ ...m, exchangeChainId: m.exchangeChainId + 1n }));
    const otherGenesis = withdrawalSignature(state, signers[0], id, (m) => ({ ...m, genesisHash: new Uint8Array(32).fill(8) }));
    const r = applyAt(
      state,
      [
        signaturesTx(signers[0], [{ withdrawalId: id, signature: otherChain }]),
        signaturesTx(signers[0], [{ withdrawalId: id, signature: otherGenesis }]),
        signaturesTx(signers[0], [{ withdrawalId: id, signature: withdrawalSignature(state, signers[0], id) }]),
      ],
      T0 + 2_000,
    );
    expect(outcomes(r)).toEqual(['INVALID_SIGNATURE', 'INVALID_SIGNATURE', 'ok']);
    expect(state.withdrawals.get(String(id))!.status).toBe('signed');
  });

  it('genesis firstDepositId: deposits below it are never credited, crediting starts there', () => {
    const g = genesisWith([POWER]);
    const state = genesisState({ ...g, bridge: { ...g.bridge!, firstDepositId: 3 } }, new Uint8Array(32).fill(1)).state;
    expect(nextDepositId(state)).toBe(3n);
    const before = state.account(recipient).usdcFree;
    const r = applyAt(state, [attestation(signers[0], [deposit(0n, recipient, 7n * USDC), deposit(2n, recipient, 7n * USDC)])], T0 + 1_000);
    expect(outcomes(r)).toEqual(['ATTESTATION_STALE']);
    applyAt(state, [attestation(signers[0], [deposit(3n, recipient, 4n * USDC)])], T0 + 2_000);
    expect(nextDepositId(state)).toBe(4n);
    expect(state.account(recipient).usdcFree - before).toBe(4n * USDC);
  });
});
