/**
 * Runs the real command line (`node dist/exchange-node.mjs …`, the build made fresh for
 * the run: test/helpers/node-program.ts) as a child process, with the node that runs the
 * tests (node_modules/.bin's), and collects its output.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_PROGRAM } from '../helpers/node-program';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], cwd = ROOT): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_PROGRAM, ...args], { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
