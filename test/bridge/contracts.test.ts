/**
 * The bridge contracts compile offline with solc, clean (no warning), and
 * deterministically: compiling again gives the same bytecode as the cached artifacts
 * (src/bridge/contracts.ts, decision 81).
 */
import { describe, expect, it } from 'vitest';
import { compileContracts, contractArtifacts, CONTRACT_NAMES } from '../../src/bridge/contracts';

describe('bridge contracts (solc, offline)', () => {
  it('compile clean and to the same bytecode every time', () => {
    const cached = contractArtifacts();
    const fresh = compileContracts();
    for (const name of CONTRACT_NAMES) {
      expect(fresh[name].bytecode).toMatch(/^0x[0-9a-f]{200,}$/);
      expect(fresh[name].bytecode).toBe(cached[name].bytecode);
      expect(fresh[name].abi).toEqual(cached[name].abi);
    }
    const events = fresh.ExchangeBridge.abi.filter((e) => e.type === 'event').map((e) => ('name' in e ? e.name : ''));
    expect(events).toContain('Deposit');
    const deposit = fresh.ExchangeBridge.abi.find((e) => e.type === 'event' && e.name === 'Deposit');
    expect(deposit).toEqual({
      type: 'event',
      name: 'Deposit',
      anonymous: false,
      inputs: [
        { indexed: true, internalType: 'uint256', name: 'depositId', type: 'uint256' },
        { indexed: true, internalType: 'address', name: 'depositor', type: 'address' },
        { indexed: true, internalType: 'address', name: 'recipient', type: 'address' },
        { indexed: false, internalType: 'uint256', name: 'amount', type: 'uint256' },
      ],
    });
  });
});
