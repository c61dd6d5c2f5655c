/**
 * The bridge's external chain, for real (issue 22 item 1, decision 81): a hardhat node
 * started here on a free port (killed after), TestUSDC and ExchangeBridge compiled with
 * solc and deployed by src/bridge/deploy.ts with the devnet genesis validators (six of
 * equal power) and owners (2 of 3). Deposits, the emitter check a watcher relies on,
 * withdrawals signed by more than 2/3 of the power and paid after the dispute period,
 * each at most once, pausing by a validator and unpausing, cancelling and changing the
 * validator set by the owners only. Signatures are made with the devnet keys
 * (genesis/devnet-keys.json).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  keccak256,
  parseEther,
  toBytes,
  type Account,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { deployBridge, type BridgeDeployment } from '../../src/bridge/deploy';
import { startDevChain, type DevChain } from '../../src/bridge/devchain';
import { bridgeOwners, bridgeValidatorSet } from '../../src/bridge/deploy';
import { ownerActionDigest, ownerActions, ownersDigest, signAll, validatorSetDigest, withdrawalDigest, type BridgeDomain } from '../../src/bridge/signatures';
import { freePort } from '../../src/cli/launcher';
import { bridgeOwnersDigest, bridgeSetDigest, bridgeWithdrawalDigest, type BridgeMessageDomain } from '../../src/signing/bridge-withdrawal';
import { bytesToHex, hexToBytes, toAddress } from '../../src/util/bytes';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { ROOT, tempDir } from '../helpers/devnet';
import { compileFixture, revertEachTest } from './fixtures';

const DISPUTE_SEC = 3_600n;
/** The validUntil of the withdrawals that are not about expiry: far after any time these tests reach (2096). */
const VALID_UNTIL = 4_000_000_000n;
const USDC = 10n ** 6n;
/**
 * The devnet genesis without its `bridge` section, if it has one: these tests deploy many
 * bridges on one chain with a dispute period of their own, which a genesis-bound deploy
 * refuses (test/bridge/deploy.test.ts shows that binding).
 */
const { bridge: _unbound, ...genesisFields } = loadGenesisFile(join(ROOT, 'genesis', 'devnet.json')) as Genesis & { bridge?: unknown };
const genesis = genesisFields as Genesis;
const keys = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet-keys.json'), 'utf8')) as {
  validators: { address: Address; ecdsaPrivateKey: Hex }[];
  owners: { address: Address; privateKey: Hex }[];
};
const validatorKeys = keys.validators.map((v) => v.ecdsaPrivateKey);
const ownerKeys = keys.owners.map((o) => o.privateKey);
const { ExchangeBridge, TestUSDC } = contractArtifacts();

let chain: DevChain;
let dep: BridgeDeployment;
let domain: BridgeDomain;
let accounts: Address[];
const dir = tempDir('bridge-contract-');

function clients() {
  const c = defineChain({ id: chain.chainId, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } });
  const transport = http(chain.rpcUrl);
  const pub = createPublicClient({ chain: c, transport });
  const wallet = (account: Address | Account) => createWalletClient({ chain: c, transport, account });
  return { pub, wallet };
}

/** Sends a bridge call from `from` and waits for its receipt; rejects with the contract's error on a revert. */
async function bridgeCall(from: Address | Account, functionName: string, args: unknown[], address?: Address): Promise<void> {
  const { pub, wallet } = clients();
  const hash = await wallet(from).writeContract({ address: address ?? dep.bridge, abi: ExchangeBridge.abi, functionName, args } as never);
  const r = await pub.waitForTransactionReceipt({ hash });
  if (r.status !== 'success') throw new Error(`reverted: ${hash}`);
}

async function usdcCall(from: Address, functionName: string, args: unknown[]): Promise<void> {
  const { pub, wallet } = clients();
  const hash = await wallet(from).writeContract({ address: dep.usdc, abi: TestUSDC.abi, functionName, args } as never);
  expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
}

async function read<T>(functionName: string, args: unknown[] = [], address?: Address, abi = ExchangeBridge.abi): Promise<T> {
  return (await clients().pub.readContract({ address: address ?? dep.bridge, abi, functionName, args } as never)) as T;
}

const usdcBalance = (who: Address) => read<bigint>('balanceOf', [who], dep.usdc, TestUSDC.abi);

async function increaseTime(seconds: bigint): Promise<void> {
  const { pub } = clients();
  await pub.request({ method: 'evm_increaseTime', params: [Number(seconds)] } as never);
  await pub.request({ method: 'evm_mine', params: [] } as never);
}

