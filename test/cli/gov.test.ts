/**
 * `npm run node -- gov …` (decision 80): owner key files (written 0600, never
 * overwritten; refused when group or others can read them, tampered, or of an unknown
 * field; init's node key file serves as one), and the real command line against a real
 * in-process devnet node with a one-hour routine timelock, passed by moving the node's clock: the devnet owners' key files,
 * a proposal, its approval by a second owner, `gov list` showing it approved with its
 * ready time, its execution once ready (the fee then in /chain-config); the node's
 * refusals printed with exit 1 (approval by the proposer itself, a non-owner's proposal);
 * and no signature made for a node of another chain.
 */
import { seedOperationJson } from '../../src/cli/validator-ops';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTx, TxKind } from '../../src/codec/tx';
import { GovOpKind, GovParam, operationIdOf, type GovProposeBody } from '../../src/codec/txs/governance';
import { operationToJson } from '../../src/codec/txs/governance-json';
import { parseProposeArgs, proposeTx } from '../../src/cli/gov';
import { genesisHash, genesisHashHex } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { generateNodeKeys, writeKeyFile } from '../../src/node/keyfile';
import { generateOwnerKey, readOwnerKeyFile, writeOwnerKeyFile } from '../../src/node/owner-keyfile';
import { governanceProposeOp } from '../../src/state/ops/governance-operations';
import { DEVNET_KEYS, devnetGenesis, useDevnetNode, waitFor } from '../helpers/devnet';
import { runCli, tempDir } from './run-cli';

const OWNER_ADDRESSES = (DEVNET_KEYS as unknown as { owners: { address: string }[] }).owners.map((o) => o.address);

describe('owner key files', () => {
  const dir = tempDir('exchain-govkey-');
  afterAll(() => dir.remove());

  it('are written 0600, read back, never overwritten', () => {
    const key = generateOwnerKey('devnet', 713799);
    const path = join(dir.path, 'owner.json');
    writeOwnerKeyFile(path, key);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readOwnerKeyFile(path)).toEqual(key);
    expect(() => writeOwnerKeyFile(path, generateOwnerKey('devnet', 713799))).toThrow(/already there/);
    expect(readOwnerKeyFile(path)).toEqual(key);
  });

  it('are refused when group or others can read them, tampered, or with an unknown field', () => {
    const key = generateOwnerKey('testnet', 713715);
    const write = (name: string, content: unknown, mode = 0o600) => {
      const p = join(dir.path, name);
      writeFileSync(p, JSON.stringify(content), { mode });
      chmodSync(p, mode);
      return p;
    };
    expect(() => readOwnerKeyFile(write('open.json', key, 0o644)))
      .toThrow(/mode is 0644: group and others must have no access/);
    expect(() => readOwnerKeyFile(write('other.json', { ...key, address: generateOwnerKey('testnet', 713715).address }))).toThrow(/address: is not the address of privateKey/);
    expect(() => readOwnerKeyFile(write('extra.json', { ...key, note: 'x' }))).toThrow(/note: unknown field/);
    expect(() => readOwnerKeyFile(write('v2.json', { ...key, version: 2 }))).toThrow(/version: unsupported version 2/);
    expect(() => readOwnerKeyFile(write('net.json', { ...key, network: 'moon' }))).toThrow(/network: must be one of/);
  });

  it("reads init's node key file as an owner key, its ECDSA key signing", async () => {
    const { genesis } = devnetGenesis(1);
    const keys = await generateNodeKeys({ network: genesis.network, chainId: genesis.chainId, genesisHash: genesisHashHex(genesis) });
    const path = writeKeyFile(join(dir.path, 'home'), keys);
    const owner = readOwnerKeyFile(path);
    expect(owner).toMatchObject({ network: 'devnet', chainId: genesis.chainId, address: keys.address, privateKey: keys.ecdsaPrivateKey });
    // What it signs recovers to its address on its chain, and to none on another.
    const { tx, operationId } = proposeTx(owner, { kind: GovOpKind.Halt }, 7n);
    const decoded = decodeTx(tx, 1 << 20);
    expect(decoded.kind).toBe(TxKind.GovernancePropose);
    expect(governanceProposeOp.verify(decoded as never, genesis.chainId)).toBe(keys.address);
    expect(() => governanceProposeOp.verify(decoded as never, genesis.chainId + 1)).toThrow(/signature/);
    expect(operationId).toBe(operationIdOf(genesis.chainId, { ...(decoded.body as GovProposeBody) }));
  });
});

