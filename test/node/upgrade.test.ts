/**
 * A software upgrade across two builds of the node (issue 21; decision 77), with real
 * processes: two single-file builds of this source (`npm run build`), versions 0.1.0 and
 * 0.2.0, into a temporary folder; a three-validator network on the old build (a devnet
 * genesis with 250-ms blocks and short timelocks); two owners schedule
 * SoftwareUpgrade{0.2.0, H} through governance and execute it after its high-impact
 * timelock; GET /status shows it; every old node stops before H with a message naming
 * 0.2.0 and exit code 3, none having executed H; the old build restarted on that data
 * stops again at once; restarted on the new build with the same data, the network goes
 * on past H with the same blocks and state roots on every node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBinary } from '../../src/build/binary';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { actionDigest, GovOpKind, operationIdOf, proposeDigest, type GovActionType, type GovOperation } from '../../src/codec/txs/governance';
import { privateKeyToAddress, signCompact64 } from '../../src/crypto/secp256k1';
import { bytesToHex, hexToBytes, type Hex } from '../../src/util/bytes';
import { DEVNET_KEYS, ROOT, tempDir, waitFor } from '../helpers/devnet';
import { LocalNetwork } from '../helpers/network';

const N = 3;
const BLOCK_MS = 250;
const HIGH_IMPACT_MS = 3_000;
const dir = tempDir('exchain-upgrade-');
const genesisFile = join(dir.path, 'genesis.json');
const OWNERS = (DEVNET_KEYS as unknown as { owners: { privateKey: string }[] }).owners.map((o) => {
  const priv = hexToBytes(o.privateKey);
  return { priv, address: privateKeyToAddress(priv) };
});
let net: LocalNetwork;
let oldBuild: string;
let newBuild: string;
let chainId: number;

function writeGenesis(): void {
  const g = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet.json'), 'utf8'));
  g.consensus = { ...g.consensus, blockTimeMs: BLOCK_MS, timelockRoutineMs: 1_000, timelockHighImpactMs: HIGH_IMPACT_MS };
  chainId = g.chainId;
  writeFileSync(genesisFile, JSON.stringify(g, null, 2));
}

async function submit(tx: { bytes: Uint8Array }, via = 1): Promise<any> {
  const res = await fetch(`${net.nodes[via - 1].url}/tx`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tx: bytesToHex(tx.bytes) }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

function propose(op: GovOperation, nonce: bigint): { tx: { bytes: Uint8Array }; id: Hex } {
  const unsigned = { proposer: OWNERS[0].address, operation: op, nonce };
  const signature = signCompact64(proposeDigest(chainId, unsigned), OWNERS[0].priv);
  return { tx: encodeTx(chainId, TxKind.GovernancePropose, { ...unsigned, signature }), id: operationIdOf(chainId, unsigned) };
}

function action(type: GovActionType, owner: number, operationId: Hex, nonce: bigint): { bytes: Uint8Array } {
  const by = OWNERS[owner];
  const unsigned = { owner: by.address, operationId, nonce };
  const signature = signCompact64(actionDigest(chainId, type, unsigned), by.priv);
  return encodeTx(chainId, type === 'GovernanceApprove' ? TxKind.GovernanceApprove : TxKind.GovernanceExecute, { ...unsigned, signature });
}

async function operation(id: Hex): Promise<any> {
  const res = await fetch(`${net.nodes[0].url}/v1/governance/operations`, { signal: AbortSignal.timeout(5_000) });
  return ((await res.json()) as any).data.operations.find((o: any) => o.id === id);
}

describe('a software upgrade across two builds of the node', () => {
  beforeAll(async () => {
    writeGenesis();
    // The builds' addon cache: the children inherit it.
    process.env.EXCHANGE_NODE_CACHE = join(dir.path, 'cache');
    oldBuild = (await buildBinary({ outFile: join(dir.path, 'old', 'exchange-node.mjs'), version: '0.1.0' })).file;
    newBuild = (await buildBinary({ outFile: join(dir.path, 'new', 'exchange-node.mjs'), version: '0.2.0' })).file;
    net = await LocalNetwork.start(N, () => [], { genesisFile, binary: oldBuild });
  }, 180_000);
  afterAll(async () => {
    await net?.stop();
    dir.remove();
  });

  it('old nodes stop at the height naming the version; the new build goes on from the same state', async () => {
    expect((await net.status(1)).version).toBe('0.1.0');
    await net.waitHeight(3);
    // The upgrade must be executed well before its height. The height is chosen before
    // the proposal, so how far ahead depends on how fast this machine runs the steps:
    // when the operation is ready too close to its height (fewer than SAFE_BLOCKS left),
    // it is left unexecuted and a new one is proposed twice as far ahead. The outcome
    // depends on the order of events, not on how long they took.
    const SAFE_BLOCKS = 40;
    let upgradeHeight = 0;
    let id: Hex | undefined;
    for (let attempt = 0, ahead = 80, nonce = 1n; id === undefined; attempt++, ahead *= 2, nonce += 2n) {
      expect(attempt, 'the upgrade was ready too close to its height three times').toBeLessThan(3);
      upgradeHeight = (await net.height(1)) + ahead;
      const proposed = propose({ kind: GovOpKind.SoftwareUpgrade, version: '0.2.0', height: upgradeHeight }, nonce);
      await submit(proposed.tx);
      await submit(action('GovernanceApprove', 1, proposed.id, nonce));
      await waitFor(async () => ((await operation(proposed.id))?.state === 'ready' ? true : undefined), 30_000, 'the upgrade ready');
      if ((await net.height(1)) + SAFE_BLOCKS < upgradeHeight) id = proposed.id;
    }
    await submit(action('GovernanceExecute', 1, id, 100n));
    // Final on validator 1 when answered; validator 2 may apply the block a moment later.
    const status = await waitFor(async () => {
      const s = await net.status(2);
      return s.upgrade ? s : undefined;
    }, 15_000, 'validator 2 knows the upgrade');
    expect(status.upgrade).toEqual({ version: '0.2.0', height: upgradeHeight, operationId: id });
    expect(status.height).toBeLessThan(upgradeHeight - 1);

    // Every old node stops before the height: exit code 3 and the version to install.
    for (let i = 1; i <= N; i++) {
      const { code, output } = await net.waitExit(i, 120_000);
      expect(code, output).toBe(3);
      expect(output).toMatch(/UPGRADE REQUIRED: .*version 0\.2\.0 or newer.*this node is version 0\.1\.0.*Install version 0\.2\.0/);
    }
    // The old build on that data stops at once, with the same message.
    await expect(net.launch(1)).rejects.toThrow(/UPGRADE REQUIRED: .*Install version 0\.2\.0/);
    await net.waitExit(1).catch(() => undefined);

    // The new build on the same data folders: the chain goes on past the height.
    for (let i = 1; i <= N; i++) net.useBinary(i, newBuild);
    // Alone, it holds no 2/3: its head is where the old build stopped.
    await net.launch(1);
    expect(await net.status(1)).toMatchObject({ height: upgradeHeight - 1, version: '0.2.0' });
    await Promise.all([net.launch(2), net.launch(3)]);
    await net.waitHeight(upgradeHeight + 3, undefined, 120_000);
    for (const h of [upgradeHeight, upgradeHeight + 2]) {
      const blocks = await Promise.all(net.nodes.map((n) => net.block(n.index, h)));
      for (const b of blocks) {
        expect(b.hash).toBe(blocks[0].hash);
        expect(b.stateRoot).toBe(blocks[0].stateRoot);
      }
    }
  }, 300_000);
});
