/**
 * The heal of a corrupted chain store on a local network (issues 26 and 41): kill a
 * validator, damage its store, start it again, and check that it healed.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { expect } from 'vitest';
import { corruptNewestTable } from '../storage/store-fixture';
import { DEVNET_KEYS } from './devnet';
import type { LocalNetwork } from './network';

/** Validator `index`'s address, as the commits name it. */
export const validatorAddress = (index: number) => DEVNET_KEYS.validators[index - 1].address;

/**
 * Kills validator `index`, damages its chain store with `fault`, starts it again and
 * checks the heal: the STORE CORRUPTED line naming the folder and what was `found`, the
 * store set aside whole inside its folder (`<store>/.corrupt-<time>/`, decision 166: every
 * file `kept` names still there), the same blocks and state roots as its peers, its
 * signature in a later commit. Returns how long the heal took (start to signing again).
 */
export async function faultAndHeal(net: LocalNetwork, index: number, fault: (store: string) => Promise<void> | void, found: RegExp, kept: RegExp): Promise<number> {
  const peer = index === 1 ? 2 : 1;
  const others = net.nodes.map((n) => n.index).filter((i) => i !== index);
  await net.kill(index);
  const store = join(net.dataDir(index), 'chain');
  await fault(store);
  const files = readdirSync(store).filter((f) => kept.test(f));
  await net.waitHeight((await net.height(peer)) + 10, others, 90_000);

  const started = Date.now();
  await net.launch(index);
  const out = net.nodes[index - 1].output;
  const line = out.split('\n').find((l) => l.includes('STORE CORRUPTED'));
  expect(line, out.slice(-3000)).toBeDefined();
  expect(line).toContain(store);
  expect(line).toMatch(found);
  expect(line).toMatch(/moved aside to .*chain\/\.corrupt-.*syncs the chain from its peers/);
  // Kept aside whole, inside the folder: the files the fault left (those `kept` names) are all there.
  const aside = readdirSync(store).filter((f) => f.startsWith('.corrupt-'));
  expect(aside).toHaveLength(1);
  const there = readdirSync(join(store, aside[0]));
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) expect(there, `validator ${index}: ${f} kept aside`).toContain(f);

  const head = await net.height(peer);
  await net.waitHeight(head, [index], 180_000);
  for (const h of [1, Math.floor(head / 2), head]) {
    const [a, b] = await Promise.all([net.block(peer, h), net.block(index, h)]);
    expect(b.hash, `validator ${index}, block ${h}`).toBe(a.hash);
    expect(b.stateRoot, `validator ${index}, state root ${h}`).toBe(a.stateRoot);
  }
  // Back in the set: a later block's record of its parent's commit carries its signature.
  await net.waitForSigner(validatorAddress(index), head, peer, 120_000);
  expect((await net.status(index)).consensus.signingRefused).toBeNull();
  return Date.now() - started;
}

/**
 * 4 KiB of random bytes in the middle of the newest table file of a killed node's store.
 * A store LevelDB has not flushed yet holds only its log: opening it (as a restart does)
 * writes the table file first.
 */
export async function garbageInNewestTable(store: string): Promise<void> {
  if (!readdirSync(store).some((f) => f.endsWith('.ldb'))) {
    const db = new ClassicLevel(store);
    await db.open();
    await db.close();
  }
  corruptNewestTable(store);
}
