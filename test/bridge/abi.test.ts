/** The committed ABIs (src/bridge/abi.ts, what the node's bridge client reads) are exactly what solc compiles from contracts/. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXCHANGE_BRIDGE_ABI, TEST_USDC_ABI } from '../../src/bridge/abi';
import { abiModuleSource } from '../../src/bridge/abi-source';
import { contractArtifacts, REPO_ROOT } from '../../src/bridge/contracts';

describe('src/bridge/abi.ts', () => {
  it('holds the compiled contracts’ ABIs, byte for byte what `npm run bridge:abi` writes', () => {
    const compiled = contractArtifacts();
    expect(EXCHANGE_BRIDGE_ABI).toEqual(compiled.ExchangeBridge.abi);
    expect(TEST_USDC_ABI).toEqual(compiled.TestUSDC.abi);
    expect(readFileSync(join(REPO_ROOT, 'src/bridge/abi.ts'), 'utf8')).toBe(abiModuleSource(compiled));
  });

  it('names the events the watcher decodes and the calls the relayer makes', () => {
    const names = new Set(EXCHANGE_BRIDGE_ABI.map((e) => ('name' in e ? e.name : '')));
    for (const n of ['Deposit', 'WithdrawalQueued', 'WithdrawalPaid', 'WithdrawalCancelled', 'queueWithdrawal', 'executeWithdrawal', 'withdrawals', 'validatorSet', 'paused']) {
      expect(names.has(n), n).toBe(true);
    }
  });
});
