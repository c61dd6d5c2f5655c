/**
 * The heal of a corrupted chain store end to end, in process (issue 26 deliver 4,
 * decision 124): two validators of a two-validator devnet on real libp2p (both must sign
 * every block). Validator 2 is stopped, 4 KiB of random bytes go into its newest table
 * file, and a new node is started on the same data folder: it moves the store aside
 * (kept), syncs the chain from validator 1, and the two produce blocks again together,
 * with the same block hashes and state roots.
 *
 * Found while running: a full node serving a store whose newest table file gets random
 * bytes under it answers reads (the API's, a peer's sync) until LevelDB reports the
 * corruption; it then halts with the STORE CORRUPTED line, moves the store aside once
 * closed, and the next start opens an empty store to sync into.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../../src/cli/launcher';
import { peerIdOfPublicKey } from '../../src/net/libp2p';
import { Node } from '../../src/node/node';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, nodeConfig, tempDir, waitFor } from '../helpers/devnet';
import { corruptNewestTable, flushToTable, writeChain } from '../storage/store-fixture';

const { genesis, hash } = devnetGenesis(2);
const dirs = [tempDir('exchain-heal-1-'), tempDir('exchain-heal-2-')];
const running: Node[] = [];
afterAll(async () => {
  for (const n of running) await n.stop();
  for (const d of dirs) d.remove();
});

describe('a validator whose chain store is corrupted (in process)', () => {
  it('moves it aside, syncs from its peer and signs blocks with it again', async () => {
    const ports = [await freePort(), await freePort()];
    const addr = async (i: number) => `/ip4/127.0.0.1/tcp/${ports[i]}/p2p/${await peerIdOfPublicKey(hexToBytes(genesis.validators[i].ecdsaPubkey))}`;
    const make = async (i: number) => {
      const node = new Node(
        nodeConfig(dirs[i].path, {
          genesis,
          genesisHash: hash,
          validatorKey: hexToBytes(DEVNET_KEYS.validators[i].ecdsaPrivateKey),
          vrfKey: devnetVrfKey(i),
          syncWrites: false,
          p2p: { listen: [`/ip4/127.0.0.1/tcp/${ports[i]}`], bootstrap: [await addr(1 - i)] },
        }),
        createLogger({ destination: 'silent' }),
      );
      running.push(node);
      return node;
    };
    const one = await make(0);
    let two = await make(1);
    await Promise.all([one.start(), two.start()]);
    await waitFor(() => one.chain().height >= 40 || undefined, 60_000, 'height 40');

    await two.stop();
    const store = join(dirs[1].path, 'chain');
    const db = new ClassicLevel(store);
    await db.open(); // replays the log into a table file, as a restart does
    await db.close();
    corruptNewestTable(store);

    two = await make(1);
    await two.start();
    const aside = readdirSync(store).filter((f) => f.startsWith('.corrupt-'));
    expect(aside).toHaveLength(1);
    const head = one.chain().height;
    await waitFor(() => two.chain().height >= head + 20 || undefined, 60_000, 'the healed node past the head by 20');
    for (const h of [1, head, head + 20]) {
      const [a, b] = await Promise.all([one.chain().store.getStateRoot(h), two.chain().store.getStateRoot(h)]);
      expect(b && bytesToHex(b), `state root ${h}`).toBe(a && bytesToHex(a));
    }
  }, 180_000);
});

describe('a corruption a read finds while the node runs', () => {
  it('halts the node with the STORE CORRUPTED line; the store is moved aside and the next start opens an empty one', async () => {
    const dir = tempDir('exchain-heal-running-');
    dirs.push(dir);
    const store = join(dir.path, 'chain');
    await writeChain(store, 200);
    await flushToTable(store);
    // A full node (no key) with a peer to heal from (never reachable here), so it heals rather than refuses.
    const one = devnetGenesis(1);
    const peer = `/ip4/127.0.0.1/tcp/${await freePort()}/p2p/${await peerIdOfPublicKey(hexToBytes(one.genesis.validators[0].ecdsaPubkey))}`;
    const config = nodeConfig(dir.path, { validatorKey: undefined, vrfKey: undefined, syncWrites: false, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [peer] } });
    // A first run builds the node's index from the store (reading every block once, into LevelDB's cache).
    const first = new Node(config, createLogger({ destination: 'silent' }));
    running.push(first);
    await first.start();
    await first.stop();
    const lines: string[] = [];
    const node = new Node(config, createLogger({ destination: { write: (l: string) => void lines.push(l) } }));
    running.push(node);
    await node.start();
    expect(node.chain().height).toBe(200);

    corruptNewestTable(store);
    // Reads as a client and peers make them: every block, until the node stops.
    let halted = false;
    void node.stopped.then(() => (halted = true));
    for (let h = 1; h <= 200 && !halted; h++) await fetch(`${node.apiAddress}/block/${h}`).catch(() => undefined);
    // The halt stops the actors in turn: the node may still be stopping when the reads run
    // out. Its stop is awaited as long as the test may run, not for a fixed time; a node
    // that never halts fails the test by its timeout, with the node's last lines printed.
    onTestFailed(() => void process.stderr.write(`the node's last lines:\n${lines.slice(-10).join('')}\n`));
    const stopped = await node.stopped;
    expect(halted).toBe(true);
    expect(stopped.halted).toBe('the chain store is corrupted');
    const line = lines.map((l) => JSON.parse(l).msg as string).find((m) => m.startsWith('STORE CORRUPTED'));
    expect(line).toMatch(new RegExp(`^STORE CORRUPTED: ${store}: Corruption: .*the node stops now \\(exit code 2\\), the store is set aside in a dated folder inside it`));
    const aside = readdirSync(store).filter((f) => f.startsWith('.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readdirSync(join(store, aside[0])).some((f) => f.endsWith('.ldb'))).toBe(true);

    const again = new Node(config, createLogger({ destination: 'silent' }));
    running.push(again);
    await again.start();
    expect(again.chain().height).toBe(0);
    await again.stop();
  }, 120_000);
});
