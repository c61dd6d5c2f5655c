/**
 * src/bridge/evm.ts against a real hardhat node (issue 22): the deployment file read and
 * checked; BridgeClient decoding the bridge's deposits and withdrawal events, never another
 * contract's `Deposit` (test/bridge/fixtures/FakeDeposit.sol), even through an RPC endpoint
 * that ignores the address filter or marks logs removed (a proxy in front of the real node
 * here: the client drops and counts them); long ranges scanned in chunks; the withdrawal
 * state, validator set, pause flag and bridge balance read (now and at a past block);
 * withdrawals queued and paid through the client from a validator's own key, refusals
 * surfaced with the contract's custom error; a wrong chain id refused by checkChain().
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, toEventSelector, type Address as ViemAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { deployBridge, type BridgeDeployment } from '../../src/bridge/deploy';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { BridgeClient, BridgeRevertError, readDeploymentFile, type BridgeLog } from '../../src/bridge/evm';
import { ownerActionDigest, ownerActions, signAll, withdrawalDigest, type BridgeDomain } from '../../src/bridge/signatures';
import { freePort } from '../../src/cli/launcher';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { bytesToHex, hexToBytes, toAddress, type Address } from '../../src/util/bytes';
import { ROOT, tempDir } from '../helpers/devnet';
import { compileFixture, revertEachTest } from './fixtures';

const USDC = 10n ** 6n;
const DISPUTE_SEC = 600n;
const { bridge: _unbound, ...genesisFields } = loadGenesisFile(join(ROOT, 'genesis', 'devnet.json')) as Genesis & { bridge?: unknown };
const genesis = genesisFields as Genesis;
const keys = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet-keys.json'), 'utf8')) as {
  validators: { address: Address; ecdsaPrivateKey: Hex }[];
  owners: { privateKey: Hex }[];
};
const validatorKeys = keys.validators.map((v) => v.ecdsaPrivateKey);
const { ExchangeBridge, TestUSDC } = contractArtifacts();
const dir = tempDir('bridge-evm-');

let chain: DevChain;
let dep: BridgeDeployment;
let domain: BridgeDomain;
let client: BridgeClient;
let accounts: ViemAddress[];
let fake: ViemAddress;

function viem() {
  const c = defineChain({ id: chain.chainId, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } });
  const transport = http(chain.rpcUrl);
  return { pub: createPublicClient({ chain: c, transport }), wallet: (account: ViemAddress | ReturnType<typeof privateKeyToAccount>) => createWalletClient({ chain: c, transport, account }) };
}

async function send(from: ViemAddress | ReturnType<typeof privateKeyToAccount>, address: ViemAddress, abi: typeof ExchangeBridge.abi, functionName: string, args: unknown[]): Promise<Hex> {
  const { pub, wallet } = viem();
  const hash = await wallet(from).writeContract({ address, abi, functionName, args } as never);
  expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
  return hash;
}

async function increaseTime(seconds: bigint): Promise<void> {
  const { pub } = viem();
  await pub.request({ method: 'evm_increaseTime', params: [Number(seconds)] } as never);
  await pub.request({ method: 'evm_mine', params: [] } as never);
}

/**
 * A JSON-RPC endpoint in front of the real node that misbehaves on eth_getLogs: it drops
 * the address filter (returning every contract's logs) and, for the log indexes listed,
 * flags logs `removed`. It counts the eth_getLogs requests and their ranges.
 */
