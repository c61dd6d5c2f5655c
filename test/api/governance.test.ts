/**
 * GET /v1/governance/operations through real HTTP on a real node (decision 74): a solo
 * devnet node with a 3-second routine timelock takes an owner's proposal and a second
 * owner's approval through POST /tx; the route shows the operation proposed, then
 * approved with its ready time, then `ready` once the head's block time passes it, and
 * executed after GovernanceExecute (its fee then in /chain-config); a halt shows in
 * `halted`. The kinds of decision 76: an AddPair and a SetOwners render their fields; the
 * pair, executed, is listed by /v1/pairs and /api/pairs/perps with its markets and oracle
 * source (a spot-only pair by /v1/pairs alone), and an executed limit is what
 * /chain-config reports.
 */
import { describe, expect, it } from 'vitest';
import { createPublicClient, http, parseAbi } from 'viem';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { actionDigest, GovOpKind, GovParam, operationIdOf, proposeDigest, type GovActionType, type GovOperation } from '../../src/codec/txs/governance';
import { signCompact64 } from '../../src/crypto/secp256k1';
import { genesisHash } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { ORDERBOOK_PRECOMPILE } from '../../src/rpc/constants';
import { bytesToHex, type Hex } from '../../src/util/bytes';
import { OWNERS, type Signer } from '../governance/harness';
import { devnetGenesis, useDevnetNode, waitFor } from '../helpers/devnet';

const ROUTINE_MS = 3_000;
const base = devnetGenesis(1).genesis;
const genesis: Genesis = { ...base, consensus: { ...base.consensus, timelockRoutineMs: ROUTINE_MS, timelockHighImpactMs: 600_000 } };
const chainId = genesis.chainId;

const devnet = useDevnetNode({ genesis, genesisHash: genesisHash(genesis) });