/** A bridge call sent without gas estimation so it is mined, in a block of time `timestamp` exactly. */
async function callInBlockAt(from: Address, functionName: string, args: unknown[], timestamp: bigint): Promise<void> {
  const { pub, wallet } = clients();
  await pub.request({ method: 'evm_setNextBlockTimestamp', params: [Number(timestamp)] } as never);
  const hash = await wallet(from).writeContract({ address: dep.bridge, abi: ExchangeBridge.abi, functionName, args, gas: 500_000n } as never);
  const r = await pub.waitForTransactionReceipt({ hash });
  if (r.status !== 'success') throw new Error(`reverted: ${hash}`);
}

const executeInBlockAt = (from: Address, id: bigint, timestamp: bigint): Promise<void> => callInBlockAt(from, 'executeWithdrawal', [id], timestamp);
const latestTime = async (): Promise<bigint> => (await clients().pub.getBlock()).timestamp;

/** The domain as src/signing/bridge-withdrawal.ts takes it. */
const pureDomain = (): BridgeMessageDomain => ({
  externalChainId: domain.chainId,
  bridge: toAddress(domain.bridge),
  exchangeChainId: domain.exchangeChainId,
  genesisHash: hexToBytes(domain.genesisHash),
});

async function ownerSigs(ownerKeyList: Hex[], actionHash: Hex, d: BridgeDomain = domain): Promise<Hex[]> {
  const nonce = await read<bigint>('ownerNonce');
  return signAll(ownerKeyList, ownerActionDigest(d, nonce, actionHash));
}

