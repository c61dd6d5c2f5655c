/**
 * More output to print when a process test fails (test/setup/process-tails.ts prints the
 * tail of every child process a test started by itself): files the processes write
 * that the test never reads as a pipe, such as each validator's node.log under a
 * launcher (the launcher's children are not the test's).
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

export interface ShownOnFailure {
  label: string;
  read(): string;
}

export const shownOnFailure: ShownOnFailure[] = [];

/** Prints the last `bytes` of `path` beside the process tails when a test of this file fails. */
export function showFileOnFailure(label: string, path: string, bytes = 8_192): void {
  shownOnFailure.push({ label, read: () => fileTail(path, bytes) });
}

function fileTail(path: string, bytes: number): string {
  if (!existsSync(path)) return '(no such file)';
  const size = statSync(path).size;
  const length = Math.min(size, bytes);
  const buf = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  return buf.toString('utf8');
}
