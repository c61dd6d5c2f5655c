/**
 * The audit routes (issue 23 item 2; docs/audit.md) on an in-process devnet node:
 * GET /v1/audit/machines lists every machine of machines/index.ts drawn; GET
 * /v1/audit/instances shows the live actors, consensus's round, the genesis validator,
 * and a session, agent settings, a perp position, a governance operation and a
 * withdrawal once the signed actions that create them are final, each in the state the
 * chain holds; GET /v1/audit/transitions records each with the height and the
 * transaction that caused it; the address filter and the bounds; the WebSocket topic
 * `audit` pushing a transition as it is recorded; and GET /audit served whole.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_ROLES } from '../../machines/index';
import { ExchangeClient } from '../../src/client';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { GovOpKind, GovParam, operationIdOf, proposeDigest } from '../../src/codec/txs/governance';
import { signCompact64 } from '../../src/crypto/secp256k1';
import { bytesToHex } from '../../src/util/bytes';
import { AuditLog } from '../../src/audit/transitions';
import { allMachineModels } from '../../src/audit/export';
import { OWNERS } from '../governance/harness';
import { DEVNET_KEYS, useDevnetNode, waitFor } from '../helpers/devnet';

const env = useDevnetNode();
let client: ExchangeClient;
const [alice, bob, carol, dave] = DEVNET_KEYS.accounts.slice(0, 4).map((a) => privateKeyToAccount(a.privateKey));
const lc = (a: string) => a.toLowerCase();

const get = async (path: string) => {
  const res = await fetch(`${env.url}${path}`);
  return { status: res.status, body: (await res.json()) as any };
};
const instances = async (query: string) => (await get(`/v1/audit/instances?${query}`)).body.data;
const transitions = async (query: string) => (await get(`/v1/audit/transitions?${query}`)).body.data.items as any[];

beforeAll(async () => {
  client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
  await waitFor(async () => {
    const m = await client.perpMarkets();
    return m.some((x: any) => x.oracleFresh && x.symbol === 'ETH') || undefined;
  }, 20_000, 'a fresh ETH oracle price');
}, 30_000);

describe('GET /v1/audit/machines', () => {
  it('lists every machine of machines/index.ts, in its order, with its model and its drawing', async () => {
    const r = await get('/v1/audit/machines');
    expect(r.status).toBe(200);
    const machines = r.body.data.machines as any[];
    expect(machines.map((m) => m.name)).toEqual(MACHINE_ROLES.map((m) => m.id));
    for (const m of machines) {
      const role = MACHINE_ROLES.find((x) => x.id === m.name)!;
      expect(m).toMatchObject({ file: role.file, role: role.role, machineId: role.machine.id, hasInstances: m.name !== 'onboarding' });
      // The whole model, as the export writes it: nothing dropped by the response schema.
      expect(m.model).toEqual(JSON.parse(JSON.stringify(allMachineModels().find((x) => x.name === m.name))));
      expect(m.svg).toMatch(new RegExp(`^<svg [^>]*data-machine="${m.name}"`));
      // Every atomic state of the model is drawn, addressable by its id.
      const leaves: string[] = [];
      const walk = (s: any) => (s.states.length === 0 ? leaves.push(s.id) : s.states.forEach(walk));
      walk(m.model.root);
      for (const id of leaves) expect(m.svg).toContain(`data-state="${id}"`);
    }
  });
});

describe('instances and transitions', () => {
  it('shows the live actors and the genesis validator from the start, and each actor\'s lifecycle steps', async () => {
    const actors = await instances('machine=actor-lifecycle');
    const names = actors.items.map((i: any) => i.id);
    expect(names).toEqual(expect.arrayContaining(['chain', 'indexer', 'mempool', 'consensus', 'api']));
    for (const i of actors.items) expect(i).toMatchObject({ machine: 'actor-lifecycle', state: 'running', stateIds: ['actor-lifecycle.running'] });
    const validator = lc(DEVNET_KEYS.validators[0].address);
    const v = await instances('machine=validator-lifecycle');
    expect(v.items).toContainEqual(expect.objectContaining({ id: validator, state: 'active', stateIds: ['validator-lifecycle.active'], addresses: [validator] }));
    const chainSteps = await transitions('machine=actor-lifecycle&id=chain');
    expect(chainSteps.map((t) => [t.from, t.to, t.cause.event, t.height])).toEqual([
      ['starting', 'running', 'STARTED', null],
      ['idle', 'starting', 'START', null],
    ]);
  });

  it('records a session, agent settings, a position, a governance operation and a withdrawal with the height and the transaction that made each', async () => {
    const sessionKey = privateKeyToAccount(generatePrivateKey());
    const created = await client.createSession(alice, { sessionKey: sessionKey.address, expiresAt: Math.floor(Date.now() / 1000) + 3_600 });
    const session = (await instances(`machine=session&address=${alice.address}`)).items;
    expect(session).toEqual([
      { machine: 'session', id: lc(alice.address), label: `key ${lc(sessionKey.address)}`, state: 'active', stateIds: ['session.active'], addresses: [lc(alice.address), lc(sessionKey.address)] },
    ]);
    const createdAt = (await get(`/tx/${created.tx_hash}`)).body;
    const [st] = await transitions(`machine=session&id=${alice.address}`);
    expect(st).toMatchObject({ machine: 'session', id: lc(alice.address), from: null, to: 'active', cause: { txHash: created.tx_hash, txKind: 'SessionCreate', event: 'SessionCreated' } });
    expect(st.height).toBe(createdAt.data.height);
    await client.revokeSession(alice);
    expect((await instances(`machine=session&address=${alice.address}`)).items[0].state).toBe('revoked');
    expect((await transitions(`machine=session&id=${alice.address}`)).map((t) => [t.from, t.to])).toEqual([['active', 'revoked'], [null, 'active']]);

    await client.setAgentMode(bob, 0);
    const agent = (await instances(`machine=agent-mode&address=${bob.address}`)).items;
    expect(agent).toEqual([expect.objectContaining({ id: lc(bob.address), state: 'mode.off caps.notSet', stateIds: ['agent.mode', 'agent.mode.off', 'agent.caps', 'agent.caps.notSet'] })]);
    expect((await transitions(`machine=agent-mode&id=${bob.address}`))[0]).toMatchObject({ to: 'mode.off', cause: { txKind: 'SetAgentMode', event: 'AgentModeSet' } });

    const opened = await client.perpOpen(carol, { pairId: 1, isLong: true, leverage: 5, margin: '100' });
    const positions = (await instances(`machine=position&address=${carol.address}`)).items;
    expect(positions).toEqual([expect.objectContaining({ id: opened.positionId, state: 'open', stateIds: ['position.open'], label: 'ETH long ×5' })]);
    const positionId = positions[0].id;
    expect((await transitions(`machine=position&id=${positionId}`))[0]).toMatchObject({ from: null, to: 'open', cause: { event: 'PerpOpened' } });
    await client.perpClose(carol, { positionId });
    expect((await instances(`machine=position&address=${carol.address}`)).items).toEqual([]); // a closed position leaves the table
    expect((await transitions(`machine=position&id=${positionId}`)).map((t) => [t.from, t.to, t.cause.event])).toEqual([['open', 'closed', 'PerpClosed'], [null, 'open', 'PerpOpened']]);

    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const w = await client.withdraw(bob, { amount: 2_000_000n, destination });
    expect((await instances(`machine=withdrawal&address=${bob.address}`)).items).toEqual([
      expect.objectContaining({ id: w.withdrawal_id, state: 'requested', stateIds: ['withdrawal.requested'], addresses: [lc(bob.address), lc(destination)] }),
    ]);
    expect((await transitions(`machine=withdrawal&id=${w.withdrawal_id}`))[0]).toMatchObject({ to: 'requested', cause: { txHash: w.tx_hash, event: 'WithdrawalRequested' } });

    const [owner] = OWNERS;
    const chainId = env.node.config.genesis.chainId;
    const unsigned = { proposer: owner.address, operation: { kind: GovOpKind.SetParam, param: GovParam.MakerFeeBps, value: 3n } as const, nonce: 7n };
    const tx = encodeTx(chainId, TxKind.GovernancePropose, { ...unsigned, signature: signCompact64(proposeDigest(chainId, unsigned), owner.priv) });
    const posted = await fetch(`${env.url}/tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx: bytesToHex(tx.bytes) }) });
    expect(posted.status).toBe(200);
    const opId = operationIdOf(chainId, unsigned);
    expect((await instances(`machine=governance-operation&address=${owner.address}`)).items).toEqual([
      expect.objectContaining({ id: opId, label: 'SetParam', state: 'proposed', stateIds: ['governance-operation.proposed'] }),
    ]);
    expect((await transitions(`machine=governance-operation&id=${opId}`))[0]).toMatchObject({ to: 'proposed', cause: { txHash: bytesToHex(tx.hash), txKind: 'GovernancePropose', event: 'GovernanceOperation' } });

    // Every kind the page shows has an instance now (consensus's round: the solo producer has none).
    const all = await instances('limit=500');
    const kinds = new Set(all.items.map((i: any) => i.machine));
    for (const m of ['actor-lifecycle', 'validator-lifecycle', 'session', 'agent-mode', 'withdrawal', 'governance-operation']) expect(kinds).toContain(m);
  });

  it('filters by address: instances and transitions of that address only', async () => {
    // Records of its own, by an account no other test signs with: dave's agent settings and session.
    const set = await client.setAgentMode(dave, 0);
    const sessionKey = privateKeyToAccount(generatePrivateKey());
    const created = await client.createSession(dave, { sessionKey: sessionKey.address, expiresAt: Math.floor(Date.now() / 1000) + 3_600 });
    const mine = await instances(`address=${dave.address}`);
    expect(mine.total).toBeGreaterThan(0);
    expect(mine.items.map((i: any) => [i.machine, i.id])).toEqual(expect.arrayContaining([['agent-mode', lc(dave.address)], ['session', lc(dave.address)]]));
    for (const i of mine.items) expect(i.addresses).toContain(lc(dave.address));
    // The filter leaves the others out: the genesis validator's instance, at least.
    expect((await instances('limit=500')).total).toBeGreaterThan(mine.total);
    const ts = await transitions(`address=${dave.address}`);
    expect(ts.length).toBeGreaterThan(0);
    expect(ts.map((t) => t.cause?.txHash)).toEqual(expect.arrayContaining([set.tx_hash, created.tx_hash]));
    for (const t of ts) expect(t.addresses).toContain(lc(dave.address));
    expect((await instances(`address=${lc(privateKeyToAccount(generatePrivateKey()).address)}`)).total).toBe(0);
  });

  it('pages and bounds: offset and limit, 400 past the limits or for an unknown machine', async () => {
    const all = await instances('limit=500');
    const first = await instances('limit=2');
    const second = await instances('limit=2&offset=2');
    expect(first.total).toBe(all.total);
    expect([...first.items, ...second.items]).toEqual(all.items.slice(0, 4));
    expect((await get('/v1/audit/instances?limit=501')).status).toBe(400);
    expect((await get('/v1/audit/transitions?limit=501')).status).toBe(400);
    expect((await get('/v1/audit/instances?machine=nope')).body.error.code).toBe('INVALID_REQUEST');
    expect((await get('/v1/audit/instances?address=0x12')).status).toBe(400);
    expect((await get('/v1/audit/transitions?id=chain')).status).toBe(400); // an id names an instance of a machine
    const recent = (await get('/v1/audit/transitions?limit=3')).body.data;
    expect(recent.items).toHaveLength(3);
    expect(recent.items[0].seq).toBeGreaterThan(recent.items[1].seq); // newest first
    expect(recent.capacity).toBe(4096);
    expect(recent.recorded).toBeGreaterThanOrEqual(recent.items[0].seq);
  });

  it('keeps the last `capacity` transitions, and an instance\'s history with them', () => {
    const log = new AuditLog(3);
    for (let i = 0; i < 5; i++) log.actorStep('a', i % 2 ? 'starting' : 'running', i % 2 ? 'running' : 'starting', 'X', i);
    expect(log.recorded).toBe(5);
    expect(log.recent({ limit: 10 }).map((t) => t.seq)).toEqual([5, 4, 3]);
    expect(log.recent({ machine: 'actor-lifecycle', id: 'a', limit: 10 }).map((t) => t.seq)).toEqual([5, 4, 3]);
    expect(() => new AuditLog(0)).toThrow(RangeError);
  });
});

describe('WebSocket topic audit', () => {
  it('answers with the recent transitions, then pushes each new one as it is recorded', async () => {
    const ws = new WebSocket(`${env.url.replace('http', 'ws')}/ws`);
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(String(d))));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['audit', { machine: 'session' }] }));
    const subId = (await waitFor(() => messages.find((m) => m.id === 1))).result;
    const snapshot = await waitFor(() => messages.find((m) => m.params?.subscription === subId && m.params.result.snapshot));
    expect(snapshot.params.result.data.every((t: any) => t.machine === 'session')).toBe(true);
    const sessionKey = privateKeyToAccount(generatePrivateKey());
    const r = await client.createSession(carol, { sessionKey: sessionKey.address, expiresAt: Math.floor(Date.now() / 1000) + 600 });
    const pushed = await waitFor(() => messages.find((m) => m.params?.subscription === subId && m.params.result.cause?.txHash === r.tx_hash));
    expect(pushed.params.result).toMatchObject({ machine: 'session', id: lc(carol.address), to: 'active', cause: { event: 'SessionCreated' } });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['audit', { machine: 'nope' }] }));
    expect((await waitFor(() => messages.find((m) => m.id === 2))).error.message).toMatch(/machine/);
    ws.close();
  });
});

describe('GET /audit', () => {
  it('serves the page whole: HTML with its style and script inline, nothing from elsewhere', async () => {
    const res = await fetch(`${env.url}/audit`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('/v1/audit/machines');
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//); // no script, style or image from another origin
  });
});