beforeAll(async () => {
  chain = await startDevChain({ port: await freePort() });
  dep = await deployBridge({ rpcUrl: chain.rpcUrl, genesis, disputePeriodSec: DISPUTE_SEC });
  domain = { chainId: BigInt(dep.chainId), bridge: dep.bridge, exchangeChainId: BigInt(genesis.chainId), genesisHash: genesisHashHex(genesis) };
  accounts = await clients().wallet(getAddress('0x0000000000000000000000000000000000000001')).getAddresses();
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

// Every test starts from the bridge as deployed: no deposit, no withdrawal, not paused,
// the genesis validators, owner nonce 0. What a test needs beyond that it makes itself.
revertEachTest(() => chain.rpcUrl);

const DEPOSIT_RECIPIENT = getAddress('0x00000000000000000000000000000000000a11ce');

/** Alice deposits 100 and 200 USDC for 0x…a11ce, Bob 50 for himself (ids 0, 1, 2): the bridge holds 350 USDC. */
async function depositThree(): Promise<void> {
  const [, alice, bob] = accounts;
  await usdcCall(alice, 'approve', [dep.bridge, 300n * USDC]);
  await usdcCall(bob, 'approve', [dep.bridge, 50n * USDC]);
  await bridgeCall(alice, 'deposit', [DEPOSIT_RECIPIENT, 100n * USDC]);
  await bridgeCall(bob, 'deposit', [bob, 50n * USDC]);
  await bridgeCall(alice, 'deposit', [DEPOSIT_RECIPIENT, 200n * USDC]);
}

describe('the bridge on a real external chain (hardhat node)', () => {
  it('is deployed with the genesis validators and owners, and the dev accounts hold test USDC', async () => {
    expect(dep.chainId).toBe(31337);
    expect(dep.deployBlock).toBeGreaterThan(0);
    const [vals, powers] = await read<[Address[], bigint[]]>('validatorSet');
    const expected = [...genesis.validators].map((v) => getAddress(v.address)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect(vals).toEqual(expected);
    expect(powers).toEqual(expected.map(() => 10n ** 25n));
    expect(await read<bigint>('totalPower')).toBe(6n * 10n ** 25n);
    expect((await read<Address[]>('owners')).map((a) => a.toLowerCase()).sort()).toEqual([...genesis.owners.addresses].sort());
    expect(await read<bigint>('ownerThreshold')).toBe(2n);
    expect(await read<bigint>('disputePeriod')).toBe(DISPUTE_SEC);
    expect(await read<Address>('usdc')).toBe(dep.usdc);
    expect(await read<number>('decimals', [], dep.usdc, TestUSDC.abi)).toBe(6);
    expect(accounts.length).toBe(20);
    for (const a of accounts) expect(await usdcBalance(a)).toBe(1_000_000n * USDC);
  });

  it('npm run bridge:deploy writes {chainId, rpcUrl, bridge, usdc, deployBlock} to --out', async () => {
    const out = join(dir.path, 'bridge.json');
    const genesisFile = join(dir.path, 'genesis-without-bridge.json');
    const { bridge: _omit, ...raw } = JSON.parse(readFileSync(join(ROOT, 'genesis', 'devnet.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(genesisFile, JSON.stringify(raw, null, 2));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/bridge/deploy-main.ts', '--rpc', chain.rpcUrl, '--genesis', genesisFile, '--out', out], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8')) as BridgeDeployment;
    expect(Object.keys(written).sort()).toEqual(['bridge', 'chainId', 'deployBlock', 'rpcUrl', 'usdc']);
    expect(written.chainId).toBe(31337);
    expect(written.rpcUrl).toBe(chain.rpcUrl);
    expect(written.bridge).not.toBe(dep.bridge); // a second, independent deployment
    expect(await clients().pub.getCode({ address: written.bridge })).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(await read<bigint>('totalPower', [], written.bridge)).toBe(6n * 10n ** 25n);
  });

  it('the contract computes the same withdrawal (v3), set, owners and owner-action digests as src/bridge/signatures.ts and src/signing/bridge-withdrawal.ts', async () => {
    const recipient = accounts[5];
    for (const [id, amount, validUntil] of [
      [7n, 123n, VALID_UNTIL],
      [0n, 1n, 0n],
      [2n ** 64n + 3n, 10n ** 30n, 2n ** 255n],
    ] as const) {
      const onChain = await read<Hex>('withdrawalDigest', [id, recipient, amount, validUntil]);
      expect(onChain).toBe(withdrawalDigest(domain, id, recipient, amount, validUntil));
      const message = { ...pureDomain(), withdrawalId: id, recipient: toAddress(recipient), amount, validUntilSec: validUntil };
      expect(bytesToHex(bridgeWithdrawalDigest(message))).toBe(onChain);
    }
    expect(await read<Hex>('WITHDRAWAL_TAG')).toBe(keccak256(toBytes('ExchangeBridge.Withdrawal.v3')));
    expect(await read<Hex>('ownerActionDigest', [3n, ownerActions.unpause()])).toBe(ownerActionDigest(domain, 3n, ownerActions.unpause()));
    // The binding the constructor fixed, and the set and owner-set digests.
    expect(await read<bigint>('exchangeChainId')).toBe(BigInt(genesis.chainId));
    expect(await read<Hex>('exchangeGenesisHash')).toBe(genesisHashHex(genesis));
    const set = [getAddress('0x0000000000000000000000000000000000000001'), accounts[3]];
    for (const [nonce, powers] of [[1n, [5n, 7n]], [2n ** 70n, [1n, 2n ** 200n]]] as const) {
      const onChain = await read<Hex>('validatorSetDigest', [nonce, set, powers]);
      expect(onChain).toBe(validatorSetDigest(domain, nonce, set, powers));
      expect(bytesToHex(bridgeSetDigest({ ...pureDomain(), setNonce: nonce, validators: set.map(toAddress), powers }))).toBe(onChain);
      expect(await read<Hex>('ownersDigest', [nonce, set, 2n])).toBe(ownersDigest(domain, nonce, set, 2n));
      expect(bytesToHex(bridgeOwnersDigest({ ...pureDomain(), ownerSetNonce: nonce, owners: set.map(toAddress), threshold: 2n }))).toBe(await read<Hex>('ownersDigest', [nonce, set, 2n]));
    }
  });

  it('approve + deposit pulls the USDC and emits Deposit with sequential ids from 0', async () => {
    const [, alice, bob] = accounts;
    const recipient = DEPOSIT_RECIPIENT;
    const before = await usdcBalance(alice);
    await depositThree();
    expect(await usdcBalance(alice)).toBe(before - 300n * USDC);
    expect(await usdcBalance(dep.bridge)).toBe(350n * USDC);
    expect(await read<bigint>('nextDepositId')).toBe(3n);
    const logs = await clients().pub.getContractEvents({ address: dep.bridge, abi: ExchangeBridge.abi, eventName: 'Deposit', fromBlock: BigInt(dep.deployBlock) });
    expect(logs.map((l) => (l as unknown as { args: unknown }).args)).toEqual([
      { depositId: 0n, depositor: alice, recipient, amount: 100n * USDC },
      { depositId: 1n, depositor: bob, recipient: bob, amount: 50n * USDC },
      { depositId: 2n, depositor: alice, recipient, amount: 200n * USDC },
    ]);
    // Without an allowance, or of nothing, or to nobody: refused, nothing moves.
    await expect(bridgeCall(bob, 'deposit', [bob, 1n])).rejects.toThrow(/TokenCallFailed/);
    await expect(bridgeCall(alice, 'deposit', [recipient, 0n])).rejects.toThrow(/ZeroAmount/);
    await expect(bridgeCall(alice, 'deposit', ['0x0000000000000000000000000000000000000000', 1n])).rejects.toThrow(/ZeroAddress/);
    expect(await read<bigint>('nextDepositId')).toBe(3n);
    expect(await usdcBalance(dep.bridge)).toBe(350n * USDC);
  });

  it('refuses signatures short of 2/3, over another chain id, another bridge, another exchange chain or genesis or another payout, duplicated or not validators', async () => {
    const relayer = accounts[9];
    const recipient = getAddress('0x000000000000000000000000000000000000cafe');
    const id = 2n;
    const amount = 10n * USDC;
    const digest = withdrawalDigest(domain, id, recipient, amount, VALID_UNTIL);
    // Exactly 2/3 (4 of 6 equal powers) is not more than 2/3.
    await expect(bridgeCall(relayer, 'queueWithdrawal', [id, recipient, amount, VALID_UNTIL, await signAll(validatorKeys.slice(0, 4), digest)])).rejects.toThrow(/QuorumNotReached/);
    // All six, but over another chain id, another contract address, another amount or recipient: the recovered signers are not validators.
    const wrong: [string, Hex][] = [
      ['chain', withdrawalDigest({ ...domain, chainId: domain.chainId + 1n }, id, recipient, amount, VALID_UNTIL)],
      ['bridge', withdrawalDigest({ ...domain, bridge: dep.usdc }, id, recipient, amount, VALID_UNTIL)],
      ['exchange chain', withdrawalDigest({ ...domain, exchangeChainId: domain.exchangeChainId + 1n }, id, recipient, amount, VALID_UNTIL)],
      ['genesis', withdrawalDigest({ ...domain, genesisHash: keccak256(toBytes('another genesis')) }, id, recipient, amount, VALID_UNTIL)],
      ['amount', withdrawalDigest(domain, id, recipient, amount + 1n, VALID_UNTIL)],
      ['recipient', withdrawalDigest(domain, id, accounts[9], amount, VALID_UNTIL)],
      ['id', withdrawalDigest(domain, id + 1n, recipient, amount, VALID_UNTIL)],
      ['validUntil', withdrawalDigest(domain, id, recipient, amount, VALID_UNTIL + 1n)],
    ];
    for (const [, d] of wrong) {
      await expect(bridgeCall(relayer, 'queueWithdrawal', [id, recipient, amount, VALID_UNTIL, await signAll(validatorKeys, d)])).rejects.toThrow(/UnknownSigner/);
    }
    // One validator signing five times counts once (the list must be strictly ascending).
    const one = (await signAll(validatorKeys.slice(0, 1), digest))[0];
    await expect(bridgeCall(relayer, 'queueWithdrawal', [id, recipient, amount, VALID_UNTIL, [one, one, one, one, one]])).rejects.toThrow(/SignersNotAscending/);
    // Owners are not validators.
    await expect(bridgeCall(relayer, 'queueWithdrawal', [id, recipient, amount, VALID_UNTIL, await signAll([...validatorKeys.slice(0, 4), ...ownerKeys], digest)])).rejects.toThrow(/UnknownSigner/);
    expect((await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [id]))[2]).toBe(0); // None
    // The honest quorum still goes through.
    await bridgeCall(relayer, 'queueWithdrawal', [id, recipient, amount, VALID_UNTIL, await signAll(validatorKeys.slice(1, 6), digest)]);
    expect((await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [id]))[2]).toBe(1); // Queued
  });

  describe('with the three deposits made (350 USDC in the bridge)', () => {
    beforeEach(depositThree);

    it('a Deposit of the same shape from another contract shows only at that address: filtering by the bridge ignores it', async () => {
      const { pub, wallet } = clients();
      const mallory = accounts[3];
      const [validators, powers] = await read<[Address[], bigint[]]>('validatorSet');
      const hash = await wallet(mallory).deployContract({
        abi: ExchangeBridge.abi,
        bytecode: ExchangeBridge.bytecode,
        args: [dep.usdc, 0n, 0n, domain.exchangeChainId, domain.genesisHash, validators, powers, [mallory], 1n],
      });
      const fake = getAddress((await pub.waitForTransactionReceipt({ hash })).contractAddress!);
      await usdcCall(mallory, 'approve', [fake, 1_000n * USDC]);
      await bridgeCall(mallory, 'deposit', [mallory, 1_000n * USDC], fake);
      const any = await pub.getContractEvents({ abi: ExchangeBridge.abi, eventName: 'Deposit', fromBlock: BigInt(dep.deployBlock) });
      const fromFake = any.filter((l) => getAddress(l.address) === fake);
      expect(fromFake.length).toBe(1);
      expect((fromFake[0] as unknown as { args: { depositId: bigint } }).args.depositId).toBe(0n); // same id as the bridge's first
      const fromBridge = await pub.getContractEvents({ address: dep.bridge, abi: ExchangeBridge.abi, eventName: 'Deposit', fromBlock: BigInt(dep.deployBlock) });
      expect(fromBridge.length).toBe(3);
      expect(fromBridge.every((l) => getAddress(l.address) === dep.bridge)).toBe(true);
      expect(await usdcBalance(dep.bridge)).toBe(350n * USDC);
    });

    it('a payout signed by more than 2/3 of the power is paid after the dispute period, once', async () => {
      const relayer = accounts[9];
      const recipient = getAddress('0x000000000000000000000000000000000000b0b0');
      const id = 1n;
      const sigs = await signAll(validatorKeys.slice(0, 5), withdrawalDigest(domain, id, recipient, 40n * USDC, VALID_UNTIL)); // 5/6 > 2/3
      await bridgeCall(relayer, 'queueWithdrawal', [id, recipient, 40n * USDC, VALID_UNTIL, sigs]);
      const [rec, readyAt, state, amount, validUntil] = await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [id]);
      expect([rec, state, amount, validUntil]).toEqual([recipient, 1, 40n * USDC, VALID_UNTIL]);
      const now = (await clients().pub.getBlock()).timestamp;
      expect(readyAt).toBe(now + DISPUTE_SEC);
      // Before the period: refused, up to the last second before readyAt (the transaction mined in a block of that time).
      await expect(bridgeCall(relayer, 'executeWithdrawal', [id])).rejects.toThrow(/DisputePeriodActive/);
      await expect(executeInBlockAt(relayer, id, readyAt - 1n)).rejects.toThrow(/DisputePeriodActive|reverted/);
      expect((await clients().pub.getBlock()).timestamp).toBe(readyAt - 1n);
      expect(await usdcBalance(recipient)).toBe(0n);
      await executeInBlockAt(relayer, id, readyAt);
      expect(await usdcBalance(recipient)).toBe(40n * USDC);
      expect(await usdcBalance(dep.bridge)).toBe(310n * USDC);
      expect((await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [id]))[2]).toBe(2); // Paid
      // Paid once: executing again, or queueing the same id again (even with fresh signatures), is refused.
      await expect(bridgeCall(relayer, 'executeWithdrawal', [id])).rejects.toThrow(/WithdrawalNotQueued/);
      await expect(bridgeCall(relayer, 'queueWithdrawal', [id, recipient, 40n * USDC, VALID_UNTIL, sigs])).rejects.toThrow(/WithdrawalExists/);
      expect(await usdcBalance(recipient)).toBe(40n * USDC);
    });

    it('validUntil: nothing is queued or paid after it (up to that second inclusive), and it is kept and announced', async () => {
      const relayer = accounts[9];
      const recipient = getAddress('0x000000000000000000000000000000000000e0e0');
      const sign = (id: bigint, amount: bigint, validUntil: bigint) => signAll(validatorKeys, withdrawalDigest(domain, id, recipient, amount, validUntil));

      // Queueing after validUntil: refused, even with a full quorum over exactly that validUntil.
      const past = (await latestTime()) - 1n;
      await expect(bridgeCall(relayer, 'queueWithdrawal', [10n, recipient, USDC, past, await sign(10n, USDC, past)])).rejects.toThrow(/WithdrawalExpired/);
      // Mined in a block one second after validUntil: reverted; in a block at validUntil exactly: queued.
      const soon = (await latestTime()) + 5n;
      await expect(callInBlockAt(relayer, 'queueWithdrawal', [10n, recipient, USDC, soon, await sign(10n, USDC, soon)], soon + 1n)).rejects.toThrow(/reverted/);
      expect((await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [10n]))[2]).toBe(0); // None
      const atEdge = (await latestTime()) + 5n;
      await callInBlockAt(relayer, 'queueWithdrawal', [10n, recipient, USDC, atEdge, await sign(10n, USDC, atEdge)], atEdge);
      const [, readyAt10, state10, , validUntil10] = await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [10n]);
      expect([state10, validUntil10, readyAt10]).toEqual([1, atEdge, atEdge + DISPUTE_SEC]);
      // Its dispute period ends after its validUntil: it can never be paid.
      await increaseTime(DISPUTE_SEC);
      await expect(bridgeCall(relayer, 'executeWithdrawal', [10n])).rejects.toThrow(/WithdrawalExpired/);

      // Queued in time, due, but paid after validUntil: refused, nothing moves; one paid at validUntil exactly goes through.
      const t = await latestTime();
      const until11 = t + DISPUTE_SEC + 100n;
      await bridgeCall(relayer, 'queueWithdrawal', [11n, recipient, 2n * USDC, until11, await sign(11n, 2n * USDC, until11)]);
      const until12 = t + DISPUTE_SEC + 50n;
      await bridgeCall(relayer, 'queueWithdrawal', [12n, recipient, 3n * USDC, until12, await sign(12n, 3n * USDC, until12)]);
      const queued = await clients().pub.getContractEvents({ address: dep.bridge, abi: ExchangeBridge.abi, eventName: 'WithdrawalQueued', fromBlock: BigInt(dep.deployBlock) });
      const args = queued.map((l) => (l as unknown as { args: { withdrawalId: bigint; validUntil: bigint } }).args);
      expect(args.filter((a) => a.withdrawalId >= 10n).map((a) => [a.withdrawalId, a.validUntil])).toEqual([[10n, atEdge], [11n, until11], [12n, until12]]);

      const bridgeBefore = await usdcBalance(dep.bridge);
      await expect(executeInBlockAt(relayer, 12n, until12 + 1n)).rejects.toThrow(/reverted/);
      await expect(bridgeCall(relayer, 'executeWithdrawal', [12n])).rejects.toThrow(/WithdrawalExpired/);
      expect((await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [12n]))[2]).toBe(1); // still Queued, never payable
      expect(await usdcBalance(recipient)).toBe(0n);
      await executeInBlockAt(relayer, 11n, until11);
      expect(await usdcBalance(recipient)).toBe(2n * USDC);
      expect(await usdcBalance(dep.bridge)).toBe(bridgeBefore - 2n * USDC);
    });

    it('a validator pauses; paused, nothing is deposited, queued or paid; only the owners unpause', async () => {
      const { pub } = clients();
      const relayer = accounts[9];
      const locker = privateKeyToAccount(validatorKeys[2]);
      const recipient = getAddress('0x000000000000000000000000000000000000cafe');
      // Withdrawal 2 (10 USDC to 0x…cafe), queued by a full quorum before the pause.
      await bridgeCall(relayer, 'queueWithdrawal', [2n, recipient, 10n * USDC, VALID_UNTIL, await signAll(validatorKeys, withdrawalDigest(domain, 2n, recipient, 10n * USDC, VALID_UNTIL))]);
      await pub.request({ method: 'hardhat_setBalance', params: [locker.address, `0x${parseEther('10').toString(16)}`] } as never);
      // Not a validator or owner: cannot pause.
      await expect(bridgeCall(relayer, 'pause', [])).rejects.toThrow(/NotLocker/);
      await bridgeCall(locker, 'pause', []);
      expect(await read<boolean>('paused')).toBe(true);

      await increaseTime(DISPUTE_SEC); // withdrawal 2 is due, but paused
      await expect(bridgeCall(relayer, 'executeWithdrawal', [2n])).rejects.toThrow(/IsPaused/);
      const d3 = withdrawalDigest(domain, 3n, recipient, USDC, VALID_UNTIL);
      await expect(bridgeCall(relayer, 'queueWithdrawal', [3n, recipient, USDC, VALID_UNTIL, await signAll(validatorKeys, d3)])).rejects.toThrow(/IsPaused/);
      await usdcCall(accounts[4], 'approve', [dep.bridge, USDC]);
      await expect(bridgeCall(accounts[4], 'deposit', [accounts[4], USDC])).rejects.toThrow(/IsPaused/);

      // Unpausing: one owner is short of the threshold; validators are not owners; two owners over another chain id do not count.
      await expect(bridgeCall(relayer, 'unpause', [await ownerSigs(ownerKeys.slice(0, 1), ownerActions.unpause())])).rejects.toThrow(/OwnerThresholdNotReached/);
      await expect(bridgeCall(relayer, 'unpause', [await ownerSigs(validatorKeys.slice(0, 4), ownerActions.unpause())])).rejects.toThrow(/UnknownSigner/);
      await expect(
        bridgeCall(relayer, 'unpause', [await ownerSigs(ownerKeys.slice(0, 2), ownerActions.unpause(), { ...domain, chainId: 1n })]),
      ).rejects.toThrow(/UnknownSigner/);
      // A validator cannot unpause by calling it either.
      await expect(bridgeCall(locker, 'unpause', [[]])).rejects.toThrow(/OwnerThresholdNotReached/);
      expect(await read<boolean>('paused')).toBe(true);

      const sigs = await ownerSigs(ownerKeys.slice(1, 3), ownerActions.unpause());
      await bridgeCall(relayer, 'unpause', [sigs]);
      expect(await read<boolean>('paused')).toBe(false);
      expect(await read<bigint>('ownerNonce')).toBe(1n);
      // The same owner signatures cannot be replayed: the nonce is spent.
      await bridgeCall(locker, 'pause', []);
      await expect(bridgeCall(relayer, 'unpause', [sigs])).rejects.toThrow(/UnknownSigner/);
      await bridgeCall(relayer, 'unpause', [await ownerSigs(ownerKeys.slice(0, 2), ownerActions.unpause())]);

      // Unpaused, the due withdrawal pays.
      await bridgeCall(relayer, 'executeWithdrawal', [2n]);
      expect(await usdcBalance(recipient)).toBe(10n * USDC);
    });
  });

  it('the owners change the validator set only through the timelock, and cancel a queued withdrawal', async () => {
    const relayer = accounts[9];
    const newKeys = validatorKeys.slice(0, 3);
    const newSet = newKeys
      .map((k) => privateKeyToAccount(k).address)
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const powers = [1n, 1n, 1n];
    const action = ownerActions.setValidators(newSet, powers, 1n);
    // Validators (all six) are not owners; one owner is not enough.
    await expect(bridgeCall(relayer, 'setValidators', [newSet, powers, 1n, await ownerSigs(validatorKeys, action)])).rejects.toThrow(/UnknownSigner/);
    await expect(bridgeCall(relayer, 'setValidators', [newSet, powers, 1n, await ownerSigs(ownerKeys.slice(2), action)])).rejects.toThrow(/OwnerThresholdNotReached/);
    // Owners' signatures over another set, or another nonce, do not carry over to this one.
    const other = await ownerSigs(ownerKeys.slice(0, 2), ownerActions.setValidators(newSet, [1n, 1n, 2n], 1n));
    await expect(bridgeCall(relayer, 'setValidators', [newSet, powers, 1n, other])).rejects.toThrow(/UnknownSigner/);
    await bridgeCall(relayer, 'setValidators', [newSet, powers, 1n, await ownerSigs([ownerKeys[0], ownerKeys[2]], action)]);
    // Proposed, not in force: the genesis set still signs, for the owners' delay (a custody
    // change: the genesis's high-impact timelock, 7 days, decision 153), past the dispute period.
    const ownerSetDelay = await read<bigint>('ownerSetDelay');
    expect(ownerSetDelay).toBe(7n * 24n * 3_600n);
    const [, , , activeAt, byOwners] = await read<[Address[], bigint[], bigint, bigint, boolean]>('pendingValidatorSet');
    expect(activeAt).toBe((await latestTime()) + ownerSetDelay);
    expect(byOwners).toBe(true);
    expect((await read<[Address[], bigint[]]>('validatorSet'))[0]).toHaveLength(6);
    await expect(bridgeCall(relayer, 'activateValidatorSet', [])).rejects.toThrow(/NotDue/);
    await increaseTime(DISPUTE_SEC);
    await expect(bridgeCall(relayer, 'activateValidatorSet', [])).rejects.toThrow(/NotDue/);
    await increaseTime(ownerSetDelay - DISPUTE_SEC);
    await bridgeCall(relayer, 'activateValidatorSet', []);
    expect(await read<[Address[], bigint[]]>('validatorSet')).toEqual([newSet, powers]);
    expect(await read<bigint>('totalPower')).toBe(3n);
    expect(await read<bigint>('validatorSetNonce')).toBe(1n);

    // The removed validators' signatures no longer count; 2 of the 3 new is not more than 2/3, all 3 is.
    const recipient = getAddress('0x000000000000000000000000000000000000d00d');
    const digest = withdrawalDigest(domain, 4n, recipient, 5n * USDC, VALID_UNTIL);
    await expect(bridgeCall(relayer, 'queueWithdrawal', [4n, recipient, 5n * USDC, VALID_UNTIL, await signAll(validatorKeys.slice(3), digest)])).rejects.toThrow(/UnknownSigner/);
    await expect(bridgeCall(relayer, 'queueWithdrawal', [4n, recipient, 5n * USDC, VALID_UNTIL, await signAll(newKeys.slice(0, 2), digest)])).rejects.toThrow(/QuorumNotReached/);
    await bridgeCall(relayer, 'queueWithdrawal', [4n, recipient, 5n * USDC, VALID_UNTIL, await signAll(newKeys, digest)]);

    // Cancelled during its dispute period by the owners (not by a validator): never paid.
    const cancel = ownerActions.cancelWithdrawal(4n);
    await expect(bridgeCall(relayer, 'cancelWithdrawal', [4n, await ownerSigs(newKeys, cancel)])).rejects.toThrow(/UnknownSigner/);
    await bridgeCall(relayer, 'cancelWithdrawal', [4n, await ownerSigs(ownerKeys.slice(0, 2), cancel)]);
    await increaseTime(DISPUTE_SEC);
    await expect(bridgeCall(relayer, 'executeWithdrawal', [4n])).rejects.toThrow(/WithdrawalNotQueued/);
    await expect(bridgeCall(relayer, 'queueWithdrawal', [4n, recipient, 5n * USDC, VALID_UNTIL, await signAll(newKeys, digest)])).rejects.toThrow(/WithdrawalExists/);
    expect(await usdcBalance(recipient)).toBe(0n);
  });

  it('a token that re-enters or answers false gets nothing out: paid once, failures refused', async () => {
    const { pub, wallet } = clients();
    const deployer = accounts[0];
    const hostile = compileFixture('HostileToken');
    const deployedAt = async (hash: Hex): Promise<Address> => getAddress((await pub.waitForTransactionReceipt({ hash })).contractAddress!);
    const token = await deployedAt(await wallet(deployer).deployContract({ abi: hostile.abi, bytecode: hostile.bytecode, args: [] }));
    const { validators, powers } = bridgeValidatorSet(genesis);
    const { owners, threshold } = bridgeOwners(genesis);
    const bridge = await deployedAt(
      await wallet(deployer).deployContract({ abi: ExchangeBridge.abi, bytecode: ExchangeBridge.bytecode, args: [token, 0n, 0n, domain.exchangeChainId, domain.genesisHash, validators, powers, owners, threshold] }),
    );
    const d: BridgeDomain = { ...domain, bridge };
    const tokenCall = async (functionName: string, args: unknown[]): Promise<void> => {
      const hash = await wallet(deployer).writeContract({ address: token, abi: hostile.abi, functionName, args } as never);
      expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
    };
    const tokenRead = async (functionName: string, args: unknown[] = []): Promise<bigint> =>
      (await pub.readContract({ address: token, abi: hostile.abi, functionName, args } as never)) as bigint;
    await tokenCall('mint', [bridge, 100n]);
    const to = getAddress('0x000000000000000000000000000000000000beef');
    for (const id of [0n, 1n, 2n]) {
      await bridgeCall(deployer, 'queueWithdrawal', [id, to, 10n, VALID_UNTIL, await signAll(validatorKeys.slice(0, 5), withdrawalDigest(d, id, to, 10n, VALID_UNTIL))], bridge);
    }
    // Paying 0, the token re-enters to pay 0 again: refused (already marked paid, and the guard).
    await tokenCall('configure', [bridge, 1n, false]);
    await bridgeCall(deployer, 'executeWithdrawal', [0n], bridge);
    // Paying 1, it re-enters to pay 2 meanwhile: the guard refuses.
    await tokenCall('configure', [bridge, 3n, false]);
    await bridgeCall(deployer, 'executeWithdrawal', [1n], bridge);
    expect(await tokenRead('reentryAttempts')).toBe(2n);
    expect(await tokenRead('reentrySuccesses')).toBe(0n);
    expect(await tokenRead('balanceOf', [to])).toBe(20n);
    expect(await tokenRead('balanceOf', [bridge])).toBe(80n);
    // A token answering false: the payout and a deposit are refused, withdrawal 2 stays queued.
    await tokenCall('configure', [bridge, 0n, true]);
    await expect(bridgeCall(deployer, 'executeWithdrawal', [2n], bridge)).rejects.toThrow(/TokenCallFailed/);
    await tokenCall('mint', [deployer, 5n]);
    await expect(bridgeCall(deployer, 'deposit', [deployer, 5n], bridge)).rejects.toThrow(/TokenCallFailed/);
    expect(await read<bigint>('nextDepositId', [], bridge)).toBe(0n);
    expect((await read<[Address, bigint, number, bigint, bigint]>('withdrawals', [2n], bridge))[2]).toBe(1); // still Queued
    expect(await tokenRead('balanceOf', [to])).toBe(20n);
  });
});