describe("gov propose's operation", () => {
  it('is read from --kind and field flags, or from --op JSON, to the same operation', () => {
    const op = { kind: GovOpKind.SetParam, param: GovParam.TakerFeeBps, value: 9n };
    expect(parseProposeArgs(['--key', 'k', '--kind', 'SetParam', '--param', 'fees.takerFeeBps', '--value=9']).operation).toEqual(op);
    expect(parseProposeArgs(['--op', '{"kind":"SetParam","param":"fees.takerFeeBps","value":"9"}', '--api', 'http://x']).operation).toEqual(op);
    expect(parseProposeArgs(['--kind', 'Halt']).operation).toEqual({ kind: GovOpKind.Halt });
  });

  it('refuses a field twice, both forms at once, none, and a field without --kind', () => {
    expect(() => parseProposeArgs(['--kind', 'SetParam', '--param', 'fees.takerFeeBps', '--value', '9', '--value', '8'])).toThrow(/--value is given twice/);
    expect(() => parseProposeArgs(['--kind', 'Halt', '--op', '{"kind":"Halt"}'])).toThrow(/either as --op JSON or as --kind/);
    expect(() => parseProposeArgs(['--key', 'k'])).toThrow(/the operation is required/);
    expect(() => parseProposeArgs(['--value', '9'])).toThrow(/unknown flag --value/);
    expect(() => parseProposeArgs(['--kind', 'SetParam', '--param'])).toThrow(/--param needs a value/);
    expect(() => parseProposeArgs(['--kind', 'Halt', 'extra'])).toThrow(/unexpected argument extra/);
  });
});

// Far longer than the commands run between the approval and the execution take (each a
// fresh process, seconds apiece on a loaded machine): they always see the operation still
// approved. The test then moves the node's clock past it (NodeConfig.clock) instead of
// waiting.
const ROUTINE_MS = 3_600_000;
let clockAheadMs = 0;
const base = devnetGenesis(1).genesis;
const genesis: Genesis = { ...base, consensus: { ...base.consensus, timelockRoutineMs: ROUTINE_MS, timelockHighImpactMs: 2 * ROUTINE_MS } };

