/**
 * The privval's write off the event loop (decision 118): the O_DSYNC write of the state
 * runs on libuv's thread pool, and a signature is still released only once that write
 * has returned. On a real file system, including a full one (a small tmpfs: the write
 * fails, and no signature leaves).
 */
import fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodePrivValState, encodePrivValState, LocalPrivValidator } from '../../src/consensus/privval';
import { PrivValFile } from '../../src/storage/privval-file';
import { smallDiskForFile } from '../helpers/full-disk';
import { CHAIN_ID, fixture, hash } from './helpers';

const { keys } = fixture([1n, 1n, 1n, 1n], 'privval-durable');
const key = keys[0];
const B = hash('B');
const unsigned = (type: 'prevote' | 'precommit', height: number, round: number) => ({ type, height, round, blockHash: B, validator: key.address });

const fixtureDisk = smallDiskForFile('privval-durable-');

/** The state a restart would load from `path`. */
async function reopened(path: string) {
  const f = await PrivValFile.open(path);
  const latest = f.latest;
  f.close();
  return latest === undefined ? null : decodePrivValState(latest);
}

describe('the privval state written off the event loop', () => {
  it('releases each signature only after its write returned; concurrent requests are written in order', async () => {
    const path = join(fixtureDisk.path, 'ordered');
    const file = await PrivValFile.open(path);
    const order: string[] = [];
    const pv = new LocalPrivValidator(key, (s) => file.write(encodePrivValState(s)).then(() => void order.push(`written ${s.lastSigned?.step}`)), null);
    // Asked at once: the prevote (step 2) and the precommit (step 3) of one round.
    const votes = await Promise.all([
      pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0)).then((v) => (order.push('released 2'), v)),
      pv.signVote(CHAIN_ID, unsigned('precommit', 1, 0), new Uint8Array(100)).then((v) => (order.push('released 3'), v)),
    ]);
    expect(order).toEqual(['written 2', 'released 2', 'written 3', 'released 3']);
    file.close();
    const back = await reopened(path);
    expect(back?.lastSigned?.signature).toEqual(votes[1].signature);
    expect(back?.lock?.blockHash).toEqual(B);
  });

  it('a write that fails (the disk is full) releases no signature and changes nothing; once it can be written, it signs', async () => {
    const path = join(fixtureDisk.disk.path, 'privval');
    const file = await PrivValFile.open(path);
    const pv = new LocalPrivValidator(key, (s) => file.write(encodePrivValState(s)), null);
    const first = await pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0)); // slot b
    const filler = fixtureDisk.disk.fill();
    // Slot a is still empty: the precommit's state (with its 16 KB locked block) has no room.
    let released = false;
    const asked = pv.signVote(CHAIN_ID, unsigned('precommit', 1, 0), new Uint8Array(16_384).fill(9)).then((v) => ((released = true), v));
    await expect(asked).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(released).toBe(false);
    expect(pv.state().lastSigned?.signature).toEqual(first.signature);
    expect((await reopened(path))?.lastSigned?.signature).toEqual(first.signature);
    fs.rmSync(filler);
    const precommit = await pv.signVote(CHAIN_ID, unsigned('precommit', 1, 0), new Uint8Array(16_384).fill(9));
    file.close();
    expect((await reopened(path))?.lastSigned?.signature).toEqual(precommit.signature);
  });

  it('close waits for the write in flight; a write asked after it is refused', async () => {
    const path = join(fixtureDisk.path, 'closing');
    const file = await PrivValFile.open(path);
    const written = file.write(new Uint8Array([1, 2, 3]));
    file.close();
    await expect(written).resolves.toBeUndefined();
    await expect(file.write(new Uint8Array([4]))).rejects.toThrow('closed');
    const g = await PrivValFile.open(path);
    expect(g.latest).toEqual(new Uint8Array([1, 2, 3]));
    g.close();
  });
});