const get = async (path: string) => {
  const res = await fetch(`${devnet.url}${path}`);
  return { status: res.status, body: (await res.json()) as any };
};
const post = async (tx: Tx) => {
  const res = await fetch(`${devnet.url}/tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx: bytesToHex(tx.bytes) }) });
  return { status: res.status, body: (await res.json()) as any };
};

let nonce = 100n;
function propose(by: Signer, operation: GovOperation): { tx: Tx; id: Hex } {
  const unsigned = { proposer: by.address, operation, nonce: nonce++ };
  return { tx: encodeTx(chainId, TxKind.GovernancePropose, { ...unsigned, signature: signCompact64(proposeDigest(chainId, unsigned), by.priv) }), id: operationIdOf(chainId, unsigned) };
}
function action(type: GovActionType, kind: TxKind, by: Signer, operationId: Hex): Tx {
  const unsigned = { owner: by.address, operationId, nonce: nonce++ };
  return encodeTx(chainId, kind, { ...unsigned, signature: signCompact64(actionDigest(chainId, type, unsigned), by.priv) });
}

describe('GET /v1/governance/operations', () => {
  it('shows an operation proposed, approved with its ready time, ready at the head time, then executed; and a halt', async () => {
    const [A, B] = OWNERS;
    const empty = await get('/v1/governance/operations');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ halted: null, operations: [] });

    const p = propose(A, { kind: GovOpKind.SetParam, param: GovParam.MakerFeeBps, value: 3n });
    expect((await post(p.tx)).status).toBe(200);
    let ops = (await get('/v1/governance/operations')).body.data.operations;
    expect(ops).toEqual([
      expect.objectContaining({ id: p.id, kind: 'SetParam', operation: { param: 'fees.makerFeeBps', value: '3' }, state: 'proposed', proposer: A.address, approvals: [A.address], readyAtMs: null, timelockMs: ROUTINE_MS, executedHeight: null }),
    ]);

    expect((await post(action('GovernanceApprove', TxKind.GovernanceApprove, B, p.id))).status).toBe(200);
    ops = (await get('/v1/governance/operations')).body.data.operations;
    expect(ops[0]).toMatchObject({ state: 'approved', approvals: [A.address, B.address] });
    // The timelock runs from the approving block, which comes after the proposing one.
    expect(ops[0].readyAtMs).toBeGreaterThan(ops[0].proposedAtMs + ROUTINE_MS);
    const readyAtMs = ops[0].readyAtMs as number;

    // Ready by the head's block time, before any transaction touches it.
    const ready = await waitFor(async () => {
      const b = (await get('/v1/governance/operations')).body.data;
      return b.timestampMs >= readyAtMs ? b : undefined;
    }, 20_000, 'a head past the timelock');
    expect(ready.operations[0].state).toBe('ready');

    expect((await post(action('GovernanceExecute', TxKind.GovernanceExecute, A, p.id))).status).toBe(200);
    ops = (await get('/v1/governance/operations')).body.data.operations;
    expect(ops[0]).toMatchObject({ state: 'executed', closedBy: A.address });
    expect(ops[0].executedHeight).toBeGreaterThan(0);
    // The executed fee is what /chain-config reports.
    expect((await get('/chain-config')).body.data.fees.makerFeeBps).toBe(3);

    const halt = propose(B, { kind: GovOpKind.Halt });
    expect((await post(halt.tx)).status).toBe(200);
    expect((await post(action('GovernanceApprove', TxKind.GovernanceApprove, A, halt.id))).status).toBe(200);
    const after = (await get('/v1/governance/operations')).body.data;
    expect(after.halted).toMatchObject({ operationId: halt.id });
    expect(after.operations.find((o: { id: string }) => o.id === halt.id)).toMatchObject({ kind: 'Halt', state: 'executed', timelockMs: 0 });
  }, 40_000);

  // Shows contract [C-res-pairs-dynamic], [C-version-pairs].
  it('renders AddPair and SetOwners; an executed pair is listed by the pair routes, an executed limit by /chain-config', async () => {
    const [A, B, C] = OWNERS;
    const pair = { id: 100, symbol: 'PEPE', tickSize: 1_000n, lotSize: 10n ** 16n, minSize: 10n ** 16n, maxLeverage: 10, maintenanceMarginBps: 500, openInterestCapBps: 2_000, initialPrice: 2_000_000n, markets: 3, oracleSource: 'feed:pepe-usd' };
    const add = propose(A, { kind: GovOpKind.AddPair, pair });
    // A spot-only pair beside it: listed under its one market.
    const spot = propose(A, { kind: GovOpKind.AddPair, pair: { ...pair, id: 102, symbol: 'SPOTX', markets: 1, oracleSource: 'devnet-path' } });
    // And a perp-only one: no order book to read through the precompile.
    const perp = propose(A, { kind: GovOpKind.AddPair, pair: { ...pair, id: 103, symbol: 'PERPX', markets: 2, oracleSource: 'devnet-path' } });
    const lockup = propose(A, { kind: GovOpKind.SetParam, param: GovParam.PoolLockupMs, value: 123_000n });
    const owners = propose(C, { kind: GovOpKind.SetOwners, owners: [A.address, B.address, '0x00000000000000000000000000000000000000aa'] });
    for (const p of [add, spot, perp, lockup, owners]) expect((await post(p.tx)).status).toBe(200);
    for (const id of [add.id, spot.id, perp.id, lockup.id]) expect((await post(action('GovernanceApprove', TxKind.GovernanceApprove, B, id))).status).toBe(200);
    expect((await post(action('GovernanceApprove', TxKind.GovernanceApprove, A, owners.id))).status).toBe(200);

    const ops = (await get('/v1/governance/operations')).body.data.operations as { id: string }[];
    const byId = (id: string) => ops.find((o) => o.id === id) as any;
    expect(byId(add.id)).toMatchObject({
      kind: 'AddPair',
      operation: { pair: { id: 100, symbol: 'PEPE', tickSize: '1000', lotSize: '10000000000000000', minSize: '10000000000000000', maxLeverage: 10, maintenanceMarginBps: 500, openInterestCapBps: 2000, initialPrice: '2000000', markets: ['spot', 'perp'], oracleSource: 'feed:pepe-usd' } },
      state: 'approved',
      timelockMs: ROUTINE_MS,
    });
    expect(byId(lockup.id)).toMatchObject({ kind: 'SetParam', operation: { param: 'limits.poolLockupMs', value: '123000' } });
    expect(byId(owners.id)).toMatchObject({ kind: 'SetOwners', operation: { owners: [A.address, B.address, '0x00000000000000000000000000000000000000aa'] }, timelockMs: 600_000 });

    expect(byId(spot.id)).toMatchObject({ kind: 'AddPair', operation: { pair: { id: 102, symbol: 'SPOTX', markets: ['spot'], oracleSource: 'devnet-path' } } });

    const readyAtMs = Math.max(byId(add.id).readyAtMs, byId(spot.id).readyAtMs, byId(perp.id).readyAtMs, byId(lockup.id).readyAtMs) as number;
    await waitFor(async () => ((await get('/v1/governance/operations')).body.data.timestampMs >= readyAtMs ? true : undefined), 20_000, 'a head past the timelock');
    expect((await get('/v1/pairs')).body.data.some((p: { symbol: string }) => p.symbol === 'PEPE')).toBe(false);
    for (const id of [add.id, spot.id, perp.id, lockup.id]) expect((await post(action('GovernanceExecute', TxKind.GovernanceExecute, C, id))).status).toBe(200);

    expect((await get('/v1/pairs')).body.data.find((p: { symbol: string }) => p.symbol === 'PEPE')).toMatchObject({ pairId: 100, pair: 'PEPE/USDC', maxLeverage: 10, markets: ['spot', 'perp'], oracleSource: 'feed:pepe-usd' });
    expect((await get('/api/pairs/perps')).body.data.find((p: { symbol: string }) => p.symbol === 'PEPE')).toMatchObject({ pairId: 100, pair: 'PEPE-PERP', markets: ['spot', 'perp'], oracleSource: 'feed:pepe-usd' });
    // The spot-only pair: in the spot listing, in no perp read; a genesis pair shows both markets and the devnet path.
    const spotPairs = (await get('/v1/pairs')).body.data as { symbol: string }[];
    expect(spotPairs.find((p) => p.symbol === 'SPOTX')).toMatchObject({ pairId: 102, pair: 'SPOTX/USDC', markets: ['spot'], oracleSource: 'devnet-path' });
    expect(spotPairs.find((p) => p.symbol === genesis.pairs[0].symbol)).toMatchObject({ markets: ['spot', 'perp'], oracleSource: 'devnet-path' });
    for (const path of ['/api/pairs/perps', '/v1/perp/markets', '/v1/funding']) {
      const listed = (await get(path)).body.data as { pairId: number }[];
      expect(listed.some((p) => p.pairId === 100), path).toBe(true);
      expect(listed.some((p) => p.pairId === 102), path).toBe(false);
    }
    // The orderbook read precompile (eth_call) reads a spot book, and reverts for the perp-only pair.
    const client = createPublicClient({ transport: http(devnet.url) });
    const abi = parseAbi(['function getPairAsks(uint256 pairId) view returns ((uint256 orderId, address owner, uint256 price, uint256 size, bool isAgent)[])']);
    expect(await client.readContract({ address: ORDERBOOK_PRECOMPILE, abi, functionName: 'getPairAsks', args: [102n] })).toEqual([]);
    await expect(client.readContract({ address: ORDERBOOK_PRECOMPILE, abi, functionName: 'getPairAsks', args: [103n] })).rejects.toThrow(/pair 103 has no spot market/);
    expect((await get('/chain-config')).body.data.limits.poolLockupMs).toBe(123_000);
    // The owner change waits its 10-minute high-impact timelock: still approved.
    const now = (await get('/v1/governance/operations')).body.data.operations as { id: string; state: string }[];
    expect(now.find((o) => o.id === owners.id)!.state).toBe('approved');
    expect(now.find((o) => o.id === add.id)!.state).toBe('executed');
  }, 40_000);
});
