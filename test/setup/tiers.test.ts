/**
 * The test tiers themselves (vitest.config.ts): the fast tier refuses to start a process
 * through every door of node:child_process, however the module is imported; every entry
 * of the full tier's lists names files that exist (a stale entry would silently move
 * nothing); and the page tests find the machine's Chromium or say how to get it.
 */
import * as childNamed from 'node:child_process';
import { createRequire } from 'node:module';
import { globSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROCESS_TESTS, SIM_TESTS } from '../../vitest.config';
import { chromiumPath } from '../helpers/browser';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the fast tier starts no process', () => {
  const required = createRequire(import.meta.url)('node:child_process') as typeof childNamed;
  for (const [how, cp] of [['an ES import', childNamed], ['require', required]] as const) {
    it(`refuses spawn, exec, execFile, fork and their Sync forms (${how})`, () => {
      expect(() => cp.spawn('true')).toThrow(/starts a process, and the fast tier \(npm test\) starts none/);
      expect(() => cp.spawnSync('true')).toThrow(/PROCESS_TESTS/);
      expect(() => cp.exec('true')).toThrow(/PROCESS_TESTS/);
      expect(() => cp.execSync('true')).toThrow(/PROCESS_TESTS/);
      expect(() => cp.execFile('true')).toThrow(/PROCESS_TESTS/);
      expect(() => cp.execFileSync('true')).toThrow(/PROCESS_TESTS/);
      expect(() => cp.fork('x.js')).toThrow(/PROCESS_TESTS/);
    });
  }
});

describe("the full tier's lists", () => {
  for (const pattern of [...PROCESS_TESTS, ...SIM_TESTS]) {
    it(`${pattern} names test files that exist`, () => {
      expect(globSync(pattern, { cwd: ROOT }).length).toBeGreaterThan(0);
    });
  }
});

describe("the pages' Chromium", () => {
  it('is $CHROMIUM_PATH when set, else the first usual path that exists, else an error naming the package', () => {
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/c/chrome' }, (p) => p === '/opt/c/chrome')).toBe('/opt/c/chrome');
    expect(() => chromiumPath({ CHROMIUM_PATH: '/opt/c/chrome' }, () => false)).toThrow(/CHROMIUM_PATH=\/opt\/c\/chrome: no such file/);
    expect(chromiumPath({}, (p) => p === '/usr/bin/chromium-browser' || p === '/snap/bin/chromium')).toBe('/usr/bin/chromium-browser');
    expect(() => chromiumPath({}, () => false)).toThrow(/apt-get install chromium/);
  });
});
