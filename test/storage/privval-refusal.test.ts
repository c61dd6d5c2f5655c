/**
 * The double-sign protection files are never rebuilt (issue 26 deliver 4, decision 125):
 * a validator whose files are damaged, or missing beside a chain that already has blocks
 * (or beside a chain store the heal moved aside as corrupted: it starts over at height 0,
 * but it is not a new validator), follows the chain but signs nothing, and says so in its log and in /status
 * (consensus.signingRefused), until the operator runs `privval-reset --height H`, after
 * which it signs nothing below H and anything from H on. The check command's exit codes
 * are tested here too, through the real command line.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodePrivValState, DoubleSignError, LocalPrivValidator, resetPrivValState } from '../../src/consensus/privval';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { Node } from '../../src/node/node';
import { decodeSlot, privvalMissing } from '../../src/storage/privval-file';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, nodeConfig, tempDir } from '../helpers/devnet';
import { runCli } from '../cli/run-cli';
import { corruptNewestTable, deleteManifest, flushToTable, writeChain } from './store-fixture';
import { Chain } from '../../src/chain/chain';
import { freePort } from '../../src/cli/launcher';
import { peerIdOfPublicKey } from '../../src/net/libp2p';

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
const temp = () => {
  const d = tempDir('exchain-privval-');
  dirs.push(d);
  return d.path;
};

const key = hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
const me = DEVNET_KEYS.validators[0].address as Address;
const vote = (height: number, round: number) => ({ type: 'prevote' as const, height, round, blockHash: null, validator: me });

describe('resetPrivValState', () => {
  it('refuses every height below H, every round of H - 1 included, and signs from H on', async () => {
    const pv = new LocalPrivValidator(new Secp256k1Signer(key), async () => undefined, resetPrivValState(100));
    for (const [h, r] of [[50, 0], [99, 0], [99, 7]]) await expect(pv.signVote(1, vote(h, r))).rejects.toThrow(DoubleSignError);
    await expect(pv.signVote(1, vote(100, 0))).resolves.toMatchObject({ height: 100 });
  });
});

describe('privvalMissing', () => {
  it('is a loss beside a chain with blocks, not on a new node', () => {
    const dir = join(temp(), 'privval');
    expect(privvalMissing(dir, 0)).toBeNull();
    expect(privvalMissing(dir, 12)).toMatch(/missing beside a chain store at height 12/);
    mkdirSync(dir);
    writeFileSync(join(dir, 'a'), '');
    expect(privvalMissing(dir, 12)).toBeNull();
  });

  it('is a loss beside a chain store moved aside as corrupted, though the new one is at height 0', () => {
    const dir = join(temp(), 'privval');
    expect(privvalMissing(dir, 0, ['/data/chain.corrupt-2026-01-01T00-00-00-000Z'])).toMatch(/missing beside a chain store moved aside as corrupted \(\/data\/chain\.corrupt-/);
    mkdirSync(dir);
    writeFileSync(join(dir, 'a'), '');
    expect(privvalMissing(dir, 0, ['/data/chain.corrupt-2026-01-01T00-00-00-000Z'])).toBeNull();
  });
});

describe('a validator with damaged privval files', () => {
  // Two validators: this one alone has no majority, so it runs BFT consensus (with no peers it only waits).
  const { genesis, hash } = devnetGenesis(2);
  const config = (dataDir: string) =>
    nodeConfig(dataDir, { genesis, genesisHash: hash, api: { host: '127.0.0.1', port: 0 }, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [] }, validatorKey: key, vrfKey: devnetVrfKey(0) });

  it('whose chain store is healed (moved aside) and whose privval files are gone refuses to sign: it is not a new validator', async () => {
    const dataDir = temp();
    const store = join(dataDir, 'chain');
    await (await Chain.open({ dataDir: store, genesis, genesisHash: hash, syncWrites: false })).close();
    deleteManifest(store);
    // A peer to heal from (never reachable here): the node moves the store aside and starts over at height 0.
    const peer = `/ip4/127.0.0.1/tcp/${await freePort()}/p2p/${await peerIdOfPublicKey(hexToBytes(genesis.validators[1].ecdsaPubkey))}`;
    const healing = nodeConfig(dataDir, { ...config(dataDir), p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [peer] } });
    const node = new Node(healing, createLogger({ destination: 'silent' }));
    await node.start();
    try {
      expect(readdirSync(store).filter((f) => f.startsWith('.corrupt-'))).toHaveLength(1);
      expect(node.chain().height).toBe(0);
      expect(node.consensusInfo()?.signingRefused).toMatch(/double-sign protection files \(.*privval\) are missing beside a chain store moved aside as corrupted/);
    } finally {
      await node.stop();
    }
  });

  it('follows without signing and says why in /status until privval-reset confirms a height', async () => {
    const dataDir = temp();
    mkdirSync(join(dataDir, 'privval'), { recursive: true });
    for (const s of ['a', 'b']) writeFileSync(join(dataDir, 'privval', s), Buffer.alloc(200, 0x5a));

    const node = new Node(config(dataDir), createLogger({ destination: 'silent' }));
    await node.start();
    try {
      const status = (await (await fetch(`${node.apiAddress}/status`)).json()) as any;
      expect(status.data.consensus.signingRefused).toMatch(/double-sign protection files in .*privval are damaged/);
    } finally {
      await node.stop();
    }

    const reset = await runCli(['privval-reset', '--data-dir', dataDir, '--height', '40']);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/signs nothing below height 40; the old files are kept in .*privval\/\.replaced-/);
    const kept = readdirSync(join(dataDir, 'privval')).find((f) => f.startsWith('.replaced-'))!;
    expect(readFileSync(join(dataDir, 'privval', kept, 'a'))).toEqual(Buffer.alloc(200, 0x5a));
    const slot = ['a', 'b'].map((s) => decodeSlot(readFileSync(join(dataDir, 'privval', s)))).find((x) => x !== undefined)!;
    expect(decodePrivValState(slot.payload).lastSigned?.height).toBe(39);

    const again = new Node(config(dataDir), createLogger({ destination: 'silent' }));
    await again.start();
    try {
      expect(again.consensusInfo()?.signingRefused).toBeNull();
    } finally {
      await again.stop();
    }
  });
});

describe('npm run node -- check', () => {
  it('exits 0 on a sound store and 1, naming what it found, on a corrupted one', async () => {
    const dataDir = temp();
    await writeChain(join(dataDir, 'chain'), 40);
    await flushToTable(join(dataDir, 'chain'));
    const sound = await runCli(['check', '--data-dir', dataDir]);
    expect(sound.code).toBe(0);
    expect(sound.stdout).toMatch(/^SOUND .*chain: height 40, 40 blocks/);
    corruptNewestTable(join(dataDir, 'chain'));
    const bad = await runCli(['check', '--data-dir', dataDir]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^NOT SOUND .*chain/);
    const none = await runCli(['check', '--data-dir', join(dataDir, 'nothing-here')]);
    expect(none.code).toBe(2);
    expect(existsSync(join(dataDir, 'nothing-here'))).toBe(false);
    // A move aside a crash interrupted (decision 166): half a store is not checked.
    writeFileSync(join(dataDir, 'chain', '.set-aside'), '.corrupt-2026-11-29T06-13-26-130Z');
    const moving = await runCli(['check', '--data-dir', dataDir]);
    expect(moving.code).toBe(2);
    expect(moving.stderr).toMatch(/^not checked: .*chain is being set aside as corrupted \(into .*chain\/\.corrupt-2026-11-29T06-13-26-130Z\), a move a crash interrupted: start the node to finish it/);
  });
});
