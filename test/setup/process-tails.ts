/**
 * Setup of the full tier's process tests (vitest project `processes`): every child
 * process a test starts with spawn or execFile, through any helper or directly (node
 * processes, the command line, hardhat, Chromium: every starter the tests use; the Sync
 * forms return their output to the test itself), has the tail of its output kept; when a test fails, by an
 * assertion or by its timeout, the tails of the processes it started are printed, so a
 * multi-process failure in CI says what each node was doing. Output is observed beside
 * the test's own listeners (a 'data' listener added at spawn, before anything is read).
 */
import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { shownOnFailure } from '../helpers/failure-output';

/** Bytes of output kept per process. */
const TAIL_BYTES = 8_192;

interface Watched {
  label: string;
  proc: ChildProcess;
  tail: string;
}

let started: Watched[] = [];

const originalSpawn = childProcess.spawn;
const originalExecFile = childProcess.execFile;

function watch(proc: ChildProcess, command: unknown, args: unknown): ChildProcess {
  const argv = Array.isArray(args) ? args.map(String) : [];
  const w: Watched = { label: [String(command), ...argv].join(' ').slice(0, 300), proc, tail: '' };
  const keep = (chunk: Buffer | string) => {
    w.tail = (w.tail + chunk.toString()).slice(-TAIL_BYTES);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  started.push(w);
  return proc;
}

(childProcess as unknown as Record<string, unknown>).spawn = function spawn(this: unknown, command: unknown, ...rest: unknown[]) {
  return watch((originalSpawn as (...a: unknown[]) => ChildProcess).call(this, command, ...rest), command, rest[0]);
};
(childProcess as unknown as Record<string, unknown>).execFile = function execFile(this: unknown, command: unknown, ...rest: unknown[]) {
  return watch((originalExecFile as (...a: unknown[]) => ChildProcess).call(this, command, ...rest), command, rest[0]);
};
syncBuiltinESMExports();

beforeEach(() => {
  // Processes started in beforeAll (a network for the whole file) stay watched for every test.
  started = started.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null);
});

let printed = false;

function printTails(what: string): void {
  printed = true;
  for (const w of started) {
    const state = w.proc.exitCode !== null ? `exited ${w.proc.exitCode}` : w.proc.signalCode !== null ? `killed ${w.proc.signalCode}` : 'running';
    process.stderr.write(`\n--- ${what}: pid ${w.proc.pid} (${state}) ${w.label}\n--- its last ${TAIL_BYTES} bytes of output:\n${w.tail || '(none)'}\n`);
  }
  for (const f of shownOnFailure) process.stderr.write(`\n--- ${what}: ${f.label}:\n${f.read() || '(empty)'}\n`);
}

afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail') printTails(ctx.task.name);
});

// A file whose beforeAll failed (a network that never came up) has no test to fail.
afterAll(({}, file) => {
  const failed = file.result?.state === 'fail' || (file.result?.errors?.length ?? 0) > 0;
  if (failed && !printed) printTails(`${file.name} (its setup)`);
});
