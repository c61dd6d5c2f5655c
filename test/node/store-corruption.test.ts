/**
 * Storage faults heal without a person acting (issue 26 deliver 4, decisions 123–125), on
 * one run of six validator processes under client-signed load (limit orders a wallet
 * signs, sent through REST to every node in turn). One after another, on different
 * validators:
 *  - validator 6 is killed with SIGKILL and 4 KiB of random bytes are written into its
 *    newest table file;
 *  - validator 5 is killed and its write-ahead log (.log) is cut short inside a record;
 *  - validator 4 is killed and its MANIFEST is deleted.
 * Each is started again and says what it found in one line, sets the store aside inside
 * its folder (kept whole), syncs the chain from its peers checking every commit, and ends back in the set
 * (its signature in later commits) with the same blocks and state roots as its peers.
 * Then validator 3's double-sign protection files are overwritten with random bytes while
 * it is stopped: started again, it follows the chain, says SIGNING REFUSED in its log and
 * /status, and signs nothing (its precommits absent from the commits of later blocks)
 * until `privval-reset --height H` (H above anything it signed) and a restart, after
 * which it signs again. Every order any node acknowledged (200) is in the same block on
 * all six nodes at the end.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNetwork } from '../helpers/network';
import { expectAckedOnAll, startSignedLoad } from '../helpers/signed-load';
import { faultAndHeal, garbageInNewestTable, validatorAddress } from '../helpers/store-heal';
import { runCli } from '../cli/run-cli';
import { deleteManifest, truncateLog } from '../storage/store-fixture';

let net: LocalNetwork;
beforeAll(async () => {
  net = await LocalNetwork.start(6);
}, 240_000);
afterAll(async () => {
  await net?.stop();
}, 60_000);

/** The signers of the commits recorded in blocks `from` to `to` (each block's lastCommit), as validator 1 has them. */
async function signersOf(from: number, to: number): Promise<string[][]> {
  const out: string[][] = [];
  for (let h = from; h <= to; h++) out.push((await net.block(1, h)).lastCommit?.signers ?? []);
  return out;
}

describe('storage faults on three validators and damaged double-sign files on a fourth, one after another, under signed load', () => {
  it('each corrupted store heals from its peers, the damaged privval signs nothing until privval-reset; nothing acknowledged is lost', async () => {
    const t0 = Date.now();
    await net.waitHeight(5);
    const chainId = (await net.status(1)).chainId as number;

    // Load: six traders, each signing limit orders with its own wallet key, sent through
    // REST to the six nodes in turn (a node that is down or syncing fails that one order).
    const load = startSignedLoad(net, chainId);
    const { acked, failures, moreAcked } = load;
    await moreAcked(30);
    const heals: Record<string, number> = {};

    // 1. Random bytes in validator 6's newest table file.
    heals.table = await faultAndHeal(
      net,
      6,
      garbageInNewestTable,
      /: \S/,
      // LevelDB opens this store before it finds the damage (replaying its log into a new table): the tables stay.
      /\.ldb$/,
    );
    await moreAcked(20);

    // 2. Validator 5's write-ahead log cut short inside a record (a torn write at the crash).
    heals.log = await faultAndHeal(net, 5, (store) => void truncateLog(store), /\d+\.log: .*(truncated or torn|checksum)/, /\.(ldb|log)$/);
    await moreAcked(20);

    // 3. Validator 4's MANIFEST deleted.
    heals.manifest = await faultAndHeal(net, 4, deleteManifest, /MANIFEST-\d+ \(named by CURRENT\) is missing/, /\.(ldb|log)$/);
    await moreAcked(20);

    // 4. Validator 3's double-sign protection files overwritten with random bytes while it is stopped.
    const three = validatorAddress(3);
    await net.waitForSigner(three, await net.height(1), 1, 60_000);
    await net.kill(3);
    const privval = join(net.dataDir(3), 'privval');
    for (const s of ['a', 'b']) writeFileSync(join(privval, s), randomBytes(Math.max(64, statSync(join(privval, s)).size)));
    const damaged = readFileSync(join(privval, 'a'));
    await net.waitHeight((await net.height(1)) + 5, [1, 2, 4, 5, 6]);
    await net.launch(3);
    const back = await net.height(1);
    const out = net.nodes[2].output;
    expect(out, out.slice(-3000)).toMatch(/SIGNING REFUSED: the double-sign protection files in .*privval are damaged/);
    expect((await net.status(3)).consensus.signingRefused).toMatch(/double-sign protection files in .*privval are damaged/);
    // It follows the chain...
    await net.waitHeight(back + 20, [3], 90_000);
    const seen = await net.height(3);
    const [a, b] = await Promise.all([net.block(1, seen), net.block(3, seen)]);
    expect(b.stateRoot).toBe(a.stateRoot);
    // ...and signs nothing: none of the commits recorded after its restart carries its signature.
    const later = await signersOf(back + 2, seen);
    expect(later.length).toBeGreaterThanOrEqual(15);
    for (const signers of later) expect(signers).not.toContain(three);
    await moreAcked(10);

    // The operator confirms a height above anything it signed (the head now, plus one) and starts it again.
    await net.kill(3);
    const floor = (await net.height(1)) + 1;
    const reset = await runCli(['privval-reset', '--data-dir', net.dataDir(3), '--height', String(floor)]);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    const replaced = readdirSync(privval).filter((f) => f.startsWith('.replaced-'));
    expect(replaced).toHaveLength(1);
    expect(readFileSync(join(privval, replaced[0], 'a'))).toEqual(damaged);
    await net.launch(3);
    expect((await net.status(3)).consensus.signingRefused).toBeNull();
    await net.waitForSigner(three, floor - 1, 1, 120_000);
    await moreAcked(10);

    await load.stop();
    const loadDoneMs = Date.now() - t0;

    // Nothing acknowledged is lost: every order any node answered 200 is in the same block on all six.
    await expectAckedOnAll(net, acked);
    // The run, for the record (not asserted: the machine's load decides wall times).
    process.stdout.write(
      `store-corruption: ${acked.length} orders acknowledged (failures ${JSON.stringify(Object.fromEntries(failures))}); heals in ms ${JSON.stringify(heals)}; load phase ${loadDoneMs} ms, checks ${Date.now() - t0 - loadDoneMs} ms\n`,
    );
    expect(acked.length).toBeGreaterThan(130);
    // A node down answers nothing (status 0), one syncing may refuse; none fails with a 500.
    expect([...failures.keys()].filter((k) => k.startsWith('500'))).toEqual([]);
  }, 900_000);
});