async function hostileProxy(opts: { markRemoved?: (log: { address: string; transactionHash: string }) => boolean }) {
  const ranges: [bigint, bigint][] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { method: string; params: { address?: string; fromBlock: Hex; toBlock: Hex }[] };
      const isLogs = msg.method === 'eth_getLogs';
      if (isLogs) {
        ranges.push([BigInt(msg.params[0].fromBlock), BigInt(msg.params[0].toBlock)]);
        delete msg.params[0].address;
      }
      void fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(msg) })
        .then((r) => r.json() as Promise<{ result?: unknown }>)
        .then((answer) => {
          if (isLogs && Array.isArray(answer.result) && opts.markRemoved) {
            answer.result = (answer.result as { address: string; transactionHash: string }[]).map((l) => (opts.markRemoved!(l) ? { ...l, removed: true } : l));
          }
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(answer));
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/`, ranges, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const deposits: { depositId: bigint; depositor: Address; recipient: Address; amount: bigint; txHash: Hex }[] = [];

beforeAll(async () => {
  chain = await startDevChain({ port: await freePort() });
  dep = await deployBridge({ rpcUrl: chain.rpcUrl, genesis, disputePeriodSec: DISPUTE_SEC });
  domain = { chainId: BigInt(dep.chainId), bridge: dep.bridge, exchangeChainId: BigInt(genesis.chainId), genesisHash: genesisHashHex(genesis) };
  accounts = await viem().wallet('0x0000000000000000000000000000000000000001').getAddresses();
  // Three deposits on the bridge, and a look-alike Deposit (id 0, like the bridge's first) from another contract.
  const recipients = ['0x00000000000000000000000000000000000a11ce', '0x000000000000000000000000000000000000b0b0', '0x00000000000000000000000000000000000a11ce'] as const;
  for (const [i, amount] of [100n * USDC, 7n * USDC, 1n].entries()) {
    const from = accounts[i + 1];
    await send(from, dep.usdc, TestUSDC.abi, 'approve', [dep.bridge, amount]);
    const txHash = await send(from, dep.bridge, ExchangeBridge.abi, 'deposit', [recipients[i], amount]);
    deposits.push({ depositId: BigInt(i), depositor: toAddress(from), recipient: recipients[i], amount, txHash });
  }
  const fixture = compileFixture('FakeDeposit');
  const { pub, wallet } = viem();
  const hash = await wallet(accounts[5]).deployContract({ abi: fixture.abi, bytecode: fixture.bytecode, args: [] });
  fake = getAddress((await pub.waitForTransactionReceipt({ hash })).contractAddress!);
  await send(accounts[5], fake, fixture.abi, 'emitDeposit', [0n, accounts[5], 1_000_000n * USDC]);
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

// Every test starts from the three deposits and the look-alike above: no withdrawal, not
// paused, and a client of its own (its counters at zero).
revertEachTest(() => chain.rpcUrl);
beforeEach(() => {
  client = new BridgeClient({ rpcUrl: chain.rpcUrl, bridge: toAddress(dep.bridge), usdc: toAddress(dep.usdc), expectedChainId: 31337 });
});

/** Queues withdrawals `ids` of 1 USDC each to `recipient`, all signed, sent at once from one key. */
async function queueFromOneKey(key: Hex, ids: bigint[], recipient: Address) {
  const validUntil = (await client.head()).timestampSec + 2n * DISPUTE_SEC;
  return Promise.all(
    ids.map(async (id) =>
      client.queueWithdrawal(hexToBytes(key), { withdrawalId: id, recipient, amount: USDC, validUntil, signatures: (await signAll(validatorKeys, withdrawalDigest(domain, id, recipient, USDC, validUntil))).map(hexToBytes) }),
    ),
  );
}

const depositFields = (l: BridgeLog) => ({ depositId: l.depositId, depositor: l.depositor, recipient: l.recipient, amount: l.amount, txHash: bytesToHex(l.txHash) });

describe('the deployment file', () => {
  it('reads what bridge:deploy writes, addresses lowercased; refuses a malformed one naming the field', () => {
    const file = join(dir.path, 'bridge.json');
    writeFileSync(file, JSON.stringify(dep));
    expect(readDeploymentFile(file)).toEqual({ chainId: 31337, rpcUrl: chain.rpcUrl, bridge: toAddress(dep.bridge), usdc: toAddress(dep.usdc), deployBlock: dep.deployBlock });
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...dep, chainId: 0 }, /chainId must be a positive integer/],
      [{ ...dep, bridge: '0x1234' }, /bridge must be a 0x address/],
      [{ ...dep, usdc: undefined }, /missing field usdc/],
      [{ ...dep, rpcUrl: 'ftp://x' }, /rpcUrl must be an http/],
      [{ ...dep, deployBlock: -1 }, /deployBlock must be a non-negative integer/],
      [{ ...dep, extra: 1 }, /unknown field extra/],
    ];
    for (const [content, error] of bad) {
      writeFileSync(file, JSON.stringify(content));
      expect(() => readDeploymentFile(file)).toThrow(error);
    }
    writeFileSync(file, '{');
    expect(() => readDeploymentFile(file)).toThrow(/bridge deployment file .*bridge\.json/);
  });
});

describe('BridgeClient on a real hardhat node', () => {
  it('checkChain: the expected chain passes; another chain id, or an address without the bridge, is refused clearly', async () => {
    expect(await client.chainId()).toBe(31337);
    await client.checkChain();
    const wrongChain = new BridgeClient({ rpcUrl: chain.rpcUrl, bridge: toAddress(dep.bridge), usdc: toAddress(dep.usdc), expectedChainId: 1 });
    await expect(wrongChain.checkChain()).rejects.toThrow(`external chain mismatch: ${chain.rpcUrl} is chain 31337, the bridge is on chain 1`);
    const noCode = new BridgeClient({ rpcUrl: chain.rpcUrl, bridge: '0x000000000000000000000000000000000000dead', usdc: toAddress(dep.usdc), expectedChainId: 31337 });
    await expect(noCode.checkChain()).rejects.toThrow(/no contract at the bridge address 0x000000000000000000000000000000000000dead on chain 31337/);
  });

  it('head and block: numbers, timestamps and hashes of the node', async () => {
    const head = await client.head();
    const latest = await viem().pub.getBlock();
    expect(head).toEqual({ number: latest.number, timestampSec: latest.timestamp });
    const b = await client.block(BigInt(dep.deployBlock));
    const expected = await viem().pub.getBlock({ blockNumber: BigInt(dep.deployBlock) });
    expect([b.number, b.timestampSec, bytesToHex(b.hash)]).toEqual([expected.number, expected.timestamp, expected.hash]);
  });

  it("logs: the bridge's deposits decoded in order with ids, depositors, recipients, amounts and tx hashes; the look-alike never", async () => {
    const head = await client.head();
    const logs = await client.logs(BigInt(dep.deployBlock), head.number);
    expect(logs.every((l) => l.kind === 'Deposit')).toBe(true);
    expect(logs.map(depositFields)).toEqual(deposits);
    for (let i = 1; i < logs.length; i++) expect(logs[i].blockNumber > logs[i - 1].blockNumber).toBe(true);
    // The fake's event is there on the node (same topic), at its own address only.
    const all = (await viem().pub.request({ method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] } as never)) as { address: string; topics: Hex[] }[];
    const depositTopic = toEventSelector('Deposit(uint256,address,address,uint256)');
    expect(all.filter((l) => l.address === dep.bridge.toLowerCase() && l.topics[0] === depositTopic).length).toBe(3);
    expect(all.filter((l) => l.address === fake.toLowerCase() && l.topics[0] === depositTopic).length).toBe(1);
    // Nothing foreign or removed from an honest node; the deployment's OwnersChanged and ValidatorSetChanged are skipped (not claims).
    expect(client.counters()).toEqual({ foreignLogsDropped: 0, removedLogsDropped: 0, otherLogsSkipped: 2 });
    // An empty or reversed range is nothing.
    expect(await client.logs(head.number + 1n, head.number)).toEqual([]);
  });

  it('an endpoint ignoring the address filter, or flagging logs removed: the foreign and removed logs are dropped and counted', async () => {
    const removedTx = deposits[1].txHash;
    const proxy = await hostileProxy({ markRemoved: (l) => l.transactionHash === removedTx });
    try {
      const c = new BridgeClient({ rpcUrl: proxy.url, bridge: toAddress(dep.bridge), usdc: toAddress(dep.usdc), expectedChainId: 31337 });
      const logs = await c.logs(0n, (await c.head()).number);
      expect(logs.map(depositFields)).toEqual([deposits[0], deposits[2]]);
      const counters = c.counters();
      // The fake's Deposit plus TestUSDC's Transfer/Approval/mint logs: none from the bridge.
      expect(counters.foreignLogsDropped).toBeGreaterThanOrEqual(1 + 3 * 2 + 20);
      expect(counters.removedLogsDropped).toBe(1);
      // OwnersChanged and ValidatorSetChanged at deployment: bridge events that are not claims.
      expect(counters.otherLogsSkipped).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('scans long ranges in chunks of at most maxLogRangeBlocks, with the same result', async () => {
    const proxy = await hostileProxy({});
    try {
      const c = new BridgeClient({ rpcUrl: proxy.url, bridge: toAddress(dep.bridge), usdc: toAddress(dep.usdc), expectedChainId: 31337, maxLogRangeBlocks: 3 });
      const to = (await c.head()).number;
      const from = BigInt(dep.deployBlock);
      const logs = await c.logs(from, to);
      expect(logs.map(depositFields)).toEqual(deposits);
      const n = to - from + 1n;
      expect(BigInt(proxy.ranges.length)).toBe((n + 2n) / 3n);
      expect(proxy.ranges[0][0]).toBe(from);
      expect(proxy.ranges[proxy.ranges.length - 1][1]).toBe(to);
      for (const [a, b] of proxy.ranges) expect(b - a + 1n <= 3n).toBe(true);
      for (let i = 1; i < proxy.ranges.length; i++) expect(proxy.ranges[i][0]).toBe(proxy.ranges[i - 1][1] + 1n);
    } finally {
      await proxy.close();
    }
  });

  it('validatorSet, paused and usdcBalanceOfBridge (now and at a past block)', async () => {
    const { validators, powers } = await client.validatorSet();
    expect(validators).toEqual(genesis.validators.map((v) => v.address.toLowerCase()).sort());
    expect(powers).toEqual(validators.map(() => 10n ** 25n));
    expect(await client.paused()).toBe(false);
    const total = deposits.reduce((s, d) => s + d.amount, 0n);
    expect(await client.usdcBalanceOfBridge()).toBe(total);
    const firstDeposit = (await viem().pub.getTransactionReceipt({ hash: deposits[0].txHash })).blockNumber;
    expect(await client.usdcBalanceOfBridge(firstDeposit)).toBe(deposits[0].amount);
    expect(await client.usdcBalanceOfBridge(firstDeposit - 1n)).toBe(0n);
  });

  it("queues and pays a withdrawal from a validator's key; states, events and refusals with the contract's error names", async () => {
    const relayerKey = hexToBytes(validatorKeys[0]); // funded with 100 ETH by the deploy
    const recipient = toAddress('0x000000000000000000000000000000000000e0e0');
    const amount = 30n * USDC;
    const validUntil = (await client.head()).timestampSec + 2n * DISPUTE_SEC;
    const sigs = (await signAll(validatorKeys.slice(0, 5), withdrawalDigest(domain, 1n, recipient, amount, validUntil))).map(hexToBytes);
    const before = (await client.head()).number;
    expect(await client.withdrawal(1n)).toEqual({ state: 'none', readyAt: 0n, validUntil: 0n });

    // Short of the quorum, or signed over another validUntil: refused, named.
    await expect(client.queueWithdrawal(relayerKey, { withdrawalId: 1n, recipient, amount, validUntil, signatures: sigs.slice(0, 4) })).rejects.toThrow(
      /queueWithdrawal reverted: QuorumNotReached\(40000000000000000000000000, 60000000000000000000000000\)/,
    );
    await expect(client.queueWithdrawal(relayerKey, { withdrawalId: 1n, recipient, amount, validUntil: validUntil + 1n, signatures: sigs })).rejects.toThrow(/UnknownSigner/);

    const { txHash } = await client.queueWithdrawal(relayerKey, { withdrawalId: 1n, recipient, amount, validUntil, signatures: sigs });
    const receipt = await viem().pub.getTransactionReceipt({ hash: bytesToHex(txHash) });
    expect(receipt.status).toBe('success');
    expect(receipt.from).toBe(keys.validators[0].address.toLowerCase());
    const queuedBlock = await client.block(receipt.blockNumber);
    const queued = await client.withdrawal(1n);
    expect(queued).toEqual({ state: 'queued', readyAt: queuedBlock.timestampSec + DISPUTE_SEC, validUntil });
    expect((await client.withdrawal(1n, before)).state).toBe('none');

    // Queued twice: refused. Paid too early: refused with the time it is due.
    const again = client.queueWithdrawal(relayerKey, { withdrawalId: 1n, recipient, amount, validUntil, signatures: sigs });
    await expect(again).rejects.toBeInstanceOf(BridgeRevertError);
    await expect(again).rejects.toMatchObject({ errorName: 'WithdrawalExists', args: [1n] });
    await expect(client.executeWithdrawal(relayerKey, 1n)).rejects.toThrow(`executeWithdrawal reverted: DisputePeriodActive(${queued.readyAt})`);

    await increaseTime(DISPUTE_SEC);
    const balance = await client.usdcBalanceOfBridge();
    const paid = await client.executeWithdrawal(hexToBytes(validatorKeys[3]), 1n);
    expect((await client.withdrawal(1n)).state).toBe('paid');
    expect(await client.usdcBalanceOfBridge()).toBe(balance - amount);
    await expect(client.executeWithdrawal(relayerKey, 1n)).rejects.toThrow(/WithdrawalNotQueued\(1\)/);

    const logs = (await client.logs(BigInt(dep.deployBlock), (await client.head()).number)).filter((l) => l.kind !== 'Deposit');
    expect(logs.map((l) => ({ kind: l.kind, id: l.withdrawalId, recipient: l.recipient, amount: l.amount, readyAt: l.readyAt, validUntil: l.validUntil, tx: bytesToHex(l.txHash) }))).toEqual([
      { kind: 'WithdrawalQueued', id: 1n, recipient, amount, readyAt: queued.readyAt, validUntil, tx: bytesToHex(txHash) },
      { kind: 'WithdrawalPaid', id: 1n, recipient, amount, readyAt: undefined, validUntil: undefined, tx: bytesToHex(paid.txHash) },
    ]);

    // Expired: the contract refuses to queue it, named with its validUntil.
    const past = (await client.head()).timestampSec - 1n;
    const late = (await signAll(validatorKeys, withdrawalDigest(domain, 2n, recipient, USDC, past))).map(hexToBytes);
    await expect(client.queueWithdrawal(relayerKey, { withdrawalId: 2n, recipient, amount: USDC, validUntil: past, signatures: late })).rejects.toThrow(
      `queueWithdrawal reverted: WithdrawalExpired(${past})`,
    );
  });

  it('sends from one key one after the other (each takes the next nonce)', async () => {
    const ids = [10n, 11n, 12n];
    const sent = await queueFromOneKey(validatorKeys[1], ids, toAddress('0x000000000000000000000000000000000000f00d'));
    expect(new Set(sent.map((s) => bytesToHex(s.txHash))).size).toBe(3);
    for (const id of ids) expect((await client.withdrawal(id)).state).toBe('queued');
  });

  it('two relayers racing: the one mined second reverts, and its error names why (replayed on the block it lost in)', async () => {
    const { pub } = viem();
    const recipient = toAddress('0x000000000000000000000000000000000000face');
    const validUntil = (await client.head()).timestampSec + 2n * DISPUTE_SEC;
    const signatures = (await signAll(validatorKeys, withdrawalDigest(domain, 20n, recipient, USDC, validUntil))).map(hexToBytes);
    await pub.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      // Both simulate against the same state (nothing queued) and are sent; one block mines both.
      const sends = [validatorKeys[4], validatorKeys[5]].map((k) =>
        client.queueWithdrawal(hexToBytes(k), { withdrawalId: 20n, recipient, amount: USDC, validUntil, signatures }).then(
          (ok) => ({ ok }),
          (err: unknown) => ({ err }),
        ),
      );
      // Both in the pool before the block is mined (however long the two take to be sent; the test's timeout bounds it).
      while (((await pub.request({ method: 'eth_getBlockByNumber', params: ['pending', false] } as never)) as { transactions: unknown[] }).transactions.length < 2) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await pub.request({ method: 'evm_mine', params: [] } as never);
      const results = await Promise.all(sends);
      const won = results.filter((r) => 'ok' in r);
      const lost = results.filter((r) => 'err' in r).map((r) => (r as { err: unknown }).err);
      expect(won.length).toBe(1);
      expect(lost.length).toBe(1);
      expect(lost[0]).toBeInstanceOf(BridgeRevertError);
      const e = lost[0] as BridgeRevertError;
      expect([e.errorName, e.args]).toEqual(['WithdrawalExists', [20n]]);
      expect(e.txHash).toBeDefined();
      expect((await pub.getTransactionReceipt({ hash: bytesToHex(e.txHash!) })).status).toBe('reverted');
      expect(e.message).toBe(`queueWithdrawal reverted: WithdrawalExists(20) in transaction ${bytesToHex(e.txHash!)}`);
    } finally {
      await pub.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
    expect((await client.withdrawal(20n)).state).toBe('queued');
  });

  it("a cancelled withdrawal reads 'cancelled' and logs WithdrawalCancelled; paused() follows a locker's pause, and paused refuses", async () => {
    const { pub } = viem();
    // Its own two queued withdrawals: 10 to cancel, 11 to find unpayable while paused.
    await queueFromOneKey(validatorKeys[1], [10n, 11n], toAddress('0x000000000000000000000000000000000000f00d'));
    const nonce = (await pub.readContract({ address: dep.bridge, abi: ExchangeBridge.abi, functionName: 'ownerNonce' })) as bigint;
    const ownerSigs = await signAll(keys.owners.slice(0, 2).map((o) => o.privateKey), ownerActionDigest(domain, nonce, ownerActions.cancelWithdrawal(10n)));
    const cancelTx = await send(accounts[9], dep.bridge, ExchangeBridge.abi, 'cancelWithdrawal', [10n, ownerSigs]);
    expect((await client.withdrawal(10n)).state).toBe('cancelled');
    const head = (await client.head()).number;
    const cancelled = (await client.logs(head, head))[0];
    expect([cancelled.kind, cancelled.withdrawalId, bytesToHex(cancelled.txHash)]).toEqual(['WithdrawalCancelled', 10n, cancelTx]);

    await send(privateKeyToAccount(validatorKeys[2]), dep.bridge, ExchangeBridge.abi, 'pause', []);
    expect(await client.paused()).toBe(true);
    await increaseTime(DISPUTE_SEC);
    await expect(client.executeWithdrawal(hexToBytes(validatorKeys[0]), 11n)).rejects.toThrow('executeWithdrawal reverted: IsPaused()');
    expect((await client.withdrawal(11n)).state).toBe('queued');
  });
});
