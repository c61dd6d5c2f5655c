/**
 * The machine's Chromium for the page tests, driven by playwright-core (never a browser
 * build downloaded by a test tool). Where it lives: $CHROMIUM_PATH when set, else the
 * first of the usual Debian and Ubuntu paths that exists (Debian's package installs
 * /usr/bin/chromium; .ci/run installs it when absent). None found is an error naming the
 * fix, not a skipped test. The flags are the ones a root, offline, headless run needs:
 * no sandbox (root), and none of the background fetches a closed network refuses.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium', '/snap/bin/chromium'];

export function chromiumPath(env: NodeJS.ProcessEnv = process.env, exists: (p: string) => boolean = existsSync): string {
  const given = env.CHROMIUM_PATH;
  if (given !== undefined && given !== '') {
    if (!exists(given)) throw new Error(`CHROMIUM_PATH=${given}: no such file`);
    return given;
  }
  const found = CANDIDATES.find(exists);
  if (found === undefined) {
    throw new Error(`no Chromium found (tried ${CANDIDATES.join(', ')}): install Debian's chromium package (apt-get install chromium), or set CHROMIUM_PATH`);
  }
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
