/**
 * The bridge's reads through real HTTP (issue 22; decisions 84, 85), in-process
 * single-validator devnet nodes without an external chain:
 *   - GET /v1/network's `bridge`: the genesis external chain id and contracts (EIP-55),
 *     the RPC of the node's deployment file (null without one); null on a network without
 *     a bridge;
 *   - GET /withdrawals/{address}: an owner's withdrawals newest first in each state the
 *     withdrawal machine reaches (requested, signed, submitted, paid, refunded), stepped
 *     here by the validator's own WithdrawalSignatures and BridgeAttestation transactions
 *     (POST /tx), as its bridge actor would send them;
 *   - GET /reserves: the vault and the reserve check, the external balance null when
 *     the node has no deployment file or its endpoint does not answer, difference 0;
 *   - GET /status's `bridge`; a deployment file naming another bridge stops the node.
 * The bridge actor against a real external chain: test/bridge/bridge-node.test.ts.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeDeploymentFile } from '../../src/bridge/evm';
import { ExchangeClient } from '../../src/client';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { BridgeClaimKind, signAttestation, signWithdrawalSignatures, WithdrawalVoidReason, type BridgeClaim } from '../../src/codec/txs/bridge';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { bridgeWithdrawalSigningHash } from '../../src/signing/bridge-withdrawal';
import { genesisHash } from '../../src/genesis/load';
import { Node } from '../../src/node/node';
import { withdrawalMessage } from '../../src/state/bridge/reads';
import { bytesToHex, hexToBytes, type Address } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, devnetGenesis, nodeConfig, startNode, tempDir, waitFor } from '../helpers/devnet';

const BRIDGE = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
/** Nothing listens on port 1: an external endpoint that never answers. */
const DEAD_RPC = 'http://127.0.0.1:1/';
const deployment: BridgeDeploymentFile = { chainId: 31337, rpcUrl: DEAD_RPC, bridge: BRIDGE.toLowerCase() as Address, usdc: USDC.toLowerCase() as Address, deployBlock: 2 };

const dirs = [tempDir('exchain-bridge-api-'), tempDir('exchain-bridge-api-'), tempDir('exchain-bridge-api-')];
let validator: Node;
let follower: Node;
let noBridge: Node;
const [alice, bob] = DEVNET_KEYS.accounts.slice(0, 2).map((a) => privateKeyToAccount(a.privateKey));
const signer = new Secp256k1Signer(hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey));

async function get(node: Node, path: string): Promise<any> {
  const res = await fetch(`${node.apiAddress}${path}`);
  return { status: res.status, body: (await res.json()) as any };
}

