/**
 * The bridge's two contracts (contracts/TestUSDC.sol, contracts/ExchangeBridge.sol),
 * compiled offline with the `solc` npm package (decision 81). Deterministic: the same
 * sources, compiler and settings give the same bytecode, so the compiled artifacts are
 * cached on disk (data/bridge/artifacts/, gitignored) under the sha256 of exactly those
 * inputs; a changed source or compiler compiles again. I/O (reads the sources, writes the
 * cache): not part of the pure core.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Abi, Hex } from 'viem';
import { REPO_ROOT } from '../util/repo-root';

const require = createRequire(import.meta.url);

export { REPO_ROOT };
const CONTRACTS_DIR = join(REPO_ROOT, 'contracts');
const CACHE_DIR = join(REPO_ROOT, 'data', 'bridge', 'artifacts');

export const CONTRACT_NAMES = ['TestUSDC', 'ExchangeBridge'] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

export type Artifacts = Record<ContractName, Artifact>;

/**
 * Compiler settings: part of the cache key. The optimizer and EVM version are fixed (not
 * the compiler's defaults, which change between releases); `cancun` runs on hardhat 2.29's
 * default hardfork and on today's public chains. No metadata hash: the bytecode then
 * depends on the sources' contents only, not on their paths or comments' IPFS hash.
 */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

let memo: Artifacts | undefined;

/** The standard JSON input solc compiles: each contract's source, read from contracts/. */
function standardInput(): { language: 'Solidity'; sources: Record<string, { content: string }>; settings: typeof SETTINGS } {
  const sources: Record<string, { content: string }> = {};
  for (const name of CONTRACT_NAMES) sources[`${name}.sol`] = { content: readFileSync(join(CONTRACTS_DIR, `${name}.sol`), 'utf8') };
  return { language: 'Solidity', sources, settings: SETTINGS };
}

/** Compiles with solc, no cache: throws on any compiler error (warnings are errors too: the sources compile clean). */
export function compileContracts(): Artifacts {
  const solc = require('solc') as { compile(input: string): string; version(): string };
  const output = JSON.parse(solc.compile(JSON.stringify(standardInput()))) as SolcOutput;
  const problems = (output.errors ?? []).filter((e) => e.severity !== 'info');
  if (problems.length > 0) throw new Error(`solc: ${problems.map((e) => e.formattedMessage).join('\n')}`);
  const out = {} as Artifacts;
  for (const name of CONTRACT_NAMES) {
    const c = output.contracts?.[`${name}.sol`]?.[name];
    if (!c) throw new Error(`solc: no output for ${name}`);
    out[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return out;
}

/** The cache key: solc's version, the settings and every source. */
function cacheKey(): string {
  const solc = require('solc') as { version(): string };
  return createHash('sha256').update(JSON.stringify({ solc: solc.version(), input: standardInput() })).digest('hex');
}

/** The compiled contracts, from memory, the disk cache, or solc (then cached). */
export function contractArtifacts(): Artifacts {
  if (memo) return memo;
  const file = join(CACHE_DIR, `${cacheKey()}.json`);
  if (existsSync(file)) {
    memo = JSON.parse(readFileSync(file, 'utf8')) as Artifacts;
    return memo;
  }
  memo = compileContracts();
  mkdirSync(CACHE_DIR, { recursive: true });
  // Written whole then renamed: a concurrent reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(memo));
  renameSync(tmp, file);
  return memo;
}
