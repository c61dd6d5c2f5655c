/**
 * The state-sync flags of `start` (decision 140; src/cli/node-run.ts) and the progress
 * line (src/cli/sync-progress.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../src/cli/args';
import { STATE_SYNC_FLAGS, stateSyncConfig } from '../../src/cli/node-run';
import { START_HOME_FLAGS } from '../../src/cli/start-home';
import { stateSyncLine } from '../../src/cli/sync-progress';
import { bytesToHex } from '../../src/util/bytes';

const config = (argv: string[]) => stateSyncConfig(parseFlags(argv, STATE_SYNC_FLAGS)).stateSync!;
const HASH = `0x${'ab'.repeat(32)}`;

describe('--state-sync, --no-state-sync, --trust-height/--trust-hash', () => {
  it('absent: the default (auto); --state-sync forces; --no-state-sync turns it off', () => {
    expect(config([])).toMatchObject({ forced: false, off: false, trust: undefined });
    expect(config(['--state-sync'])).toMatchObject({ forced: true, off: false });
    expect(config(['--no-state-sync'])).toMatchObject({ forced: false, off: true });
  });

  it('takes a trusted height and hash together, and refuses one without the other or a malformed hash', () => {
    const c = config(['--trust-height', '120', '--trust-hash', HASH]);
    expect(c.trust?.height).toBe(120);
    expect(bytesToHex(c.trust!.hash)).toBe(HASH);
    expect(() => config(['--trust-height', '120'])).toThrow(/go together/);
    expect(() => config(['--trust-hash', HASH])).toThrow(/go together/);
    expect(() => config(['--trust-height', '1', '--trust-hash', '0x1234'])).toThrow(/64 hex/);
  });

  it('are flags of start --home too', () => {
    expect(parseFlags(['--state-sync', '--trust-height', '5', '--trust-hash', HASH], START_HOME_FLAGS)).toMatchObject({ 'state-sync': true, 'trust-height': 5 });
  });
});

describe('the state-sync progress line', () => {
  it('shows chunks, bytes and peers, with a bar on a terminal only', () => {
    const p = { phase: 'chunks' as const, height: 12_000, chunksDone: 64, chunksTotal: 256, bytes: 5 * 1024 * 1024, bytesTotal: 20 * 1024 * 1024, peers: 4 };
    expect(stateSyncLine(p)).toBe(`state sync at 12,000 [${'#'.repeat(8)}${'-'.repeat(22)}] chunks 64/256 25.0% 5.0 MiB/20.0 MiB from 4 peers`);
    expect(stateSyncLine(p, false)).toBe('state sync at 12,000 chunks 64/256 25.0% 5.0 MiB/20.0 MiB from 4 peers');
    expect(stateSyncLine({ ...p, phase: 'done' })).toMatch(/restored \(256 chunks, 5\.0 MiB\)/);
  });
});