describe('the gov command against a real node', () => {
  const devnet = useDevnetNode({ genesis, genesisHash: genesisHash(genesis), clock: () => Date.now() + clockAheadMs });
  const dir = tempDir('exchain-gov-');
  afterAll(() => dir.remove());
  const owner = (j: number) => join(dir.path, 'owners', `owner-${j}.json`);
  const lines = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  // Every test below signs with these files: written once, before any of them, by the command itself.
  let written: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    written = await runCli(['gov', 'key', 'devnet', '--out', join(dir.path, 'owners')]);
  }, 120_000);

  it('writes the devnet owner key files', async () => {
    const r = written;
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => l.address)).toEqual(OWNER_ADDRESSES);
    for (const j of [1, 2, 3]) expect(statSync(owner(j)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(owner(1), 'utf8'))).toMatchObject({ network: 'devnet', chainId: genesis.chainId, address: OWNER_ADDRESSES[0] });
  }, 120_000);

  it('propose, approval by a second owner, list shows it approved with its ready time, execute once ready', async () => {
    const p = await runCli(['gov', 'propose', '--key', owner(1), '--api', devnet.url, '--kind', 'SetParam', '--param', 'fees.makerFeeBps', '--value', '3']);
    expect(p.code, p.stderr).toBe(0);
    const proposed = JSON.parse(p.stdout);
    expect(proposed).toMatchObject({ op: 'GovernancePropose', proposer: OWNER_ADDRESSES[0], operation: { kind: 'SetParam', param: 'fees.makerFeeBps', value: '3' } });
    const id = proposed.operationId as string;
    expect(id).toMatch(/^0x[0-9a-f]{64}$/);

    // The proposer cannot approve its own operation: the node's refusal, exit 1.
    const self = await runCli(['gov', 'approve', '--key', owner(1), '--api', devnet.url, id]);
    expect(self.code).toBe(1);
    expect(self.stderr).toMatch(/403 SAME_OWNER/);

    const a = await runCli(['gov', 'approve', id, '--key', owner(2), '--api', devnet.url]);
    expect(a.code, a.stderr).toBe(0);
    const approved = JSON.parse(a.stdout);
    expect(approved).toMatchObject({ op: 'GovernanceApprove', operationId: id, owner: OWNER_ADDRESSES[1], state: 'approved' });
    expect(typeof approved.readyAtMs).toBe('number');

    const l = await runCli(['gov', 'list', '--api', devnet.url]);
    expect(l.code, l.stderr).toBe(0);
    // Only this test's operation (another test's may be listed beside it).
    const listed = lines(l.stdout).filter((o) => o.id === id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id, kind: 'SetParam', state: 'approved', approvals: [OWNER_ADDRESSES[0], OWNER_ADDRESSES[1]], readyAtMs: approved.readyAtMs });
    expect(listed[0].readyAtMs).toBeGreaterThanOrEqual(listed[0].proposedAtMs + ROUTINE_MS);
    // What the route lists is the JSON form the command reads.
    expect({ kind: listed[0].kind, ...listed[0].operation }).toEqual(operationToJson({ kind: GovOpKind.SetParam, param: GovParam.MakerFeeBps, value: 3n }));

    const t = await runCli(['gov', 'list', '--api', devnet.url, '--table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/not halted/);
    expect(t.stdout).toMatch(new RegExp(`${id}\\s+SetParam\\s+approved\\s+2/2\\s+${new Date(approved.readyAtMs).toISOString()}`));

    // Before the timelock: the node refuses the execution.
    const early = await runCli(['gov', 'execute', '--key', owner(3), '--api', devnet.url, id]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/422 TIMELOCK_NOT_PASSED/);

    clockAheadMs += ROUTINE_MS;
    await waitFor(async () => ((await (await fetch(`${devnet.url}/v1/governance/operations`)).json()) as any).data.timestampMs >= approved.readyAtMs || undefined, 30_000, 'a head past the timelock');
    const x = await runCli(['gov', 'execute', '--key', owner(3), '--api', devnet.url, id]);
    expect(x.code, x.stderr).toBe(0);
    expect(JSON.parse(x.stdout)).toMatchObject({ op: 'GovernanceExecute', operationId: id, owner: OWNER_ADDRESSES[2], state: 'executed' });
    const cfg = (await (await fetch(`${devnet.url}/chain-config`)).json()) as any;
    // At most the devnet's taker fee of 3 (decision 113).
    expect(cfg.data.fees.makerFeeBps).toBe(3);
  }, 240_000);

  it('proposes an operation given as JSON, and cancels it', async () => {
    const candidate = await generateNodeKeys({ network: genesis.network, chainId: genesis.chainId, genesisHash: genesisHashHex(genesis) });
    // Signed by the candidate (decision 160), as `validator seed-sign` prints it.
    const op = seedOperationJson(candidate, { bondWei: 10n ** 24n, name: 'seventh', endpoint: '127.0.0.1:9060', funder: candidate.address });
    const p = await runCli(['gov', 'propose', '--key', owner(2), '--api', devnet.url, '--op', JSON.stringify(op)]);
    expect(p.code, p.stderr).toBe(0);
    const id = JSON.parse(p.stdout).operationId;
    const listed = lines((await runCli(['gov', 'list', '--api', devnet.url])).stdout).find((o) => o.id === id);
    expect(listed).toMatchObject({ kind: 'AdminSeedValidator', state: 'proposed', readyAtMs: null, timelockMs: ROUTINE_MS });
    expect({ kind: listed.kind, ...listed.operation }).toEqual(op);
    // Another owner's cancel is a request a second owner must confirm (decision 162); the proposer's own withdraws it.
    const c = await runCli(['gov', 'cancel', '--key', owner(3), '--api', devnet.url, id]);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ op: 'GovernanceCancel', state: 'proposed' });
    const w = await runCli(['gov', 'cancel', '--key', owner(2), '--api', devnet.url, id]);
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse(w.stdout)).toMatchObject({ op: 'GovernanceCancel', state: 'cancelled' });
  }, 120_000);

  it("prints the node's refusal of a non-owner's proposal and exits 1", async () => {
    const k = await runCli(['gov', 'key', 'new', '--out', join(dir.path, 'stranger.json')]);
    expect(k.code, k.stderr).toBe(0);
    const stranger = JSON.parse(k.stdout).address;
    const p = await runCli(['gov', 'propose', '--key', join(dir.path, 'stranger.json'), '--api', devnet.url, '--kind', 'Halt']);
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(new RegExp(`403 NOT_GOVERNANCE_OWNER: ${stranger} is not one of the owners`));
  }, 120_000);

  it('signs nothing for a node of another chain, and refuses a bad operation before any key is read', async () => {
    writeOwnerKeyFile(join(dir.path, 'testnet.json'), generateOwnerKey('testnet', 713715));
    const operations = async () => ((await (await fetch(`${devnet.url}/v1/governance/operations`)).json()) as any).data.operations.map((o: { id: string }) => o.id);
    const before = await operations();
    const p = await runCli(['gov', 'propose', '--key', join(dir.path, 'testnet.json'), '--api', devnet.url, '--kind', 'Halt']);
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/signs for testnet \(chain id 713715\), but .* runs devnet \(chain id 713799\): nothing was signed/);
    const bad = await runCli(['gov', 'propose', '--key', owner(1), '--api', devnet.url, '--op', '{"kind":"SetParam","param":"fees.makerFeeBps","value":"4","when":"now"}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/when: unknown field of SetParam/);
    // Nothing reached the node.
    expect(await operations()).toEqual(before);
  }, 120_000);
});
