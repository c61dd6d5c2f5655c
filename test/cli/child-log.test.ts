/**
 * A validator's log on a full disk (src/cli/child-log.ts; issue 26 deliver 1): on a real
 * tmpfs filled to the last byte, the log's write failure is said once (which file, the
 * errno, that the network keeps running), never thrown nor left as an unhandled 'error'
 * event; output meanwhile is dropped and counted; once space returns, the next write
 * after the retry interval opens the file again and says it is written again.
 * Needs root for `mount -t tmpfs` (this machine and CI run as root).
 */
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChildLog } from '../../src/cli/child-log';
import { waitFor } from '../helpers/devnet';
import { smallDiskForFile } from '../helpers/full-disk';

const fixtureDisk = smallDiskForFile('exchain-childlog-');

describe('a validator log on a full disk', () => {
  it('is said once and skipped, never thrown; written again once space returns', async () => {
    const said: string[] = [];
    let nowMs = 1_000_000;
    const path = join(fixtureDisk.disk.path, 'node.log');
    const log = new ChildLog(path, 'validator 2', (l) => said.push(l), 10_000, () => nowMs);
    log.write('before\n');
    await waitFor(() => (existsSync(path) && readFileSync(path, 'utf8') === 'before\n' ? true : undefined), 5_000, 'the first line written');
    const filler = fixtureDisk.disk.fill();
    for (let i = 0; i < 20; i++) log.write(Buffer.alloc(8192, 65));
    await waitFor(() => (said.length > 0 ? true : undefined), 5_000, 'the failure said');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^validator 2's log .*node\.log cannot be written \(ENOSPC\); its output is dropped until it can, tried again every 10 s; the validator and the network keep running$/);
    expect(log.writing).toBe(false);
    log.write('dropped\n');
    // Still full after the retry interval: tried again, failed again, not said again.
    nowMs += 10_000;
    log.write(Buffer.alloc(65536, 66));
    await new Promise((r) => setTimeout(r, 200));
    expect(said).toHaveLength(1);
    // Space returns: the next write past the interval opens the file again and says so.
    unlinkSync(filler);
    nowMs += 10_000;
    log.write('after\n');
    await waitFor(() => (said.length > 1 ? true : undefined), 5_000, 'the recovery said');
    expect(said[1]).toMatch(/^validator 2's log .*node\.log is written again; [0-9]+ bytes of its output were lost meanwhile$/);
    expect(log.writing).toBe(true);
    log.end();
    await waitFor(() => (readFileSync(path, 'utf8').endsWith('after\n') ? true : undefined), 5_000, 'the line after written');
  });
});