/** Submits a validator transaction through POST /tx and waits until it is final. */
async function postTx(node: Node, tx: Tx): Promise<void> {
  const res = await fetch(`${node.apiAddress}/tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx: bytesToHex(tx.bytes) }) });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.data.receipt.status, JSON.stringify(body.data.receipt)).toBe('ok');
}

async function attest(node: Node, claims: BridgeClaim[]): Promise<void> {
  const chainId = node.config.genesis.chainId;
  await postTx(node, encodeTx(chainId, TxKind.BridgeAttestation, signAttestation(chainId, { validator: signer.address, claims }, signer)));
}

async function signWithdrawal(node: Node, id: bigint): Promise<void> {
  const state = node.chain().state;
  const w = state.withdrawals.get(String(id))!;
  const chainId = node.config.genesis.chainId;
  const items = [{ withdrawalId: id, signature: signer.sign(bridgeWithdrawalSigningHash(withdrawalMessage(state, w))) }];
  await postTx(node, encodeTx(chainId, TxKind.WithdrawalSignatures, signWithdrawalSignatures(chainId, { validator: signer.address, items }, signer)));
}

const tx = (byte: number) => new Uint8Array(32).fill(byte);

beforeAll(async () => {
  // A validator without a deployment file (no bridge actor: the test steps its withdrawals),
  // a follower (no key) with a deployment file whose endpoint never answers, and a
  // validator of a network without a bridge.
  validator = (await startNode(dirs[0].path)).node;
  follower = (await startNode(dirs[1].path, { validatorKey: undefined, bridge: deployment })).node;
  const { genesis } = devnetGenesis(1);
  const { bridge: _absent, ...withoutBridge } = genesis;
  const g = withoutBridge as typeof genesis;
  noBridge = (await startNode(dirs[2].path, { genesis: g, genesisHash: genesisHash(g) })).node;
});
afterAll(async () => {
  for (const n of [validator, follower, noBridge]) await n?.stop();
  for (const d of dirs) d.remove();
});

// Shows contract [C-account-network].
describe('GET /v1/network bridge', () => {
  it('names the external chain and the contracts checksummed, with the RPC of the node’s deployment file or null', async () => {
    expect((await get(validator, '/v1/network')).body.data.bridge).toEqual({ chainId: 31337, rpcUrl: null, address: BRIDGE, usdc: USDC, alerts: 0 });
    expect((await get(follower, '/v1/network')).body.data.bridge).toEqual({ chainId: 31337, rpcUrl: DEAD_RPC, address: BRIDGE, usdc: USDC, alerts: 0 });
  });

  it('is null on a network without a bridge', async () => {
    expect((await get(noBridge, '/v1/network')).body.data.bridge).toBeNull();
  });
});

describe('GET /reserves and /status bridge', () => {
  it('without a deployment file: the external balance null, the books balanced (difference 0)', async () => {
    const { status, body } = await get(validator, '/reserves');
    expect(status).toBe(200);
    expect(typeof body.total_usdc_vault).toBe('number'); // the contract's fields are unchanged
    expect(body.external).toEqual({ chain_id: 31337, bridge: BRIDGE, usdc: USDC, balance: null, block: null });
    expect(body.difference).toBe('0');
    expect(body.vault_total).toBe(body.expected_vault_total);
    expect(BigInt(body.vault_total)).toBe(BigInt(body.total_usdc_vault));
    expect(body).toMatchObject({ credited_deposits: '0', paid_withdrawals: '0', next_deposit_id: '0' });
  });

  it('with an endpoint that does not answer: balance null within the bound, not an error', async () => {
    const started = Date.now();
    const { status, body } = await get(follower, '/reserves');
    expect(status).toBe(200);
    expect(body.external.balance).toBeNull();
    expect(body.difference).toBe('0');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('on a network without a bridge: external null; /status bridge null', async () => {
    expect((await get(noBridge, '/reserves')).body.external).toBeNull();
    expect((await get(noBridge, '/status')).body.data.bridge).toBeNull();
  });

  it('/status shows the reserve check; the actor counters only where a bridge actor runs', async () => {
    const s = (await get(validator, '/status')).body.data.bridge;
    expect(s).toMatchObject({ difference: '0', nextDepositId: '0', rpcUrl: null, actor: null });
    // The follower has a deployment file but no key: it serves the RPC and runs no watcher.
    const f = (await get(follower, '/status')).body.data;
    expect(f.bridge).toMatchObject({ rpcUrl: DEAD_RPC, actor: null });
    expect(Object.keys(f.actors)).not.toContain('bridge');
  });
});

describe('GET /withdrawals/{address}', () => {
  let client: ExchangeClient;
  const destination = '0x00000000000000000000000000000000000d0001' as const;

  beforeAll(() => {
    client = new ExchangeClient(validator.apiAddress!, { chainId: validator.config.genesis.chainId });
  });

  it('lists nothing for an address without withdrawals, and refuses a malformed address', async () => {
    expect((await get(validator, `/withdrawals/${bob.address}`)).body).toEqual({ withdrawals: [] });
    const bad = await get(validator, '/withdrawals/0x1234');
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
  });

  it('shows each state the withdrawal machine reaches, newest first, with the external transactions', async () => {
    const ids: bigint[] = [];
    for (const amount of [3_000_000n, 4_000_000n, 5_000_000n]) ids.push(BigInt((await client.withdraw(alice, { amount, destination })).withdrawal_id));
    let list = (await get(validator, `/withdrawals/${alice.address}`)).body.withdrawals;
    expect(list.map((w: any) => w.withdrawal_id)).toEqual([...ids].reverse().map(String));
    const first = list[2];
    const createdMs = validator.chain().state.withdrawals.get(String(ids[0]))!.createdMs;
    expect(first).toEqual({
      withdrawal_id: String(ids[0]),
      amount: '3000000',
      fee: '1000000',
      destination,
      status: 'requested',
      valid_until: Math.floor((createdMs + validator.config.genesis.bridge!.withdrawalWindowMs) / 1000),
      created_ms: createdMs,
      updated_ms: createdMs,
      signatures: 0,
      queued_tx: null,
      paid_tx: null,
      refund_reason: null,
    });

    // The one validator's signature is more than 2/3 of the power: signed.
    await signWithdrawal(validator, ids[0]);
    await signWithdrawal(validator, ids[1]);
    list = (await get(validator, `/withdrawals/${alice.address}`)).body.withdrawals;
    expect(list[2]).toMatchObject({ status: 'signed', signatures: 1 });
    // Queued on the external chain, then paid there; the third expires unpaid and is refunded.
    const w0 = validator.chain().state.withdrawals.get(String(ids[0]))!;
    await attest(validator, [{ kind: BridgeClaimKind.WithdrawalQueued, withdrawalId: ids[0], recipient: w0.destination, amount: w0.amount, validUntil: w0.validUntilSec, externalTx: tx(0xa1) }]);
    list = (await get(validator, `/withdrawals/${alice.address}`)).body.withdrawals;
    expect(list[2]).toMatchObject({ status: 'submitted', queued_tx: bytesToHex(tx(0xa1)), paid_tx: null });
    await attest(validator, [
      { kind: BridgeClaimKind.WithdrawalPaid, withdrawalId: ids[0], recipient: w0.destination, amount: w0.amount, externalTx: tx(0xa2) },
      { kind: BridgeClaimKind.WithdrawalVoid, withdrawalId: ids[2], reason: WithdrawalVoidReason.Expired, externalTx: tx(0) },
    ]);
    list = (await get(validator, `/withdrawals/${alice.address}`)).body.withdrawals;
    expect(list.map((w: any) => w.status)).toEqual(['refunded', 'signed', 'paid']);
    expect(list[2]).toMatchObject({ queued_tx: bytesToHex(tx(0xa1)), paid_tx: bytesToHex(tx(0xa2)), refund_reason: null });
    expect(list[2].updated_ms).toBeGreaterThanOrEqual(list[2].created_ms);
    expect(list[0]).toMatchObject({ refund_reason: 'expired', paid_tx: null });

    // The reserves follow: one paid (3 USDC left), one still pending (4 + 1 fee locked), the books balanced.
    const r = (await get(validator, '/reserves')).body;
    expect(r).toMatchObject({ paid_withdrawals: '3000000', pending_withdrawals: '5000000', difference: '0' });
    const s = (await get(validator, '/status')).body.data.bridge;
    expect(s).toMatchObject({ difference: '0', pendingWithdrawals: 1, pendingWithdrawalsAmount: '5000000' });
  });
});

describe('--bridge checked against the genesis', () => {
  it('a deployment file of another bridge or USDC stops the node before it starts, naming both', async () => {
    const dir = tempDir('exchain-bridge-api-');
    try {
      const other = { ...deployment, bridge: '0x00000000000000000000000000000000000000b1' as Address };
      expect(() => new Node(nodeConfig(dir.path, { bridge: other }), createLogger({ destination: 'silent' }))).toThrow(
        /not this network's bridge: bridge 0x0{38}b1 \(genesis bridge\.address 0xe7f1725e7734ce288f8367e1bb143e90bb3f0512\)/,
      );
      const wrongChain = { ...deployment, chainId: 1 };
      expect(() => new Node(nodeConfig(dir.path, { bridge: wrongChain }), createLogger({ destination: 'silent' }))).toThrow(/chainId 1 \(genesis bridge\.externalChainId 31337\)/);
    } finally {
      dir.remove();
    }
  });

  it('a validator whose external endpoint does not answer keeps running and shows it unreachable in /status', async () => {
    const dir = tempDir('exchain-bridge-api-');
    const { node } = await startNode(dir.path, { bridge: deployment, bridgeTiming: { pollMs: 50 } });
    try {
      const s = await waitFor(async () => {
        const b = (await get(node, '/status')).body.data.bridge;
        return b.actor?.external === 'unreachable' && b.actor.pollFailures >= 2 ? b : undefined;
      }, 10_000, 'the bridge actor to find the endpoint unreachable');
      expect(s.actor.lastError).toBeTruthy();
      expect(node.halted).toBeUndefined();
      expect((await get(node, '/status')).body.data.actors.bridge.status).toBe('running');
    } finally {
      await node.stop();
      dir.remove();
    }
  });
});
