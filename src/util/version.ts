/**
 * The node's software version (decision 77): what `--version` prints, GET /status
 * reports and a SoftwareUpgrade operation is compared with. The single-file build bakes
 * it in (src/build/binary.ts defines __EXCHANGE_NODE_VERSION__, package.json's version
 * unless `npm run build -- --version X` overrides it); run from the source tree, it is
 * package.json's version.
 */
import { readFileSync } from 'node:fs';

declare const __EXCHANGE_NODE_VERSION__: string | undefined;

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export const NODE_VERSION: string = typeof __EXCHANGE_NODE_VERSION__ === 'string' ? __EXCHANGE_NODE_VERSION__ : packageVersion();
