/**
 * Test fixture contracts (test/bridge/fixtures/NAME.sol, test only: HostileToken,
 * FakeDeposit) compiled with solc, for the bridge tests that deploy them on hardhat.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Abi, Hex } from 'viem';
import { afterEach, beforeEach } from 'vitest';
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

/**
 * Each test of the file starts from the chain its beforeAll left: a hardhat snapshot is
 * taken before every test and reverted to after it, so no test sees another's deposits,
 * withdrawals, pause or validator set, whatever order they run in. Hardhat forgets a
 * snapshot once reverted to, hence a fresh one before each test.
 */
export function revertEachTest(rpcUrl: () => string): void {
  const rpc = async <T>(method: string): Promise<T> => {
    const params = method === 'evm_revert' ? [snapshot] : [];
    const res = await fetch(rpcUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  let snapshot = '';
  beforeEach(async () => {
    snapshot = await rpc<string>('evm_snapshot');
  });
  afterEach(async () => {
    if (!(await rpc<boolean>('evm_revert'))) throw new Error(`evm_revert ${snapshot}: hardhat did not revert to the snapshot taken before the test`);
  });
}
