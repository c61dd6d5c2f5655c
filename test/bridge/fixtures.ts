/**
 * Test fixture contracts (test/bridge/fixtures/NAME.sol, test only: HostileToken,
 * FakeDeposit) compiled with solc, for the bridge tests that deploy them on hardhat.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Abi, Hex } from 'viem';
import { ROOT } from '../helpers/devnet';

/** A test fixture contract (test/bridge/fixtures/NAME.sol) compiled with solc. */
export function compileFixture(name: string): { abi: Abi; bytecode: Hex } {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const content = readFileSync(join(ROOT, 'test', 'bridge', 'fixtures', `${name}.sol`), 'utf8');
  const out = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources: { [`${name}.sol`]: { content } }, settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } })),
  ) as { errors?: { severity: string; formattedMessage: string }[]; contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>> };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = out.contracts[`${name}.sol`][name];
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}
