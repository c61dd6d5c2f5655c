/**
 * A chain store on a disk of its own heals too (issue 41, decision 166): six validator
 * processes under client-signed load, validator 6's `chain` folder a tmpfs mount point
 * (512 MiB, mounted before its first start; the rest of its data folder on the main
 * disk), as an operator gives the store a volume of its own. Validator 6 is killed with
 * SIGKILL and 4 KiB of random bytes are written into the middle of its newest table file.
 * Started again, it says what it found in one line, sets the store aside inside the mount
 * (`chain/.corrupt-<time>/`: a mount point cannot be renamed, which left a node before
 * decision 166 restarting forever on EBUSY), and heals unattended: same blocks and state
 * roots as its peers, its signature back in the commits, the folder still the mount point.
 * Every order any node acknowledged (200) is in the same block on all six at the end.
 * Needs root to mount (this machine and CI run as root): without it the test fails, it
 * does not skip.
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSmallDisk } from '../helpers/full-disk';
import { LocalNetwork } from '../helpers/network';
import { expectAckedOnAll, startSignedLoad } from '../helpers/signed-load';
import { faultAndHeal, garbageInNewestTable } from '../helpers/store-heal';

const MOUNTED = 6;
let net: LocalNetwork;
beforeAll(async () => {
  net = await LocalNetwork.start(6, undefined, {
    prepare: (dataDir) => {
      const disk = mountSmallDisk(join(dataDir(MOUNTED), 'chain'), '512m');
      return () => disk.remove();
    },
  });
}, 240_000);
afterAll(async () => {
  await net?.stop();
}, 60_000);

/** Whether `dir` is a mount point: its device differs from its parent's. */
const mountPoint = (dir: string) => statSync(dir).dev !== statSync(dirname(dir)).dev;

describe("a chain store on its own volume (a tmpfs mount point), corrupted after SIGKILL under signed load", () => {
  it('heals unattended inside the mount; nothing acknowledged is lost', async () => {
    const store = join(net.dataDir(MOUNTED), 'chain');
    expect(mountPoint(store)).toBe(true);
    await net.waitHeight(5);
    const load = startSignedLoad(net, (await net.status(1)).chainId as number);
    await load.moreAcked(30);

    const healMs = await faultAndHeal(net, MOUNTED, garbageInNewestTable, /: \S/, /\.ldb$/);
    const out = net.nodes[MOUNTED - 1].output;
    // No raw system error: the heal never tried to rename the mount point.
    expect(out).not.toMatch(/EBUSY|EXDEV|resource busy/);
    expect(mountPoint(store)).toBe(true);
    await load.moreAcked(20);

    await load.stop();
    await expectAckedOnAll(net, load.acked);
    process.stdout.write(`store-mount-heal: ${load.acked.length} orders acknowledged (failures ${JSON.stringify(Object.fromEntries(load.failures))}); heal ${healMs} ms\n`);
    expect([...load.failures.keys()].filter((k) => k.startsWith('500'))).toEqual([]);
  }, 600_000);
});
